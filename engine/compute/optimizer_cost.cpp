#include "compute/optimizer_cost.h"

#include "scenario/adapter_rules.h"

#include <algorithm>

namespace shardcalc {
namespace {

// FLOPs per parameter of the update, counted from the update rules (torch/optim/adamw.py, sgd.py, Lion: Chen
// et al. 2023 alg. 2, Adafactor: Shazeer & Stern 2018 alg. 4). They only place the kernels on the roofline:
// every update is memory-bound (DeepFlow's LSTM projection, applyGrad: 0.1 FLOP per byte).
double update_flops(Optimizer o) {
    switch (o) {
        case Optimizer::Adam:
        case Optimizer::AdamW:
        case Optimizer::AdamW8bit: return 16;  // decay 2, first moment 3, second 4, bias-corrected step 5, update 2
        case Optimizer::Sgd: return 2;
        case Optimizer::SgdMomentum: return 4;
        case Optimizer::Lion: return 10;
        case Optimizer::Adafactor: return 12;
    }
    return 0;
}

// transformers' Adafactor (optimization.py Adafactor.step, as the Trainer builds it: scale_parameter and
// relative_step off, no first moment, no weight decay) updates one tensor at a time, op by op from Python. Per fp32
// element: _rms(p) r 4; (grad**2) + eps r 4 w 4 twice; the row and column means r 4 each; _approx_sq_grad's
// outer product of the two factors w 4; update.mul_(grad) r 8 w 4; _rms(update) r 4; update.div_(clamp) r 4 w 4;
// update.mul_(lr) r 4 w 4; p.add_(-update): neg r 4 w 4 and add_ r 8 w 4: 84 bytes, in 24 kernels (the rest are
// per-row, per-column or scalar: the statistics' mul_ and add_, the factors' mean, div and rsqrt, the norms'
// divisions and clamp). A vector keeps its whole second moment: exp_avg_sq.mul_ and add_, rsqrt, mul_(grad) in
// place of the factored steps: 100 bytes in 16 kernels. 16-bit gradients are cast up (grad.float()), 16-bit
// parameters cast up and copied back (p.float(), p.copy_): a kernel and r a w 4 each.
Kernel adafactor_loop(const Config& c, const TrainedTensors& t, double params) {
    // Flat partitions are the fp32 master copy with an fp32 gradient (FrameworkTraits::flat_optimizer_params): no casts.
    const bool fp32_partition = c.traits.flat_optimizer_params;
    const double g = fp32_partition ? 4 : bytes_of(c.s.training.grad_dtype), p = fp32_partition ? 4 : bytes_of(c.s.training.param_dtype);
    const double cast_bytes = (g < 4 ? g + 4 : 0) + (p < 4 ? 2 * (p + 4) : 0);
    const int cast_kernels = (g < 4 ? 1 : 0) + (p < 4 ? 2 : 0);
    const double matrix = std::min(t.matrix_params, params), vector = params - matrix;
    const int kernels = static_cast<int>(t.matrices * (24 + cast_kernels) + t.vectors * (16 + cast_kernels));
    Kernel k = memory_kernel(matrix * (84 + cast_bytes) + vector * (100 + cast_bytes), c, std::max(1, kernels));
    // The Python loop issues every op: the step takes at least its host time (the forward's per-launch figure).
    k.memory_seconds = k.seconds = std::max(k.seconds, kernels * c.s.implementation.host_forward_us * 1e-6);
    return k;
}

}  // namespace

OptimizerKernels optimizer_kernels(const Config& c, double params, double state_bytes, double host_bytes,
                                   const TrainedTensors& tensors, double trained) {
    OptimizerKernels k;
    // The parameters it updates: an adapter's are in adapter.dtype (scenario/adapter_rules.h).
    const double grad = bytes_of(c.s.training.grad_dtype);
    const double param = c.s.adapter.method != AdapterMethod::None ? adapter_bytes(c.s.adapter) : bytes_of(c.s.training.param_dtype);
    if (c.s.training.grad_clip) {
        // Clipping by the global norm (Megatron clip_grad_norm_fp32, torch.nn.utils.clip_grad_norm_): one pass
        // reads the gradients for their norm (square and add per element), a second scales them in place
        // (read and write): 3 FLOPs and 3 gradient accesses per parameter (DeepFlow's gradclip: 4 and 3).
        k.clip = memory_kernel(3 * params * grad, c, 2);
        k.clip.flops = 3 * params;
    }
    const ResolvedParallel& p = c.s.parallel;
    if (p.offload_optimizer != Offload::None) {
        // ZeRO-Offload (Ren et al. 2021, sec. 4.1 and 5): the device's gradient partition goes down the PCIe
        // link, CPU-Adam updates it on the host, memory-bound (every byte the host keeps for this device, the
        // fp32 master weights, the states and the fp32 gradient, is read and written once), and the updated
        // 16-bit parameters come back up. None of it overlaps the step here (DeepSpeed's one-step delayed update
        // is off by default). NVMe offload and devices without host figures are not timed (a note says so).
        const HardwareSpec& h = c.s.hardware;
        if (p.offload_optimizer == Offload::Cpu && h.host_link_gbps > 0 && h.host_memory_gbps > 0)
            k.host_seconds = params * (grad + param) / (h.host_link_gbps * 1e9) + 2 * host_bytes / (h.host_memory_gbps * 1e9);
        return k;
    }
    // transformers' Adafactor runs under PyTorch's frameworks; XLA compiles T5X's into the step, and Megatron-LM
    // ships no Adafactor of its own: one memory-bound pass there.
    const bool torch_loop = c.s.framework != Framework::Xla && c.s.framework != Framework::Megatron;
    if (c.s.training.optimizer == Optimizer::Adafactor && torch_loop && tensors.matrices + tensors.vectors > 0) {
        k.apply = adafactor_loop(c, tensors, params);
        k.apply.flops = update_flops(Optimizer::Adafactor) * params;
        return k;
    }
    // Read and write the weights, master copy and states it updates, read the gradients (DeepFlow's applyGrad_mem;
    // a memory-bound multi-tensor kernel).
    double bytes = 2 * state_bytes + 2 * params * param + params * grad;
    // torch.optim's foreach and per-parameter implementations run the update as separate passes over
    // whole tensor lists (torch/optim/adamw.py _multi_tensor_adamw: weight decay, lerp_, mul_, addcmul_,
    // sqrt, div_, add_, addcdiv_; sgd.py: mul_ and add_ on the momentum): Adam moves its states three
    // times as often as the fused kernel and the parameter and gradient twice as often; SGD's momentum
    // 2.5 times (validation/measured: foreach AdamW 2.8x the fused kernel's time).
    if (c.s.implementation.optimizer_impl != OptimizerImpl::Fused) {
        const double s = state_bytes / std::max(1.0, params);  // state bytes per parameter
        const Optimizer opt = c.s.training.optimizer;
        if (opt == Optimizer::Adam || opt == Optimizer::AdamW) {
            bytes += params * (4 * s + 2 * param + grad);
        } else if (opt == Optimizer::SgdMomentum) {
            bytes += params * 3 * s;
        }
    }
    // Megatron's mixed-precision step around the update (megatron/core/optimizer/optimizer.py MixedPrecisionOptimizer
    // .step): under fp16's loss scaling the main gradients are unscaled and checked for inf/nan first
    // (torch._amp_foreach_non_finite_check_and_unscale_: read and write); the model's parameters are written from the
    // fp32 main ones (_copy_main_params_to_model_params reads those, not the 16-bit ones); and the gradient buffer is
    // zeroed for the next step (core/distributed/distributed_data_parallel.py zero_grad_buffer).
    if (c.s.framework == Framework::Megatron && c.s.training.master_weights) {
        if (c.s.training.dtype == Dtype::Fp16) bytes += 2 * params * grad;
        bytes += params * (4 - param) + trained * grad;
    }
    k.apply = memory_kernel(bytes, c);
    k.apply.flops = update_flops(c.s.training.optimizer) * params;
    return k;
}

}  // namespace shardcalc
