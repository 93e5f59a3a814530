#pragma once
// Model and hardware presets: the JSON files under presets/, embedded at build time
// (generated presets_data.cpp) so that the CLI and the WebAssembly page read the same bytes.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace shardcalc {

struct EmbeddedPreset {
    const char* kind;  // "models" | "hardware" | "plans" (a plan is a scenario file)
    const char* id;
    const char* json;
};

const std::vector<EmbeddedPreset>& embedded_presets();  // generated
// {"models": [...], "hardware": [...], "plans": [{"id", "scenario"}...]} as one JSON text of the files verbatim: the page reads it
// without the engine parsing and re-serialising every preset.
const std::string& embedded_presets_document();

// Parsed preset file by id, or nullptr.
const nlohmann::json* model_preset(const std::string& id);
const nlohmann::json* hardware_preset(const std::string& id);

// Preset ids of a kind ("models" | "hardware") close to a misspelled one, closest first (at most 3).
std::vector<std::string> similar_preset_ids(const char* kind, const std::string& id);

// {"models": [...], "hardware": [...]}: every preset file in full.
const nlohmann::json& all_presets();

}  // namespace shardcalc
