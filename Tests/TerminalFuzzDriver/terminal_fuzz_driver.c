// The declaration is all: libFuzzer (linked with -sanitize=fuzzer) defines LLVMFuzzerRunDriver.
#include "terminal_fuzz_driver.h"
