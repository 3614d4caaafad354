#ifndef CMALLOCINFO_H
#define CMALLOCINFO_H
#include <stddef.h>

/// Bytes in chunks glibc's malloc has handed out and not yet had back: mallinfo2's uordblks
/// (from the heap) plus hblkhd (mmapped chunks).
size_t tether_malloc_live_bytes(void);

#endif
