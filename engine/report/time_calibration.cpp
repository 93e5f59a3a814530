#include "report/time_calibration.h"

#include <algorithm>

#include "graph/build.h"
#include "report/estimate.h"

namespace shardcalc {

GemmCalibration implied_gemm_efficiency(const Config& c, double measured_seconds) {
    // The field's range (io/contract/scenario_schema.cpp: matmul_efficiency in [0.001, 1]).
    constexpr double kLeast = 1e-3, kMost = 1;
    const ModelGraph g = build_graph(c);  // GEMM efficiency is the device's: the graph does not depend on it
    const double fp8_share = c.s.hardware.matmul_efficiency_fp8 / c.s.hardware.matmul_efficiency;
    const auto step_at = [&](double efficiency) {
        Config at = c;
        at.s.hardware.matmul_efficiency = efficiency;
        at.s.hardware.matmul_efficiency_fp8 = std::min(1.0, efficiency * fp8_share);
        return estimate(std::move(at), g, Detail::Numbers).perf.step_seconds;
    };
    GemmCalibration out;
    if (step_at(kMost) > measured_seconds) {
        out.outcome = GemmCalibration::Outcome::FasterThanAnyGemms;
        return out;
    }
    if (step_at(kLeast) < measured_seconds) {
        out.outcome = GemmCalibration::Outcome::SlowerThanAnyGemms;
        return out;
    }
    double slow = kLeast, fast = kMost;  // step_at(slow) >= measured >= step_at(fast)
    while (fast - slow > 1e-5) {
        const double mid = (slow + fast) / 2;
        (step_at(mid) >= measured_seconds ? slow : fast) = mid;
    }
    out.matmul_efficiency = (slow + fast) / 2;
    if (c.s.hardware.matmul_efficiency_fp8 > 0) out.matmul_efficiency_fp8 = std::min(1.0, out.matmul_efficiency * fp8_share);
    return out;
}

}  // namespace shardcalc
