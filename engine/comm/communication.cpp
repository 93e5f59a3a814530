#include "comm/communication.h"

#include <iterator>
#include <stdexcept>
#include <utility>

#include "comm/dimension_rules.h"
#include "graph/blocks.h"
#include "scenario/adapter_rules.h"

namespace shardcalc {

CommEntry& Builder::add(Dim dim, CollectiveKind kind, std::string_view purpose, double bytes, double count, const Group& g) {
    return add(dim, kind, purpose, bytes, count, g, collective_time(kind, bytes, g, c));
}

CommEntry& Builder::add(Dim dim, CollectiveKind kind, std::string_view purpose, double bytes, double count, const Group& g,
                        const CollectiveTime& t) {
    CommEntry e;
    e.dimension = dim;
    e.kind = kind;
    e.purpose = purpose;
    e.bytes = bytes;
    e.count = count;
    e.group = g;
    e.seconds_each = t.seconds;
    e.algorithm = t.algorithm;
    // A rule past the reserve would move the entries other rules hold references to.
    if (out.entries.size() == out.entries.capacity()) throw std::logic_error("more collectives than Builder::kMaxEntries");
    return out.entries.emplace_back(e);
}

Group group_of(Dim d, int64_t size, const Config& c, int64_t stride_factor) {
    return make_group(size, dimension(d).stride(c.s.parallel) * stride_factor, c);
}

StageComm stage_communication(const Config& c, const StagePlan& st, const StageCompute& sc, double all_params,
                              double expert_params, double weight_bytes, double frozen_params) {
    const ResolvedTraining& t = c.s.training;
    Builder b{c, {}};
    b.out.entries.reserve(Builder::kMaxEntries);
    StageRules f{c, st, sc, c.s.parallel, t, c.s.model, b};
    // Bytes per stored parameter, the same for the experts' (their fp8 share is the layers').
    f.param_bytes = all_params > 0 ? weight_bytes / all_params : bytes_of(t.param_dtype);
    // The routed experts' gradients are reduced over the ranks holding the same experts; the rest over the
    // data-parallel replicas.
    f.params = all_params - expert_params;
    f.expert_params = expert_params;
    // Under an adapter only its parameters have gradients, reduced and updated (memory/adapter_states.cpp).
    f.trained = f.params - frozen_params;
    f.trained_bytes = c.s.adapter.method != AdapterMethod::None ? adapter_bytes(c.s.adapter) : f.param_bytes;
    f.mb = static_cast<double>(c.d.microbatches);
    f.layers = static_cast<double>(sc.layers);
    f.a = bytes_of(t.dtype);
    f.tokens = tokens_per_device(c, true);
    f.full = t.recompute == Recompute::Full;
    // Full recompute repeats the forward collectives, inside the backward pass.
    f.fwd_passes = f.full ? 2 : 1;
    // Selective recompute repeats those of the modules it runs again (docs/memory.md "Per-module recompute"): a dense
    // layer's MLP (its one tensor-parallel collective of the layer's two) and a whole MoE layer (its dispatch and combine).
    const unsigned modules = recomputed_modules(t);
    f.tp_again = f.full ? 2 * f.layers
                        : (modules & bit(RecomputeModule::Mlp)) ? f.layers - static_cast<double>(sc.moe_layers) : 0;
    f.ep_passes = f.full || (modules & bit(RecomputeModule::Moe)) ? 2 : 1;
    // The rules in their rows' order, those that hide behind the passes once the others have lengthened them.
    for (const bool after_passes : {false, true})
        for (const CommRule& r : kCommRules)
            if (r.after_passes == after_passes) (f.*r.add)();
    return std::move(b.out);
}

SmallVector<DimensionTraffic, std::size(kDimensions)> traffic_by_dimension(const StageComm& sc) {
    SmallVector<DimensionTraffic, std::size(kDimensions)> out;
    for (const Dimension& d : dimensions()) {
        DimensionTraffic t{d.id};
        bool used = false;
        for (const auto& e : sc.entries)
            if (e.dimension == d.id) {
                used = true;
                t.count += e.count;
                t.volume += e.volume();
                t.seconds += e.seconds();
                t.exposed_seconds += e.exposed_seconds;
            }
        if (used) out.push_back(t);
    }
    return out;
}

}  // namespace shardcalc
