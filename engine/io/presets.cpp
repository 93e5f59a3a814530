#include "io/presets.h"

#include <map>

namespace shardcalc {
namespace {

const nlohmann::json& registry() {
    static const nlohmann::json all = [] {
        nlohmann::json j = {{"models", nlohmann::json::array()}, {"hardware", nlohmann::json::array()}};
        for (const auto& p : embedded_presets()) j[p.kind].push_back(nlohmann::json::parse(p.json));
        return j;
    }();
    return all;
}

// Parses only the presets a scenario names, once each: evaluating must not wait for all of them.
const nlohmann::json* find(const char* kind, const std::string& id) {
    static std::map<std::string, nlohmann::json> parsed;
    const std::string key = std::string(kind) + "/" + id;
    if (const auto it = parsed.find(key); it != parsed.end()) return &it->second;
    for (const auto& p : embedded_presets())
        if (kind == std::string(p.kind) && id == p.id) return &parsed.emplace(key, nlohmann::json::parse(p.json)).first->second;
    return nullptr;
}

}  // namespace

const std::string& embedded_presets_document() {
    static const std::string text = [] {
        std::string out = "{";
        for (const char* kind : {"models", "hardware"}) {
            out += std::string(out.size() > 1 ? "," : "") + "\"" + kind + "\":[";
            bool first = true;
            for (const auto& p : embedded_presets())
                if (kind == std::string(p.kind)) {
                    out += (first ? "" : ",") + std::string(p.json);
                    first = false;
                }
            out += "]";
        }
        return out + "}";
    }();
    return text;
}

const nlohmann::json* model_preset(const std::string& id) { return find("models", id); }
const nlohmann::json* hardware_preset(const std::string& id) { return find("hardware", id); }
const nlohmann::json& all_presets() { return registry(); }

}  // namespace shardcalc
