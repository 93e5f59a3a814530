#include "compute/op_cost.h"

#include <algorithm>

#include "graph/blocks.h"
#include "plan/local_shape.h"
#include "scenario/dimension.h"

namespace shardcalc {
namespace {

double tp(const Config& c) { return static_cast<double>(c.s.parallel.tp); }

// The busiest rank's routed token copies per microbatch (scenario/resolve.h routed_tokens_factor).
double routed_tokens(const Config& c) { return tokens_per_device(c, false) * routed_tokens_factor(c, true); }

// Runs of a Work per microbatch: a recurrent one's time steps.
double runs(const Work& w) { return w.steps > 0 ? static_cast<double>(w.steps) : 1; }

// The share of a device's tokens one run of a Work sees: 1/steps of them for a recurrent Work, the gathered
// positions in an MLM head over them (training.mlm_predictions).
double token_fraction(const Work& w, const Config& c) { return (w.gathered ? c.d.mlm_share : 1) / runs(w); }

// Elements of one run of an elementwise Work: its split's local part (plan/local_shape.h), of the tokens one run sees.
double elements(const Work& w, const Config& c) {
    if (w.per_weight) return static_cast<double>(w.width) / (w.sharded ? tp(c) : 1);
    return local_elements(w.split, w.width, static_cast<double>(c.s.training.seq_len), c) * token_fraction(w, c);
}

// Transformer Engine's quantization of one GEMM operand of `elements` 16-bit values into fp8, both usages at once:
// the row-wise data this GEMM reads and the column-wise data the later GEMM that uses it transposed reads (the
// input's weight gradient, the output gradient's weight gradient), 2 bytes per element. Current scaling first
// reads the tensor for its amax, then computes the scale, then casts (transformer_engine/pytorch/csrc/quantizer.cpp,
// Float8CurrentScalingQuantizer::quantize_impl: nvte_compute_amax, nvte_compute_scale_from_amax, nvte_quantize_v2);
// delayed scaling casts with the last step's scale and records the amax in the same kernel; blockwise and MXFP8
// scaling compute each block's scale in the cast and write it beside each copy (scenario/precision.h fp8_element_bytes).
// NVFP4 first reads the tensor for its per-tensor amax (of its Hadamard transform for the column-wise copy), then
// one fused kernel writes the row-wise copy and the Hadamard-transformed column-wise one, stochastic rounding inside
// (quantizer.cpp NVFP4Quantizer::quantize_impl: nvte_hadamard_transform_amax, nvte_quantize_with_hadamard_transform).
Kernel fp8_quantize(double elements, double from_bytes, const Config& c) {
    const double copies = 2 * fp8_element_bytes(c, false);
    if (c.s.training.fp8 == Fp8Recipe::Current) return memory_kernel(elements * (2 * from_bytes + copies), c, 3);
    if (c.s.training.fp8 == Fp8Recipe::Nvfp4) return memory_kernel(elements * (2 * from_bytes + copies), c, 2);
    return memory_kernel(elements * (from_bytes + copies), c, 1);
}

// A GEMM of [m, k] by [k, n] forward, and backward its data gradient [m, n] by [n, k] and weight gradient [k, m]
// by [m, n], in fp8 or fp32 where the op runs so. An fp8 GEMM's input [m, k] is quantized forward and its output
// gradient [m, n] backward; under sequence parallelism Transformer Engine quantizes the local shard before the
// all-gather (module/linear.py: gather_along_first_dim with the quantizer), 1/tp of the gathered operand
// (`gathered_in`, `gathered_out`). The weight is quantized once per step (cached from the first microbatch;
// with fp8 primary weights only its column-wise copy is made), shown here as its share per microbatch.
void gemm_passes(double m, double k, double n, const Work& w, const Config& c, const char* name, WorkKernels& out,
                 bool gathered_in = false, bool gathered_out = false, double groups = 1) {
    const bool fp8 = runs_in_fp8(w, c);
    const GemmPrecision p = fp8    ? GemmPrecision::Fp8
                            : w.fp32 ? GemmPrecision::Fp32
                            : w.cudnn ? GemmPrecision::Cudnn
                                     : GemmPrecision::Training;
    const double a = bytes_of(c.s.training.dtype);
    const double g = groups;
    out.add(Pass::Forward, name, gemm_kernel(m, k, n, c, p, g), {m, k, n, p, g});
    if (fp8) {
        out.add(Pass::Forward, "fp8 quantize (input)", fp8_quantize(g * m * k / (gathered_in ? tp(c) : 1), a, c));
        const bool fp8_weights = c.s.training.param_dtype == Dtype::Fp8;
        const Kernel weight = fp8_weights ? memory_kernel(g * k * n * 2 * fp8_element_bytes(c, true), c, 1) : fp8_quantize(g * k * n, a, c);
        out.add(Pass::Forward, "fp8 quantize (weight, per step)", scaled(weight, 1 / static_cast<double>(c.d.microbatches)));
    }
    out.add(Pass::BackwardData, name, gemm_kernel(m, n, k, c, p, g), {m, n, k, p, g});
    if (fp8) out.add(Pass::BackwardData, "fp8 quantize (output gradient)", fp8_quantize(g * m * n / (gathered_out ? tp(c) : 1), a, c));
    // A frozen weight has no gradient (graph/adapter.cpp).
    if (!w.frozen)
        out.add(Pass::BackwardWeight, name, gemm_kernel(k, m, n, c, p, g, GemmLayout::TransposedA), {k, m, n, p, g});
}

// An expert GEMM over the busiest rank's routed tokens (its time) with 1/etp of each expert's width: one group per
// local expert, each over its share of the tokens (even routing) with its own weight. A grouped kernel runs them all
// in one launch (torch._grouped_mm's CUTLASS kernel; Transformer Engine's GroupedLinear, timed alike, issues a
// cuBLAS GEMM per expert over four streams, a launch each); PyTorch's fallback for
// other dtypes (fp32: Hugging Face's experts under autocast) loops over the groups in C++, one GEMM launch each
// (aten _grouped_mm_fallback; validation/measured/h100-moe-pytorch.jsonl: one GEMM kernel per expert and call).
// Model FLOPs count the average top-k copies, once across the etp shards (each computes its own part).
void expert_matmul(const Work& w, const Config& c, WorkKernels& out) {
    const double etp = static_cast<double>(c.s.parallel.etp);
    const double k = w.split_in ? w.in / etp : static_cast<double>(w.in);
    const double n = w.split_in ? static_cast<double>(w.out) : w.out / etp;
    // batched_mm: a matrix-vector product per routed row, each against its own copy of its expert's weight.
    const double groups = w.per_row_weights ? routed_tokens(c) : static_cast<double>(std::max<int64_t>(1, c.s.model.experts / c.s.parallel.ep));
    const double rows = routed_tokens(c) / groups;
    if (w.per_row_weights) {
        gemm_passes(rows, k, n, w, c, "batched gemm", out, false, false, groups);
    } else if (w.group_loop) {
        gemm_passes(rows, k, n, w, c, "gemm per expert", out);
        for (int i = 0; i < out.count; ++i) {
            Kernel& one = out.list[i].kernel;
            one = scaled(one, groups);
            // torch's fallback: one op call from Python, its loop in C++; transformers' eager experts: every GEMM
            // an op of the Python loop.
            one.library_launches = w.expert_loop ? 0 : one.launches - 1;
            out.list[i].gemm.groups = groups;
        }
    } else {
        gemm_passes(rows, k, n, w, c, "grouped gemm", out, false, false, groups);
        // Transformer Engine's GroupedLinear: a cuBLAS GEMM launched per local expert (graph/op.h launch_per_group).
        if (w.launch_per_group)
            for (int i = 0; i < out.count; ++i) out.list[i].kernel.launches *= groups;
    }
    const double mean = c.d.routed_busiest > 0 ? c.d.routed_mean / c.d.routed_busiest : 1;
    out.model_flops = (w.frozen ? 2 : 3) * out.list[0].kernel.flops * mean;
    out.model_flops_full_attention = out.model_flops;
}

void matmul(const Work& w, const Config& c, WorkKernels& out) {
    if (w.routed) return expert_matmul(w, c, out);
    // Sharded GEMMs see every token of the (gathered) sequence shard and 1/tp of the weight;
    // replicated ones run on each tp rank, on the sequence shard under sp.
    const double m = tokens_per_device(c, w.sharded) * token_fraction(w, c);
    const double k = w.sharded && w.split_in ? w.in / tp(c) : static_cast<double>(w.in);
    const double n = w.sharded && !w.split_in ? w.out / tp(c) : static_cast<double>(w.out);
    // Under sequence parallelism a column-parallel GEMM's input and a row-parallel one's output gradient are gathered.
    const bool sp = w.sharded && c.s.parallel.sp;
    gemm_passes(m, k, n, w, c, "gemm", out, sp && !w.split_in, sp && w.split_in);
    if (w.cudnn && w.steps > 0) {
        // cudnnRNNBackwardWeights: the recurrent weight's gradient from every step's output gradient at once.
        for (int i = 0; i < out.count; ++i) {
            PassKernel& pk = out.list[i];
            if (pk.pass != Pass::BackwardWeight) continue;
            const double rows = m * runs(w);
            pk.kernel = gemm_kernel(k, rows, n, c, pk.gemm.precision, 1, GemmLayout::TransposedA);
            pk.gemm.k = rows;
            pk.whole = true;
        }
    }
    // Forward + backward = 3x the forward GEMM (Narayanan et al. 2021, sec. 5.1). Replicated GEMMs
    // without sp repeat the same work on every tp rank: count it once.
    const bool redundant = !w.sharded && !c.s.parallel.sp;
    out.model_flops = (w.frozen ? 2 : 3) * out.list[0].kernel.flops / (redundant ? tp(c) : 1);
    out.model_flops_full_attention = out.model_flops;
}

void attention(const Work& w, const Config& c, WorkKernels& out) {
    const double s = static_cast<double>(c.s.training.seq_len);
    // Score pairs per device, [b, heads, queries, keys] split as the scores are (plan/local_shape.h); QK^T and AV
    // each 2*d FLOPs per pair (Narayanan sec. 5.1).
    const LocalDims scores = local_dims(SavedSplit::Scores, w.heads, s, c);
    const double pairs = scores[0] * scores[1] * scores[2] * scores[3];
    const double dv = w.v_head_dim > 0 ? static_cast<double>(w.v_head_dim) : static_cast<double>(w.head_dim);
    const double full = 2 * pairs * (w.head_dim + dv);
    // Causal masking: half the pairs matter; a sliding window of w keys leaves s*w - w^2/2 of the s^2 (FlashAttention
    // skips the blocks outside it, flash_attn window_size; Beltagy et al. 2020).
    const double win = static_cast<double>(w.window);
    const double attended = w.window > 0 && win < s ? (s * win - win * win / 2) / (s * s) : 0.5;
    const double useful = w.causal ? full * attended : full;
    // Under transformers' SDPA with a sliding-window mask every block is computed (graph/blocks.h sdpa_window_mask).
    const double computed = w.window > 0 && w.flash && sdpa_window_mask(c) ? full : useful;
    const double a = bytes_of(c.s.training.dtype);
    const double tokens = tokens_per_device(c, true);
    const double qkvo = 2 * tokens * (w.heads / tp(c)) * (w.head_dim + dv) * a;
    if (w.flash) {
        // FlashAttention skips fully masked blocks and recomputes QK^T in backward: 2.5x the forward
        // FLOPs (Dao 2023, FlashAttention-2, sec. 3.1 / 4.1).
        const char* name = computed > useful ? "masked attention" : "flash attention";
        out.add(Pass::Forward, name, attention_kernel(computed, qkvo, c));
        out.add(Pass::BackwardData, name, attention_kernel(2.5 * computed, 2 * qkvo, c));
    } else {
        // Eager attention computes every pair, masked or not: two batched GEMMs forward, and each one's two
        // data gradients backward (neither operand is a weight).
        const double rows = scores[0] * scores[1] * scores[2];
        const double d = static_cast<double>(w.head_dim);
        out.add(Pass::Forward, "scores gemm", gemm_kernel(rows, d, s, c), {rows, d, s});
        out.add(Pass::Forward, "values gemm", gemm_kernel(rows, s, dv, c), {rows, s, dv});
        for (int i = 0; i < 2; ++i) {
            out.add(Pass::BackwardData, "scores gemm", gemm_kernel(rows, d, s, c), {rows, d, s});
            out.add(Pass::BackwardData, "values gemm", gemm_kernel(rows, s, dv, c), {rows, s, dv});
        }
    }
    out.model_flops = 3 * useful;
    out.model_flops_full_attention = 3 * full;
}

}  // namespace

WorkKernels work_kernels(const Work& w, const Config& c) {
    WorkKernels out;
    if (!on_path(w.path, c)) return out;
    switch (w.kind) {
        case WorkKind::Matmul: matmul(w, c, out); break;
        case WorkKind::Attention: attention(w, c, out); break;
        case WorkKind::Elementwise: {
            const double n = elements(w, c);
            // Work over a weight is autocast's cast of it forward and its gradient's accumulation backward.
            auto kernel = [&](double bytes, double flops, int kernels) {
                Kernel k = memory_kernel(n * bytes, c, kernels);
                k.flops = n * flops;
                return k;
            };
            if (w.fwd_bytes > 0)
                out.add(Pass::Forward, w.per_weight ? "weight cast" : "elementwise", kernel(w.fwd_bytes, w.fwd_flops, w.fwd_kernels));
            if (w.bwd_bytes > 0)
                out.add(w.per_weight ? Pass::BackwardWeight : Pass::BackwardData, w.per_weight ? "gradient accumulation" : "elementwise",
                        kernel(w.bwd_bytes, w.bwd_flops, w.bwd_kernels));
            break;
        }
    }
    for (int i = 0; i < out.count; ++i) {
        PassKernel& pk = out.list[i];
        pk.repeat = pk.whole ? 1 : runs(w);
        if (w.cudnn) pk.kernel.library_launches = pk.kernel.launches;
        // Issued after a host-device synchronization in forward: transformers' eager experts loop, or Megatron-Core's
        // alltoall dispatcher waiting for the tokens per expert (backward runs in autograd's engine, unsynced).
        if ((w.expert_loop || (w.after_sync && on_path(KernelPath::AllToAllDispatch, c))) && pk.pass == Pass::Forward) {
            pk.kernel.synced_seconds = pk.kernel.seconds;
            pk.kernel.synced_launches = pk.kernel.launches - pk.kernel.library_launches;
        }
    }
    out.model_flops *= runs(w);
    out.model_flops_full_attention *= runs(w);
    return out;
}


OpCost OpCost::scaled(double k) const {
    // Every member given (a value-initialized OpCost is 350 bytes zeroed first; a plan scales one per layer kind).
    return {shardcalc::scaled(fwd, k), shardcalc::scaled(bwd, k), shardcalc::scaled(recompute, k), model_flops * k,
            model_flops_full_attention * k};
}

bool recomputed(const Op& op, const Config& c, bool in_layer) {
    if (!in_layer) return false;
    // Full recompute re-runs every forward kernel of the layer; selective those of the modules it recomputes
    // (graph/op.h rerun_by: core attention's scores where they were dropped, a checkpointed MLP or MoE layer, ...).
    return c.s.training.recompute == Recompute::Full || (op.rerun_by & recomputed_modules(c.s.training)) != 0;
}

Kernel grad_accumulation(const Op& op, const Config& c) {
    const GradAccumulation mode = c.traits.grad_accumulation;
    if (mode == GradAccumulation::None) return {};
    const double m = static_cast<double>(c.d.microbatches);
    // AccumulateGrad's first microbatch takes the gradient as it is: adds on m - 1 of m microbatches.
    const double share = mode == GradAccumulation::AutogradAdd ? (m - 1) / m : 1;
    // Bytes per element: an add reads both and writes the sum, a copy reads and writes; Megatron's hook adds the
    // parameter's .grad (in its dtype: the activation dtype for these tensors, also under fp8 primary weights) into
    // the main_grad buffer (grad_dtype, fp32 by default).
    const double g = bytes_of(c.s.training.grad_dtype);
    const Dtype param = c.s.training.param_dtype == Dtype::Fp8 ? c.s.training.dtype : c.s.training.param_dtype;
    const double per_element = mode == GradAccumulation::BucketCopy    ? 2 * g
                               : mode == GradAccumulation::MainGradHooks ? 2 * g + bytes_of(param)
                                                                         : 3 * g;
    const bool gemm = has_matmul(op);
    Kernel total;
    for (size_t i = 0; i < op.params.size(); ++i) {
        const ParamTensor& p = op.params[i];
        if (p.tied || p.shared) continue;
        // A linear's weight (its first parameter) is accumulated by its GEMM under Megatron.
        if (mode == GradAccumulation::MainGradHooks && gemm && i == 0) continue;
        total += memory_kernel(per_element * local_numel(p, c), c, 1);
    }
    return scaled(total, share);
}

int64_t cost_microbatches(const Config& c) {
    const bool per_step = c.traits.grad_accumulation == GradAccumulation::AutogradAdd || c.s.training.fp8 != Fp8Recipe::None;
    return per_step ? c.d.microbatches : 0;
}

OpCost op_cost(const Op& op, const Config& c, bool in_layer) {
    OpCost cost;
    cost.bwd += grad_accumulation(op, c);
    for (const auto& w : op.work) {
        const WorkKernels k = work_kernels(w, c);
        for (int i = 0; i < k.count; ++i)
            (k.list[i].pass == Pass::Forward ? cost.fwd : cost.bwd) += scaled(k.list[i].kernel, k.list[i].repeat);
        cost.model_flops += k.model_flops;
        cost.model_flops_full_attention += k.model_flops_full_attention;
    }
    if (recomputed(op, c, in_layer)) cost.recompute = cost.fwd;
    return cost;
}

OpCost module_cost(const Module& m, const Config& c, bool in_layer) {
    return sum_over_ops<OpCost>(m, [&](const Op& op) { return op_cost(op, c, in_layer); });
}

}  // namespace shardcalc
