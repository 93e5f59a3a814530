#include "graph/eager_kernels.h"

namespace shardcalc::eager {

Work weight_cast(const BuildContext& b, int64_t numel, bool sharded) {
    const double a = b.act_bytes;
    // Forward: to(bf16) r 4 w a. Backward: AccumulateGrad adds the 16-bit gradient into the fp32 .grad
    // r a+4 w 4.
    Work w = elementwise(numel, SavedSplit::Sequence, 4 + a, 1, a + 8, 1);
    w.per_weight = true;
    w.sharded = sharded;
    w.param_grad_backward = true;
    return w;
}

// a: bytes of the training dtype; u: fp32 under autocast, else a. "r x w y" below: reads x, writes y
// bytes per element.

Work layer_norm(const BuildContext& b, int64_t width) {
    const double u = b.up_bytes;
    // aten::native_layer_norm: r u w u. Backward: layer_norm_backward r 2u w u, plus the gamma/beta
    // reduction kernel (GammaBetaBackward) r 2u.
    return elementwise(width, SavedSplit::Sequence, 2 * u, 1, 5 * u, 2);
}

Work rms_norm(const BuildContext& b, int64_t width) {
    const double u = b.up_bytes;
    const double upcast = u < 4 ? u + 4 : 0;    // x.to(float32) when the stream is 16-bit
    const double downcast = u < 4 ? 4 + u : 0;  // .to(input_dtype)
    // LlamaRMSNorm.forward, 6 kernels (+ the casts): pow r4 w4, mean r4, add eps and rsqrt on the per-token
    // variance (negligible bytes), x * rsqrt r4 w4, weight * h r u w u. Backward, 12 kernels: the weight
    // product's input gradient and weight gradient (mul and sum), x * rsqrt's two gradients (mul; mul and
    // sum), rsqrt's and pow's gradients, mean's expand, the sum of x's two gradients; about 5 full passes of
    // r 8 w 4 and two of r 2u w u.
    const int casts = u < 4 ? 2 : 0;
    return elementwise(width, SavedSplit::Sequence, upcast + 8 + 4 + 8 + downcast + 2 * u, 6 + casts,
                 2 * 3 * u + 5 * 12 + upcast + downcast, 12 + casts);
}

Work input_cast(const BuildContext& b, SavedSplit split, int64_t width) {
    const double a = b.act_bytes;
    // to(bf16) r 4 w a forward, the gradient's to(fp32) r a w 4 backward.
    return elementwise(width, split, 4 + a, 1, a + 4, 1);
}

Work bias_grad(const BuildContext& b, SavedSplit split, int64_t width) {
    // sum of the output gradient over the tokens: r a.
    Work w = elementwise(width, split, 0, 0, b.act_bytes, 1);
    w.param_grad_backward = true;
    return w;
}

Work grad_sum(const BuildContext& b, int64_t width, int extra_consumers) {
    // autograd accumulates the input gradients of each extra consumer: add r 2u w u.
    return elementwise(width, SavedSplit::Sequence, 0, 0, 3 * b.up_bytes * extra_consumers, extra_consumers);
}

Work residual_add(const BuildContext& b, int64_t width) {
    const double a = b.act_bytes, u = b.up_bytes;
    // Forward: nn.Dropout r a w a+1 (with dropout), the residual add r a+u w u. Backward: dropout's mask
    // product, the 16-bit cast of the stream's gradient for the branch (autocast), the gradient sum where
    // the residual and the norm's input gradient meet r 2u w u.
    const double drop = b.dropout ? 2 * a + 1 : 0;
    const double cast = u != a ? u + a : 0;
    return elementwise(width, SavedSplit::Sequence, drop + a + 2 * u, b.dropout ? 2 : 1, drop + cast + 3 * u,
                 (b.dropout ? 1 : 0) + (u != a ? 1 : 0) + 1);
}

Work gelu_new(const BuildContext& b, int64_t width) {
    const double a = b.act_bytes, u = b.up_bytes;
    // NewGELUActivation: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * pow(x, 3)))). Forward, 9 kernels:
    // pow r u w u (after autocast's cast r a w 4), mul r u w u, add r a+u w u, mul r u w u, tanh r u w u,
    // add r u w u, 0.5*x r a w a, the product r a+u w u. Backward, 14 kernels: the product's two gradients
    // (r 2u w u each), tanh's (r 2u w u), the two constant muls (r u w u each), pow's (about r 2u w u and
    // one more mul), the cast back, 0.5*x's, and the three gradient sums into x (r 2a w a each).
    const double cast = u != a ? a + 4 : 0;
    return elementwise(width, SavedSplit::Tensor, cast + 14 * u + 4 * a, 8 + (u != a ? 1 : 0), 24 * u + 9 * a, 14);
}

Work glu(const BuildContext& b, int64_t width) {
    const double a = b.act_bytes;
    // act_fn(gate) * up: silu r a w a, mul r 2a w a. Backward: the product's two gradients (r 2a w a each),
    // silu's r 2a w a.
    return elementwise(width, SavedSplit::Tensor, 5 * a, 2, 9 * a, 3);
}

Work pointwise_activation(const BuildContext& b, int64_t width) {
    const double a = b.act_bytes;
    // One fused kernel (F.gelu, gelu_pytorch_tanh, relu): r a w a; backward r 2a w a.
    return elementwise(width, SavedSplit::Tensor, 2 * a, 1, 3 * a, 1);
}

Work head_layout(const BuildContext& b, int64_t width, int tensors) {
    const double a = b.act_bytes;
    // view + transpose(1, 2) leaves q, k, v strided and the attention output is transposed back: each
    // strided tensor is made contiguous, r a w a per element, one copy per tensor forward and backward.
    return elementwise(width, SavedSplit::Tensor, 2 * a, tensors, 2 * a, tensors);
}

Work rope(const BuildContext& b, int64_t width) {
    const double a = b.act_bytes;
    // apply_rotary_pos_emb on q and on k: x * cos r a w a, rotate_half (neg r a w a, cat r a w a), * sin
    // r a w a, add r 2a w a: 5 kernels each. Backward, 6 each: the two products' gradients, the slices'
    // gradients written into zeros and summed, neg's.
    return elementwise(width, SavedSplit::Tensor, 11 * a, 10, 13 * a, 12);
}

Work masked_fill(double element_bytes, SavedSplit split, int64_t width, int in_place, int out_of_place) {
    // masked_fill_ with a row mask: r e w e per element (the [rows, 1] mask is negligible); out of place ATen clones
    // first (a copy, r e w e, then the fill). The backward of either is an out-of-place masked_fill of the gradient
    // (derivatives.yaml: grad.masked_fill(mask, 0)). Profiled: two masked_fill_ and two copy_ of [S, 2f] and four
    // and four of [S, h] per layer.
    const double e = element_bytes;
    const int calls = in_place + out_of_place;
    return elementwise(width, split, (2 * in_place + 4 * out_of_place) * e, in_place + 2 * out_of_place, 4 * calls * e, 2 * calls);
}

Work topk_router(const BuildContext& b, int64_t experts) {
    const double a = b.act_bytes;
    const bool upcast = a < 4;
    // Per [tokens, experts] element (MixtralTopKRouter.forward and its kin: softmax(logits.float()), topk,
    // top_value /= top_value.sum()): the cast r a w 4 (16-bit logits), softmax r 4 w 4, topk r 4 (gatherTopK, then
    // the k winners sorted), the sum and the in-place division over [tokens, k]. Backward (derivatives.yaml): the
    // division's two gradients (grad / s; -grad * x / s^2 and its reduction to s), the sum's gradient added in,
    // topk's (a zeroed [tokens, experts], memset w 4, and a scatter), softmax's r 8 w 4, the cast back r 4 w a.
    return elementwise(experts, SavedSplit::Sequence, (upcast ? a + 4 : 0) + 12, (upcast ? 1 : 0) + 5, 4 + 12 + (upcast ? 4 + a : 0),
                 (upcast ? 1 : 0) + 8);
}

namespace {

// A radix sort of int64 keys with int64 indices on the GPU, over more rows than one block sorts (aten Sort.cpp,
// Indexing.cu; cub DeviceRadixSort onesweep): the keys copied out (or the linear index computed) and the indices
// filled (r 8 w 16), cub's histogram (r 8) and exclusive sum, then one onesweep pass per 8 key bits, each reading
// and writing keys and values (r 16 w 16).
struct SortCost {
    double bytes;
    int kernels;
};
constexpr SortCost radix_sort(int key_bits) {
    const int passes = (key_bits + 7) / 8;
    return {24.0 + 8.0 + 32.0 * passes, 4 + passes};
}

}  // namespace

Work expert_sort(const BuildContext&) {
    // grouped_mm_experts_forward's bookkeeping per routed copy (S = tokens x top-k rows), forward: sort of the
    // expert ids (all 64 key bits), perm // top_k r 8 w 8, the weights gathered in expert order r 12 w 4,
    // .int() r 8 w 4, histc r 4 (its bins zeroed by a memset), cumsum of the counts (one small scan), the sentinel
    // test r 8 w 1, clamp_ r 8 w 8, arange w 8 and inv_perm[perm] = arange r 16 w 8.
    constexpr SortCost ids = radix_sort(64);
    // Backward: every indexed read's gradient is index_put_ with accumulate (derivatives.yaml index_backward), which
    // sorts its linear indices (aten Indexing.cu index_put_with_sort_kernel: a radix sort over the bits of the row
    // count, 2 passes for 512 to 65,536 rows) — three here: the tokens gathered, the weights gathered, the output put
    // back in token order; the weights' own scatter r 20 w 4 (and its zeroed [S], a memset w 4).
    constexpr SortCost rows = radix_sort(16);
    return elementwise(1, SavedSplit::Routed, ids.bytes + 16 + 16 + 12 + 4 + 9 + 16 + 8 + 24, ids.kernels + 9, 3 * rows.bytes + 24 + 4,
                 3 * rows.kernels + 1);
}

Work token_gather(double element_bytes, int64_t width, int64_t top_k) {
    const double e = element_bytes, k = static_cast<double>(top_k);
    // hidden_states[perm // top_k]: every routed copy's row read and written, r e w e. Backward: the token rows'
    // zeroed gradient (memset w e/k per copy) and indexing_backward_kernel adding each copy's gradient row into its
    // token's, r e and r e w e.
    return elementwise(width, SavedSplit::Routed, 2 * e, 1, 3 * e + e / k, 1);
}

Work routing_weight_product(double element_bytes, int64_t width) {
    const double e = element_bytes;
    // proj_out * sample_weights.unsqueeze(-1): r e w e. Backward: the output's gradient times the weight r e w e,
    // and the weight's gradient, grad * proj_out r 2e w e, reduced over the row r e.
    return elementwise(width, SavedSplit::Routed, 2 * e, 1, 6 * e, 3);
}

Work top_k_sum(double element_bytes, int64_t width, int64_t top_k) {
    const double e = element_bytes, k = static_cast<double>(top_k);
    // .view(tokens, k, h).sum(dim=1) r e w e/k; backward, the view's copy of the sum's expanded gradient r e/k w e.
    return elementwise(width, SavedSplit::Routed, e + e / k, 1, e / k + e, 1);
}

Work weight_gather(double param_bytes, double compute_bytes, int64_t width) {
    const double p = param_bytes, a = compute_bytes;
    const bool cast = p != a;
    constexpr SortCost rows = radix_sort(16);
    // batched_mm_experts_forward's self.gate_up_proj[expert_ids] (and down_proj's): each routed row's expert weight
    // copied out, r p w p per element, and under autocast cast for torch.bmm (r p w a). Backward: the cast's
    // gradient back (r a w p), then index_backward, index_put_ with accumulate into the [experts, out, in] gradient
    // (zeroed first): every row's gradient read and added into its expert's (r p, r p w p), after a sort of the row
    // indices (per routed row, spread over the width here).
    return elementwise(width, SavedSplit::Expert, 2 * p + (cast ? p + a : 0), cast ? 2 : 1,
                 (cast ? a + p : 0) + 3 * p + rows.bytes / static_cast<double>(width), (cast ? 1 : 0) + 1 + rows.kernels);
}

Work expert_loop(const BuildContext& b, int64_t width, int64_t experts, int64_t top_k) {
    const double u = b.up_bytes, a = b.act_bytes, share = static_cast<double>(experts) / static_cast<double>(top_k);
    const bool cast = u != a;
    constexpr SortCost rows = radix_sort(16);
    // transformers' eager experts (MixtralExperts.forward and its kin), per [routed copies, hidden] element in the
    // hidden stream's dtype u. Before the loop: one_hot of the top-k indices, the hits summed and compared, nonzero
    // (5 small kernels). Each expert, forward: the index test and torch.where's nonzero (3 small kernels),
    // hidden_states[token_idx] r u w u, its routing weight gathered and multiplied r 2u w u (2 kernels), index_add_
    // into the output r u, r u w u; under autocast the expert's output cast back r a w u. Backward: index_add_'s
    // gradient, an index_select r u w u; the product's two gradients r 2u w u and r 2u w u with the weight's
    // reduction r u, and the weights' index_put_ with accumulate (its sort); the gathered rows' index_put_ into a
    // zeroed [tokens, h] each expert (a memset: E/k bytes of u per copy over the loop), r u and r u w u, after its
    // sort; that gradient added into the input's, r 2u w u over [tokens, h] each expert; under autocast the cast's.
    const double fwd = 2 * u + 2 * u + 3 * u + (cast ? a + u : 0);
    const double bwd = 2 * u + 6 * u + 3 * u + share * u + 3 * u * share + (cast ? a + u : 0) + 2 * rows.bytes / static_cast<double>(width);
    const int per_fwd = 3 + 4 + (cast ? 1 : 0), per_bwd = 1 + 3 + rows.kernels + 1 + rows.kernels + 1 + (cast ? 1 : 0);
    return elementwise(width, SavedSplit::Routed, fwd, 5 + static_cast<int>(experts) * per_fwd, bwd, static_cast<int>(experts) * per_bwd);
}

Work select_gradients(double param_bytes, int64_t experts, int64_t numel) {
    const double p = param_bytes, n = static_cast<double>(experts);
    // The eager loop indexes the [experts, out, in] parameter once per expert (self.gate_up_proj[expert_idx], a
    // select). Each select's gradient is the whole parameter's shape, zeroed, with that expert's slice copied in
    // (derivatives.yaml select_backward: a memset w p per element of the whole, a copy r p w p of the slice), and
    // autograd sums the experts' gradients into one buffer (E - 1 adds of the whole, r 2p w p): (4E - 1) p bytes per
    // element of the parameter, 2E - 1 kernels, per microbatch.
    Work w = elementwise(numel, SavedSplit::Sequence, 0, 0, (4 * n - 1) * p, 2 * static_cast<int>(experts) - 1);
    w.per_weight = true;
    w.sharded = false;
    w.param_grad_backward = true;
    return w;
}

Work token_unpermute_sum(double element_bytes, int64_t width, int64_t top_k) {
    const double e = element_bytes, k = static_cast<double>(top_k);
    // weighted_out[inv_perm] r e w e, then .view(tokens, k, h).sum(dim=1) r e w e/k. Backward: the sum's gradient is
    // an expanded view that the view's backward copies out (r e/k w e), then index_backward: a zeroed [S, h]
    // (memset w e) and indexing_backward_kernel r e, r e w e (its index sort is counted in expert_sort).
    return elementwise(width, SavedSplit::Routed, 3 * e + e / k, 2, e / k + e + e + 3 * e, 2);
}

Work clamped_swiglu(double element_bytes, int64_t width) {
    const double e = element_bytes;
    // GptOssExperts._apply_gate over the interleaved gate/up output [S, 2f], per f-wide element: gate = gate_up[...,
    // ::2].clamp(max=limit) and up = gate_up[..., 1::2].clamp(-limit, limit), each reading the strided half through
    // whole sectors (r 2e w e); gate * alpha r e w e, sigmoid r e w e, gate * sigmoid r 2e w e, up + 1 r e w e, the
    // product r 2e w e. Backward (derivatives.yaml): the product's two gradients r 2e w e each, the up clamp's mask
    // r 3e w e, gate * sigmoid's two r 2e w e each, sigmoid's r 2e w e, the gain's r e w e, the gate's two
    // gradients summed r 2e w e, the gate clamp's mask r 3e w e, and each half's gradient written into a zeroed
    // [S, 2f] (a memset w 2e, then a copy r e w 2e through the stride) and the two summed r 4e w 2e.
    return elementwise(width, SavedSplit::Expert, 18 * e, 7, 44 * e, 12);
}

Work expert_bias(double element_bytes, SavedSplit split, int64_t width) {
    const double e = element_bytes;
    constexpr SortCost rows = radix_sort(16);
    // _grouped_linear with a bias: the experts' biases gathered per routed row (bias[expert_ids_g], r e w e) and
    // added in place (out.add_, r 2e w e). Backward: the gather's gradient, index_put_ with accumulate into the
    // [experts, width] bias, reads every row's gradient (r e) after sorting its indices (per routed row, spread
    // over the width here).
    return elementwise(width, split, 5 * e, 2, e + rows.bytes / static_cast<double>(width), 1 + rows.kernels);
}

Work score_softmax(const BuildContext& b) {
    const double a = b.act_bytes, u = b.up_bytes;
    // Per score element (eager_attention_forward): scaling r a w a; the additive mask, built in the model's
    // dtype (fp32 parameters under autocast), so the sum is promoted to it: r a w u; softmax(dtype=float32)
    // reading twice and writing fp32 r 2u w 4; .to(query dtype) r 4 w a (16-bit only). Backward: the cast
    // back r a w 4, softmax's backward r 3x4 w 4, the cast to the scores' dtype and the scaling r 4 w a.
    const bool copy = a < 4;
    const double drop = b.dropout ? 2 * a + 1 : 0;
    return elementwise(b.m.heads, SavedSplit::Scores, 2 * a + (a + u) + 2 * u + 4 + (copy ? 4 + a : 0) + drop, 3 + (copy ? 1 : 0),
                 (copy ? a + 4 : 0) + 16 + 4 + a + drop, 2 + (copy ? 1 : 0));
}

Work cross_entropy(const BuildContext& b) {
    const double a = b.act_bytes;
    if (b.loss_16bit && !b.autocast) {
        // On the 16-bit logits as they are (implementation.loss_16bit, Qwen 1): the shift's contiguous copy r a w a,
        // log_softmax r 2a w a, nll_loss's gather. Backward: nll's gradient (zero fill w a, scatter), log_softmax's
        // r 3a w a, the shift's (zero fill of the logits' shape w a, the copy r a w a).
        return elementwise(b.vocab_padded, SavedSplit::Tensor, 5 * a, 3, 8 * a, 5);
    }
    const bool upcast = a < 4;
    // logits.float() r a w 4 (16-bit), log_softmax reading twice and writing r 8 w 4, nll_loss gathers
    // one value per token. Backward: nll's gradient (zero fill w 4 and scatter), log_softmax's backward
    // r 3x4 w 4, the cast back r 4 w a.
    return elementwise(b.vocab_padded, SavedSplit::Tensor, (upcast ? a + 4 : 0) + 12, 2 + (upcast ? 1 : 0),
                 4 + 16 + (upcast ? 4 + a : 0), 3 + (upcast ? 1 : 0));
}

Work embedding(const BuildContext& b, int64_t width, int lookups) {
    const double u = b.up_bytes;
    // Each lookup r u w u, summed r 2u w u; backward: embedding_dense_backward per table (sort, then
    // accumulate r u + rmw 8).
    return elementwise(width, SavedSplit::Sequence, lookups * 2 * u + (lookups - 1) * 3 * u, 2 * lookups - 1,
                 lookups * (u + 8), 2 * lookups);
}

}  // namespace shardcalc::eager
