#include "graph/blocks.h"

namespace shardcalc {

BuildContext build_context(const Config& c) {
    return BuildContext{c.s.model,          c.s.training.attention,        c.s.training.dropout > 0,
                        c.traits.fused_glu, c.traits.fused_cross_entropy, c.d.vocab_padded};
}

ParamTensor weight(int64_t out, int64_t in, ParamSplit split) { return ParamTensor{"w", {out, in}, split, false}; }

ParamTensor vector_param(const char* name, int64_t n, ParamSplit split) { return ParamTensor{name, {n}, split, false}; }

Op linear(const std::string& name, int64_t out, int64_t in, bool bias, bool sharded, bool bias_sharded,
          SavedSplit input_split, int64_t input_width) {
    Op op{name, {}, {}};
    op.params.push_back(weight(out, in, sharded ? ParamSplit::Sharded : ParamSplit::Replicated));
    if (bias) op.params.push_back(vector_param("b", out, bias_sharded ? ParamSplit::Sharded : ParamSplit::Replicated));
    // A linear layer keeps its input for the weight gradient (Korthikanti sec. 4.1).
    op.saved.push_back({"input", SavedKind::Activation, input_split, input_width, false});
    return op;
}

Op norm(const BuildContext& b, const std::string& name, int64_t width) {
    Op op{name, {vector_param("w", width, ParamSplit::Replicated)}, {}};
    if (b.m.norm == Norm::LayerNorm) op.params.push_back(vector_param("b", width, ParamSplit::Replicated));
    // Layer norm stores its input, 2sbh (Korthikanti sec. 4.1); the per-token mean/rstd
    // statistics (2 fp32 values per token) are below the formula's resolution and omitted.
    op.saved.push_back({"input", SavedKind::Activation, SavedSplit::Sequence, width, false});
    return op;
}

Op dropout_add(const BuildContext& b, const std::string& name, int64_t width) {
    Op op{name, {}, {}};
    // Residual dropout keeps a 1-byte mask per element, sbh (Korthikanti sec. 4.1).
    if (b.dropout) op.saved.push_back({"mask", SavedKind::Mask, SavedSplit::Sequence, width, false});
    return op;
}

Module self_attention(const BuildContext& b) {
    const ModelSpec& m = b.m;
    const int64_t q_width = m.heads * *m.head_dim;
    const int64_t kv_width = *m.kv_heads * *m.head_dim;
    Module mod{"self_attention", {}, {}};
    // Fused QKV projection, column-parallel: [(heads + 2*kv_heads) * head_dim, hidden].
    mod.ops.push_back(linear("query_key_value", q_width + 2 * kv_width, m.hidden, m.bias, true, true,
                             SavedSplit::Sequence, m.hidden));

    Op core{"core_attention", {}, {}};
    if (b.attention == Attention::Flash) {
        // FlashAttention-2 backward needs q, k, v, the output (saved by the next linear) and the
        // fp32 log-sum-exp per head and token (flash_attn/flash_attn_interface.py ctx.save_for_backward).
        core.saved.push_back({"q", SavedKind::Activation, SavedSplit::Tensor, q_width, false});
        core.saved.push_back({"k", SavedKind::Activation, SavedSplit::Tensor, kv_width, false});
        core.saved.push_back({"v", SavedKind::Activation, SavedSplit::Tensor, kv_width, false});
        core.saved.push_back({"softmax_lse", SavedKind::Fp32, SavedSplit::Tensor, m.heads, false});
    } else {
        // Eager attention (Korthikanti sec. 4.1): QK^T keeps q and k (4sbh), softmax keeps its output
        // (2as^2b), dropout its mask (as^2b) and output (2as^2b), attention-over-values keeps v (2sbh).
        // Key/value heads are repeated to all query heads before the matmuls (repeat_kv in
        // transformers' modeling_llama.py), so the saved k and v have the query width.
        core.saved.push_back({"q", SavedKind::Activation, SavedSplit::Tensor, q_width, false});
        core.saved.push_back({"k", SavedKind::Activation, SavedSplit::Tensor, q_width, false});
        core.saved.push_back({"softmax", SavedKind::Activation, SavedSplit::Scores, m.heads, true});
        if (b.dropout) {
            core.saved.push_back({"dropout_mask", SavedKind::Mask, SavedSplit::Scores, m.heads, true});
            core.saved.push_back({"dropout_output", SavedKind::Activation, SavedSplit::Scores, m.heads, true});
        }
        core.saved.push_back({"v", SavedKind::Activation, SavedSplit::Tensor, q_width, false});
    }
    mod.ops.push_back(core);
    // Output projection, row-parallel: the bias is added after the all-reduce, so it is replicated.
    mod.ops.push_back(linear("dense", m.hidden, q_width, m.bias, true, false, SavedSplit::Tensor, q_width));
    return mod;
}

Module mlp(const BuildContext& b) {
    const ModelSpec& m = b.m;
    const int64_t f = *m.ffn_hidden;
    const bool gated = m.mlp == Mlp::Swiglu || m.mlp == Mlp::Geglu;
    const int64_t up_width = gated ? 2 * f : f;
    Module mod{"mlp", {}, {}};
    mod.ops.push_back(linear("dense_h_to_4h", up_width, m.hidden, m.bias, true, true, SavedSplit::Sequence, m.hidden));
    Op act{gated ? "glu_activation" : "activation", {}, {}};
    // GeLU keeps its input, 8sbh for f = 4h (Korthikanti sec. 4.1). A fused GLU keeps the 2f-wide input and
    // recomputes the rest (megatron/core/fusions/fused_bias_swiglu.py); the eager form keeps the gate
    // input, the activated gate and the up projection for the product (3f).
    const int64_t act_width = !gated ? f : (b.fused_glu ? 2 * f : 3 * f);
    act.saved.push_back({"input", SavedKind::Activation, SavedSplit::Tensor, act_width, false});
    mod.ops.push_back(act);
    mod.ops.push_back(linear("dense_4h_to_h", m.hidden, f, m.bias, true, false, SavedSplit::Tensor, f));
    return mod;
}

Op cross_entropy(const BuildContext& b) {
    Op op{"cross_entropy", {}, {}, true};
    // Megatron's vocab-parallel cross entropy keeps one fp32 copy of the softmax, 4sbv/t
    // (megatron/core/tensor_parallel/cross_entropy.py; Korthikanti sec. 4.3). Unfused training
    // scripts upcast the logits (logits.float() in transformers' *ForCausalLM) and log_softmax keeps
    // its fp32 output as well: two fp32 copies.
    op.saved.push_back({"softmax_fp32", SavedKind::Fp32, SavedSplit::Tensor, b.vocab_padded, false});
    if (!b.fused_cross_entropy)
        op.saved.push_back({"logits_fp32", SavedKind::Fp32, SavedSplit::Tensor, b.vocab_padded, false});
    return op;
}

}  // namespace shardcalc
