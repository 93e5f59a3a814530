#include "report/metrics.h"

#include "compute/roofline.h"
#include "core/decimal.h"

namespace shardcalc {

Metrics metrics_of(const Config& c, const Performance& p) {
    Metrics m;
    const double world = static_cast<double>(c.d.world_size);
    const double step = p.step_seconds;
    m.step_seconds = step;
    m.peak_flops_per_device = mfu_peak_flops(c);
    // The roofline: the peak against the achievable HBM bandwidth (Williams et al. 2009).
    m.hbm_bytes_per_second = hbm_bytes_per_s(c);
    m.ridge_intensity = m.peak_flops_per_device / m.hbm_bytes_per_second;
    if (!(step > 0)) return m;  // a plan with no work: every rate stays 0
    m.tokens_per_second = static_cast<double>(c.d.tokens_per_step) / step;
    m.samples_per_second = static_cast<double>(c.s.training.global_batch) / step;
    // PaLM (Chowdhery et al. 2022, appendix B): model FLOPs per second over the aggregate peak.
    if (m.peak_flops_per_device > 0) {
        m.mfu = p.model_flops / (step * world * m.peak_flops_per_device);
        m.hfu = p.hardware_flops / (step * world * m.peak_flops_per_device);
    }
    // The highest MFU published for real training is about 72% (FlashAttention-2, Dao 2023: 225 of 312 TFLOP/s per
    // A100 for GPT-style models); large runs report 38-55% (Llama 3 405B; MegaScale 2024). Above 75% a prediction
    // has left out something the plan pays for.
    constexpr double kMfuCeiling = 0.75;
    if (m.mfu > kMfuCeiling) {
        m.efficiency_warning = "MFU " + decimal(100 * m.mfu, 1) +
                               "% is above any published training run (best about 72%, FlashAttention-2 on A100; large "
                               "runs 38-55%): treat the step time as a lower bound";
    }
    m.tflops_per_device = p.model_flops / (step * world) / 1e12;
    m.hardware_tflops_per_device = p.hardware_flops / (step * world) / 1e12;
    m.bubble_fraction = p.pipeline.bubble / step;
    m.device_seconds_per_million_tokens = world * 1e6 / m.tokens_per_second;
    m.cost_per_million_tokens = m.device_seconds_per_million_tokens / 3600 * c.s.hardware.price_per_gpu_hour;
    const double tokens = c.s.training.train_tokens;
    if (tokens > 0) {
        m.run_seconds = tokens / m.tokens_per_second;
        m.run_days = m.run_seconds / 86400;
        m.run_gpu_hours = m.run_seconds * world / 3600;
        m.run_cost = m.run_gpu_hours * c.s.hardware.price_per_gpu_hour;
    }
    return m;
}

}  // namespace shardcalc
