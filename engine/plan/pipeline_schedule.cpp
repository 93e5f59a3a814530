// Activation liveness of Megatron's 1F1B schedules (megatron/core/pipeline_parallel/schedules.py).
#include <algorithm>

#include "plan/plan.h"

namespace shardcalc {

std::vector<int64_t> inflight_per_chunk(int64_t pp, int64_t vpp, int64_t rank, int64_t microbatches) {
    std::vector<int64_t> counts(static_cast<size_t>(vpp), 0);
    if (vpp == 1) {
        // forward_backward_pipelining_without_interleaving: rank r runs pp - r - 1 warmup forwards,
        // then alternates one forward and one backward, so pp - r microbatches are alive at once.
        counts[0] = std::min(pp - rank, microbatches);
        return counts;
    }
    // forward_backward_pipelining_with_interleaving: warmup is (pp - r - 1) * 2 + (vpp - 1) * pp
    // forwards (all of them when microbatches == pp); forward k runs model chunk (k mod pp*vpp) / pp.
    const int64_t total = microbatches * vpp;
    int64_t warmup = microbatches == pp ? total : std::min((pp - rank - 1) * 2 + (vpp - 1) * pp, total);
    const int64_t alive = std::min(warmup + 1, total);
    for (int64_t k = 0; k < alive; ++k) counts[static_cast<size_t>((k % (pp * vpp)) / pp)] += 1;
    return counts;
}

}  // namespace shardcalc
