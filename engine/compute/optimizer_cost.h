#pragma once
// The optimizer step's kernels on one device, after the pipeline drains: gradient clipping by the global
// norm (when the run clips) and the update itself. Both are memory-bound passes over the parameters this
// device updates (its ZeRO / distributed-optimizer shard); with the optimizer offloaded the update runs on
// the host instead (host_seconds).
#include "compute/roofline.h"

namespace shardcalc {

struct OptimizerKernels {
    Kernel clip;               // norm of the gradient, then its scaling
    Kernel apply;              // the update on the device (empty when offloaded)
    double host_seconds = 0;   // ZeRO-Offload: PCIe traffic and CPU-Adam's pass over host memory
    double seconds() const { return clip.seconds + apply.seconds + host_seconds; }
};

// The trained tensors an optimizer looping over them one by one sees (transformers' Adafactor): matrices (two or more
// dimensions, which it factors) and their parameters, and vectors.
struct TrainedTensors {
    double matrices = 0, matrix_params = 0, vectors = 0;
};

// `params`: the parameters this device updates; `state_bytes`: its optimizer states (and master copy);
// `host_bytes`: what the host keeps for it under optimizer offload; `trained`: the trained parameters the device holds
// (whose gradient buffer Megatron zeroes every step, whatever shard of them it updates).
OptimizerKernels optimizer_kernels(const Config& c, double params, double state_bytes, double host_bytes,
                                   const TrainedTensors& tensors = {}, double trained = 0);

}  // namespace shardcalc
