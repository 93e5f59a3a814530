#include "scenario/pipeline_split.h"

#include "scenario/divisors.h"

namespace shardcalc {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

PipelineSplit fail(const char* path, std::string why) { return {{}, std::move(why), path}; }

// Every stage's count given (Megatron's --pipeline-model-parallel-layout): one per stage, adding up to the layers.
PipelineSplit explicit_split(const ParallelSpec& p, int64_t layers) {
    const char* path = "/parallel/stage_layers";
    if (p.first_stage_layers || p.last_stage_layers || p.embedding_as_layer || p.loss_as_layer)
        return fail(path, "gives every stage's layers: leave first_stage_layers, last_stage_layers, embedding_as_layer "
                          "and loss_as_layer unset");
    if (static_cast<int64_t>(p.stage_layers.size()) != p.pp)
        return fail(path, "needs one count per pipeline stage: pp = " + str(p.pp) + ", got " +
                              str(static_cast<int64_t>(p.stage_layers.size())));
    int64_t sum = 0;
    for (int64_t n : p.stage_layers) sum += n;
    if (sum != layers) return fail(path, "must add up to model.layers (" + str(layers) + "), got " + str(sum));
    for (size_t r = 0; r < p.stage_layers.size(); ++r)
        if (p.stage_layers[r] % p.vpp != 0)
            return fail(path, "vpp (" + str(p.vpp) + ") must divide every stage's layers (stage " + str(static_cast<int64_t>(r)) +
                                  " holds " + str(p.stage_layers[r]) + ") so its model chunks are equal");
    return {p.stage_layers, "", ""};
}

// The embedding and/or the loss counted as one layer each in an even split (Megatron-LM
// get_num_layers_to_build with --account-for-embedding/loss-in-pipeline-split): the first and last stages
// hold one layer fewer.
PipelineSplit accounted_split(const ParallelSpec& p, int64_t layers) {
    const char* path = p.embedding_as_layer ? "/parallel/embedding_as_layer" : "/parallel/loss_as_layer";
    if (p.first_stage_layers || p.last_stage_layers)
        return fail(path, "an even split with the embedding or loss counted as a layer; leave first_stage_layers and "
                          "last_stage_layers unset");
    if (p.pp < 2) return fail(path, "needs pipeline parallelism (pp > 1)");
    if (p.vpp > 1) return fail(path, "with interleaving (vpp > 1) is not modelled yet; allowed: vpp = 1");
    const int64_t e = p.embedding_as_layer ? 1 : 0, l = p.loss_as_layer ? 1 : 0;
    const int64_t places = layers + e + l;
    if (places % p.pp != 0)
        return fail("/parallel/pp", "pp (" + str(p.pp) + ") must divide model.layers plus the embedding and loss counted as "
                                        "layers (" + str(places) + "); pp that work: " + divisors_text(places));
    std::vector<int64_t> out(static_cast<size_t>(p.pp), places / p.pp);
    out.front() -= e;
    out.back() -= l;
    if (out.front() < 1 || out.back() < 1)
        return fail(path, "would leave the first or last stage without a transformer layer (" + str(places / p.pp) +
                              " places per stage)");
    return {out, "", ""};
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
        return {std::vector<int64_t>(static_cast<size_t>(pp), layers / pp), "", ""};
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
    return {out, "", ""};
}

}  // namespace shardcalc
