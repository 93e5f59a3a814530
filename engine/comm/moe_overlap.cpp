#include "comm/moe_overlap.h"

#include <algorithm>

#include "plan/plan.h"

namespace shardcalc {

// DeepEP's kernels run on a fixed number of SMs, Megatron-Core's moe_deepep_num_sms (20; DeepEP is the flex
// dispatcher's default backend, megatron/core/transformer/transformer_config.py), out of the device's. NCCL's
// all-to-all (the alltoall dispatcher) takes one SM per channel, a number NCCL chooses at run time: not modelled.
namespace {
constexpr double kDeepEpSms = 20;
}  // namespace

double exchange_sm_share(const Config& c) {
    const double sms = static_cast<double>(c.s.hardware.sm_count);
    if (c.s.parallel.moe_dispatcher != MoeDispatcher::Flex || sms <= kDeepEpSms) return 0;
    return kDeepEpSms / sms;
}

MoeSchedule moe_overlap_schedule(const MoeCompute& moe, const MoeExchanges& x, const Config& c, int64_t pipeline_rank) {
    MoeSchedule out;
    // One MoE layer's compute per microbatch: the attention node (attention, norms, router, the dispatch's own
    // kernels) and the mlp node (routed and shared experts), forward, and backward with what it recomputes.
    const double layers = static_cast<double>(std::max<int64_t>(1, moe.layers));
    const double mlp_f = moe.experts.fwd.seconds / layers;
    const double mlp_b = (moe.experts.bwd.seconds + moe.experts.recompute.seconds) / layers;
    const double attn_f = std::max(0.0, moe.layer.fwd.seconds / layers - mlp_f);
    const double attn_b = std::max(0.0, (moe.layer.bwd.seconds + moe.layer.recompute.seconds) / layers - mlp_b);
    // A pair runs one layer's forward beside another microbatch's backward of a layer, the communication stream
    // against the compute stream, each node waiting on the one before it in its own pass
    // (megatron/core/models/common/model_chunk_schedule_plan.py TransformerLayerSchedulePlan.run):
    //   comm:    combine bwd | dispatch fwd | dispatch bwd | combine fwd
    //   compute: attn fwd    | mlp bwd      | mlp fwd      | attn bwd
    // Every slot ends when both its nodes have, so the pair takes the sum of each slot's longer node. The flex
    // dispatcher's exchange kernels hold a fixed share of the SMs while they run, so the compute beside them runs on
    // the rest for that long: a slot takes max(exchange, compute + share x exchange).
    const double share = exchange_sm_share(c);
    auto slot = [share](double exchange, double compute) { return std::max(exchange, compute + share * exchange); };
    const double pair = slot(x.combine_bwd, attn_f) + slot(x.dispatch_fwd, mlp_b) + slot(x.dispatch_bwd, mlp_f) +
                        slot(x.combine_fwd, attn_b);
    out.pair_exposed = pair - (attn_f + mlp_b + mlp_f + attn_b);
    // Passes without a partner run alone, their exchanges exposed: the forwards before the first backward (the
    // 1F1B warmup, megatron/core/pipeline_parallel/schedules.py; one without pipelining) and as many backwards after
    // the last forward.
    const ResolvedParallel& p = c.s.parallel;
    const double passes = static_cast<double>(c.d.microbatches * p.vpp);
    const double warmup = static_cast<double>(warmup_forwards(p.pp, p.vpp, pipeline_rank, c.d.microbatches));
    const double alone = std::min(passes, std::max(1.0, warmup));
    out.paired = (passes - alone) / passes;
    return out;
}

}  // namespace shardcalc
