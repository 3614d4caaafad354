// The calling thread's tracking state for Tether's dependency tracking, in C thread-local
// variables: Swift has no thread-local storage of its own, and `pthread_getspecific` is a call,
// where each of these is one load from the thread pointer (initial-exec model: Tether is linked
// into the program, or into a library the program loads at start).
#ifndef TETHER_THREAD_H
#define TETHER_THREAD_H

#include <sched.h>
#include <stdint.h>

extern __thread void *_Nullable tether_tracking_state __attribute__((tls_model("initial-exec")));
extern __thread void *_Nullable tether_recording __attribute__((tls_model("initial-exec")));
extern __thread long tether_batch_depth __attribute__((tls_model("initial-exec")));
extern __thread long tether_transaction_depth __attribute__((tls_model("initial-exec")));
extern __thread long tether_release_depth __attribute__((tls_model("initial-exec")));
extern __thread uintptr_t tether_making_owner __attribute__((tls_model("initial-exec")));

/// The calling thread's tracking state (a `_TrackingState`), or NULL before its first use.
static inline void *_Nullable tether_tracking_state_get(void) {
    return tether_tracking_state;
}

/// Sets the calling thread's tracking state (NULL when its thread exits).
static inline void tether_tracking_state_set(void *_Nullable state) {
    tether_tracking_state = state;
}

/// The recording (a `_Recording`) of the innermost evaluation running on the calling thread,
/// or NULL (no evaluation, or Tether reading for itself inside one).
static inline void *_Nullable tether_recording_get(void) {
    return tether_recording;
}

static inline void tether_recording_set(void *_Nullable recording) {
    tether_recording = recording;
}

/// How many batches (Tether's `_ThreadContext.batch`) are running on the calling thread.
static inline long tether_batch_depth_get(void) {
    return tether_batch_depth;
}

static inline void tether_batch_depth_set(long depth) {
    tether_batch_depth = depth;
}

/// How many transactions (Tether's `transaction(_:)`) are open on the calling thread.
static inline long tether_transaction_depth_get(void) {
    return tether_transaction_depth;
}

static inline void tether_transaction_depth_set(long depth) {
    tether_transaction_depth = depth;
}

/// The owner word of the models this thread makes now, if it makes them for another thread's
/// code (0: the owner is whoever makes them; see Tether's `ModelRegistrar.making(ownedBy:_:)`).
static inline uintptr_t tether_making_owner_get(void) {
    return tether_making_owner;
}

static inline void tether_making_owner_set(uintptr_t owner) {
    tether_making_owner = owner;
}

/// The calling thread's id: the address of one of its thread-local variables, unique among the
/// threads alive, read without a call (where `pthread_self()` is a call through the PLT). It is
/// 8-byte aligned, so its low bits are clear, as TetherSignals' `_Owner` words need.
static inline uintptr_t tether_thread_id(void) {
    return (uintptr_t)&tether_batch_depth;
}

/// How many subjects are delivering, on the calling thread, the completion they send because
/// they were freed (TetherSignals' `_SubjectRelease`).
static inline long tether_release_depth_get(void) {
    return tether_release_depth;
}

static inline void tether_release_depth_set(long depth) {
    tether_release_depth = depth;
}

/// Tells the processor that the calling thread is spinning (x86's `pause`, ARM's `yield`): it
/// lets the other hyperthread run and makes leaving the loop cheaper.
static inline void tether_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield");
#endif
}

/// Gives the processor to another thread that is ready to run, if any.
static inline void tether_thread_yield(void) {
    sched_yield();
}

#endif
