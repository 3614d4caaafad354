// The calling thread's tracking state for Tether's dependency tracking, in a C thread-local
// variable: Swift has no thread-local storage of its own, and `pthread_getspecific` is a call,
// where this is one load from the thread pointer (initial-exec model: Tether is linked into the
// program, or into a library the program loads at start).
#ifndef TETHER_THREAD_H
#define TETHER_THREAD_H

extern __thread void *_Nullable tether_tracking_state __attribute__((tls_model("initial-exec")));

/// The calling thread's tracking state (a `_TrackingState`), or NULL before its first use.
static inline void *_Nullable tether_tracking_state_get(void) {
    return tether_tracking_state;
}

/// Sets the calling thread's tracking state (NULL when its thread exits).
static inline void tether_tracking_state_set(void *_Nullable state) {
    tether_tracking_state = state;
}

#endif
