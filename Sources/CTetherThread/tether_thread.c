#include "tether_thread.h"

__thread void *tether_tracking_state __attribute__((tls_model("initial-exec"))) = 0;
__thread void *tether_recording __attribute__((tls_model("initial-exec"))) = 0;
__thread long tether_batch_depth __attribute__((tls_model("initial-exec"))) = 0;
__thread long tether_transaction_depth __attribute__((tls_model("initial-exec"))) = 0;
__thread long tether_release_depth __attribute__((tls_model("initial-exec"))) = 0;
__thread uintptr_t tether_making_owner __attribute__((tls_model("initial-exec"))) = 0;
