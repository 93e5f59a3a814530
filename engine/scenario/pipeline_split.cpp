#include "scenario/pipeline_split.h"

#include "scenario/divisors.h"

namespace shardcalc {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

PipelineSplit fail(const char* path, std::string why) { return {{}, {}, std::move(why), path}; }

// Each stage's layers cut into vpp equal chunks (the caller has checked that vpp divides them), in model order.
PipelineSplit equal_chunks(std::vector<int64_t> stages, int64_t vpp) {
    std::vector<int64_t> chunks;
    chunks.reserve(stages.size() * static_cast<size_t>(vpp));
    for (int64_t k = 0; k < vpp; ++k)
        for (const int64_t n : stages) chunks.push_back(n / vpp);
    return {std::move(stages), std::move(chunks), "", ""};
}

// Every stage's count given (Megatron's --pipeline-model-parallel-layout): one per stage, or with vpp > 1 one per model
// chunk in model order (chunk k * pp + r is rank r's k-th, as the layout lists them: DeepSeek-V3's recipes give
// unequal chunks), adding up to the layers.
PipelineSplit explicit_split(const ParallelSpec& p, int64_t layers) {
    const char* path = "/parallel/stage_layers";
    if (p.first_stage_layers || p.last_stage_layers || p.embedding_as_layer || p.loss_as_layer)
        return fail(path, "gives every stage's layers: leave first_stage_layers, last_stage_layers, embedding_as_layer "
                          "and loss_as_layer unset");
    const int64_t given = static_cast<int64_t>(p.stage_layers.size()), chunks = p.pp * p.vpp;
    const bool per_chunk = p.vpp > 1 && given == chunks;
    if (given != p.pp && !per_chunk)
        return fail(path, "needs one count per pipeline stage (pp = " + str(p.pp) + ")" +
                              (p.vpp > 1 ? " or per model chunk (pp * vpp = " + str(chunks) + ")" : "") + ", got " + str(given));
    int64_t sum = 0;
    for (int64_t n : p.stage_layers) sum += n;
    if (sum != layers) return fail(path, "must add up to model.layers (" + str(layers) + "), got " + str(sum));
    if (per_chunk) {
        std::vector<int64_t> stages(static_cast<size_t>(p.pp), 0);
        for (size_t i = 0; i < p.stage_layers.size(); ++i) stages[i % static_cast<size_t>(p.pp)] += p.stage_layers[i];
        return {std::move(stages), p.stage_layers, "", ""};
    }
    for (size_t r = 0; r < p.stage_layers.size(); ++r)
        if (p.stage_layers[r] % p.vpp != 0)
            return fail(path, "vpp (" + str(p.vpp) + ") must divide every stage's layers (stage " + str(static_cast<int64_t>(r)) +
                                  " holds " + str(p.stage_layers[r]) + ") so its model chunks are equal");
    return equal_chunks(p.stage_layers, p.vpp);
}

// The embedding and/or the loss counted as one layer each in an even split (Megatron-LM
// get_num_layers_to_build with --account-for-embedding/loss-in-pipeline-split): every model chunk holds the same
// places, and the first chunk (rank 0's first, with the embedding) and the last (rank pp-1's last, with the loss)
// one layer fewer.
PipelineSplit accounted_split(const ParallelSpec& p, int64_t layers) {
    const char* path = p.embedding_as_layer ? "/parallel/embedding_as_layer" : "/parallel/loss_as_layer";
    if (p.first_stage_layers || p.last_stage_layers)
        return fail(path, "an even split with the embedding or loss counted as a layer; leave first_stage_layers and "
                          "last_stage_layers unset");
    if (p.pp < 2) return fail(path, "needs pipeline parallelism (pp > 1)");
    const int64_t e = p.embedding_as_layer ? 1 : 0, l = p.loss_as_layer ? 1 : 0;
    const int64_t places = layers + e + l, chunks = p.pp * p.vpp;
    if (places % chunks != 0)
        return fail("/parallel/pp", "pp * vpp (" + str(chunks) + ") must divide model.layers plus the embedding and loss "
                                        "counted as layers (" + str(places) + "); pp * vpp that work: " + divisors_text(places));
    std::vector<int64_t> chunk(static_cast<size_t>(chunks), places / chunks);
    chunk.front() -= e;
    chunk.back() -= l;
    // A chunk may hold the embedding or the loss alone (Megatron-Core builds an empty transformer block for it:
    // Megatron-Bridge's Llama 3.1 405B recipes on GB200, 126 layers over pp 16 x vpp 8).
    std::vector<int64_t> stages(static_cast<size_t>(p.pp), 0);
    for (size_t i = 0; i < chunk.size(); ++i) stages[i % static_cast<size_t>(p.pp)] += chunk[i];
    return {std::move(stages), std::move(chunk), "", ""};
}

}  // namespace

