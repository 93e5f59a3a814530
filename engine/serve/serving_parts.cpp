// The pieces both servers' estimates use (serve/serving_parts.h).
#include "serve/serving_parts.h"

#include <algorithm>
#include <cmath>

#include "comm/collective_time.h"
#include "compute/roofline.h"
#include "graph/build.h"

namespace shardcalc {

double kv_element_bytes(const Config& c, const ServingSpec& s) {
    return s.kv_cache_dtype == KvCacheDtype::Fp8 ? 1 : bytes_of(c.s.training.dtype);
}

double layer_kv_bytes(const Config& c, const ServingSpec& s) {
    const ResolvedModel& m = c.s.model;
    const double e = kv_element_bytes(c, s);
    if (m.kv_lora_rank > 0) return static_cast<double>(m.kv_lora_rank + m.qk_rope_head_dim) * e;
    const int64_t heads = std::max<int64_t>(1, m.kv_heads / c.s.parallel.tp);
    return 2.0 * static_cast<double>(heads) * static_cast<double>(m.head_dim) * e;
}

LayerKinds layer_kinds(const ModelFields& m) {
    LayerKinds k;
    for (int64_t i = 0; i < m.layers; ++i) (is_local_layer(m, i) ? k.local : k.full) += 1;
    return k;
}

LayerKinds scaled(LayerKinds k, double share) {
    k.full *= share;
    k.local *= share;
    return k;
}

double window_of(const ModelFields& m, double context) { return std::min(context, static_cast<double>(m.sliding_window)); }

double request_kv(const Config& c, const ServingSpec& s, const LayerKinds& k, double context, bool blocks, double shared) {
    const double block = static_cast<double>(s.block_size);
    const auto held = [&](double tokens) { return blocks ? std::ceil(tokens / block) * block : tokens; };
    return layer_kv_bytes(c, s) * (k.full * (held(context) - shared) + k.local * held(window_of(c.s.model, context)));
}

double attention_flops(const Config& c, const LayerKinds& k, double queries, double past, bool causal) {
    const ResolvedModel& m = c.s.model;
    const double heads = static_cast<double>(m.heads) / static_cast<double>(c.s.parallel.tp);
    const double qk = static_cast<double>(m.head_dim + (m.kv_lora_rank > 0 ? m.qk_rope_head_dim : 0));
    const double v = static_cast<double>(m.kv_lora_rank > 0 ? *m.v_head_dim : m.head_dim);
    const double keys = past + (causal ? queries : 0);
    const double seen = window_of(m, keys);
    // A causal part's queries see on average half of it where the window does not cut it.
    const auto pairs = [&](double s) { return causal && s == keys ? queries * (past + queries / 2) : queries * s; };
    return 2 * heads * (qk + v) * (k.full * pairs(keys) + k.local * pairs(seen));
}


double forward_peak(const Config& c, double tokens) {
    const ResolvedModel& m = c.s.model;
    const double t = tokens, tp = static_cast<double>(c.s.parallel.tp), hid = static_cast<double>(m.hidden);
    const double glu = m.mlp == Mlp::Swiglu || m.mlp == Mlp::Geglu ? 2 : 1;
    const double attn = t * static_cast<double>(m.heads + 2 * m.kv_heads) * static_cast<double>(m.head_dim) / tp;
    const double dense = t * (glu + 1) * static_cast<double>(m.ffn_hidden) / tp;
    const double moe = m.experts > 0 ? t * static_cast<double>(*m.experts_per_token) *
                                           ((glu + 1) * static_cast<double>(*m.expert_ffn_hidden) / tp + hid)
                                     : 0;
    return (2 * t * hid + std::max({attn, dense, moe})) * bytes_of(c.s.training.dtype);
}

double tensor_parallel_seconds(const Config& c, double tokens, double layers, TpAllReduce by) {
    const double bytes = tokens * static_cast<double>(c.s.model.hidden) * bytes_of(c.s.training.dtype);
    const double each = by == TpAllReduce::Vllm ? vllm_all_reduce_seconds(c, bytes)
                                                : collective_time(CollectiveKind::AllReduce, bytes, make_group(c.s.parallel.tp, 1, c), c).seconds;
    return 2 * layers * each;
}

double served_flop_rate(const Config& c, const ServingSpec& s) {
    const HardwareSpec& h = c.s.hardware;
    const bool fp8 = s.weights == WeightFormat::Fp8 && h.peak_tflops_fp8 > 0;
    const bool fp4 = s.weights == WeightFormat::Nvfp4 && h.peak_tflops_nvfp4 > 0;
    return (fp8 ? h.peak_tflops_fp8 * 1e12 : fp4 ? h.peak_tflops_nvfp4 * 1e12 : peak_flops(c)) * h.matmul_efficiency;
}

}  // namespace shardcalc
