// The process-wide switch of Tether's Observation bridge (`ObservationBridge.isEnabled`), in a C
// global: a getter of a tracked property reads it with one relaxed load and no call (a Swift
// global of another module is reached through an accessor call, and a field pointing at a
// shared object costs every model a word).
#ifndef TETHER_BRIDGE_H
#define TETHER_BRIDGE_H

#include <stdbool.h>

extern int tether_observation_bridge;

/// Whether the Observation bridge is on (it is until switched off).
static inline bool tether_observation_bridge_get(void) {
    return __atomic_load_n(&tether_observation_bridge, __ATOMIC_RELAXED) != 0;
}

/// Switches the Observation bridge on or off, for every thread.
static inline void tether_observation_bridge_set(bool on) {
    __atomic_store_n(&tether_observation_bridge, on ? 1 : 0, __ATOMIC_RELAXED);
}

#endif
