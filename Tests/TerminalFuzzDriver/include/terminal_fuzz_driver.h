// libFuzzer's driver, called by `terminal-fuzz`'s main when it is built for fuzzing
// (`TETHER_FUZZ=1`): libFuzzer then calls `callback` with each input it makes.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
