#include "compute/pass_time.h"

#include <algorithm>

namespace shardcalc {
namespace {

// A pass on one device takes its kernels' device time, unless the host issues them more slowly: eager
// PyTorch spends host time on every launch and every collective call, so a pass cannot be shorter than
// (launches + calls) x host overhead (the device cannot run ahead of kernels not yet issued). Kernels a library
// launches inside one op (cuDNN's RNN) cost the host only their launch, which their device time holds. Kernels
// issued after a host-device synchronization (transformers' eager experts loop, Megatron-Core's alltoall dispatcher
// waiting for the tokens per expert) overlap only with their own host work: the rest of the pass cannot hide them,
// nor they it.
double forward_host_us(const Config& c) {
    const ResolvedImplementation& im = c.s.implementation;
    return im.compile != CompileMode::None ? *im.host_compiled_us : im.host_forward_us;
}
double backward_host_us(const Config& c) {
    const ResolvedImplementation& im = c.s.implementation;
    return im.compile != CompileMode::None ? *im.host_compiled_us : im.host_backward_us;
}

double pass_seconds(const Kernel& k, double calls, double host_us) {
    const auto host = [&](double launches) { return launches * host_us * 1e-6; };
    const double free = std::max(k.seconds - k.synced_seconds, host(k.launches - k.library_launches - k.synced_launches + calls));
    // Never less than the device's time: (seconds - synced) + synced may round below it by an ulp.
    return std::max(k.seconds, free + std::max(k.synced_seconds, host(k.synced_launches)));
}

}  // namespace

// A torch.compile'd pass issues its kernels from inductor's wrapper, or replays them as a CUDA graph
// (implementation.host_compiled_us), whichever pass it is.
double forward_pass_seconds(const Kernel& k, double calls, const Config& c) { return pass_seconds(k, calls, forward_host_us(c)); }
double backward_pass_seconds(const Kernel& k, double calls, const Config& c) { return pass_seconds(k, calls, backward_host_us(c)); }

Kernel backward_kernels(const StageCompute& sc) {
    Kernel k = sc.cost.bwd;
    k += sc.cost.recompute;
    return k;
}

double host_forward_seconds(const StageCompute& sc, const Config& c) {
    const Kernel& f = sc.cost.fwd;
    return (f.launches - f.library_launches) * forward_host_us(c) * 1e-6;
}

}  // namespace shardcalc
