#include "memory/model_states.h"

#include "graph/blocks.h"
#include "scenario/adapter_rules.h"
#include "scenario/dimension.h"

namespace shardcalc {

double optimizer_state_elems(const ParamTensor& p, double local, Optimizer opt, bool flat) {
    switch (opt) {
        case Optimizer::Adam:
        case Optimizer::AdamW:
        case Optimizer::AdamW8bit: return 2 * local;   // exp_avg, exp_avg_sq (Kingma & Ba 2015)
        case Optimizer::Sgd: return 0;
        case Optimizer::SgdMomentum: return local;     // momentum_buffer
        case Optimizer::Lion: return local;            // exp_avg only (Chen et al. 2023, Alg. 1)
        case Optimizer::Adafactor: {
            // Factored second moment: one row and one column statistic per matrix, full for vectors; no first
            // moment by default (Shazeer & Stern 2018; transformers' Adafactor beta1=None). A tensor of more
            // dimensions (a MoE layer's [experts, out, in]) is factored over its last two (`len(shape) >= 2`):
            // a row statistic per leading index and row, a column one per leading index and column.
            // Inside a flat partition every element keeps its own second moment.
            if (p.shape.size() < 2 || flat) return local;
            const double ratio = local / static_cast<double>(p.numel());  // tp (and ep) shard the leading dimensions
            const double last = static_cast<double>(p.shape.back());
            const double leading = static_cast<double>(p.numel()) / last;  // every index but the last
            const double rows = static_cast<double>(p.shape[p.shape.size() - 2]);
            // A row-parallel shard [out, in/tp] keeps every row's statistic and its own columns'.
            if (p.shape.size() == 2 && p.split_last) return leading + last * ratio;
            return leading * ratio + leading / rows * last * (p.shape.size() == 2 ? 1 : ratio);
        }
    }
    return 0;
}

ParamTally tally_op(const Op& op, const Config& c, bool include_tied) {
    ParamTally t;
    const bool matmul = has_matmul(op);
    const bool fp8 = std::any_of(op.work.begin(), op.work.end(), [&](const Work& w) { return runs_in_fp8(w, c); });
    for (const auto& p : op.params) {
        const double local = local_numel(p, c);
        // A tied output layer still casts the shared matrix for its own matmul.
        if (matmul && p.shape.size() == 2) t.matmul_weights += local;
        if (fp8 && p.shape.size() >= 2) t.fp8_weights += local;
        if ((p.tied && !include_tied) || p.shared) continue;
        t.params += local;
        if (!p.frozen) {
            (p.shape.size() >= 2 ? t.trained_matrices : t.trained_vectors) += 1;
            if (p.shape.size() >= 2) t.trained_matrix_elems += local;
        }
        if (p.frozen) t.frozen += local;
        if (p.quantized) t.quantized += local;
        const double states = p.frozen ? 0 : optimizer_state_elems(p, local, c.s.training.optimizer, c.traits.flat_optimizer_params);
        t.optimizer_elems += states;
        if (p.base_copy && !p.frozen) {
            t.base_copies += local;
            t.base_copy_optimizer_elems += states;
        }
        if (p.split == ParamSplit::Expert) {
            t.expert_params += local;
            t.expert_optimizer_elems += states;
        }
        t.largest = std::max(t.largest, local);
    }
    return t;
}

ParamTally tally_module(const Module& m, const Config& c, bool include_tied) {
    return sum_over_ops<ParamTally>(m, [&](const Op& op) { return tally_op(op, c, include_tied); });
}

double optimizer_state_element_bytes(const Config& c) {
    const ResolvedTraining& tr = c.s.training;
    // bitsandbytes' 8-bit states: a byte each and an fp32 absmax per block of 2,048 (Dettmers et al. 2022, "8-bit
    // Optimizers via Block-wise Quantization", sec. 2.1).
    if (tr.optimizer == Optimizer::AdamW8bit) return 1 + 4.0 / 2048;
    // An adapter's states are in its dtype (scenario/adapter_rules.h), or fp32 beside a master copy (DeepSpeed).
    if (c.s.adapter.method != AdapterMethod::None) return tr.master_weights ? 4.0 : adapter_bytes(c.s.adapter);
    return tr.master_weights ? 4.0 : bytes_of(tr.param_dtype);
}

// Temporaries of the optimizer step beyond the states, per device. torch.optim's foreach Adam/AdamW
// materialises sqrt(exp_avg_sq) for every parameter at once (torch/optim/adamw.py _multi_tensor_adamw:
// torch._foreach_sqrt), the per-parameter loop one tensor at a time, the fused kernel none; SGD updates
// in place (validation/measured: foreach +4 bytes per fp32 parameter, fused and SGD +0).
// `updated`: the parameters this device's optimizer step updates (its partition where the states are sharded).
double optimizer_temporaries(const ParamTally& t, const Config& c, double updated) {
    const Optimizer opt = c.s.training.optimizer;
    const bool adam_like = opt == Optimizer::Adam || opt == Optimizer::AdamW;
    double bytes = c.traits.step_transient_bytes_per_param * updated;
    if (adam_like) {
        const double elem = optimizer_state_element_bytes(c);
        switch (c.s.implementation.optimizer_impl) {
            case OptimizerImpl::Fused: break;
            case OptimizerImpl::Foreach: bytes += elem * updated; break;
            case OptimizerImpl::ForLoop: bytes += elem * std::min(t.largest, updated); break;
        }
    }
    return bytes;
}

StateBytes model_state_bytes(const ParamTally& t, const Config& c) {
    if (c.s.adapter.method != AdapterMethod::None) return adapter_state_bytes(t, c);
    const ResolvedTraining& tr = c.s.training;
    const ResolvedParallel& p = c.s.parallel;
    const double n = static_cast<double>(c.d.replica_degree);
    // ZeRO (Rajbhandari et al. 2020, sec. 5): stage 1 partitions optimizer states, 2 adds
    // gradients, 3 adds parameters, across the ranks holding the same weights. Megatron's
    // distributed optimizer partitions the optimizer states (fp32 master + moments) only:
    // 6 + 12/d bytes per parameter for bf16 (docs/source/api-guide/dist_optimizer.md).
    // Routed experts are partitioned over the ranks holding the same experts instead (Megatron's distributed
    // optimizer over the expert data-parallel group, megatron/core/distributed; DeepSpeed-MoE's expert groups).
    const double n_experts = static_cast<double>(c.d.expert_replica_degree);
    const bool shard_opt = p.zero >= 1 || p.distributed_optimizer;
    auto partition = [&](double all, double experts, bool sharded) {
        return sharded ? (all - experts) / n + experts / n_experts : all;
    };

    StateBytes s;
    s.weights = partition(t.params, t.expert_params, p.zero >= 3) * bytes_of(tr.param_dtype);
    // FP8 primary weights (--fp8-param-gather) hold only the fp8 GEMMs' weights in fp8; embeddings, norms, biases
    // and the output layer stay in the activation dtype (Transformer Engine's fp8_model_init covers its modules).
    // Under ZeRO-3 (Megatron-FSDP's optim_grads_params) each rank keeps its partition of them.
    if (tr.param_dtype == Dtype::Fp8 && t.params > 0)
        s.weights = (t.fp8_weights * fp8_element_bytes(c, true) + (t.params - t.fp8_weights) * bytes_of(tr.dtype)) *
                    partition(t.params, t.expert_params, p.zero >= 3) / t.params;
    s.gradients = partition(t.params, t.expert_params, p.zero >= 2) * bytes_of(tr.grad_dtype);
    const double updated = partition(t.params, t.expert_params, shard_opt);
    const double master = tr.master_weights ? 4.0 * updated : 0.0;
    s.optimizer = master + optimizer_state_element_bytes(c) * partition(t.optimizer_elems, t.expert_optimizer_elems, shard_opt);
    s.step_transient = optimizer_temporaries(t, c, updated);

    // Offload (ZeRO-Offload, Ren et al. 2021; ZeRO-Infinity, Rajbhandari et al. 2021; FSDP CPUOffload):
    // the optimizer step runs on the host, which also needs an fp32 copy of the gradient partition.
    if (p.offload_optimizer != Offload::None) {
        const double fp32_grads = 4.0 * updated;
        (p.offload_optimizer == Offload::Cpu ? s.host_cpu : s.host_nvme) += s.optimizer;
        s.host_cpu += fp32_grads;
        s.optimizer = 0;
        s.step_transient = 0;
        // ZeRO-Offload with partitioned gradients copies each reduced partition to the host as soon as
        // it is ready (Ren et al. 2021, sec. 4.1; deepspeed estimate_zero2/3 "cpu_offload": no gradients
        // on the GPU); only the reduce bucket (comm_buffers) stays.
        if (c.s.framework == Framework::DeepSpeed && p.zero >= 2) s.gradients = 0;
    }
    if (p.offload_params != Offload::None) {
        (p.offload_params == Offload::Cpu ? s.host_cpu : s.host_nvme) += s.weights;
        s.weights = 0;
        // FSDP CPUOffload keeps the sharded gradients on the host: they are the fp32 copy counted above.
        if (c.s.framework == Framework::Fsdp) s.gradients = 0;
    }
    return s;
}

}  // namespace shardcalc
