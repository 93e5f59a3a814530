#include "plan/plan.h"

namespace shardcalc {

int64_t StagePlan::layer_count() const {
    int64_t n = 0;
    for (const auto& c : chunks)
        for (const auto& l : c.layers) n += l.count;
    return n;
}

namespace {

// Layers [first, first + count) of the concatenated groups, split by group.
std::vector<ChunkLayers> slice_layers(const ModelGraph& g, int64_t first, int64_t count) {
    std::vector<ChunkLayers> out;
    int64_t offset = 0;
    for (size_t gi = 0; gi < g.groups.size(); ++gi) {
        const int64_t lo = std::max(first, offset);
        const int64_t hi = std::min(first + count, offset + g.groups[gi].count);
        if (hi > lo) out.push_back(ChunkLayers{static_cast<int64_t>(gi), hi - lo});
        offset += g.groups[gi].count;
    }
    return out;
}

}  // namespace

Plan make_plan(const Config& c, const ModelGraph& g) {
    const int64_t pp = c.s.parallel.pp;
    const int64_t vpp = c.s.parallel.vpp;
    // Megatron splits layers evenly across pp * vpp chunks (validated divisible).
    const int64_t per_chunk = g.total_layers() / (pp * vpp);
    Plan plan;
    for (int64_t r = 0; r < pp; ++r) {
        StagePlan st;
        st.rank = r;
        // GPipe runs every forward before any backward: all microbatches stay alive (Huang et al. 2019).
        const std::vector<int64_t> inflight = c.s.parallel.schedule == Schedule::GPipe
                                                  ? std::vector<int64_t>{c.d.microbatches}
                                                  : inflight_per_chunk(pp, vpp, r, c.d.microbatches);
        for (int64_t k = 0; k < vpp; ++k) {
            Chunk ch;
            ch.global_index = k * pp + r;
            ch.layers = slice_layers(g, ch.global_index * per_chunk, per_chunk);
            ch.inflight = inflight[static_cast<size_t>(k)];
            st.chunks.push_back(ch);
        }
        st.has_pre = r == 0;
        st.has_post = r == pp - 1;
        st.pre_inflight = st.chunks.front().inflight;
        st.post_inflight = st.chunks.back().inflight;
        // With pp > 1 Megatron keeps a second copy of tied word embeddings on the last stage and
        // all-reduces their gradients with the first (megatron/core/models/common/language_module).
        st.holds_tied_copy = st.has_post && pp > 1;
        plan.stages.push_back(st);
    }
    return plan;
}

}  // namespace shardcalc
