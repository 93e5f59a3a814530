#pragma once
// The execution plan: which layers each pipeline rank holds (as vpp model chunks) and how
// many microbatches' activations each chunk keeps alive at the schedule's peak.
#include <cstdint>
#include <vector>

#include "core/small_vector.h"
#include "graph/op.h"
#include "scenario/resolve.h"

namespace shardcalc {

struct ChunkLayers {
    int64_t group = 0;   // index into ModelGraph::groups
    int64_t count = 0;   // layers of that group in this chunk
};

struct Chunk {
    int64_t global_index = 0;          // position in the model: rank r holds chunks r, r+pp, r+2pp, ...
    SmallVector<ChunkLayers, 4> layers;  // one run per layer kind (a model has a few)
    int64_t inflight = 0;              // microbatches whose activations are alive at the peak
};

struct StagePlan {
    int64_t rank = 0;                  // pipeline rank
    std::vector<Chunk> chunks;         // vpp chunks
    bool has_pre = false;              // embeddings (first chunk of the model)
    bool has_post = false;             // final norm, head and loss (last chunk of the model)
    bool holds_tied_copy = false;      // last stage keeps its own copy of tied word embeddings
    int64_t pre_inflight = 0;
    int64_t post_inflight = 0;
    int64_t layer_count() const;
};

struct Plan {
    std::vector<StagePlan> stages;
};

Plan make_plan(const Config& c, const ModelGraph& g);

// Whether two stages hold the same layers in the same chunks and the same ends (embeddings, head, a tied copy): then
// they hold the same parameters and run the same work (most middle pipeline stages), whatever their microbatches in
// flight.
bool same_layers(const StagePlan& a, const StagePlan& b);

// Calls f(chunk, run, group) for each run of same-kind layers a stage holds, chunk by chunk: the one walk of a
// stage's layers (graph x plan) for memory, compute and the tables.
template <class F>
void for_each_layer_run(const StagePlan& st, const ModelGraph& g, F&& f) {
    for (const Chunk& ch : st.chunks)
        for (const ChunkLayers& run : ch.layers) f(ch, run, g.groups[static_cast<size_t>(run.group)]);
}

// Microbatches in flight in model chunk `chunk` of one pipeline rank, at the first backward of the steady state; and
// per model chunk of the rank (exposed for tests).
int64_t inflight_of_chunk(int64_t pp, int64_t vpp, int64_t rank, int64_t microbatches, int64_t chunk);
std::vector<int64_t> inflight_per_chunk(int64_t pp, int64_t vpp, int64_t rank, int64_t microbatches);
// Forwards (of model chunks, interleaved) pipeline rank `rank` runs before its first backward under 1F1B.
int64_t warmup_forwards(int64_t pp, int64_t vpp, int64_t rank, int64_t microbatches);

}  // namespace shardcalc
