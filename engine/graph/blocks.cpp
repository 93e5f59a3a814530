#include "graph/blocks.h"

#include <algorithm>

#include "graph/compiled_kernels.h"
#include "graph/eager_kernels.h"
#include "scenario/framework.h"
#include "scenario/dimension.h"

namespace shardcalc {

void tag_recompute(Module& m, unsigned drops, unsigned reruns) {
    for_each_op(m, [&](Op& op) {
        for (SavedTensor& t : op.saved) t.dropped_by |= drops;
        op.rerun_by |= reruns;
    });
}

BuildContext build_context(const Config& c) {
    const Attention kernel = c.traits.sdpa_math ? Attention::Eager : c.s.training.attention;
    return BuildContext{c.s.model,          kernel,                        c.s.training.dropout > 0,
                        c.traits.fused_glu, c.d.vocab_padded,
                        bytes_of(c.s.training.dtype), c.traits.autocast ? 4.0 : bytes_of(c.s.training.dtype),
                        c.s.model.arch == Arch::Decoder,
                        c.traits.hf_code,   !c.traits.hf_code && !c.traits.xla,
                        c.traits.autocast,  c.s.training.router_z_loss,
                        megatron_layer_scaled_softmax(c.s.framework), c.s.training.dtype == Dtype::Bf16,
                        c.s.model.attention_softcap > 0 && c.s.training.attention == Attention::Eager,
                        c.traits.hf_code && c.s.implementation.experts == ExpertsImpl::BatchedMm,
                        c.traits.hf_code && c.s.implementation.experts == ExpertsImpl::Eager,
                        c.traits.hf_code && c.s.implementation.compile != CompileMode::None,
                        c.s.model.fused_qkv || c.s.implementation.model_code == ModelCode::Megatron,
                        c.s.framework == Framework::Megatron, c.s.implementation.moe_router_fusion,
                        c.traits.hf_code && c.s.implementation.loss_16bit};
}

bool sdpa_window_mask(const Config& c) {
    const ResolvedModel& m = c.s.model;
    return c.traits.hf_code && build_context(c).attention == Attention::Flash && m.sliding_window > 0 &&
           m.sliding_window < c.s.training.seq_len;
}

bool on_path(KernelPath path, const Config& c) {
    if (path == KernelPath::Always) return true;
    if (path == KernelPath::SdpaWindowMask) return sdpa_window_mask(c);
    const ResolvedParallel& p = c.s.parallel;
    if (path == KernelPath::LocalExpertSort) return p.moe_dispatcher == MoeDispatcher::AllToAll && c.s.model.experts / p.ep > 1;
    if (path == KernelPath::AllToAllDispatch) return p.moe_dispatcher == MoeDispatcher::AllToAll;
    const bool fused = megatron_fused_softmax(c.s.framework, c.s.training.micro_batch, c.s.model.heads / (p.tp * p.ulysses),
                                              c.s.training.seq_len, c.s.model.arch == Arch::Decoder, bytes_of(c.s.training.dtype) < 4);
    return fused == (path == KernelPath::FusedSoftmax);
}

bool has_matmul(const Op& op) {
    return std::any_of(op.work.begin(), op.work.end(), [](const Work& w) { return w.kind == WorkKind::Matmul; });
}

double param_tensor_count(const Module& m) {
    double n = 0;
    for_each_op(m, [&](const Op& op) {
        for (const auto& p : op.params) n += p.tied || p.shared ? 0 : 1;
    });
    return n;
}

double local_numel(const ParamTensor& p, const Config& c) {
    const double n = static_cast<double>(p.numel());
    switch (p.split) {
        case ParamSplit::Replicated: return n;
        case ParamSplit::Sharded: return n / static_cast<double>(c.s.parallel.tp);
        case ParamSplit::Expert: return n / static_cast<double>(c.s.parallel.ep * c.s.parallel.etp);
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

Work elementwise(int64_t width, SavedSplit split, double fwd_bytes, int fwd_kernels, double bwd_bytes, int bwd_kernels) {
    Work w = elementwise(width, split, fwd_bytes, bwd_bytes);
    w.fwd_kernels = fwd_kernels;
    w.bwd_kernels = bwd_kernels;
    return w;
}

Work matmul_work(int64_t in, int64_t out, bool split_in) {
    Work w;
    w.kind = WorkKind::Matmul;
    w.in = in;
    w.out = out;
    w.split_in = split_in;
    return w;
}

Op linear(const std::string& name, int64_t out, int64_t in, bool bias, Parallel kind, SavedSplit input_split,
          int64_t input_width, bool save_input) {
    Op op{name, {}, {}};
    const bool sharded = kind != Parallel::None;
    op.params.push_back(weight(out, in, sharded ? ParamSplit::Sharded : ParamSplit::Replicated));
    op.params.back().split_last = kind == Parallel::Row;
    // Row-parallel biases are added after the all-reduce, so they stay whole.
    if (bias)
        op.params.push_back(vector_param("b", out, kind == Parallel::Column ? ParamSplit::Sharded : ParamSplit::Replicated));
    // A linear layer keeps its input for the weight gradient (Korthikanti sec. 4.1), in the matmul dtype:
    // under autocast that is the 16-bit cast it made of an fp32 input (validation/measured inventories).
    if (save_input) op.saved.push_back({"input", SavedKind::GemmInput, input_split, input_width});
    Work w = matmul_work(in, out, kind == Parallel::Row);
    w.sharded = sharded;
    op.work.push_back(w);
    return op;
}

Op high_precision(Op op) {
    for (auto& w : op.work) w.fp8 = false;
    for (auto& t : op.saved)
        if (t.kind == SavedKind::GemmInput) t.kind = SavedKind::Activation;
    return op;
}

Op pointwise_fed(const BuildContext& b, Op op) {
    if (b.compiled)
        op.saved.erase(std::remove_if(op.saved.begin(), op.saved.end(), [](const SavedTensor& t) { return t.kind == SavedKind::GemmInput; }),
                       op.saved.end());
    return op;
}

Op eager_linear(const BuildContext& b, Op op, bool fp32_input) {
    if (!b.hf_code && !b.megatron_eager) return op;
    const Work mm = op.work.front();  // a copy: the pushes below may move the vector
    if (b.hf_code) {
        const SavedSplit in_split = mm.sharded && mm.split_in ? SavedSplit::Tensor : SavedSplit::Sequence;
        if (b.autocast && fp32_input)
            op.work.push_back(b.compiled ? compiled::input_cast(b, in_split, mm.in) : eager::input_cast(b, in_split, mm.in));
        const int64_t numel = op.params.front().numel();
        if (b.autocast)
            op.work.push_back(b.compiled ? compiled::weight_cast(b, numel, mm.sharded) : eager::weight_cast(b, numel, mm.sharded));
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
    if (b.compiled) {
        // Compiled, either norm keeps its input as stored and the per-token statistics; the normalized tensor (and
        // RMSNorm's fp32 copy of the input) is rebuilt in backward.
        op.work.push_back(compiled::norm(b, width));
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
        op.work.push_back(b.compiled ? compiled::residual_add(b, width) : eager::residual_add(b, width));
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

}  // namespace shardcalc
