#pragma once
// What one pipeline stage holds, before it is placed in time, and the moments of its step (docs/memory.md "Memory over
// the step"): memory/memory.cpp builds them; XLA's program (memory/xla_stage.cpp) reshapes the parts it compiles.
#include <vector>

#include "memory/memory.h"
#include "memory/model_states.h"

namespace shardcalc {

struct StageParts {
    StateBytes states;
    double grads_at_start = 0;     // gradients allocated before the step's first backward (a gradient buffer)
    double grads_in_forward = 0;   // gradients already allocated while the peak microbatch runs forward
    double activations_all = 0;    // saved by every in-flight microbatch (layers, embeddings, head)
    double activations_one = 0;    // saved by the one microbatch whose backward runs first
    double loss_saved = 0;         // loss tensors saved for backward (last stage)
    double loss_forward_temp = 0, loss_backward_temp = 0;
    double layer_backward_temp = 0;
    double comm_buffers = 0, cast_weights = 0, workspace = 0;
};

// The moments of one step on one stage: step start, end of forward, the loss's backward (`has_loss`), a layer's
// backward, the optimizer step; into `t`.
void step_timeline(const StageParts& p, bool has_loss, MemoryTimeline& t);
// The largest allocated total of those moments.
double peak_allocated(const MemoryTimeline& timeline);

}  // namespace shardcalc
