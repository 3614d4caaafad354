#include "tether_bridge.h"

int tether_observation_bridge = 1;
