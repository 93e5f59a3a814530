#include "schedule/pipeline.h"

#include <algorithm>

namespace shardcalc {

PipelineTime pipeline_time(const std::vector<StageTime>& stages, int64_t microbatches, int64_t vpp) {
    PipelineTime t;
    double sum = 0, slowest = 0;
    for (size_t i = 0; i < stages.size(); ++i) {
        const double fb = stages[i].fwd + stages[i].bwd;
        sum += fb;
        if (fb > slowest) {
            slowest = fb;
            t.critical_stage = i;
        }
    }
    const double m = static_cast<double>(microbatches);
    t.bubble = (sum - slowest) / static_cast<double>(vpp);
    t.seconds = m * slowest + t.bubble;
    return t;
}

namespace {

struct Step {
    bool forward;
    int64_t microbatch, chunk;
};

// The order in which one rank runs its forward and backward steps (Megatron schedules.py).
std::vector<Step> rank_order(int64_t p, int64_t v, int64_t r, int64_t m, Schedule schedule) {
    std::vector<Step> order;
    if (schedule == Schedule::GPipe) {
        for (int64_t i = 0; i < m; ++i) order.push_back({true, i, 0});
        for (int64_t i = 0; i < m; ++i) order.push_back({false, i, 0});
        return order;
    }
    const int64_t total = m * v;
    int64_t warmup;
    if (v == 1) warmup = std::min(p - r - 1, m);
    else warmup = m == p ? total : std::min((p - r - 1) * 2 + (v - 1) * p, total);
    // Step k of a direction runs microbatch (k / pv) * p + k mod p of chunk (k mod pv) / p, backward
    // in reverse chunk order (get_model_chunk_id); with v = 1 this is simply microbatch k.
    auto fwd = [&](int64_t k) { return Step{true, (k / (p * v)) * p + k % p, (k % (p * v)) / p}; };
    auto bwd = [&](int64_t k) { return Step{false, (k / (p * v)) * p + k % p, v - 1 - (k % (p * v)) / p}; };
    for (int64_t k = 0; k < warmup; ++k) order.push_back(fwd(k));
    for (int64_t k = 0; k < total - warmup; ++k) {
        order.push_back(fwd(warmup + k));
        order.push_back(bwd(k));
    }
    for (int64_t k = total - warmup; k < total; ++k) order.push_back(bwd(k));
    return order;
}

}  // namespace

std::vector<TimelineEvent> simulate_schedule(const std::vector<StageTime>& stages, int64_t microbatches, int64_t vpp,
                                             Schedule schedule, double p2p_seconds, size_t max_events) {
    const int64_t p = static_cast<int64_t>(stages.size());
    const int64_t chunks = p * vpp;
    std::vector<TimelineEvent> events;
    // Compared as 64-bit counts: WebAssembly's size_t is 32 bits, where 2^32 events would wrap to 0 and pass.
    if (static_cast<uint64_t>(2 * microbatches * chunks) > static_cast<uint64_t>(max_events)) return events;

    std::vector<std::vector<Step>> orders;
    for (int64_t r = 0; r < p; ++r) orders.push_back(rank_order(p, vpp, r, microbatches, schedule));
    // Finish time of (direction, microbatch, global chunk); negative until it has run.
    std::vector<double> done(static_cast<size_t>(2 * microbatches * chunks), -1.0);
    auto slot = [&](bool forward, int64_t mb, int64_t global) {
        return static_cast<size_t>(((forward ? 0 : 1) * microbatches + mb) * chunks + global);
    };
    std::vector<size_t> next(static_cast<size_t>(p), 0);
    std::vector<double> free_at(static_cast<size_t>(p), 0);
    bool progress = true;
    while (progress) {
        progress = false;
        for (int64_t r = 0; r < p; ++r) {
            auto& ix = next[static_cast<size_t>(r)];
            while (ix < orders[static_cast<size_t>(r)].size()) {
                const Step s = orders[static_cast<size_t>(r)][ix];
                const int64_t global = s.chunk * p + r;
                double ready = 0;
                if (s.forward && global > 0) {
                    const double before = done[slot(true, s.microbatch, global - 1)];
                    if (before < 0) break;
                    ready = before + p2p_seconds;
                } else if (!s.forward) {
                    // The last chunk turns around on its own forward; others wait for the next chunk's backward.
                    const bool last = global == chunks - 1;
                    const double after = done[slot(last, s.microbatch, last ? global : global + 1)];
                    if (after < 0) break;
                    ready = after + (last ? 0 : p2p_seconds);
                }
                const StageTime& st = stages[static_cast<size_t>(r)];
                const double length = (s.forward ? st.fwd : st.bwd) / static_cast<double>(vpp);
                const double start = std::max(ready, free_at[static_cast<size_t>(r)]);
                free_at[static_cast<size_t>(r)] = start + length;
                done[slot(s.forward, s.microbatch, global)] = start + length;
                events.push_back({r, s.forward, s.microbatch, s.chunk, start, start + length});
                ++ix;
                progress = true;
            }
        }
    }
    return events;
}

double pipeline_fill_factor(int64_t stages, int64_t microbatches, int64_t vpp) {
    if (stages <= 1 || microbatches <= 0 || vpp <= 0) return 1;
    return 1 + static_cast<double>(stages - 1) / (static_cast<double>(microbatches) * static_cast<double>(vpp));
}

}  // namespace shardcalc
