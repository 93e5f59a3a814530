// Activation liveness of Megatron's 1F1B schedules (megatron/core/pipeline_parallel/schedules.py).
#include <algorithm>

#include "plan/plan.h"

namespace shardcalc {

int64_t warmup_forwards(int64_t pp, int64_t vpp, int64_t rank, int64_t microbatches) {
    // forward_backward_pipelining_without_interleaving: rank r runs pp - r - 1 warmup forwards, then alternates one
    // forward and one backward. forward_backward_pipelining_with_interleaving: (pp - r - 1) * 2 + (vpp - 1) * pp
    // forwards of model chunks, all of them when microbatches == pp.
    const int64_t total = microbatches * vpp;
    if (vpp == 1) return std::min(pp - rank - 1, total);
    return microbatches == pp ? total : std::min((pp - rank - 1) * 2 + (vpp - 1) * pp, total);
}

int64_t inflight_of_chunk(int64_t pp, int64_t vpp, int64_t rank, int64_t microbatches, int64_t chunk) {
    const int64_t warmup = warmup_forwards(pp, vpp, rank, microbatches);
    // Without interleaving pp - r microbatches are alive at once (the warmup's and the one in its steady 1F1B).
    if (vpp == 1) return std::min(warmup + 1, microbatches);
    // Interleaved, forward k runs model chunk (k mod pp*vpp) / pp.
    const int64_t total = microbatches * vpp;
    const int64_t alive = std::min(warmup + 1, total);
    // Forwards 0..alive-1 cycle through the chunks in runs of pp: every full cycle of pp*vpp gives
    // each chunk pp, the remainder fills chunks in order.
    const int64_t cycles = alive / (pp * vpp), rest = alive % (pp * vpp);
    return cycles * pp + std::clamp<int64_t>(rest - chunk * pp, 0, pp);
}

std::vector<int64_t> inflight_per_chunk(int64_t pp, int64_t vpp, int64_t rank, int64_t microbatches) {
    std::vector<int64_t> counts(static_cast<size_t>(vpp), 0);
    for (int64_t k = 0; k < vpp; ++k) counts[static_cast<size_t>(k)] = inflight_of_chunk(pp, vpp, rank, microbatches, k);
    return counts;
}

}  // namespace shardcalc
