#include "comm/stage_rules.h"

#include <algorithm>
#include <cmath>

#include "comm/moe_overlap.h"
#include "graph/blocks.h"

namespace shardcalc {

// Expert parallelism: the token dispatcher's exchanges per MoE layer.
void StageRules::expert_parallel() const {
    const int64_t etp = p.etp;
    if ((p.ep > 1 || etp > 1) && sc.moe_layers > 0) {
        // Megatron-Core's alltoall token dispatcher (megatron/core/transformer/moe/token_dispatcher.py; GShard,
        // Lepikhin et al. 2020), per MoE layer: an all-to-all over ep sends each token's top-k copies, hidden wide,
        // to the ranks of their experts, then (etp > 1) an all-gather over the expert-tensor group; combine runs
        // the reverse (reduce-scatter in the fp32 of the routing probabilities, all-to-all back). Backward swaps
        // each for its transpose, same volumes. The busiest rank's rows (training.expert_imbalance).
        const double moe = static_cast<double>(sc.moe_layers);
        const double rows = tokens_per_device(c, false) * c.d.routed_busiest;  // after the ep exchange, before the etp gather
        // Per microbatch, each exchange's seconds in one MoE layer, by the node of Megatron-Core's layer schedule it
        // belongs to: the dispatch (before the experts) or the combine (after), forward or backward; and what
        // a recompute pass repeats (never overlapped).
        struct Made {
            CommEntry* e;
            bool forward;
        };
        std::vector<Made> made;
        double df = 0, cf = 0, db = 0, cb = 0;
        auto record = [&](CommEntry& e, bool forward, bool dispatch) {
            e.overlapped = p.overlap_moe_comm;
            (forward ? (dispatch ? df : cf) : (dispatch ? db : cb)) += e.seconds_each;
            made.push_back({&e, forward});
        };
        const auto calls = [&](bool forward) { return moe * mb * (forward ? ep_passes : 1); };
        auto both_passes = [&](const Group& g, CollectiveKind kind, const char* what, double bytes, bool forward, bool dispatch) {
            record(b.add(Dim::Ep, kind, what, bytes, calls(forward), g), forward, dispatch);
        };
        if (p.moe_dispatcher == MoeDispatcher::AllGather) {
            // Megatron-Core's allgather dispatcher (MoEAllGatherTokenDispatcher): every token of the expert-tensor x
            // expert-parallel group gathered on every rank of it (ranks adjacent: stride 1), each rank keeping those
            // its experts were chosen for; the combine scales by the probabilities, scatters back into the gathered
            // shape and reduce-scatters it. The fp32 routing probabilities are gathered too. Backward: transposes.
            const Group g = make_group(p.ep * etp, 1, c);
            const double gathered = allgather_dispatch_rows(c);
            both_passes(g, CollectiveKind::AllGather, "tokens of the expert group gathered (forward dispatch)", gathered * m.hidden * a, true, true);
            both_passes(g, CollectiveKind::AllGather, "routing probabilities gathered, fp32 (forward)",
                        gathered * static_cast<double>(m.experts) * 4, true, true);
            both_passes(g, CollectiveKind::ReduceScatter, "expert outputs reduce-scattered back (forward combine)", gathered * m.hidden * a, true, false);
            both_passes(g, CollectiveKind::AllGather, "output gradients gathered (backward)", gathered * m.hidden * a, false, false);
            both_passes(g, CollectiveKind::ReduceScatter, "token gradients reduce-scattered back (backward)", gathered * m.hidden * a, false, true);
            both_passes(g, CollectiveKind::ReduceScatter, "probability gradients reduce-scattered back, fp32 (backward)",
                        gathered * static_cast<double>(m.experts) * 4, false, true);
        } else if (p.ep > 1 && p.moe_dispatcher == MoeDispatcher::Flex) {
            // DeepEP / HybridEP (the flex dispatcher): a token crosses to another NVLink domain once however many of
            // its experts live there, and reaches each GPU once however many of its experts that GPU holds
            // (comm/collective_time.h hierarchical_traffic); combine and the backward's exchanges are the transposes.
            const Group g = group_of(Dim::Ep, p.ep, c);
            const HierarchicalTraffic traffic = hierarchical_traffic(rows / static_cast<double>(*m.experts_per_token), m.hidden * a,
                                                                     m.experts, *m.experts_per_token, g);
            const CollectiveTime time = hierarchical_all_to_all(traffic, g, c);
            auto exchange = [&](const char* what, bool forward, bool dispatch) {
                record(b.add(Dim::Ep, CollectiveKind::AllToAll, what, traffic.sent(), calls(forward), g, time), forward, dispatch);
            };
            exchange("tokens to their experts' GPUs (forward dispatch)", true, true);
            exchange("expert outputs back (forward combine)", true, false);
            exchange("output gradients to the experts' GPUs (backward)", false, false);
            exchange("input gradients back (backward)", false, true);
        } else if (p.ep > 1) {
            const Group g = group_of(Dim::Ep, p.ep, c);
            const double bytes = rows * m.hidden * a;
            // Megatron-Core first all-gathers each rank's tokens per expert over ep (int64), whose splits the host then
            // reads (token_dispatcher.py preprocess): no backward.
            if (c.s.framework == Framework::Megatron)
                both_passes(g, CollectiveKind::AllGather, "tokens per expert (forward dispatch)", static_cast<double>(m.experts) * 8,
                            true, true);
            both_passes(g, CollectiveKind::AllToAll, "tokens to their experts (forward dispatch)", bytes, true, true);
            // Each routed row's fp32 routing probability goes with it in an all-to-all of its own (dispatch_all_to_all);
            // its gradient comes back the same way.
            both_passes(g, CollectiveKind::AllToAll, "routing probabilities, fp32 (forward dispatch)", rows * 4, true, true);
            both_passes(g, CollectiveKind::AllToAll, "probability gradients, fp32 (backward)", rows * 4, false, true);
            both_passes(g, CollectiveKind::AllToAll, "expert outputs back (forward combine)", bytes, true, false);
            both_passes(g, CollectiveKind::AllToAll, "output gradients to the experts (backward)", bytes, false, false);
            both_passes(g, CollectiveKind::AllToAll, "input gradients back (backward)", bytes, false, true);
        }
        if (etp > 1 && p.sp && p.moe_dispatcher == MoeDispatcher::AllToAll) {
            const Group g = make_group(etp, 1, c);  // expert-tensor ranks are adjacent (stride 1)
            const double gathered = rows * static_cast<double>(etp) * m.hidden;
            both_passes(g, CollectiveKind::AllGather, "dispatched tokens over the expert-tensor group (forward)", gathered * a, true, true);
            both_passes(g, CollectiveKind::ReduceScatter, "expert outputs over the expert-tensor group, fp32 (forward)", gathered * 4, true, false);
            both_passes(g, CollectiveKind::ReduceScatter, "token gradients over the expert-tensor group (backward)", gathered * a, false, true);
            both_passes(g, CollectiveKind::AllGather, "output gradients over the expert-tensor group, fp32 (backward)", gathered * 4, false, false);
        }
        // Each exchange is a call the host makes through torch.distributed, as a kernel launch is (schedule/step.cpp):
        // per microbatch, every MoE layer's forward ones in forward (again in a recompute pass), the others in backward.
        double forward_calls = 0, backward_calls = 0;
        for (const Made& x : made) (x.forward ? forward_calls : backward_calls) += 1;
        b.out.fwd_calls += moe * forward_calls;
        b.out.bwd_calls += moe * (backward_calls + (ep_passes - 1) * forward_calls);
        // Per microbatch: the exchanges' seconds in each pass (a recompute pass repeats the forward ones inside
        // backward), and of those what the overlap schedule leaves exposed.
        const double recompute_each = moe * (ep_passes - 1) * (df + cf);
        const double fwd_each = moe * (df + cf), bwd_each = moe * (cb + db) + recompute_each;
        double fwd_shown = fwd_each, bwd_shown = bwd_each;
        if (p.overlap_moe_comm && df + cf + cb + db > 0) {
            const MoeSchedule s = moe_overlap_schedule(sc.moe, {df, cf, db, cb}, c, st.rank);
            const double share_fwd = (df + cf) / (df + cf + cb + db);
            fwd_shown = moe * ((1 - s.paired) * (df + cf) + s.paired * s.pair_exposed * share_fwd);
            bwd_shown = moe * ((1 - s.paired) * (cb + db) + s.paired * s.pair_exposed * (1 - share_fwd)) + recompute_each;
        }
        b.out.fwd_exposed += fwd_shown;
        b.out.bwd_exposed += bwd_shown;
        // Each entry's exposed share, in proportion to its time within each pass (per iteration).
        for (const Made& x : made) {
            const double in_fwd = x.forward ? moe * x.e->seconds_each : 0;
            const double in_bwd = x.forward ? moe * (ep_passes - 1) * x.e->seconds_each : moe * x.e->seconds_each;
            x.e->exposed_seconds = mb * ((fwd_each > 0 ? in_fwd * fwd_shown / fwd_each : 0) +
                                         (bwd_each > 0 ? in_bwd * bwd_shown / bwd_each : 0));
        }
    }
}

}  // namespace shardcalc
