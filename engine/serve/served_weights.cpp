#include "serve/served_weights.h"

#include <algorithm>

#include "graph/blocks.h"
#include "memory/model_states.h"

namespace shardcalc {
namespace {

// One layer group's share of the served weights, `n` copies held and `runs` of it in one token's forward.
ServedParams layer_params(const Module& layer, const Config& c, double n, double runs) {
    const ResolvedModel& m = c.s.model;
    const double k = m.experts > 0 ? static_cast<double>(*m.experts_per_token) / static_cast<double>(m.experts) : 0;
    const ParamTally t = tally_module(layer, c, true);
    ServedParams p;
    p.all = n * t.params;
    p.quantized = n * (t.matmul_weights + t.expert_params);  // 2-D GEMM weights, and the experts' 3-D stacks
    p.experts = n * t.expert_params;
    p.active = runs * (t.params - t.expert_params + t.expert_params * k);
    return p;
}

}  // namespace

// Bytes of one served weight of a layer's GEMMs: the model's dtype, fp8, or weight-only int8/int4 with an fp16 scale
// and an int4 zero point per group (GPTQ's and AWQ's checkpoints: scales [in/group, out] fp16, qzeros packed int4);
// NVFP4 an E2M1 value and an E4M3 scale per 16 (NVIDIA ModelOpt's NVFP4; its per-tensor fp32 scale is left out), MXFP4
// an E2M1 value and an E8M0 scale per 32 (OCP Microscaling Formats v1.0).
double weight_bytes(const Config& c, const ServingSpec& s) {
    const double group = static_cast<double>(s.group_size);
    switch (s.weights) {
        case WeightFormat::Model: return bytes_of(c.s.training.dtype);
        case WeightFormat::Fp8: return 1;
        case WeightFormat::Int8: return 1 + 2.5 / group;
        case WeightFormat::Int4: return 0.5 + 2.5 / group;
        case WeightFormat::Nvfp4: return 0.5 + 1.0 / 16;
        case WeightFormat::Mxfp4: return 0.5 + 1.0 / 32;
    }
    return bytes_of(c.s.training.dtype);
}

ServedParams mtp_params(const Config& c, const ModelGraph& g) {
    ServedParams p;
    for (const Module& mtp : g.post.children) {
        for (const Op& op : mtp.ops) {
            const ParamTally t = tally_op(op, c, false);
            const bool shared = std::any_of(op.params.begin(), op.params.end(), [](const ParamTensor& w) { return w.shared; });
            p.all += t.params;
            p.quantized += shared ? 0 : t.matmul_weights;
            p.active += shared ? t.matmul_weights : t.params;
            p.borrowed += shared ? t.matmul_weights : 0;
        }
        for (const Module& layer : mtp.children) p += layer_params(layer, c, 1, 1);
    }
    return p;
}

ServedParams eagle_params(const Config& c, const ModelGraph& g) {
    const auto dense = std::find_if(g.groups.begin(), g.groups.end(), [](const LayerGroup& grp) { return !grp.moe; });
    ServedParams p = layer_params((dense != g.groups.end() ? *dense : g.groups.front()).layer, c, 1, 1);
    const double h = static_cast<double>(c.s.model.hidden);
    p.all += 2 * h * h;
    p.active += 2 * h * h;
    for (const Op& op : g.post.ops)
        if (has_matmul(op)) {
            const double head = tally_op(op, c, true).matmul_weights;
            p.active += head;
            p.borrowed += head;
        }
    return p;
}

ServedModel served_params(const Config& c, const ModelGraph& g) {
    ServedModel p;
    p.pre.all = tally_module(g.pre, c, false).params;
    for (const LayerGroup& grp : g.groups)
        p.layers += layer_params(grp.layer, c, grp.shared_weights ? 1 : static_cast<double>(grp.count), static_cast<double>(grp.count));
    for (const Op& op : g.post.ops) {
        p.post.all += tally_op(op, c, false).params;
        p.post.active += tally_op(op, c, true).params;
    }
    return p;
}


}  // namespace shardcalc
