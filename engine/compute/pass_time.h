#pragma once
// How long one pass (a microbatch's forward, or its backward with any recompute) holds a device: its kernels' time,
// or the host's time issuing them where eager PyTorch's host work is the slower. What the step is made of
// (schedule/step.cpp), and the window a collective overlapped with the pass can hide in (comm/data_comm.cpp).
#include "compute/stage_cost.h"

namespace shardcalc {

// `calls`: the collectives the host issues in the pass (a call through torch.distributed costs host work like a launch).
double forward_pass_seconds(const Kernel& k, double calls, const Config& c);
double backward_pass_seconds(const Kernel& k, double calls, const Config& c);
// A stage's backward kernels: its backward and, inside it, any recompute.
Kernel backward_kernels(const StageCompute& sc);
// The host's time issuing one microbatch's forward pass of a stage: its launches (not those a library makes inside
// one op) at the host's cost per launch; no forward pass is shorter. (The backward's launches per microbatch include
// gradient handling spread over the step's microbatches, which depends on the plan.)
double host_forward_seconds(const StageCompute& sc, const Config& c);

}  // namespace shardcalc
