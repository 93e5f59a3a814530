#pragma once
// The memory-bound kernels of transformers' modules under torch.compile (implementation.compile): TorchInductor fuses
// each op chain that eager PyTorch runs kernel by kernel (graph/eager_kernels.h) into one generated Triton kernel
// that reads the chain's inputs once and writes only what leaves it (torch/_inductor/scheduler.py: pointwise and
// reduction nodes fuse vertically; matmuls and attention stay library calls, extern kernels). Bytes per element
// below, as in eager_kernels.h: a the training dtype, u fp32 under autocast (else a). Matmuls, attention kernels,
// embeddings and bias reductions are what eager runs.
#include "graph/blocks.h"

namespace shardcalc::compiled {

// autocast's weight cast, now inside the graph: forward as eager; backward rebuilds the 16-bit weight for the data
// gradient (the partitioner saves no copy of it) beside AccumulateGrad's add into .grad.
Work weight_cast(const BuildContext& b, int64_t numel, bool sharded);
// LayerNorm and RMSNorm alike: one persistent-reduction kernel forward; backward the input gradient and the
// weight's reduction over the tokens.
Work norm(const BuildContext& b, int64_t width);
// autocast's cast of a linear's fp32 input: fused into the kernel that produces the input (no launch, no bytes).
Work input_cast(const BuildContext& b, SavedSplit split, int64_t width);
// The gradients of one input read by several projections: summed inside the next backward kernel (reads only).
Work grad_sum(const BuildContext& b, int64_t width, int extra_consumers);
// The residual add, fused into the norm that reads its sum next.
Work residual_add(const BuildContext& b, int64_t width);
// Any activation, gated or not (GELU's tanh form, SiLU times up): one kernel each way.
Work activation(const BuildContext& b, int64_t width, bool gated);
// The attention output's transpose back to [tokens, heads x head_dim] before the output projection: one copy each
// way (q, k and v's layouts fold into the kernels that write them).
Work output_layout(const BuildContext& b, int64_t width);
Work rope(const BuildContext& b, int64_t width);
// Eager attention's scale, mask, fp32 softmax, cast and dropout over the scores: one kernel each way.
Work score_softmax(const BuildContext& b);
// Gemma 2's score soft-cap, fused into the softmax's kernels: only the tanh output it keeps is written and read.
Work score_softcap(const BuildContext& b);
// The causal-LM or MLM loss over the 16-bit logits: an online log-sum-exp forward, the logit gradient backward.
Work cross_entropy(const BuildContext& b);

}  // namespace shardcalc::compiled
