// Self-attention as each implementation builds it: the projections (fused QKV, separate, or multi-head latent
// attention), the core (FlashAttention, eager with Megatron's fused or torch's softmax, Hugging Face's SDPA and
// eager code) and the output projection.
#include "graph/blocks.h"

#include "graph/compiled_kernels.h"
#include "graph/eager_kernels.h"
#include "scenario/dimension.h"
#include "scenario/framework.h"

namespace shardcalc {

namespace {
constexpr unsigned kByCoreAttn = bit(RecomputeModule::CoreAttn);
}  // namespace

AttentionWidths attention_widths(const ResolvedModel& m) {
    if (m.kv_lora_rank > 0) {
        const int64_t qk = m.head_dim + m.qk_rope_head_dim;
        return {m.heads * qk, m.heads * qk, m.heads * *m.v_head_dim, qk, *m.v_head_dim};
    }
    const int64_t d = m.head_dim;
    return {m.heads * d, m.kv_heads * d, m.kv_heads * d, d, d};
}

namespace {

// The projections of multi-head latent attention (DeepSeek-V2/V3; Megatron-Core MLASelfAttention, transformers
// modeling_deepseek_v3.py): the down projections to the latents (with their norms) are replicated on every
// tensor-parallel rank, the up projections per head column-parallel.
void mla_projections(const BuildContext& b, Module& mod) {
    const ResolvedModel& m = b.m;
    const AttentionWidths w = attention_widths(m);
    const size_t first = mod.ops.size();
    if (m.q_lora_rank > 0) {
        mod.ops.push_back(linear("linear_q_down_proj", m.q_lora_rank, m.hidden, false, Parallel::None, SavedSplit::Sequence, m.hidden));
        mod.ops.push_back(norm(b, "q_layernorm", m.q_lora_rank));
        mod.ops.push_back(linear("linear_q_up_proj", w.q, m.q_lora_rank, false, Parallel::Column, SavedSplit::Sequence, m.q_lora_rank));
    } else {
        mod.ops.push_back(linear("linear_q_proj", w.q, m.hidden, false, Parallel::Column, SavedSplit::Sequence, m.hidden));
    }
    // Megatron-Core builds the norm before multi-latent attention as a module of its own (not fused into a linear):
    // under layernorm recompute its output, which the first projection saves, is discarded and recomputed.
    mod.ops[first].saved.front().dropped_by = bit(RecomputeModule::LayerNorm);
    // The key/value latent and the shared rotary key come from the same input as the queries (saved once).
    mod.ops.push_back(linear("linear_kv_down_proj", m.kv_lora_rank + m.qk_rope_head_dim, m.hidden, false, Parallel::None,
                             SavedSplit::Sequence, m.hidden, false));
    mod.ops.push_back(norm(b, "kv_layernorm", m.kv_lora_rank));
    mod.ops.push_back(linear("linear_kv_up_proj", m.heads * (m.head_dim + *m.v_head_dim), m.kv_lora_rank, false,
                             Parallel::Column, SavedSplit::Sequence, m.kv_lora_rank));
    // mla_up_proj (Megatron-Core multi_latent_attention.py, CheckpointWithoutOutput around the up projections and
    // RoPE): their outputs, the core's q, k and v, are discarded once the core has run and rebuilt before its backward
    // from the saved latents: the up projections' forward GEMMs run again.
    mod.ops.back().rerun_by = bit(RecomputeModule::MlaUpProj);
    if (m.q_lora_rank > 0) mod.ops[mod.ops.size() - 4].rerun_by = bit(RecomputeModule::MlaUpProj);
}

}  // namespace

namespace {

// Under Megatron-DeepSpeed's layer scaling torch's softmax runs in fp32 (megatron_layer_scaled_softmax).
bool torch_softmax_fp32(const BuildContext& b) { return b.megatron_eager && b.layer_scaled_softmax && b.act_bytes < 4; }

// torch's softmax where Megatron's fused kernel has no variant for the plan's shapes (forward_torch_softmax): under layer
// scaling a cast to fp32 and the multiply by the layer number first and the cast back after; the in-place mask fill;
// the softmax; then the attention dropout. Backward, each op's gradient in reverse (the softmax's reads its output and
// the incoming gradient).
Work torch_softmax(const BuildContext& b, int64_t heads) {
    const double a = b.act_bytes;
    const bool cast = torch_softmax_fp32(b);
    const double e = cast ? 4 : a;
    double fwd = 2 * e + 2 * e, bwd = 2 * e + 3 * e;
    int kernels = 2;
    if (b.layer_scaled_softmax) fwd += 2 * e, bwd += 2 * e, kernels += 1;
    if (cast) fwd += 2 * (a + 4), bwd += 2 * (a + 4), kernels += 2;
    if (b.dropout) fwd += 2 * a + 1, bwd += 2 * a + 1, kernels += 1;
    Work w = elementwise(heads, SavedSplit::Scores, fwd, bwd);
    w.fwd_kernels = w.bwd_kernels = kernels;
    w.path = KernelPath::TorchSoftmax;
    return w;
}

}  // namespace

Module self_attention(const BuildContext& b, bool local) {
    const ResolvedModel& m = b.m;
    const AttentionWidths aw = attention_widths(m);
    const int64_t q_width = aw.q;
    const int64_t kv_width = aw.k;
    Module mod{"self_attention", {}, {}};
    if (m.kv_lora_rank > 0) {
        mla_projections(b, mod);
    } else if (b.fused_qkv) {
        // Fused QKV projection, column-parallel: [(heads + 2*kv_heads) * head_dim, hidden].
        mod.ops.push_back(pointwise_fed(b, eager_linear(b, linear("query_key_value", q_width + 2 * kv_width, m.hidden, m.qkv_bias,
                                                                  Parallel::Column, SavedSplit::Sequence, m.hidden), true)));
    } else {
        // Separate projections (Hugging Face's q_proj/k_proj/v_proj, BERT's query/key/value). They share one
        // input, but under autocast each F.linear casts it to 16 bits itself and keeps its own copy.
        mod.ops.push_back(pointwise_fed(b, eager_linear(b, linear("query", q_width, m.hidden, m.qkv_bias, Parallel::Column,
                                                                  SavedSplit::Sequence, m.hidden), true)));
        mod.ops.push_back(pointwise_fed(b, eager_linear(b, linear("key", kv_width, m.hidden, m.qkv_bias, Parallel::Column,
                                                                  SavedSplit::Sequence, m.hidden, b.autocast), true)));
        Op value = pointwise_fed(b, eager_linear(b, linear("value", kv_width, m.hidden, m.qkv_bias, Parallel::Column,
                                                           SavedSplit::Sequence, m.hidden, b.autocast), true));
        value.work.push_back(b.compiled ? compiled::grad_sum(b, m.hidden, 2) : eager::grad_sum(b, m.hidden, 2));
        mod.ops.push_back(value);
    }
    if (m.qk_norm) {
        // Qwen3 / OLMo 2 normalize each head's query and key (RMSNorm over head_dim, one weight vector each,
        // transformers modeling_qwen3.py q_norm / k_norm): each keeps its input, in the tensor-parallel region.
        for (const auto& [name, width] : {std::pair<const char*, int64_t>{"q_norm", q_width}, {"k_norm", kv_width}}) {
            Op n{name, {vector_param("w", m.head_dim, ParamSplit::Replicated)}, {}};
            n.saved.push_back({"input", SavedKind::Upcast, SavedSplit::Tensor, width});
            n.work.push_back(elementwise(width, SavedSplit::Tensor, 2 * b.act_bytes, 3 * b.act_bytes));
            mod.ops.push_back(n);
        }
    }

    Op core{"core_attention", {}, {}};
    const int64_t v_width = aw.v;
    const int64_t out_width = m.heads * aw.v_head;  // the heads' outputs, concatenated
    if (b.attention == Attention::Flash) {
        // FlashAttention-2 backward needs q, k, v, the output (saved by the next linear) and the
        // fp32 log-sum-exp per head and token (flash_attn/flash_attn_interface.py ctx.save_for_backward).
        core.saved.push_back({"q", SavedKind::Activation, SavedSplit::Tensor, q_width});
        core.saved.push_back({"k", SavedKind::Activation, SavedSplit::Tensor, kv_width});
        core.saved.push_back({"v", SavedKind::Activation, SavedSplit::Tensor, v_width});
        core.saved.push_back({"softmax_lse", SavedKind::Fp32, SavedSplit::Tensor, m.heads});
    } else {
        // Eager attention (Korthikanti sec. 4.1): QK^T keeps q and k (4sbh), softmax keeps its output
        // (2as^2b), dropout its mask (as^2b) and output (2as^2b), attention-over-values keeps v (2sbh).
        // Key/value heads are repeated to all query heads before the matmuls (repeat_kv in
        // transformers' modeling_llama.py), so the saved k and v have the query width.
        core.saved.push_back({"q", SavedKind::Activation, SavedSplit::Tensor, q_width});
        // Compiled, k and v are kept before repeat_kv (the repeat is rebuilt in backward).
        core.saved.push_back({"k", SavedKind::Activation, SavedSplit::Tensor, b.compiled ? kv_width : q_width});
        if (b.compiled) {
            // Compiled (partitioners.py): the 16-bit probabilities and the dropout mask; the fp32 softmax and the
            // dropped probabilities are rebuilt from them in backward.
            core.saved.push_back({"probabilities", SavedKind::Activation, SavedSplit::Scores, m.heads, kByCoreAttn});
        } else if (b.hf_code) {
            // Hugging Face eager attention: softmax(scores, dtype=float32).to(query.dtype) keeps the fp32
            // probabilities for the softmax backward and their 16-bit copy for the product with V
            // (eager_attention_forward in modeling_llama.py; validation/measured: 6as^2b in bf16).
            core.saved.push_back({"softmax_fp32", SavedKind::Fp32, SavedSplit::Scores, m.heads, kByCoreAttn});
            if (b.act_bytes < 4) core.saved.push_back({"probabilities", SavedKind::Activation, SavedSplit::Scores, m.heads, kByCoreAttn});
        } else {
            // Megatron's fused scale-mask-softmax keeps its output in the training dtype; so does torch's softmax where
            // it stands in for it (megatron_fused_softmax), in fp32 under Megatron-DeepSpeed's layer scaling, with the
            // 16-bit copy for the product with V kept too where no dropout follows.
            if (torch_softmax_fp32(b)) {
                core.saved.push_back({"softmax", SavedKind::Activation, SavedSplit::Scores, m.heads, kByCoreAttn, false,
                                      b.dropout ? KernelPath::FusedSoftmax : KernelPath::Always});
                core.saved.push_back({"softmax_fp32", SavedKind::Fp32, SavedSplit::Scores, m.heads, kByCoreAttn, false,
                                      KernelPath::TorchSoftmax});
            } else {
                core.saved.push_back({"softmax", SavedKind::Activation, SavedSplit::Scores, m.heads, kByCoreAttn});
            }
        }
        if (b.dropout) {
            core.saved.push_back({"dropout_mask", SavedKind::Mask, SavedSplit::Scores, m.heads, kByCoreAttn});
            if (!b.compiled) core.saved.push_back({"dropout_output", SavedKind::Activation, SavedSplit::Scores, m.heads, kByCoreAttn});
        }
        core.saved.push_back({"v", SavedKind::Activation, SavedSplit::Tensor, b.compiled ? v_width : out_width});
        if (b.softcap_scores) {
            // Gemma 2's soft-cap (transformers' modeling_gemma2.py eager_attention_forward: scores / cap, tanh, * cap):
            // three kernels over the scores, r a w a each; tanh keeps its output for its gradient. Backward: the
            // product's and the quotient's gradients r a w a, tanh's r 2a w a (derivatives.yaml tanh_backward).
            core.saved.push_back({"softcap_tanh", SavedKind::Activation, SavedSplit::Scores, m.heads, kByCoreAttn});
            Work softcap = elementwise(m.heads, SavedSplit::Scores, 6 * b.act_bytes, 7 * b.act_bytes);
            softcap.fwd_kernels = softcap.bwd_kernels = 3;
            core.work.push_back(b.compiled ? compiled::score_softcap(b) : softcap);
        }
        // The materialised scores: softmax reads and writes them (and dropout once more with its mask);
        // backward reads probabilities and their gradient and writes the score gradient.
        const double a = b.act_bytes;
        Work softmax = b.compiled ? compiled::score_softmax(b)
                       : b.hf_code ? eager::score_softmax(b)
                                   : elementwise(m.heads, SavedSplit::Scores, b.dropout ? 4 * a + 1 : 2 * a, b.dropout ? 5 * a + 1 : 3 * a);
        if (b.megatron_eager) {
            // Megatron's unfused core attention (megatron/core/transformer/dot_product_attention.py, and the legacy
            // ParallelAttention): the fused scale-mask-softmax and the attention dropout (under the tensor-parallel
            // RNG tracker) are separate kernels, forward and backward.
            softmax.fwd_kernels = softmax.bwd_kernels = b.dropout ? 2 : 1;
            softmax.path = KernelPath::FusedSoftmax;
            core.work.push_back(softmax);
            core.work.push_back(torch_softmax(b, m.heads));
            // The context [b, np, s, hn] permuted to [s, b, np*hn] and made contiguous (a copy forward and back);
            // baddbmm's alpha = 1/sqrt(hn) scales the query and key gradients (two products, derivatives.yaml);
            // the query, key and value gradients are joined into the fused QKV output's gradient (split's backward).
            const double qkv = static_cast<double>(q_width + 2 * kv_width) / out_width;
            const double qk = static_cast<double>(q_width + kv_width) / out_width;
            Work layout = elementwise(out_width, SavedSplit::Tensor, 2 * a, 2 * a + 2 * a * qk + 2 * a * qkv);
            layout.bwd_kernels = 4;
            core.work.push_back(layout);
        } else {
            core.work.push_back(softmax);
        }
    }
    Work scores;
    scores.kind = WorkKind::Attention;
    scores.heads = m.heads;
    scores.head_dim = aw.qk_head;
    scores.v_head_dim = aw.v_head;
    scores.causal = b.causal;
    scores.flash = b.attention == Attention::Flash;
    scores.window = local ? m.sliding_window : 0;
    // gpt-oss: one learned sink logit per head joins each softmax (tensor-parallel ranks hold their heads').
    if (m.attention_sinks) core.params.push_back(vector_param("sinks", m.heads, ParamSplit::Sharded));
    core.work.insert(core.work.begin(), scores);
    if (b.compiled) {
        core.work.push_back(compiled::output_layout(b, out_width));
        if (m.position_embedding == PositionEmbedding::Rope) core.work.push_back(compiled::rope(b, q_width + kv_width));
    } else if (b.hf_code && m.kv_lora_rank == 0) {
        // A fused QKV output is split into three strided views (all copied); separate projections leave
        // only v and the output strided (RoPE writes q and k anew).
        if (b.fused_qkv) core.work.push_back(eager::head_layout(b, 2 * q_width + 2 * kv_width, 4));
        else core.work.push_back(eager::head_layout(b, q_width + kv_width, 2));
        if (m.position_embedding == PositionEmbedding::Rope) core.work.push_back(eager::rope(b, q_width + kv_width));
    }
    // Selective recompute runs the score computation again where it dropped its tensors (eager only: flash
    // already recomputes the scores in its backward).
    for (const SavedTensor& t : core.saved) core.rerun_by |= t.dropped_by & kByCoreAttn;
    if (m.kv_lora_rank > 0)  // mla_up_proj: the up projections' outputs (mla_projections above)
        for (SavedTensor& t : core.saved)
            if (t.name == std::string_view("q") || t.name == std::string_view("k") || t.name == std::string_view("v"))
                t.dropped_by |= bit(RecomputeModule::MlaUpProj);
    mod.ops.push_back(core);
    mod.ops.push_back(eager_linear(b, linear("dense", m.hidden, out_width, m.bias, Parallel::Row, SavedSplit::Tensor, out_width),
                                   false));
    return mod;
}

}  // namespace shardcalc
