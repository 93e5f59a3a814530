#pragma once
// What a run's measured step time implies for its cluster's GEMMs: the efficiency (hardware.matmul_efficiency, the
// share of the matrix units' peak a large GEMM reaches) at which the estimate's step equals the measured one, every
// other term (communication, host launches, memory-bound kernels) as estimated. A calibration the user keeps
// (shardcalc reconcile, the page's "Compare with my run"), not a figure fitted into the presets.
#include "scenario/resolve.h"

namespace shardcalc {

struct GemmCalibration {
    enum class Outcome {
        Found,               // the estimate's step equals the measured one at `matmul_efficiency`
        FasterThanAnyGemms,  // the run was faster than the estimate even with every GEMM at the peak
        SlowerThanAnyGemms,  // or slower than with GEMMs at the least efficiency the field takes (0.001)
    };
    Outcome outcome = Outcome::Found;
    double matmul_efficiency = 0;      // Found: the field's value
    double matmul_efficiency_fp8 = 0;  // Found, where the hardware has an fp8 efficiency of its own: scaled alike
};

// `measured_seconds`: the run's step time. The step does not lengthen as GEMMs get faster, so bisection over the
// field's range finds the efficiency to a thousandth of a percent.
GemmCalibration implied_gemm_efficiency(const Config& c, double measured_seconds);

}  // namespace shardcalc
