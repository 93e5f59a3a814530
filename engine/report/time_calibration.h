#pragma once
// What a run's measured step time implies for its cluster, as the scenario fields of the term that bounds the step: the
// GEMM efficiency (hardware.matmul_efficiency, the share of the matrix units' peak a large GEMM reaches) where the
// passes are bound by their kernels, or the host's time per launch (implementation.host_forward_us and
// host_backward_us, scaled alike) where they wait on the host issuing them; each set so that the estimate's step equals
// the measured one, every other term as estimated. A calibration the user keeps (shardcalc reconcile, the page's
// "Compare with my run"), not a figure fitted into the presets.
#include <string>

#include "scenario/resolve.h"

namespace shardcalc {

struct TimeCalibration {
    enum class Term {
        Gemms,  // the passes are bound by their kernels
        Host,   // they wait on the host's launches more than they compute
    };
    enum class Outcome {
        Found,        // the estimate's step equals the measured one with the term's figures below
        FasterThanAny,  // the run was faster than the estimate at the term's fastest (GEMMs at the peak, launches free)
        SlowerThanAny,  // or slower than at its slowest the fields take
    };
    Term term = Term::Gemms;
    Outcome outcome = Outcome::Found;
    double matmul_efficiency = 0, matmul_efficiency_fp8 = 0;  // Gemms, Found (fp8: where the hardware has its own, 0 else)
    double host_forward_us = 0, host_backward_us = 0;         // Host, Found
};

// `measured_seconds`: the run's step time. The step does not shorten as GEMMs get slower or launches dearer, so
// bisection over the fields' ranges finds them. A torch.compile'd run is calibrated on its GEMMs only (its launches are
// inductor's or a CUDA graph's).
TimeCalibration implied_time_calibration(const Config& c, double measured_seconds);

// What the reconciliations say of a calibration in words, where it found no figures or implies a GEMM rate under half
// the device's (empty otherwise); `measured` names what the log timed ("the log's step").
std::string time_calibration_finding(const TimeCalibration& t, const Config& c, const std::string& measured);

}  // namespace shardcalc
