#include "report/time_calibration.h"

#include <algorithm>
#include <functional>

#include "core/decimal.h"
#include "graph/build.h"
#include "report/estimate.h"
#include "schedule/step_parts.h"

namespace shardcalc {
namespace {

// The setting x in [least, most] at which step(x), not shorter as x grows, equals `measured`; `least`/`most` where the
// measured step lies beyond the step's range.
TimeCalibration::Outcome bisect(const std::function<double(double)>& step, double least, double most, double measured,
                                double tolerance, double& x) {
    if (step(least) > measured) return TimeCalibration::Outcome::FasterThanAny;
    if (step(most) < measured) return TimeCalibration::Outcome::SlowerThanAny;
    double low = least, high = most;  // step(low) <= measured <= step(high)
    while (high - low > tolerance) {
        const double mid = (low + high) / 2;
        (step(mid) <= measured ? low : high) = mid;
    }
    x = (low + high) / 2;
    return TimeCalibration::Outcome::Found;
}

double part(const Performance& p, std::string_view key) {
    for (const auto& [k, seconds] : p.breakdown)
        if (k == key) return seconds;
    return 0;
}

}  // namespace

TimeCalibration implied_time_calibration(const Config& c, double measured_seconds) {
    const ModelGraph g = build_graph(c);  // both terms are the device's or the host's: the graph does not depend on them
    const auto step_of = [&](Config at) { return estimate(std::move(at), g, Detail::Numbers).perf.step_seconds; };
    TimeCalibration out;
    // The bounding term, by the estimate at the scenario's own figures: the host's waits against the kernels' time.
    const Performance perf = estimate(c, g, Detail::Numbers).perf;
    const double host = part(perf, part_key<StepPart::ForwardHostWait>) + part(perf, part_key<StepPart::BackwardHostWait>);
    const double kernels = part(perf, part_key<StepPart::ForwardCompute>) + part(perf, part_key<StepPart::BackwardCompute>) +
                           part(perf, part_key<StepPart::Recompute>);
    const ResolvedImplementation& im = c.s.implementation;
    if (im.compile == CompileMode::None && host > kernels && im.host_forward_us + im.host_backward_us > 0) {
        // The host's cost per launch scaled alike in both passes, up to the fields' bound (io/contract/scenario_schema.cpp:
        // at most 10^6 us).
        out.term = TimeCalibration::Term::Host;
        const double f = im.host_forward_us, b = im.host_backward_us, most = 1e6 / std::max(f, b);
        double scale = 0;
        out.outcome = bisect(
            [&](double s) {
                Config at = c;
                at.s.implementation.host_forward_us = f * s;
                at.s.implementation.host_backward_us = b * s;
                return step_of(std::move(at));
            },
            0, most, measured_seconds, 1e-6, scale);
        out.host_forward_us = f * scale;
        out.host_backward_us = b * scale;
        return out;
    }
    // The GEMM efficiency over the field's range (matmul_efficiency in [0.001, 1]), the fp8 one scaled alike; the step
    // lengthens as the efficiency falls, so the bisection runs over its inverse.
    const double fp8_share = c.s.hardware.matmul_efficiency_fp8 / c.s.hardware.matmul_efficiency;
    const auto at_efficiency = [&](double e) {
        Config at = c;
        at.s.hardware.matmul_efficiency = e;
        at.s.hardware.matmul_efficiency_fp8 = std::min(1.0, e * fp8_share);
        return at;
    };
    double slowness = 0;
    out.outcome = bisect([&](double x) { return step_of(at_efficiency(1 / x)); }, 1, 1e3, measured_seconds, 1e-6, slowness);
    if (out.outcome == TimeCalibration::Outcome::Found) {
        out.matmul_efficiency = 1 / slowness;
        if (c.s.hardware.matmul_efficiency_fp8 > 0) out.matmul_efficiency_fp8 = std::min(1.0, out.matmul_efficiency * fp8_share);
    }
    return out;
}

std::string time_calibration_finding(const TimeCalibration& t, const Config& c, const std::string& measured) {
    const bool host = t.term == TimeCalibration::Term::Host;
    if (t.outcome == TimeCalibration::Outcome::FasterThanAny)
        return measured + " is shorter than the estimate's even with " +
               (host ? "the host's launches free" : "every GEMM at the device's peak") +
               ": the difference lies in the other terms the estimate adds (communication, " +
               (host ? "the kernels themselves" : "host launches, memory-bound kernels") + "), or the scenario is not the run's plan";
    if (t.outcome == TimeCalibration::Outcome::SlowerThanAny)
        return measured + " is longer than the estimate's even with " +
               (host ? "a second per launch" : "GEMMs at a thousandth of the device's peak") + ": is the scenario the run's plan?";
    if (!host && t.matmul_efficiency < c.s.hardware.matmul_efficiency / 2)
        return "the GEMM efficiency " + measured + " implies (" + decimal(100 * t.matmul_efficiency, 1) +
               "%) is under half what this device's large GEMMs reach (" + decimal(100 * c.s.hardware.matmul_efficiency, 1) +
               "%): the difference more likely lies in what the estimate adds to its GEMMs (communication, host launches, the "
               "framework's own work) or in the scenario (sequence lengths, the plan) than in the GEMMs";
    return "";
}

}  // namespace shardcalc
