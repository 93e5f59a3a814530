#pragma once
// The engine's JSON API, shared by the CLI and the WebAssembly bindings. Errors come back
// as values: {"ok": false, "error": {"path": "/parallel/tp", "message": "..."}}.
#include <nlohmann/json.hpp>
#include <string>

namespace shardcalc {

nlohmann::json evaluate_scenario(const nlohmann::json& scenario);  // {"ok": true, "report": {...}} or error
std::string evaluate_scenario_text(const std::string& scenario_json);
nlohmann::json error_value(const std::string& path, const std::string& message);
std::string presets_text();  // all_presets() serialised
std::string to_text(const nlohmann::json& j);  // compact, invalid UTF-8 replaced

}  // namespace shardcalc
