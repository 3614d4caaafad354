#include "tether_executor.h"
#include "tether_thread.h"

#include <pthread.h>

// A serial executor reference as the Swift runtime passes it (`SerialExecutorRef`): the
// executor's identity and its implementation's witness table. The functions below are exported
// entry points of the runtime's stable ABI (since Swift 5.5), which code the compiler emits
// calls for executor hops. They use the Swift calling convention, and Swift source may not
// declare these names (they are reserved for the compiler's own use), hence C.
typedef struct {
    uintptr_t identity;
    uintptr_t implementation;
} tether_executor_ref;

__attribute__((swiftcall)) extern tether_executor_ref swift_task_getCurrentExecutor(void);
__attribute__((swiftcall)) extern tether_executor_ref swift_task_getMainExecutor(void);

/// The main thread: the thread that runs the program's initialisers, this one included (Tether
/// is linked into the program or into a library loaded at start; see `tether_thread.h`).
static pthread_t main_thread;
static uintptr_t main_thread_id;

__attribute__((constructor)) static void tether_record_main_thread(void) {
    main_thread = pthread_self();
    main_thread_id = tether_thread_id();
}

uintptr_t tether_main_thread_id(void) {
    return main_thread_id;
}

uintptr_t tether_current_executor_identity(void) {
    return swift_task_getCurrentExecutor().identity;
}

uintptr_t tether_main_executor_identity(void) {
    return swift_task_getMainExecutor().identity;
}

bool tether_main_executor_is_current(void) {
    // `swift_task_isCurrentExecutor` would answer too, but it stops the process instead of
    // answering no for the main actor off the main thread (the runtime's strict mode).
    return pthread_equal(pthread_self(), main_thread)
        || swift_task_getCurrentExecutor().identity == swift_task_getMainExecutor().identity;
}

bool tether_owner_is_current_actor(uintptr_t owner) {
    uintptr_t actor = owner & ~(uintptr_t)2;
    uintptr_t current = swift_task_getCurrentExecutor().identity;
    if (current != 0 && (current | 1) == actor) return true;
    // The main actor also runs code outside any task: the main queue's and the run loop's
    // callbacks on the main thread.
    uintptr_t main = swift_task_getMainExecutor().identity | 1;
    return actor == main && pthread_equal(pthread_self(), main_thread);
}
