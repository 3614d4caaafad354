#include "tether_executor.h"

// A serial executor reference as the Swift runtime passes it (`SerialExecutorRef`): the
// executor's identity and its implementation's witness table. The functions below are exported
// entry points of the runtime's stable ABI (since Swift 5.5); the standard library's
// `assumeIsolated`, which is emitted into every client that calls it, calls
// `swift_task_isCurrentExecutor` the same way. They use the Swift calling convention, and Swift
// source may not declare these names (they are reserved for the compiler's own use), hence C.
typedef struct {
    uintptr_t identity;
    uintptr_t implementation;
} tether_executor_ref;

__attribute__((swiftcall)) extern tether_executor_ref swift_task_getCurrentExecutor(void);
__attribute__((swiftcall)) extern tether_executor_ref swift_task_getMainExecutor(void);
__attribute__((swiftcall)) extern bool swift_task_isCurrentExecutor(tether_executor_ref executor);

uintptr_t tether_current_executor_identity(void) {
    return swift_task_getCurrentExecutor().identity;
}

uintptr_t tether_main_executor_identity(void) {
    return swift_task_getMainExecutor().identity;
}

bool tether_main_executor_is_current(void) {
    return swift_task_isCurrentExecutor(swift_task_getMainExecutor());
}
