#include "io/contract/scenario_json.h"

#include "io/codec/json_reader.h"
#include "io/presets.h"
#include "io/contract/adapter_json.h"
#include "io/contract/scenario_schema.h"

namespace shardcalc {
namespace {

using nlohmann::json;

constexpr const char* kDefaultHardware = "h100-sxm-80gb";

// "; did you mean \"a\" or \"b\"? `shardcalc presets` lists them all" for a misspelled preset id.
std::string suggestion(const char* kind, const std::string& id) {
    const auto similar = similar_preset_ids(kind, id);
    std::string out = "; ";
    if (!similar.empty()) {
        out += "did you mean ";
        for (size_t i = 0; i < similar.size(); ++i)
            out += (i == 0 ? "" : i + 1 == similar.size() ? " or " : ", ") + std::string("\"") + similar[i] + "\"";
        out += "? ";
    }
    return out + "`shardcalc presets` lists them all";
}

std::string model_required(const Field&) { return "required: give it, or name a model.preset"; }
std::string hardware_required(const Field& f) {
    return "required (null removed the preset's value): " + number_range(f.min, f.max);
}
std::string never_required(const Field&) { return {}; }  // objects without required fields

void parse_model(const json* user, Scenario& s) {
    if (!user) throw InputError("/model", "required: give model.preset or the model's shape (layers, hidden, ...)");
    ObjectReader probe(*user, "/model");
    const auto preset_id = probe.string("preset");
    const json* preset_fields = nullptr;  // the user's fields win over the preset's
    if (preset_id) {
        const json* preset = model_preset(*preset_id);
        if (!preset)
            throw InputError("/model/preset", "unknown model preset \"" + *preset_id + "\"" + suggestion("models", *preset_id));
        preset_fields = &preset->at("model");
    }
    ObjectReader r(*user, "/model", preset_fields);
    ModelSpec& m = s.model;
    m.preset = preset_id.value_or("");
    read_fields(r, s, schema_fields("/model"), &model_required);
    if (m.arch == Arch::Lstm) {
        // An LSTM has no attention; heads = 1 keeps the transformer-only defaults defined (never read for it).
        if (r.value("heads")) r.problem("heads", "an LSTM (arch lstm) has no attention heads: remove it");
        m.heads = 1;
        if (r.value("position_embedding") && m.position_embedding != PositionEmbedding::None)
            r.problem("position_embedding", "an LSTM (arch lstm) has no position embeddings: allowed: none");
        m.position_embedding = PositionEmbedding::None;
    }
    r.finish();
}

void parse_training(const json* j, Scenario& s) {
    if (!j) return;
    ObjectReader r(*j, "/training");
    read_fields(r, s, schema_fields("/training"), &never_required);
    const TrainingSpec& t = s.training;
    const char* fp8_msg = "the activations and weights stay 16-bit in fp8 training; set training.fp8 to a recipe "
                          "(delayed|current|blockwise|mxfp8) for fp8 GEMMs; allowed: fp32|fp16|bf16";
    if (t.dtype == Dtype::Fp8) r.problem("dtype", fp8_msg);
    // FP8 primary weights (Megatron's --fp8-param-gather) go with an fp8 recipe; validate.cpp checks the rest.
    if (t.param_dtype == Dtype::Fp8 && t.fp8 == Fp8Recipe::None)
        r.problem("param_dtype", "fp8 primary weights (Megatron's --fp8-param-gather) need an fp8 recipe: set training.fp8 "
                                 "(delayed|current|blockwise|mxfp8); allowed without one: fp32|fp16|bf16");
    if (t.grad_dtype == Dtype::Fp8) r.problem("grad_dtype", fp8_msg);
    r.finish();
}

// An object whose fields the schema reads with no rule between them (parallel, implementation, the peak table).
void parse_plain(const json* j, const char* path, Scenario& s, const json* preset = nullptr) {
    if (!j) return;
    ObjectReader r(*j, path, preset);
    read_fields(r, s, schema_fields(path), &never_required);
    r.finish();
}

void parse_hardware(const json* user, Scenario& s) {
    const json empty = json::object();
    const json& u = user ? *user : empty;
    ObjectReader probe(u, "/hardware");
    const auto given = probe.string("preset");
    const std::string id = given.value_or(kDefaultHardware);
    const json* preset = hardware_preset(id);
    if (!preset)
        throw InputError("/hardware/preset", "unknown hardware preset \"" + id + "\"" + suggestion("hardware", id));
    // The preset's fields where the user gives none (its id, vendor and prose are never asked for).
    ObjectReader r(u, "/hardware", preset);
    s.hardware.preset = id;
    s.hardware.preset_defaulted = !given;
    read_fields(r, s, schema_fields("/hardware"), &hardware_required);
    // An explicit peak_tflops object replaces single entries, not the whole table.
    if (const json* peaks = r.object("peak_tflops")) {
        const auto own = preset->find("peak_tflops");
        const json* preset_peaks = own != preset->end() && &*own != peaks ? &*own : nullptr;
        r.collect([&] { parse_plain(peaks, "/hardware/peak_tflops", s, preset_peaks); });
    }
    r.finish();
}

}  // namespace

Scenario scenario_from_json(const json& j) {
    ObjectReader r(j, "");
    Scenario s;
    // Every section is read even when another has problems, so that all of them are reported at once.
    Problems problems;
    read_fields(r, s, schema_fields(""), &never_required);
    if (const json* v = r.value("version"); v && !r.failed("version") && *v != 1)
        problems.add("/version", "this engine reads scenario version 1");
    const json* model = r.object("model");
    const json* training = r.object("training");
    const json* parallel = r.object("parallel");
    const json* hardware = r.object("hardware");
    const json* implementation = r.object("implementation");
    const json* adapter = r.object("adapter");
    problems.collect([&] { r.finish(); });  // a misspelled section is reported before its absence
    if (!r.failed("model")) problems.collect([&] { parse_model(model, s); });
    problems.collect([&] { parse_training(training, s); });
    problems.collect([&] { parse_plain(parallel, "/parallel", s); });
    problems.collect([&] { parse_hardware(hardware, s); });
    problems.collect([&] { parse_plain(implementation, "/implementation", s); });
    if (adapter) problems.collect([&] { parse_adapter(*adapter, s); });
    problems.raise();
    // A TPU runs XLA programs only: with no framework named, a TPU plan is an xla one.
    if (!j.contains("framework") && s.hardware.kind == DeviceKind::Tpu) s.framework = Framework::Xla;
    return s;
}

}  // namespace shardcalc
