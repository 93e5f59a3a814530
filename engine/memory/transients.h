#pragma once
// Temporaries of the step beyond what forward saves: one layer's backward (its recompute and the gradients of its
// largest saved tensor), Megatron's allgather dispatch buffer, transformers' eager experts' select gradients.
#include "graph/op.h"
#include "memory/memory_memo.h"
#include "plan/plan.h"
#include "scenario/resolve.h"

namespace shardcalc {

// Megatron's allgather dispatcher, per MoE layer and microbatch: the gathered hidden states of the expert group.
double allgather_dispatch_bytes(const Config& c);
// transformers' eager experts: a whole-parameter select gradient and the buffer summing them, at once.
double select_gradient_bytes(const Config& c);
// The largest of a stage's layers' backward temporaries.
double layer_backward_transient(const Config& c, const ModelGraph& g, const StagePlan& st, const LayerFigures& layers);

}  // namespace shardcalc
