#include "graph/blocks.h"

#include <algorithm>

#include "graph/eager_kernels.h"
#include "scenario/framework.h"
#include "scenario/dimension.h"

namespace shardcalc {

namespace {
constexpr unsigned kByCoreAttn = bit(RecomputeModule::CoreAttn);
}  // namespace

void tag_recompute(Module& m, unsigned drops, unsigned reruns) {
    for (Op& op : m.ops) {
        for (SavedTensor& t : op.saved) t.dropped_by |= drops;
        op.rerun_by |= reruns;
    }
    for (Module& child : m.children) tag_recompute(child, drops, reruns);
}

BuildContext build_context(const Config& c) {
    const Attention kernel = c.traits.sdpa_math ? Attention::Eager : c.s.training.attention;
    return BuildContext{c.s.model,          kernel,                        c.s.training.dropout > 0,
                        c.traits.fused_glu, c.d.vocab_padded,
                        bytes_of(c.s.training.dtype), c.traits.autocast ? 4.0 : bytes_of(c.s.training.dtype),
                        c.s.model.arch == Arch::Decoder,
                        c.traits.hf_code,   !c.traits.hf_code && !c.traits.xla,
                        c.traits.autocast,  c.s.training.router_z_loss,
                        megatron_layer_scaled_softmax(c.s.framework)};
}

bool sdpa_window_mask(const Config& c) {
    const ModelSpec& m = c.s.model;
    return c.traits.hf_code && build_context(c).attention == Attention::Flash && m.sliding_window > 0 &&
           m.sliding_window < c.d.seq_len;
}

bool on_path(KernelPath path, const Config& c) {
    if (path == KernelPath::Always) return true;
    if (path == KernelPath::SdpaWindowMask) return sdpa_window_mask(c);
    const ParallelSpec& p = c.s.parallel;
    const bool fused = megatron_fused_softmax(c.s.framework, c.s.training.micro_batch, c.s.model.heads / (p.tp * p.ulysses),
                                              c.d.seq_len, c.s.model.arch == Arch::Decoder, bytes_of(c.s.training.dtype) < 4);
    return fused == (path == KernelPath::FusedSoftmax);
}

bool has_matmul(const Op& op) {
    return std::any_of(op.work.begin(), op.work.end(), [](const Work& w) { return w.kind == WorkKind::Matmul; });
}

double param_tensor_count(const Module& m) {
    double n = 0;
    for (const auto& op : m.ops)
        for (const auto& p : op.params) n += p.tied || p.shared ? 0 : 1;
    for (const auto& child : m.children) n += param_tensor_count(child);
    return n;
}

double local_numel(const ParamTensor& p, const Config& c) {
    const double n = static_cast<double>(p.numel());
    switch (p.split) {
        case ParamSplit::Replicated: return n;
        case ParamSplit::Sharded: return n / static_cast<double>(c.s.parallel.tp);
        case ParamSplit::Expert: return n / static_cast<double>(c.s.parallel.ep * expert_tp(c.s.parallel));
    }
    return n;
}

ParamTensor weight(int64_t out, int64_t in, ParamSplit split) { return ParamTensor{"w", {out, in}, split, false}; }

ParamTensor vector_param(const char* name, int64_t n, ParamSplit split) { return ParamTensor{name, {n}, split, false}; }

Work elementwise(int64_t width, SavedSplit split, double fwd_bytes, double bwd_bytes) {
    Work w;
    w.kind = WorkKind::Elementwise;
    w.width = width;
    w.split = split;
    w.fwd_bytes = fwd_bytes;
    w.bwd_bytes = bwd_bytes;
    return w;
}

Op linear(const std::string& name, int64_t out, int64_t in, bool bias, Parallel kind, SavedSplit input_split,
          int64_t input_width, bool save_input) {
    Op op{name, {}, {}};
    const bool sharded = kind != Parallel::None;
    op.params.push_back(weight(out, in, sharded ? ParamSplit::Sharded : ParamSplit::Replicated));
    // Row-parallel biases are added after the all-reduce, so they stay whole.
    if (bias)
        op.params.push_back(vector_param("b", out, kind == Parallel::Column ? ParamSplit::Sharded : ParamSplit::Replicated));
    // A linear layer keeps its input for the weight gradient (Korthikanti sec. 4.1), in the matmul dtype:
    // under autocast that is the 16-bit cast it made of an fp32 input (validation/measured inventories).
    if (save_input) op.saved.push_back({"input", SavedKind::GemmInput, input_split, input_width});
    Work w;
    w.kind = WorkKind::Matmul;
    w.in = in;
    w.out = out;
    w.sharded = sharded;
    w.split_in = kind == Parallel::Row;
    op.work.push_back(w);
    return op;
}

Op high_precision(Op op) {
    for (auto& w : op.work) w.fp8 = false;
    for (auto& t : op.saved)
        if (t.kind == SavedKind::GemmInput) t.kind = SavedKind::Activation;
    return op;
}

Op eager_linear(const BuildContext& b, Op op, bool fp32_input) {
    if (!b.hf_code && !b.megatron_eager) return op;
    const Work mm = op.work.front();  // a copy: the pushes below may move the vector
    if (b.hf_code) {
        const SavedSplit in_split = mm.sharded && mm.split_in ? SavedSplit::Tensor : SavedSplit::Sequence;
        if (b.autocast && fp32_input) op.work.push_back(eager::input_cast(b, in_split, mm.in));
        if (b.autocast) op.work.push_back(eager::weight_cast(b, op.params.front().numel(), mm.sharded));
    }
    // A bias's gradient reduces the output gradient over the tokens: autograd's under Hugging Face; Megatron's in the
    // linear's backward (megatron/core/tensor_parallel/layers.py: grad_output.sum(dim=0)) or, for a bias the linear
    // skips (skip_bias_add), in autograd's backward of the fused bias-GeLU / bias-dropout-add: one kernel either way.
    const SavedSplit out_split = mm.sharded && !mm.split_in ? SavedSplit::Tensor : SavedSplit::Sequence;
    if (op.params.size() > 1) op.work.push_back(eager::bias_grad(b, out_split, mm.out));
    return op;
}

Op norm(const BuildContext& b, const std::string& name, int64_t width) {
    Op op{name, {vector_param("w", width, ParamSplit::Replicated)}, {}};
    if (b.m.norm == Norm::LayerNorm) op.params.push_back(vector_param("b", width, ParamSplit::Replicated));
    // Layer norm stores its input, 2sbh (Korthikanti sec. 4.1); the per-token mean/rstd
    // statistics (2 fp32 values per token) are below the formula's resolution and omitted.
    // Under autocast norms run in fp32 (autocast's fp32 op list), so the saved input is fp32.
    op.saved.push_back({"input", SavedKind::Upcast, SavedSplit::Sequence, width});
    if (!b.hf_code) {
        // Forward reads x and writes y; backward reads dy and x and writes dx.
        Work w = elementwise(width, SavedSplit::Sequence, 2 * b.act_bytes, 3 * b.act_bytes);
        if (b.megatron_eager) {
            // apex's fused norms (MixedFusedLayerNorm / MixedFusedRMSNorm, csrc/layer_norm_cuda_kernel.cu
            // HostLayerNormGradient) launch three backward kernels: the input gradient, the partial weight-gradient
            // sums (reading dy and x again) and their final reduction.
            w.bwd_bytes += 2 * b.act_bytes;
            w.bwd_kernels = 3;
        }
        op.work.push_back(w);
        return op;
    }
    if (b.m.norm == Norm::LayerNorm) {
        op.work.push_back(eager::layer_norm(b, width));
        return op;
    }
    // Hugging Face's RMSNorm is written op by op (LlamaRMSNorm.forward: x.to(float32), pow, mean, rsqrt,
    // mul, .to(input dtype), weight *): it keeps the fp32 input for the variance and the normalized
    // tensor in the input's dtype for the weight product (validation/measured: llama inventory, 8sbh
    // under autocast).
    op.saved[0].kind = SavedKind::Fp32;
    op.saved.push_back({"normalized", SavedKind::Upcast, SavedSplit::Sequence, width});
    op.work.push_back(eager::rms_norm(b, width));
    return op;
}

Op dropout_add(const BuildContext& b, const std::string& name, int64_t width) {
    Op op{name, {}, {}};
    // Residual dropout keeps a 1-byte mask per element, sbh (Korthikanti sec. 4.1).
    if (b.dropout) op.saved.push_back({"mask", SavedKind::Mask, SavedSplit::Sequence, width});
    // Forward reads the branch and the residual and writes the sum (and the mask); backward applies
    // the mask to dy only when there is dropout (a plain residual add passes the gradient through).
    if (b.hf_code) {
        op.work.push_back(eager::residual_add(b, width));
        return op;
    }
    const double a = b.act_bytes;
    Work w = elementwise(width, SavedSplit::Sequence, b.dropout ? 3 * a + 1 : 3 * a, b.dropout ? 2 * a + 1 : 0);
    if (b.megatron_eager) {
        // The residual stream feeds the next norm and the residual add: autograd sums the two gradients (r 2a w a),
        // a kernel of its own after the dropout mask's product.
        w.bwd_bytes += 3 * a;
        w.bwd_kernels = (b.dropout ? 1 : 0) + 1;
    }
    op.work.push_back(w);
    return op;
}

AttentionWidths attention_widths(const ModelSpec& m) {
    if (m.kv_lora_rank > 0) {
        const int64_t qk = *m.head_dim + m.qk_rope_head_dim;
        return {m.heads * qk, m.heads * qk, m.heads * *m.v_head_dim, qk, *m.v_head_dim};
    }
    const int64_t d = *m.head_dim;
    return {m.heads * d, *m.kv_heads * d, *m.kv_heads * d, d, d};
}

namespace {

// The projections of multi-head latent attention (DeepSeek-V2/V3; Megatron-Core MLASelfAttention, transformers
// modeling_deepseek_v3.py): the down projections to the latents (with their norms) are replicated on every
// tensor-parallel rank, the up projections per head column-parallel.
void mla_projections(const BuildContext& b, Module& mod) {
    const ModelSpec& m = b.m;
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
    mod.ops.push_back(linear("linear_kv_up_proj", m.heads * (*m.head_dim + *m.v_head_dim), m.kv_lora_rank, false,
                             Parallel::Column, SavedSplit::Sequence, m.kv_lora_rank));
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
    const ModelSpec& m = b.m;
    const AttentionWidths aw = attention_widths(m);
    const int64_t q_width = aw.q;
    const int64_t kv_width = aw.k;
    Module mod{"self_attention", {}, {}};
    if (m.kv_lora_rank > 0) {
        mla_projections(b, mod);
    } else if (*m.fused_qkv) {
        // Fused QKV projection, column-parallel: [(heads + 2*kv_heads) * head_dim, hidden].
        mod.ops.push_back(eager_linear(b, linear("query_key_value", q_width + 2 * kv_width, m.hidden, *m.qkv_bias,
                                                 Parallel::Column, SavedSplit::Sequence, m.hidden), true));
    } else {
        // Separate projections (Hugging Face's q_proj/k_proj/v_proj, BERT's query/key/value). They share one
        // input, but under autocast each F.linear casts it to 16 bits itself and keeps its own copy.
        mod.ops.push_back(eager_linear(
            b, linear("query", q_width, m.hidden, *m.qkv_bias, Parallel::Column, SavedSplit::Sequence, m.hidden), true));
        mod.ops.push_back(eager_linear(b, linear("key", kv_width, m.hidden, *m.qkv_bias, Parallel::Column,
                                                 SavedSplit::Sequence, m.hidden, b.autocast), true));
        Op value = eager_linear(b, linear("value", kv_width, m.hidden, *m.qkv_bias, Parallel::Column, SavedSplit::Sequence,
                                          m.hidden, b.autocast), true);
        value.work.push_back(eager::grad_sum(b, m.hidden, 2));
        mod.ops.push_back(value);
    }
    if (m.qk_norm) {
        // Qwen3 / OLMo 2 normalize each head's query and key (RMSNorm over head_dim, one weight vector each,
        // transformers modeling_qwen3.py q_norm / k_norm): each keeps its input, in the tensor-parallel region.
        for (const auto& [name, width] : {std::pair<const char*, int64_t>{"q_norm", q_width}, {"k_norm", kv_width}}) {
            Op n{name, {vector_param("w", *m.head_dim, ParamSplit::Replicated)}, {}};
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
        core.saved.push_back({"k", SavedKind::Activation, SavedSplit::Tensor, q_width});
        if (b.hf_code) {
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
            core.saved.push_back({"dropout_output", SavedKind::Activation, SavedSplit::Scores, m.heads, kByCoreAttn});
        }
        core.saved.push_back({"v", SavedKind::Activation, SavedSplit::Tensor, out_width});
        // The materialised scores: softmax reads and writes them (and dropout once more with its mask);
        // backward reads probabilities and their gradient and writes the score gradient.
        const double a = b.act_bytes;
        Work softmax = b.hf_code ? eager::score_softmax(b)
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
    if (b.hf_code && m.kv_lora_rank == 0) {
        // A fused QKV output is split into three strided views (all copied); separate projections leave
        // only v and the output strided (RoPE writes q and k anew).
        if (*m.fused_qkv) core.work.push_back(eager::head_layout(b, 2 * q_width + 2 * kv_width, 4));
        else core.work.push_back(eager::head_layout(b, q_width + kv_width, 2));
        if (m.position_embedding == PositionEmbedding::Rope) core.work.push_back(eager::rope(b, q_width + kv_width));
    }
    // Selective recompute runs the score computation again where it dropped its tensors (eager only: flash
    // already recomputes the scores in its backward).
    for (const SavedTensor& t : core.saved) core.rerun_by |= t.dropped_by & kByCoreAttn;
    mod.ops.push_back(core);
    mod.ops.push_back(eager_linear(b, linear("dense", m.hidden, out_width, m.bias, Parallel::Row, SavedSplit::Tensor, out_width),
                                   false));
    return mod;
}

Module mlp(const BuildContext& b, int64_t f, const char* name, bool save_input) {
    const ModelSpec& m = b.m;
    const bool gated = m.mlp == Mlp::Swiglu || m.mlp == Mlp::Geglu;
    const int64_t up_width = gated ? 2 * f : f;
    Module mod{name, {}, {}};
    if (gated && b.hf_code) {
        // Hugging Face's gate_proj and up_proj: two linears on one input (one cast each under autocast).
        mod.ops.push_back(eager_linear(
            b, linear("gate_proj", f, m.hidden, *m.mlp_bias, Parallel::Column, SavedSplit::Sequence, m.hidden, save_input), true));
        Op up = eager_linear(b, linear("up_proj", f, m.hidden, *m.mlp_bias, Parallel::Column, SavedSplit::Sequence, m.hidden,
                                       b.autocast), true);
        up.work.push_back(eager::grad_sum(b, m.hidden, 1));
        mod.ops.push_back(up);
    } else {
        mod.ops.push_back(eager_linear(b, linear("dense_h_to_4h", up_width, m.hidden, *m.mlp_bias, Parallel::Column,
                                                 SavedSplit::Sequence, m.hidden, save_input), true));
    }
    Op act{gated ? "glu_activation" : "activation", {}, {}};
    // GeLU keeps its input, 8sbh for f = 4h (Korthikanti sec. 4.1). A fused GLU keeps the 2f-wide input and
    // recomputes the rest (megatron/core/fusions/fused_bias_swiglu.py); the eager form keeps the gate
    // input, the activated gate and the up projection for the product (3f).
    const int64_t act_width = !gated ? f : (b.fused_glu ? 2 * f : 3 * f);
    const bool gelu_unfused = !gated && b.hf_code && *m.hidden_act == HiddenAct::GeluNew;
    if (gelu_unfused) {
        // Hugging Face's NewGELUActivation, 0.5*x*(1+tanh(c*(x+0.044715*x^3))), runs as separate ops: pow keeps
        // its input, tanh its output, the last product both factors. pow is on autocast's fp32 list, so under
        // autocast three of the four are fp32 (validation/measured: gpt2 inventory, 3 fp32 + 1 bf16 of width f).
        for (const char* name : {"pow_input", "tanh_output", "one_plus_tanh"})
            act.saved.push_back({name, SavedKind::Upcast, SavedSplit::Tensor, f});
        act.saved.push_back({"half_input", SavedKind::Activation, SavedSplit::Tensor, f});
    } else {
        act.saved.push_back({"input", SavedKind::Activation, SavedSplit::Tensor, act_width});
    }
    // Per output element: GeLU reads x, writes y (bwd: dy, x -> dx); a fused GLU reads 2 and writes 1
    // (bwd: dy and 2 inputs -> 2 gradients); eager GLU runs activation and product as two kernels.
    const double a = b.act_bytes;
    const double fwd = !gated ? 2 : (b.fused_glu ? 3 : 5);
    const double bwd = !gated ? 3 : (b.fused_glu ? 5 : 8);
    if (!b.hf_code) act.work.push_back(elementwise(f, SavedSplit::Tensor, fwd * a, bwd * a));
    else act.work.push_back(gelu_unfused ? eager::gelu_new(b, f) : gated ? eager::glu(b, f) : eager::pointwise_activation(b, f));
    mod.ops.push_back(act);
    mod.ops.push_back(eager_linear(b, linear("dense_4h_to_h", m.hidden, f, *m.mlp_bias, Parallel::Row, SavedSplit::Tensor, f),
                                   gelu_unfused));
    return mod;
}

// A routed expert GEMM [experts, out, in]: experts split by ep, each expert's width by etp (column: out,
// row: in), run over the tokens routed to the rank (Megatron-Core GroupedMLP / TEGroupedMLP).
// `fp32`: the GEMM and its saved input in fp32 whatever the training dtype (fp32_experts below).
Op expert_linear(const BuildContext& b, const std::string& name, int64_t out, int64_t in, bool row, SavedSplit input_split,
                 bool fp32) {
    Op op{name, {ParamTensor{"w", {b.m.experts, out, in}, ParamSplit::Expert, false}}, {}};
    // Biased experts follow model.mlp_bias (gpt-oss gate_up_proj_bias [E, 2f] and down_proj_bias [E, h]).
    if (*b.m.mlp_bias) op.params.push_back(ParamTensor{"b", {b.m.experts, out}, ParamSplit::Expert, false});
    op.saved.push_back({"input", fp32 ? SavedKind::Upcast : SavedKind::GemmInput, input_split, in});
    Work w;
    w.kind = WorkKind::Matmul;
    w.in = in;
    w.out = out;
    w.split_in = row;
    w.routed = true;
    w.fp32 = fp32;
    op.work.push_back(w);
    return op;
}

Module moe_mlp(const BuildContext& b) {
    const ModelSpec& m = b.m;
    const int64_t h = m.hidden, f = *m.expert_ffn_hidden, experts = m.experts;
    const bool gated = m.mlp == Mlp::Swiglu || m.mlp == Mlp::Geglu;
    // Hugging Face's experts (transformers 5: experts_implementation "grouped_mm", integrations/moe.py _grouped_mm)
    // call torch.nn.functional.grouped_mm, which autocast does not cast, on the input cast to the weights' dtype:
    // under autocast with fp32 weights the expert GEMMs run in fp32 and everything on the expert path is kept in
    // fp32 (validation/measured/h100-moe-pytorch.jsonl: FFMA sgemm kernels, fp32 saved tensors).
    const bool fp32_experts = b.hf_code && b.autocast;
    const SavedKind expert_kind = fp32_experts ? SavedKind::Upcast : SavedKind::Activation;
    const double eb = fp32_experts ? b.up_bytes : b.act_bytes;  // bytes of an element on the expert path
    Module mod{"moe", {}, {}};
    // The router: a replicated [experts, hidden] linear (Megatron-Core TopKRouter, transformers'
    // MixtralSparseMoeBlock.gate) over the layer's tokens, keeping its input and the fp32 routing probabilities
    // (top-k softmax) for backward.
    Op router = high_precision(linear("router", experts, h, m.router_bias, Parallel::None, SavedSplit::Sequence, h));
    router.saved.push_back({"probabilities", SavedKind::Fp32, SavedSplit::Sequence, experts});
    // The z-loss, mean(logsumexp(logits)^2) (megatron/core/transformer/moe/moe_utils.py z_loss_func), keeps the
    // logits it reads in fp32 for logsumexp's backward.
    if (b.router_z_loss) router.saved.push_back({"z_loss_logits", SavedKind::Fp32, SavedSplit::Sequence, experts});
    router.work.push_back(elementwise(experts, SavedSplit::Sequence, 8, 8));
    mod.ops.push_back(router);
    // Dispatch: each token copied to its top-k experts' ranks (permute, all-to-all), hidden wide.
    Op dispatch{"dispatch", {}, {}};
    dispatch.work.push_back(elementwise(h, SavedSplit::Routed, 2 * eb, 2 * eb));
    mod.ops.push_back(dispatch);
    Module experts_mod{"experts", {}, {}};
    experts_mod.ops.push_back(expert_linear(b, "linear_fc1", gated ? 2 * f : f, h, false, SavedSplit::Routed, fp32_experts));
    Op act{gated ? "glu_activation" : "activation", {}, {}};
    // As the dense MLP: a fused GLU keeps its 2f-wide input; the eager form (Hugging Face's experts, act_fn(gate) * up)
    // keeps the gate/up output and the activated gate for the product (3f); GeLU its f-wide input.
    const bool eager_glu = gated && !b.fused_glu;
    act.saved.push_back({"input", expert_kind, SavedSplit::Expert, !gated ? f : eager_glu ? 3 * f : 2 * f});
    // Per output element as the dense MLP's kernels (eager_kernels.cpp glu: two kernels forward, three backward);
    // the eager form splits one gate/up output (chunk), whose backward is a cat of the two gradients (r 2e w 2e,
    // one kernel more: profiled, CatArrayBatchedCopy of [S, 2f] per layer).
    Work act_work = elementwise(f, SavedSplit::Expert, (!gated ? 2 : eager_glu ? 5 : 3) * eb, (!gated ? 3 : eager_glu ? 13 : 5) * eb);
    if (eager_glu) {
        act_work.fwd_kernels = 2;
        act_work.bwd_kernels = 4;
    }
    act.work.push_back(act_work);
    // moe_act discards the activation's output, fc2's saved input, and runs the activation again before fc2's backward
    // (megatron/core/transformer/moe/experts.py, CheckpointWithoutOutput).
    act.rerun_by = bit(RecomputeModule::MoeAct);
    experts_mod.ops.push_back(act);
    Op fc2 = expert_linear(b, "linear_fc2", h, f, true, SavedSplit::Expert, fp32_experts);
    fc2.saved.front().dropped_by = bit(RecomputeModule::MoeAct);
    experts_mod.ops.push_back(fc2);
    if (b.hf_code) {
        // transformers 5's grouped_mm_experts_forward zeroes the rows of tokens routed to no local expert (its
        // sentinels) around the grouped GEMMs: masked_fill_ of the gathered input and masked_fill of the weighted
        // output ([routed tokens, h]), masked_fill of the gate/up output (its width).
        Op masks{"sentinel_masks", {}, {}};
        masks.work.push_back(eager::masked_fill(eb, SavedSplit::Routed, h, 1, 1));
        masks.work.push_back(eager::masked_fill(eb, SavedSplit::Expert, gated ? 2 * f : f, 0, 1));
        experts_mod.ops.push_back(masks);
    }
    mod.children.push_back(experts_mod);
    // Combine: the expert outputs weighted by their probabilities and summed back per token; the product keeps
    // the expert outputs for the probabilities' gradient (megatron/core/transformer/moe/moe_utils.py unpermute).
    Op combine{"combine", {}, {}};
    combine.saved.push_back({"expert_output", expert_kind, SavedSplit::Routed, h});
    combine.work.push_back(elementwise(h, SavedSplit::Routed, 2 * eb, 3 * eb));
    mod.ops.push_back(combine);
    // Shared experts: a dense MLP every token passes through (DeepSeekMoE; Qwen2-MoE's shared_expert).
    if (m.shared_experts > 0) {
        // shared_experts checkpoints them: what they saved but their input dropped, all of them run again.
        Module shared = mlp(b, *m.shared_expert_ffn_hidden, "shared_experts");
        // Their input is the router's (Megatron-Core's MoELayer and transformers' MoE blocks hand both the same
        // tensor): saved once, unless autocast casts it for each linear or an fp8 recipe keeps its own copy.
        if (!b.autocast) shared.ops.front().saved.front().kind = SavedKind::SharedGemmInput;
        const unsigned own = bit(RecomputeModule::SharedExperts);
        tag_recompute(shared, own, own);  // their input is set apart below
        mod.children.push_back(shared);
    }
    // Qwen2-MoE scales the shared experts' output by sigmoid(x W), W [1, h] (modeling_qwen2_moe.py shared_expert_gate);
    // its input is the router's.
    if (m.shared_expert_gate)
        mod.ops.push_back(high_precision(linear("shared_expert_gate", 1, h, false, Parallel::None, SavedSplit::Sequence, h, false)));
    // Megatron-Core's selective recompute of the layer (docs/memory.md "Per-module recompute"): moe checkpoints all of
    // it, so everything it saved is dropped but its input, the router's (which the checkpoint keeps), and all of it
    // runs again, the dispatch and combine included (megatron/core/transformer/moe/moe_layer.py). The norm before
    // the layer is a module of its own in Megatron-Core's MoE layers: under layernorm its output, the router's and
    // the shared experts' saved input, is discarded and recomputed.
    const unsigned whole = bit(RecomputeModule::Moe), norm_output = bit(RecomputeModule::LayerNorm);
    tag_recompute(mod, whole, whole);
    mod.ops.front().saved.front().dropped_by = norm_output;
    // The shared experts' input is the router's again: their own checkpoint keeps it, the layer's drops it.
    if (m.shared_experts > 0) mod.children.back().ops.front().saved.front().dropped_by = whole | norm_output;
    return mod;
}

Op logit_softcap(const BuildContext& b) {
    // Gemma2ForCausalLM: `logits = logits / cap; logits = torch.tanh(logits); logits = logits * cap` over the
    // [tokens, vocab] logits in their dtype. tanh keeps its output for the backward (1 - y^2); the division and the
    // product by a number keep nothing. Forward three passes (read and write each), backward the product's, tanh's
    // (the output and the incoming gradient read) and the division's.
    const double a = b.act_bytes;
    Op op{"logit_softcap", {}, {{"tanh_output", SavedKind::Activation, SavedSplit::Tensor, b.vocab_padded}}};
    Work w = elementwise(b.vocab_padded, SavedSplit::Tensor, 6 * a, 7 * a);
    w.fwd_kernels = w.bwd_kernels = 3;
    op.work.push_back(w);
    return op;
}

Op cross_entropy(const BuildContext& b) {
    Op op{"cross_entropy", {}, {}, true};
    const int64_t v = b.vocab_padded;
    // Megatron's vocab-parallel cross entropy keeps one fp32 copy of the softmax, 4sbv/t
    // (megatron/core/tensor_parallel/cross_entropy.py; Korthikanti sec. 4.3). Hugging Face's causal-LM
    // loss upcasts the logits (logits.float() in ForCausalLMLoss) and log_softmax keeps its fp32 output:
    // one fp32 copy survives forward (validation/measured: gpt2 and llama inventories).
    // BERT's MLM loss (CrossEntropyLoss on the 16-bit scores, no explicit upcast) keeps log-probabilities
    // in the dtype log_softmax runs in (fp32 under autocast, else the scores' dtype) and, under autocast,
    // the 16-bit scores as well (validation/measured: bert-large inventory 2sbv + 4sbv with autocast, 2sbv
    // in pure bf16).
    // The loss is over the next token in a decoder and in an LSTM language model, over masked positions in an
    // encoder: its buffers follow the kind of loss, not the attention mask (an LSTM has none).
    const bool next_token = b.m.arch != Arch::Encoder;
    const bool mlm = b.hf_code && !next_token;
    op.saved.push_back({"log_probs", mlm ? SavedKind::Upcast : SavedKind::Fp32, SavedSplit::Tensor, v});
    if (mlm && b.autocast) op.saved.push_back({"logits", SavedKind::Activation, SavedSplit::Tensor, v});
    // Temporaries: in forward the output layer's logits in the training dtype, plus their fp32 upcast where
    // the loss makes one; in backward the gradients: Megatron writes the logit gradient in place into the
    // saved softmax and casts it down, Hugging Face's loss allocates nll_loss's and log_softmax's fp32
    // gradients (causal LM: two [tokens, vocab] fp32 buffers; BERT MLM: one) (validation/measured: the
    // forward and backward peaks above what forward saved).
    op.forward_temporaries.push_back({"logits", SavedKind::Activation, SavedSplit::Tensor, v});
    const bool causal_upcast = b.hf_code && next_token && b.act_bytes < 4;
    if (causal_upcast) op.forward_temporaries.push_back({"logits_fp32", SavedKind::Fp32, SavedSplit::Tensor, v});
    if (!b.hf_code) {
        op.backward_temporaries.push_back({"logits_grad", SavedKind::Activation, SavedSplit::Tensor, v});
    } else {
        op.backward_temporaries.push_back({"nll_grad_fp32", SavedKind::Fp32, SavedSplit::Tensor, v});
        if (next_token) op.backward_temporaries.push_back({"log_softmax_grad_fp32", SavedKind::Fp32, SavedSplit::Tensor, v});
    }
    // Forward reads the 16-bit logits and makes two fp32 passes (max and exp-sum); backward reads the
    // fp32 softmax and writes the 16-bit logit gradient.
    if (b.hf_code) {
        op.work.push_back(eager::cross_entropy(b));
        return op;
    }
    op.work.push_back(elementwise(b.vocab_padded, SavedSplit::Tensor, b.act_bytes + 8, 4 + b.act_bytes));
    return op;
}

}  // namespace shardcalc
