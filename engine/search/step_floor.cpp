#include "search/step_floor.h"

#include <algorithm>

#include "compute/pass_time.h"
#include "compute/roofline.h"
#include "report/estimate.h"
#include "schedule/pipeline.h"

namespace shardcalc {

Scenario one_device_twin(const Scenario& plan) {
    Scenario one = plan;
    one.parallel = ParallelSpec{};
    one.parallel.schedule = plan.parallel.schedule;
    return one;
}

TwinFloor twin_floor(const Config& twin, const ModelGraph& g) {
    TwinFloor out;
    const Estimate e = estimate(twin, g, Detail::Numbers);
    // A hair below, so that a plan whose step equals its floor in exact arithmetic is never skipped on rounding.
    constexpr double kBelow = 1 - 1e-9;
    const double rate = fastest_peak_flops(twin);
    if (rate > 0) out.flops = e.perf.model_flops / rate * kBelow;
    if (twin.s.model.experts == 0) out.host_forward = host_forward_seconds(e.perf.compute.front(), twin) * kBelow;
    return out;
}

double step_floor(const Config& plan, const TwinFloor& twin) {
    const ResolvedParallel& p = plan.s.parallel;
    const double m = static_cast<double>(plan.d.microbatches), stages = static_cast<double>(p.pp);
    const double flops = twin.flops / static_cast<double>(plan.d.world_size) * pipeline_fill_factor(p.pp, plan.d.microbatches, p.vpp);
    const double host = (m + (stages - 1) / static_cast<double>(p.vpp)) * twin.host_forward / stages;
    return std::max(flops, host);
}

}  // namespace shardcalc
