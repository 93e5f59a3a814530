#pragma once
// The figures people compare plans by, derived once from the step time: throughput, MFU/HFU
// (PaLM appendix B's definition, model FLOPs over peak), and time and cost to train. The JSON and
// text writers and the plan search read them from here; none of them derives a figure itself.
#include <string>

#include "scenario/resolve.h"
#include "schedule/step.h"

namespace shardcalc {

struct Metrics {
    double step_seconds = 0;
    double peak_flops_per_device = 0;          // of the unit that runs the training dtype's matmuls
    double hbm_bytes_per_second = 0;           // achievable HBM bandwidth (the roofline's slope)
    double ridge_intensity = 0;                // FLOP per HBM byte where the two roofs meet
    double tokens_per_second = 0;
    double samples_per_second = 0;
    double mfu = 0;                            // model FLOPs / (step time * devices * peak)
    double hfu = 0;                            // hardware FLOPs (recompute included) / the same
    double tflops_per_device = 0;              // model FLOPs per device and second, 10^12
    double hardware_tflops_per_device = 0;
    double bubble_fraction = 0;                // pipeline bubble / step time
    double device_seconds_per_million_tokens = 0;  // devices * seconds per 10^6 tokens: cost without a price
    double cost_per_million_tokens = 0;        // at hardware.price_per_gpu_hour (0 without a price)
    // Non-empty when the figures are beyond what any published training run reaches: why they should not be
    // trusted as they are (the model then misses an overhead this plan has).
    std::string efficiency_warning;
    // The whole run, when training.train_tokens > 0 (else all 0).
    double run_seconds = 0, run_days = 0, run_gpu_hours = 0, run_cost = 0;
};

Metrics metrics_of(const Config& c, const Performance& p);

}  // namespace shardcalc
