// The schema's entries put to work: an object read and echoed field by field, and the schema written as JSON.
#include <string>

#include "io/contract/scenario_schema.h"
#include "memory/allocator.h"
#include "memory/memory_terms.h"
#include "schedule/step_parts.h"

namespace shardcalc {

using nlohmann::json;

namespace {

int64_t or_zero(const std::optional<int64_t>& given) { return given.value_or(0); }
int64_t or_zero(int64_t filled) { return filled; }

template <template <class> class D>
bool applies_to(Applies where, const ScenarioOf<D>& s) {
    const ModelFields& m = s.model;
    const bool transformer = m.arch != Arch::Lstm;
    switch (where) {
        case Applies::Always: return true;
        case Applies::Transformer: return transformer;
        case Applies::Lstm: return !transformer;
        case Applies::Moe: return m.experts > 0;
        case Applies::MoeOrEp: return m.experts > 0 || s.parallel.ep > 1;
        case Applies::Mla: return transformer && m.kv_lora_rank > 0;
        case Applies::Window: return transformer && m.sliding_window > 0;
        case Applies::MlmPositions:
            return or_zero(s.training.mlm_predictions) > 0 || (m.arch == Arch::Encoder && m.head == Head::Lm);
        case Applies::MatrixUnit: return s.hardware.kind == DeviceKind::Tpu || s.hardware.matrix_unit > 0;
        case Applies::Qlora: return s.adapter.method == AdapterMethod::Qlora;
        case Applies::Gptq: return s.adapter.method == AdapterMethod::Qlora && s.adapter.quantization == AdapterQuant::Gptq;
    }
    return true;
}

}  // namespace

bool applies(Applies where, const Scenario& s) { return applies_to(where, s); }
bool applies(Applies where, const ResolvedScenario& s) { return applies_to(where, s); }

void read_fields(ObjectReader& r, Scenario& s, FieldList fields,
                 std::string (*required_message)(const Field& f)) {
    for (const Field& f : fields) {
        const bool required = f.presence == Presence::Required;
        if (required && !applies(f.applies, s)) continue;  // the object's own code says why it may not be given
        const bool given = f.type->read(r, f, f.at ? f.at(s) : nullptr);
        if (required && !given && !r.failed(f.key)) r.problem(f.key, required_message(f));
    }
}

namespace {

// Whether the model preset (if any) turns on a field whose default is off (0, false).
bool preset_sets(const json* preset, const char* key) {
    if (!preset) return false;
    const auto it = preset->find(key);
    return it != preset->end() && ((it->is_boolean() && it->get<bool>()) || (it->is_number() && it->get<double>() != 0));
}

const char* applies_name(Applies where) {
    switch (where) {
        case Applies::Always: return "always";
        case Applies::Transformer: return "transformer";
        case Applies::Lstm: return "lstm";
        case Applies::Moe: return "moe";
        case Applies::MoeOrEp: return "moe_or_ep";
        case Applies::Mla: return "mla";
        case Applies::Window: return "sliding_window";
        case Applies::MlmPositions: return "mlm_head";
        case Applies::MatrixUnit: return "tpu_or_given";
        case Applies::Qlora: return "qlora";
        case Applies::Gptq: return "gptq";
    }
    return "always";
}

// An enum's spellings from its joined "a|b|c": the field types keep allowed_names<T>, which the parser's messages need
// anyway; a list function per enum instead costs the page's core 0.3 KB gzip (measured), where its budget has none left.
json choice_list(const std::string& names) {
    json list = json::array();
    size_t start = 0;
    for (size_t bar = names.find('|'); ; bar = names.find('|', start)) {
        list.push_back(names.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
        if (bar == std::string::npos) break;
        start = bar + 1;
    }
    return list;
}

}  // namespace

void write_fields(json& object, const Scenario& s, FieldList fields, const json* preset) {
    for (const Field& f : fields) {
        if (f.echo == Echo::Never || !f.at || !applies(f.applies, s)) continue;
        const void* value = f.value(s);
        if (f.echo == Echo::WhenOn && !f.type->on(value) && !preset_sets(preset, f.key)) continue;
        f.type->write(object, f, value);
    }
}

json schema_to_json() {
    const Scenario defaults;  // what each field is when neither the user nor a preset sets it
    json objects = json::array();
    for (const SchemaObject& o : scenario_schema()) {
        const bool from_preset = std::string(o.path).rfind("/hardware", 0) == 0;
        json fields = json::array();
        for (const Field& f : o.fields) {
            json j = {{"key", f.key}, {"type", f.type->name}};
            const std::string type = f.type->name;
            if (type == "integer" || type == "integer list") {
                j["min"] = static_cast<int64_t>(f.min);
                j["max"] = static_cast<int64_t>(f.max);
            } else if (type == "number") {
                j["min"] = f.min;
                j["max"] = f.max;
            }
            if (f.type->choices) j["choices"] = choice_list(f.type->choices());
            if (f.presence == Presence::Required) j["required"] = true;
            if (f.applies != Applies::Always) j["applies"] = applies_name(f.applies);
            // A default of its own: a non-optional member outside the hardware (whose values are its preset's).
            if (f.at && !f.type->optional && f.presence != Presence::Required && !from_preset && type != "string") {
                json one = json::object();
                f.type->write(one, f, f.value(defaults));
                if (one.contains(f.key)) j["default"] = one[f.key];
            }
            if (f.type->optional) j["default"] = "derived";  // from the framework or other fields: docs/scenario.md
            fields.push_back(j);
        }
        objects.push_back({{"path", o.path}, {"fields", fields}});
    }
    // The report's vocabulary: the keys its parts carry and their words, in the order a reader sees them.
    auto term = [](const Term& t) { return json{{"key", t.key}, {"label", t.label}}; };
    auto terms = [&](const auto& list) {
        json out = json::array();
        for (const Term& t : list) out.push_back(term(t));
        return out;
    };
    json step_parts = json::array();
    for (const StepSlot& slot : kStepOrder) step_parts.push_back(term(slot.term));
    const json report_terms = {{"step_parts", step_parts},
                               {"memory_phases", terms(kMemoryPhases)},
                               {"memory_lines", terms(kMemoryLines)},
                               {"verdicts", terms(kVerdicts)}};
    return {{"version", 1}, {"objects", objects}, {"report_terms", report_terms}};
}

}  // namespace shardcalc
