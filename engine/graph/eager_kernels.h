#pragma once
// The memory-bound kernels Hugging Face modules launch when eager PyTorch runs them op by op:
// the HBM bytes each op chain moves per element, in the dtypes it really uses, and how many
// kernels it launches, forward and backward. Counted from the modules' forward code and
// autograd's backward formulas (torch/csrc/autograd/derivatives.yaml); the totals are checked
// against profiled runs in validation/measured. Megatron's fused kernels are described in
// blocks.cpp, attention.cpp, mlp.cpp and loss.cpp beside the ops that use them.
#include "graph/blocks.h"

namespace shardcalc::eager {

// Once per microbatch per weight matrix under autocast: its 16-bit cast for the matmul, and in backward
// the 16-bit weight gradient accumulated into the fp32 .grad.
Work weight_cast(const BuildContext& b, int64_t numel, bool sharded);
Work layer_norm(const BuildContext& b, int64_t width);
Work rms_norm(const BuildContext& b, int64_t width);
// torch.autocast's cast of an fp32 input to the 16-bit matmul dtype, and of its gradient back.
Work input_cast(const BuildContext& b, SavedSplit split, int64_t width);
// The gradient of a bias: a reduction of the output gradient over the tokens.
Work bias_grad(const BuildContext& b, SavedSplit split, int64_t width);
// Gradients of one input used by several projections (q/k/v, gate/up) are summed.
Work grad_sum(const BuildContext& b, int64_t width, int extra_consumers);
Work residual_add(const BuildContext& b, int64_t width);
Work gelu_new(const BuildContext& b, int64_t width);
Work glu(const BuildContext& b, int64_t width);
Work pointwise_activation(const BuildContext& b, int64_t width);
// transpose(1, 2) to and from heads and the .contiguous() copies around attention.
Work head_layout(const BuildContext& b, int64_t width, int tensors);
Work rope(const BuildContext& b, int64_t width);
// Row masks over [rows of `split`, width] elements of `element_bytes` (transformers 5's grouped experts zero their
// sentinel rows): `in_place` masked_fill_ and `out_of_place` masked_fill calls, forward and on the gradients.
Work masked_fill(double element_bytes, SavedSplit split, int64_t width, int in_place, int out_of_place);
// transformers' mixture-of-experts routing (MixtralTopKRouter, integrations/moe.py grouped_mm_experts_forward), op
// by op: the router's softmax and top-k per [tokens, experts]; the sort, counts and index bookkeeping per routed
// copy; the routed copies' gather, routing-weight product, and return to token order summed over the top-k, per
// [routed copies, hidden] element of `element_bytes`.
Work topk_router(const BuildContext& b, int64_t experts);
Work expert_sort(const BuildContext& b);
Work token_gather(double element_bytes, int64_t width, int64_t top_k);
Work routing_weight_product(double element_bytes, int64_t width);
Work token_unpermute_sum(double element_bytes, int64_t width, int64_t top_k);
// batched_mm's return: the routed rows summed over each token's top-k (per [routed copies, hidden] element).
Work top_k_sum(double element_bytes, int64_t width, int64_t top_k);
// batched_mm's gathered expert weights: each routed row's copy of its expert's [out, in] (per element of it), from
// the parameters' dtype into the dtype torch.bmm multiplies in.
Work weight_gather(double param_bytes, double compute_bytes, int64_t width);
// transformers' eager experts: the Python loop's routing ops per [routed copies, hidden] element, and each expert
// parameter's gradients through its per-expert selects (the whole [experts, out, in] per expert), per element of it.
Work expert_loop(const BuildContext& b, int64_t width, int64_t experts, int64_t top_k);
Work select_gradients(double param_bytes, int64_t experts, int64_t numel);
// gpt-oss's clamped SwiGLU op by op (GptOssExperts._apply_gate), per f-wide element of the routed rows.
Work clamped_swiglu(double element_bytes, int64_t width);
// A biased expert GEMM's bias in transformers' grouped experts: gathered per routed row and added, per output element.
Work expert_bias(double element_bytes, SavedSplit split, int64_t width);
// Eager attention: scale, mask, softmax in fp32, cast back, per score element.
Work score_softmax(const BuildContext& b);
Work cross_entropy(const BuildContext& b);
Work embedding(const BuildContext& b, int64_t width, int lookups);

}  // namespace shardcalc::eager
