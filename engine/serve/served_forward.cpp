#include "serve/served_forward.h"

#include <algorithm>
#include <cmath>

#include "compute/roofline.h"
#include "serve/serving_parts.h"

namespace shardcalc {

ServedForward::ServedForward(const Config& c, const ModelGraph& g, const ServingSpec& s)
    : c_(c), model_(served_params(c, g)), whole_(model_.whole()), weight_bytes_(weight_bytes(c, s)) {
    const ResolvedModel& m = c.s.model;
    k_of_e_ = m.experts > 0 ? static_cast<double>(*m.experts_per_token) / static_cast<double>(m.experts) : 0;
    flop_rate_ = served_flop_rate(c, s);
    hbm_ = hbm_bytes_per_s(c);
    const double gap = c.s.hardware.kernel_launch_us * 1e-6;
    double kernels = 0;
    for (int64_t i = 0; i < m.layers; ++i) kernels += vllm_layer_kernels(m, i);
    layer_gaps_ = kernels * gap;
    step_gaps_ = vllm_step_kernels() * gap;
}

double ServedForward::held(const ServedParams& q) const {
    return q.quantized * weight_bytes_ + (q.all - q.quantized) * bytes_of(c_.s.training.dtype);
}

double ServedForward::weights_read(const ServedParams& q, double tokens, double expert_share) const {
    const double all = held(q) + q.borrowed * bytes_of(c_.s.training.dtype);
    if (c_.s.model.experts == 0) return all;
    const double chosen = 1 - std::pow(1 - k_of_e_, tokens);
    return all - q.experts * weight_bytes_ * (1 - expert_share * chosen);
}

double ServedForward::seconds(const ForwardBatch& b) const {
    if (b.tokens <= 0) return 0;
    // Every token multiplies the layers' active weights; only the sampled rows the output layer's.
    const double head = model_.post.active;
    const double flops = 2 * (b.tokens * (whole_.active - head) + b.logits * head) + b.attention_flops;
    const double bytes = weights_read(whole_, b.tokens) + b.kv_bytes;
    return std::max(flops / flop_rate_, bytes / hbm_) + layer_gaps_ + step_gaps_ +
           tensor_parallel_seconds(c_, b.tokens, static_cast<double>(c_.s.model.layers), TpAllReduce::Vllm);
}

}  // namespace shardcalc
