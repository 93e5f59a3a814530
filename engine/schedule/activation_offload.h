#pragma once
// The time the host link adds to a microbatch when activations are offloaded (training.activation_offload_layers):
// what the copies to host memory and back cannot hide behind the layers' compute.
#include "compute/stage_cost.h"
#include "memory/memory.h"

namespace shardcalc {

struct OffloadExposed {
    double forward = 0;   // seconds per microbatch the forward pass waits for copies to the host
    double backward = 0;  // seconds per microbatch the backward pass waits for copies back
};

OffloadExposed activation_offload_exposed(const Config& c, const StageCompute& sc, const StageMemory& m);

}  // namespace shardcalc
