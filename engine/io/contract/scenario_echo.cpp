// The scenario's echo: every field with its resolved value, written so that reading it back gives the same report
// (a field a preset turns on, and the user turned off, is written off). Which fields are written where: the echo
// rule of each entry of io/contract/scenario_schema.cpp.
#include "io/presets.h"
#include "io/contract/scenario_json.h"
#include "io/contract/scenario_schema.h"
#include "scenario/resolve.h"

namespace shardcalc {

using nlohmann::json;

json scenario_to_json(const Scenario& s) {
    const std::string& id = s.model.preset;
    const json* file = id.empty() ? nullptr : model_preset(id);
    const json* preset = file && file->contains("model") ? &(*file)["model"] : nullptr;  // the fields it sets
    auto object = [&](const char* path, const json* with_preset = nullptr) {
        json o = json::object();
        write_fields(o, s, schema_fields(path), with_preset);
        return o;
    };
    json out = object("");
    out["version"] = 1;
    out["model"] = object("/model", preset);
    out["training"] = object("/training");
    out["parallel"] = object("/parallel");
    json hardware = object("/hardware");
    hardware["peak_tflops"] = object("/hardware/peak_tflops");
    hardware["nvlink_domain"] = nvlink_domain_of(s.hardware);  // the domain in use (scenario_schema.cpp)
    out["hardware"] = hardware;
    out["implementation"] = object("/implementation");
    if (s.adapter.method != AdapterMethod::None) out["adapter"] = object("/adapter");
    return out;
}

json scenario_to_json(const ResolvedScenario& s) { return scenario_to_json(given_form(s)); }

}  // namespace shardcalc
