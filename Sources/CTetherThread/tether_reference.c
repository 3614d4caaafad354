#include "tether_reference.h"

#include <stddef.h>

// The Swift runtime's entry points (libswiftCore), with the C calling convention.
// `swift_tryRetain` returns the object it retained, or NULL.
extern void *swift_unownedRetain(void *object);
extern void swift_unownedRelease(void *object);
extern void *swift_tryRetain(void *object);
extern bool swift_isDeallocating(void *object);

void tether_reference_retain(void *object) { swift_unownedRetain(object); }

void tether_reference_release(void *object) { swift_unownedRelease(object); }

bool tether_reference_try_retain(void *object) { return swift_tryRetain(object) != NULL; }

bool tether_reference_has_ended(void *object) { return swift_isDeallocating(object); }
