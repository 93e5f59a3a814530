#include "graph/compiled_kernels.h"

namespace shardcalc::compiled {

// "r x w y": reads x, writes y bytes per element; a the training dtype, u fp32 under autocast (else a).

Work weight_cast(const BuildContext& b, int64_t numel, bool sharded) {
    const double a = b.act_bytes;
    // Forward to(bf16) r 4 w a. Backward: the 16-bit copy made again for the data-gradient GEMM r 4 w a, and
    // AccumulateGrad's add into the fp32 .grad outside the graph r a+4 w 4.
    Work w = elementwise(numel, SavedSplit::Sequence, 4 + a, 1, (4 + a) + (a + 8), 2);
    w.per_weight = true;
    w.sharded = sharded;
    w.param_grad_backward = true;
    return w;
}

Work norm(const BuildContext& b, int64_t width) {
    const double a = b.act_bytes, u = b.up_bytes;
    // Forward r x (u) w y (a, the 16-bit input of the next GEMM: autocast's cast fused in) and the per-token statistics.
    // Backward: the input gradient r dy (a) x (u) w dx (u); the weight (and bias) gradient's reduction over the tokens
    // r dy x again, a second kernel (a reduction over the other dimension).
    return elementwise(width, SavedSplit::Sequence, u + a, 1, 2 * a + 3 * u, 2);
}

Work input_cast(const BuildContext&, SavedSplit split, int64_t width) { return elementwise(width, split, 0, 0, 0, 0); }

Work grad_sum(const BuildContext& b, int64_t width, int extra_consumers) {
    // Each extra consumer's 16-bit input gradient is read once by the kernel that sums them into the norm's backward.
    return elementwise(width, SavedSplit::Sequence, 0, 0, extra_consumers * b.act_bytes, 0);
}

Work residual_add(const BuildContext& b, int64_t width) {
    const double a = b.act_bytes, u = b.up_bytes;
    // Forward: r branch (a) residual (u) w sum (u); with dropout the mask drawn in the kernel (Philox) and written,
    // 1 byte, for backward. A norm reads every residual sum next (pre-norm, post-norm and parallel blocks alike), and
    // inductor fuses the add into that norm's kernel: no launch of its own, and the norm's read of the sum (counted in
    // compiled::norm) is not made, so it comes off here. Backward with dropout: r dsum (u) mask (1) w dbranch (a), a
    // kernel; without, the stream's gradient is read by the next norm's backward kernel, which also writes its 16-bit
    // copy for the branch (autocast).
    if (b.dropout) return elementwise(width, SavedSplit::Sequence, a + u + 1, 0, u + 1 + a, 1);
    return elementwise(width, SavedSplit::Sequence, a + u, 0, u + (u != a ? a : 0), 0);
}

Work activation(const BuildContext& b, int64_t width, bool gated) {
    const double a = b.act_bytes;
    // Gated: r gate up w h, backward r dh gate up w dgate dup. Otherwise r x w y, backward r dy x w dx. The math
    // (GELU's tanh polynomial, fp32 under autocast) runs in registers.
    return gated ? elementwise(width, SavedSplit::Tensor, 3 * a, 1, 5 * a, 1) : elementwise(width, SavedSplit::Tensor, 2 * a, 1, 3 * a, 1);
}

Work output_layout(const BuildContext& b, int64_t width) {
    // [b, heads, s, d] to [b * s, heads * d]: r a w a each way.
    return elementwise(width, SavedSplit::Tensor, 2 * b.act_bytes, 1, 2 * b.act_bytes, 1);
}

Work rope(const BuildContext& b, int64_t width) {
    // q and k each: r x w y (the cos and sin tables are per position, negligible), written in the attention kernel's
    // layout; backward the same, one kernel each.
    return elementwise(width, SavedSplit::Tensor, 2 * b.act_bytes, 2, 2 * b.act_bytes, 2);
}

Work score_softmax(const BuildContext& b) {
    const double a = b.act_bytes;
    // Per score element: r scores w probabilities (the [b, 1, s, s] mask is shared by the heads); with dropout the
    // mask and the dropped probabilities written too (the second matmul reads them). Backward: r dprobabilities
    // probabilities (and the mask) w dscores.
    const double drop = b.dropout ? a + 1 : 0;
    return elementwise(b.m.heads, SavedSplit::Scores, 2 * a + drop, 1, 3 * a + (b.dropout ? 1 : 0), 1);
}

Work score_softcap(const BuildContext& b) {
    // tanh's output is written for backward and read there; the rest happens in the softmax's kernels.
    return elementwise(b.m.heads, SavedSplit::Scores, b.act_bytes, 0, b.act_bytes, 0);
}

Work cross_entropy(const BuildContext& b) {
    const double a = b.act_bytes;
    // Forward reads the 16-bit logits once (an online max and sum of exponentials, then the target's log-probability;
    // the fp32 upcast stays in registers). Backward r logits (and the per-token log-sum-exp) w dlogits (a).
    return elementwise(b.vocab_padded, SavedSplit::Tensor, a, 1, 2 * a, 1);
}

}  // namespace shardcalc::compiled
