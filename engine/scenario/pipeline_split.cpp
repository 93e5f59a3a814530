#include "scenario/pipeline_split.h"

#include "scenario/divisors.h"

namespace shardcalc {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

PipelineSplit split_problem(const char* path, std::string why) { return {{}, {}, std::move(why), path}; }

PipelineSplit chunk_split(std::vector<int64_t> chunks, int64_t pp) {
    std::vector<int64_t> stages(static_cast<size_t>(pp), 0);
    for (size_t i = 0; i < chunks.size(); ++i) stages[i % static_cast<size_t>(pp)] += chunks[i];
    return {std::move(stages), std::move(chunks), "", ""};
}

PipelineSplit equal_chunks(std::vector<int64_t> stages, int64_t vpp) {
    std::vector<int64_t> chunks;
    chunks.reserve(stages.size() * static_cast<size_t>(vpp));
    for (int64_t k = 0; k < vpp; ++k)
        for (const int64_t n : stages) chunks.push_back(n / vpp);
    return {std::move(stages), std::move(chunks), "", ""};
}

PipelineSplit pipeline_split(const ParallelFields& p, int64_t layers) {
    const int64_t pp = p.pp, vpp = p.vpp;
    if (!p.stage_layers.empty()) return explicit_split(p, layers);
    if (p.embedding_as_layer || p.loss_as_layer) return accounted_split(p, layers);
    const bool first = p.first_stage_layers.has_value(), last = p.last_stage_layers.has_value();
    if (!first && !last) {
        // Megatron splits the layers evenly into pp * vpp model chunks.
        if (layers % (pp * vpp) != 0)
            return split_problem("/parallel/pp", "pp * vpp (" + str(pp) + " * " + str(vpp) + " = " + str(pp * vpp) +
                                            ") must divide model.layers (" + str(layers) +
                                            ") so every model chunk holds the same layers" +
                                            (layers % vpp == 0 ? "; pp that work with vpp = " + str(vpp) + ": " + divisors_text(layers / vpp)
                                                               : "; vpp does not divide the layers either") +
                                            "; or give parallel.first_stage_layers / last_stage_layers for an uneven split");
        return equal_chunks(std::vector<int64_t>(static_cast<size_t>(pp), layers / pp), vpp);
    }
    if (pp < 2) return split_problem(first ? "/parallel/first_stage_layers" : "/parallel/last_stage_layers", "an uneven split needs pp > 1");
    const int64_t given = (first ? *p.first_stage_layers : 0) + (last ? *p.last_stage_layers : 0);
    const int64_t middle_stages = pp - (first ? 1 : 0) - (last ? 1 : 0);
    const int64_t rest = layers - given;
    const char* path = first ? "/parallel/first_stage_layers" : "/parallel/last_stage_layers";
    if (rest < 0 || (middle_stages == 0 && rest != 0))
        return split_problem(path, "the first and last stages' layers (" + str(given) + ") must " +
                              (middle_stages == 0 ? "equal" : "not exceed") + " model.layers (" + str(layers) + ")");
    if (middle_stages > 0 && (rest == 0 || rest % middle_stages != 0))
        return split_problem(path, "the other " + str(middle_stages) + " stages must share the remaining " + str(rest) +
                              " layers evenly (model.layers " + str(layers) + " minus " + str(given) + ")");
    std::vector<int64_t> out(static_cast<size_t>(pp), middle_stages > 0 ? rest / middle_stages : 0);
    if (first) out.front() = *p.first_stage_layers;
    if (last) out.back() = *p.last_stage_layers;
    for (size_t r = 0; r < out.size(); ++r)
        if (out[r] % vpp != 0)
            return split_problem(r == 0 && first ? "/parallel/first_stage_layers" : r + 1 == out.size() && last ? "/parallel/last_stage_layers" : "/parallel/vpp",
                        "vpp (" + str(vpp) + ") must divide every stage's layers (stage " + str(static_cast<int64_t>(r)) + " holds " +
                            str(out[r]) + ") so its model chunks are equal");
    return equal_chunks(out, vpp);
}

}  // namespace shardcalc
