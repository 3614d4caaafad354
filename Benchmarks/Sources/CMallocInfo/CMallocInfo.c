#include "CMallocInfo.h"
#include <malloc.h>

size_t tether_malloc_live_bytes(void) {
    struct mallinfo2 info = mallinfo2();
    // Chunks in use from the heap, plus chunks glibc took straight from mmap (large ones,
    // such as the buffer of a long array).
    return info.uordblks + info.hblkhd;
}
