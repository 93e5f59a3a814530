#include "io/presets.h"

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

const nlohmann::json* find(const char* kind, const std::string& id) {
    for (const auto& p : registry()[kind])
        if (p.value("id", "") == id) return &p;
    return nullptr;
}

}  // namespace

const nlohmann::json* model_preset(const std::string& id) { return find("models", id); }
const nlohmann::json* hardware_preset(const std::string& id) { return find("hardware", id); }
const nlohmann::json& all_presets() { return registry(); }

}  // namespace shardcalc
