// Which actor runs the calling code, asked of the Swift concurrency runtime. A model made on
// an actor belongs to that actor, whatever thread its executor runs it on across suspension
// points, so Tether compares executors, not threads, for such a model. Swift's public API
// answers the question only by trapping (`preconditionIsolated`, `assumeIsolated`); these
// functions return the answer.
#ifndef TETHER_EXECUTOR_H
#define TETHER_EXECUTOR_H

#include <stdbool.h>
#include <stdint.h>

/// The identity of the serial executor running the calling code: the actor object for a
/// default actor, the main actor's executor for main-actor code; 0 outside any actor.
uintptr_t tether_current_executor_identity(void);

/// The identity of the main actor's executor.
uintptr_t tether_main_executor_identity(void);

/// Whether the calling code runs on the main actor: in a main-actor task, or on the main thread
/// (where the main actor's jobs run, and the run loop's and main queue's callbacks).
bool tether_main_executor_is_current(void);

/// The main thread's id (`tether_thread_id()` on the thread that ran the program's initialisers).
uintptr_t tether_main_thread_id(void);

/// Whether the calling code runs on the actor whose owner word is `owner` (an executor identity
/// with bit 0 set, and bit 1 set for a model of a global actor; see TetherSignals' `_Owner`).
/// Declared `pure`: it reads the runtime's state and changes nothing.
__attribute__((pure)) bool tether_owner_is_current_actor(uintptr_t owner);

#endif
