// References to Swift objects that neither keep them alive nor give them a side table, for the
// store's identity map, through the Swift runtime's reference-counting entry points.
//
// A `weak` reference makes the runtime allocate a side table for the object (its reference
// counts move there), and every later retain and release of the object takes a slower path
// through it. An unowned count lives in the object's own header instead: it keeps the object's
// memory (not its value) until the count is dropped, so `tether_reference_try_retain` can ask
// whether the object is still alive, safely, from any thread.
//
// `swift_unownedRetain`, `swift_unownedRelease`, `swift_tryRetain` and `swift_isDeallocating`
// are part of the Swift runtime's ABI (exported by libswiftCore; the compiler calls the first
// two for every `unowned` reference). They apply to native Swift objects, which every object
// is on Linux.
#ifndef TETHER_REFERENCE_H
#define TETHER_REFERENCE_H

#include <stdbool.h>

/// Takes an unowned count of `object`: its memory stays valid until `tether_reference_release`.
void tether_reference_retain(void *_Nonnull object);

/// Drops an unowned count taken by `tether_reference_retain` (frees the memory of an object
/// that has ended, if this was the last).
void tether_reference_release(void *_Nonnull object);

/// Takes a strong reference to `object` if it is still alive (its deinitialisation has not
/// begun); returns whether it did. `object` must be held by an unowned count.
bool tether_reference_try_retain(void *_Nonnull object);

/// Whether `object` has ended (its deinitialisation has begun). `object` must be held by an
/// unowned count.
bool tether_reference_has_ended(void *_Nonnull object);

#endif
