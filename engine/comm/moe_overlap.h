#pragma once
// What Megatron-Core's expert-parallel overlap (parallel.overlap_moe_comm, --overlap-moe-expert-parallel-comm) hides
// of a MoE layer's token exchanges: the layer-by-layer schedule that pairs one microbatch's forward with another's
// backward, and how many of a rank's passes have a partner.
#include <cstdint>

#include "compute/stage_cost.h"

namespace shardcalc {

// Seconds of one MoE layer's exchanges for one microbatch, by the node of the layer they belong to.
struct MoeExchanges {
    double dispatch_fwd = 0, combine_fwd = 0, dispatch_bwd = 0, combine_bwd = 0;
};

struct MoeSchedule {
    double paired = 0;        // share of the rank's forward (and backward) passes run beside a partner pass
    double pair_exposed = 0;  // seconds per MoE layer a pair takes beyond its compute: its exchanges left exposed
};

// The share of the device's SMs the exchange kernels hold while they run beside compute (0 where not modelled).
double exchange_sm_share(const Config& c);

MoeSchedule moe_overlap_schedule(const MoeCompute& moe, const MoeExchanges& x, const Config& c, int64_t pipeline_rank);

}  // namespace shardcalc
