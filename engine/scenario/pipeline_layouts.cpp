// The pipeline layouts Megatron is given explicitly: every stage's layers (--pipeline-model-parallel-layout), or the
// embedding and loss counted as layers (--account-for-embedding/loss-in-pipeline-split). Whole engine only: the page's
// core hands such a plan over (wasm/core_features.cpp), for its size.
#include "scenario/pipeline_split.h"

#include "scenario/divisors.h"

namespace shardcalc {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

// Every stage's count given (Megatron's --pipeline-model-parallel-layout): one per stage, or with vpp > 1 one per model
// chunk in model order (chunk k * pp + r is rank r's k-th, as the layout lists them: DeepSeek-V3's recipes give
// unequal chunks), adding up to the layers.
PipelineSplit explicit_split(const ParallelFields& p, int64_t layers) {
    const char* path = "/parallel/stage_layers";
    if (p.first_stage_layers || p.last_stage_layers || p.embedding_as_layer || p.loss_as_layer)
        return split_problem(path, "gives every stage's layers: leave first_stage_layers, last_stage_layers, embedding_as_layer "
                          "and loss_as_layer unset");
    const int64_t given = static_cast<int64_t>(p.stage_layers.size()), chunks = p.pp * p.vpp;
    const bool per_chunk = p.vpp > 1 && given == chunks;
    if (given != p.pp && !per_chunk)
        return split_problem(path, "needs one count per pipeline stage (pp = " + str(p.pp) + ")" +
                              (p.vpp > 1 ? " or per model chunk (pp * vpp = " + str(chunks) + ")" : "") + ", got " + str(given));
    int64_t sum = 0;
    for (int64_t n : p.stage_layers) sum += n;
    if (sum != layers) return split_problem(path, "must add up to model.layers (" + str(layers) + "), got " + str(sum));
    if (per_chunk) return chunk_split(p.stage_layers, p.pp);
    for (size_t r = 0; r < p.stage_layers.size(); ++r)
        if (p.stage_layers[r] % p.vpp != 0)
            return split_problem(path, "vpp (" + str(p.vpp) + ") must divide every stage's layers (stage " + str(static_cast<int64_t>(r)) +
                                  " holds " + str(p.stage_layers[r]) + ") so its model chunks are equal");
    return equal_chunks(p.stage_layers, p.vpp);
}

// The embedding and/or the loss counted as one layer each in an even split (Megatron-LM
// get_num_layers_to_build with --account-for-embedding/loss-in-pipeline-split): every model chunk holds the same
// places, and the first chunk (rank 0's first, with the embedding) and the last (rank pp-1's last, with the loss)
// one layer fewer.
PipelineSplit accounted_split(const ParallelFields& p, int64_t layers) {
    const char* path = p.embedding_as_layer ? "/parallel/embedding_as_layer" : "/parallel/loss_as_layer";
    if (p.first_stage_layers || p.last_stage_layers)
        return split_problem(path, "an even split with the embedding or loss counted as a layer; leave first_stage_layers and "
                          "last_stage_layers unset");
    if (p.pp < 2) return split_problem(path, "needs pipeline parallelism (pp > 1)");
    const int64_t e = p.embedding_as_layer ? 1 : 0, l = p.loss_as_layer ? 1 : 0;
    const int64_t places = layers + e + l, chunks = p.pp * p.vpp;
    if (places % chunks != 0)
        return split_problem("/parallel/pp", "pp * vpp (" + str(chunks) + ") must divide model.layers plus the embedding and loss "
                                        "counted as layers (" + str(places) + "); pp * vpp that work: " + divisors_text(places));
    std::vector<int64_t> chunk(static_cast<size_t>(chunks), places / chunks);
    chunk.front() -= e;
    chunk.back() -= l;
    // A chunk may hold the embedding or the loss alone (Megatron-Core builds an empty transformer block for it:
    // Megatron-Bridge's Llama 3.1 405B recipes on GB200, 126 layers over pp 16 x vpp 8).
    return chunk_split(std::move(chunk), p.pp);
}

}  // namespace shardcalc
