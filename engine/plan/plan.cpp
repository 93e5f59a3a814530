#include "plan/plan.h"

#include <algorithm>
#include <utility>

#include "scenario/pipeline_split.h"

namespace shardcalc {

int64_t StagePlan::layer_count() const {
    int64_t n = 0;
    for (const auto& c : chunks)
        for (const auto& l : c.layers) n += l.count;
    return n;
}

bool same_layers(const StagePlan& a, const StagePlan& b) {
    if (a.has_pre != b.has_pre || a.has_post != b.has_post || a.holds_tied_copy != b.holds_tied_copy ||
        a.chunks.size() != b.chunks.size())
        return false;
    for (size_t k = 0; k < a.chunks.size(); ++k) {
        const auto& x = a.chunks[k].layers;
        const auto& y = b.chunks[k].layers;
        if (x.size() != y.size()) return false;
        for (size_t j = 0; j < x.size(); ++j)
            if (x[j].group != y[j].group || x[j].count != y[j].count) return false;
    }
    return true;
}

namespace {

// Layers [first, first + count) of the model, counted by group, in group order. A model has a few groups (dense and
// MoE layers, local and global attention): held in place, no allocation (a search makes millions).
SmallVector<ChunkLayers, 4> slice_layers(const ModelGraph& g, int64_t first, int64_t count) {
    SmallVector<ChunkLayers, 4> out;
    if (g.groups.size() == 1) {  // one kind of layer (most dense models): one run
        if (count > 0) out.push_back(ChunkLayers{0, count});
        return out;
    }
    for (int64_t i = first; i < first + count; ++i) {
        const int64_t group = g.layer_group[static_cast<size_t>(i)];
        const auto run = std::find_if(out.begin(), out.end(), [&](const ChunkLayers& r) { return r.group == group; });
        if (run == out.end()) out.push_back(ChunkLayers{group, 1});
        else ++run->count;
    }
    std::sort(out.begin(), out.end(), [](const ChunkLayers& a, const ChunkLayers& b) { return a.group < b.group; });
    return out;
}

}  // namespace

Plan make_plan(const Config& c, const ModelGraph& g) {
    const int64_t pp = c.s.parallel.pp;
    const int64_t vpp = c.s.parallel.vpp;
    // Layers per model chunk (validated). In model order the chunks run chunk 0 of every rank, then chunk 1 of
    // every rank, ...: a chunk's first layer is the sum of the chunks before it, written over its count in place (a
    // chunk's count is then the next one's first layer less its own).
    const int64_t total = g.total_layers();
    std::vector<int64_t> chunk_start = pipeline_split(c.s.parallel, total).chunk_layers;
    for (int64_t i = 0, at = 0; i < pp * vpp; ++i) at += std::exchange(chunk_start[static_cast<size_t>(i)], at);
    auto chunk_layers = [&](size_t i) { return (i + 1 < chunk_start.size() ? chunk_start[i + 1] : total) - chunk_start[i]; };
    Plan plan;
    plan.stages.reserve(static_cast<size_t>(pp));
    for (int64_t r = 0; r < pp; ++r) {
        StagePlan st;
        st.rank = r;
        st.chunks.reserve(static_cast<size_t>(vpp));
        for (int64_t k = 0; k < vpp; ++k) {
            Chunk ch;
            ch.global_index = k * pp + r;
            const size_t at = static_cast<size_t>(ch.global_index);
            ch.layers = slice_layers(g, chunk_start[at], chunk_layers(at));
            // GPipe runs every forward before any backward: all microbatches stay alive (Huang et al. 2019).
            ch.inflight = c.s.parallel.schedule == Schedule::GPipe ? c.d.microbatches
                                                                   : inflight_of_chunk(pp, vpp, r, c.d.microbatches, k);
            st.chunks.push_back(std::move(ch));
        }
        st.has_pre = r == 0;
        st.has_post = r == pp - 1;
        st.pre_inflight = st.chunks.front().inflight;
        st.post_inflight = st.chunks.back().inflight;
        // With pp > 1 Megatron keeps a second copy of tied word embeddings on the last stage and
        // all-reduces their gradients with the first (megatron/core/models/common/language_module).
        st.holds_tied_copy = st.has_post && pp > 1;
        plan.stages.push_back(std::move(st));
    }
    return plan;
}

}  // namespace shardcalc