PipelineSplit pipeline_split(const ParallelSpec& p, int64_t layers) {
    const int64_t pp = p.pp, vpp = p.vpp;
    if (!p.stage_layers.empty()) return explicit_split(p, layers);
    if (p.embedding_as_layer || p.loss_as_layer) return accounted_split(p, layers);
    const bool first = p.first_stage_layers.has_value(), last = p.last_stage_layers.has_value();
    if (!first && !last) {
        // Megatron splits the layers evenly into pp * vpp model chunks.
        if (layers % (pp * vpp) != 0)
            return fail("/parallel/pp", "pp * vpp (" + str(pp) + " * " + str(vpp) + " = " + str(pp * vpp) +
                                            ") must divide model.layers (" + str(layers) +
                                            ") so every model chunk holds the same layers" +
                                            (layers % vpp == 0 ? "; pp that work with vpp = " + str(vpp) + ": " + divisors_text(layers / vpp)
                                                               : "; vpp does not divide the layers either") +
                                            "; or give parallel.first_stage_layers / last_stage_layers for an uneven split");
        return equal_chunks(std::vector<int64_t>(static_cast<size_t>(pp), layers / pp), vpp);
    }
    if (pp < 2) return fail(first ? "/parallel/first_stage_layers" : "/parallel/last_stage_layers", "an uneven split needs pp > 1");
    const int64_t given = (first ? *p.first_stage_layers : 0) + (last ? *p.last_stage_layers : 0);
    const int64_t middle_stages = pp - (first ? 1 : 0) - (last ? 1 : 0);
    const int64_t rest = layers - given;
    const char* path = first ? "/parallel/first_stage_layers" : "/parallel/last_stage_layers";
    if (rest < 0 || (middle_stages == 0 && rest != 0))
        return fail(path, "the first and last stages' layers (" + str(given) + ") must " +
                              (middle_stages == 0 ? "equal" : "not exceed") + " model.layers (" + str(layers) + ")");
    if (middle_stages > 0 && (rest == 0 || rest % middle_stages != 0))
        return fail(path, "the other " + str(middle_stages) + " stages must share the remaining " + str(rest) +
                              " layers evenly (model.layers " + str(layers) + " minus " + str(given) + ")");
    std::vector<int64_t> out(static_cast<size_t>(pp), middle_stages > 0 ? rest / middle_stages : 0);
    if (first) out.front() = *p.first_stage_layers;
    if (last) out.back() = *p.last_stage_layers;
    for (size_t r = 0; r < out.size(); ++r)
        if (out[r] % vpp != 0)
            return fail(r == 0 && first ? "/parallel/first_stage_layers" : r + 1 == out.size() && last ? "/parallel/last_stage_layers" : "/parallel/vpp",
                        "vpp (" + str(vpp) + ") must divide every stage's layers (stage " + str(static_cast<int64_t>(r)) + " holds " +
                            str(out[r]) + ") so its model chunks are equal");
    return equal_chunks(out, vpp);
}

}  // namespace shardcalc
