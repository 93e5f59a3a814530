#include "comm/stage_rules.h"

#include <algorithm>
#include <cmath>

#include "graph/blocks.h"

namespace shardcalc {

// Expert parallelism: the token dispatcher's exchanges per MoE layer.
void StageRules::expert_parallel() const {
    const int64_t etp = expert_tp(p);
    if ((p.ep > 1 || etp > 1) && sc.moe_layers > 0) {
        // Megatron-Core's alltoall token dispatcher (megatron/core/transformer/moe/token_dispatcher.py; GShard,
        // Lepikhin et al. 2020), per MoE layer: an all-to-all over ep sends each token's top-k copies, hidden wide,
        // to the ranks of their experts, then (etp > 1) an all-gather over the expert-tensor group; combine runs
        // the reverse (reduce-scatter in the fp32 of the routing probabilities, all-to-all back). Backward swaps
        // each for its transpose, same volumes. The busiest rank's rows (training.expert_imbalance).
        const double moe = static_cast<double>(sc.moe_layers);
        const double rows = tokens_per_device(c, false) * c.d.routed_busiest;  // after the ep exchange, before the etp gather
        // Per microbatch: the dispatcher's seconds in the forward and the backward pass. Exposed, or with
        // parallel.overlap_moe_comm hidden behind the other microbatch's compute of the same pass up to its length.
        struct Made {
            CommEntry* e;
            double in_fwd, in_bwd;  // its seconds per microbatch in each pass (full recompute repeats a forward one)
        };
        std::vector<Made> made;
        double fwd_each = 0, bwd_each = 0;
        // An exchange of the forward pass (repeated where the MoE layers' forward runs again) or of the backward.
        auto record = [&](CommEntry& e, bool forward) {
            e.overlapped = p.overlap_moe_comm;
            const Made x{&e, forward ? moe * e.seconds_each : 0,
                         forward ? moe * (ep_passes - 1) * e.seconds_each : moe * e.seconds_each};
            fwd_each += x.in_fwd;
            bwd_each += x.in_bwd;
            made.push_back(x);
        };
        const auto calls = [&](bool forward) { return moe * mb * (forward ? ep_passes : 1); };
        auto both_passes = [&](const Group& g, CollectiveKind kind, const char* what, double bytes, bool forward) {
            record(b.add(Dim::Ep, kind, what, bytes, calls(forward), g), forward);
        };
        if (p.moe_dispatcher == MoeDispatcher::AllGather) {
            // Megatron-Core's allgather dispatcher (MoEAllGatherTokenDispatcher): every token of the expert-tensor x
            // expert-parallel group gathered on every rank of it (ranks adjacent: stride 1), each rank keeping those
            // its experts were chosen for; the combine scales by the probabilities, scatters back into the gathered
            // shape and reduce-scatters it. The fp32 routing probabilities are gathered too. Backward: transposes.
            const Group g = make_group(p.ep * etp, 1, c);
            const double gathered = allgather_dispatch_rows(c);
            both_passes(g, CollectiveKind::AllGather, "tokens of the expert group gathered (forward dispatch)", gathered * m.hidden * a, true);
            both_passes(g, CollectiveKind::AllGather, "routing probabilities gathered, fp32 (forward)",
                        gathered * static_cast<double>(m.experts) * 4, true);
            both_passes(g, CollectiveKind::ReduceScatter, "expert outputs reduce-scattered back (forward combine)", gathered * m.hidden * a, true);
            both_passes(g, CollectiveKind::AllGather, "output gradients gathered (backward)", gathered * m.hidden * a, false);
            both_passes(g, CollectiveKind::ReduceScatter, "token gradients reduce-scattered back (backward)", gathered * m.hidden * a, false);
            both_passes(g, CollectiveKind::ReduceScatter, "probability gradients reduce-scattered back, fp32 (backward)",
                        gathered * static_cast<double>(m.experts) * 4, false);
        } else if (p.ep > 1 && p.moe_dispatcher == MoeDispatcher::Flex) {
            // DeepEP / HybridEP (the flex dispatcher): a token crosses to another NVLink domain once however many of
            // its experts live there, and reaches each GPU once however many of its experts that GPU holds
            // (comm/collective_time.h hierarchical_traffic); combine and the backward's exchanges are the transposes.
            const Group g = group_of(Dim::Ep, p.ep, c);
            const HierarchicalTraffic traffic = hierarchical_traffic(rows / static_cast<double>(*m.experts_per_token), m.hidden * a,
                                                                     m.experts, *m.experts_per_token, g);
            const CollectiveTime time = hierarchical_all_to_all(traffic, g, c);
            auto exchange = [&](const char* what, bool forward) {
                record(b.add(Dim::Ep, CollectiveKind::AllToAll, what, traffic.sent(), calls(forward), g, time), forward);
            };
            exchange("tokens to their experts' GPUs (forward dispatch)", true);
            exchange("expert outputs back (forward combine)", true);
            exchange("output gradients to the experts' GPUs (backward)", false);
            exchange("input gradients back (backward)", false);
        } else if (p.ep > 1) {
            const Group g = group_of(Dim::Ep, p.ep, c);
            const double bytes = rows * m.hidden * a;
            both_passes(g, CollectiveKind::AllToAll, "tokens to their experts (forward dispatch)", bytes, true);
            both_passes(g, CollectiveKind::AllToAll, "expert outputs back (forward combine)", bytes, true);
            both_passes(g, CollectiveKind::AllToAll, "output gradients to the experts (backward)", bytes, false);
            both_passes(g, CollectiveKind::AllToAll, "input gradients back (backward)", bytes, false);
        }
        if (etp > 1 && p.sp && p.moe_dispatcher == MoeDispatcher::AllToAll) {
            const Group g = make_group(etp, 1, c);  // expert-tensor ranks are adjacent (stride 1)
            const double gathered = rows * static_cast<double>(etp) * m.hidden;
            both_passes(g, CollectiveKind::AllGather, "dispatched tokens over the expert-tensor group (forward)", gathered * a, true);
            both_passes(g, CollectiveKind::ReduceScatter, "expert outputs over the expert-tensor group, fp32 (forward)", gathered * 4, true);
            both_passes(g, CollectiveKind::ReduceScatter, "token gradients over the expert-tensor group (backward)", gathered * a, false);
            both_passes(g, CollectiveKind::AllGather, "output gradients over the expert-tensor group, fp32 (backward)", gathered * 4, false);
        }
        const double fwd_shown = p.overlap_moe_comm ? std::max(0.0, fwd_each - sc.cost.fwd.seconds) : fwd_each;
        const double bwd_shown =
            p.overlap_moe_comm ? std::max(0.0, bwd_each - sc.cost.bwd.seconds - sc.cost.recompute.seconds) : bwd_each;
        b.out.fwd_exposed += fwd_shown;
        b.out.bwd_exposed += bwd_shown;
        // Each entry's exposed share, in proportion to its time within each pass (per iteration).
        for (const Made& x : made)
            x.e->exposed_seconds = mb * ((fwd_each > 0 ? x.in_fwd * fwd_shown / fwd_each : 0) +
                                         (bwd_each > 0 ? x.in_bwd * bwd_shown / bwd_each : 0));
    }
}

}  // namespace shardcalc
