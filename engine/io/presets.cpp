#include "io/presets.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "io/codec/json_text.h"

namespace shardcalc {
namespace {

// Every preset parsed: the document the page reads, so the two cannot differ (a plan's id wrapper included).
const nlohmann::json& registry() {
    static const nlohmann::json all = parse_json_text(embedded_presets_document());
    return all;
}

// Every model and hardware preset parsed once, by kind and id: an immutable table built at its first use (thread-safe
// static initialization), so that a pointer handed out stays valid and nothing changes it afterwards.
const std::map<std::string, nlohmann::json>& parsed_presets() {
    static const std::map<std::string, nlohmann::json> table = [] {
        std::map<std::string, nlohmann::json> out;
        for (const auto& p : embedded_presets())
            if (std::string(p.kind) != "plans") out.emplace(std::string(p.kind) + "/" + p.id, parse_json_text(p.json));
        return out;
    }();
    return table;
}

const nlohmann::json* find(const char* kind, const std::string& id) {
    const auto& table = parsed_presets();
    const auto it = table.find(std::string(kind) + "/" + id);
    return it == table.end() ? nullptr : &it->second;
}

}  // namespace

const std::string& embedded_presets_document() {
    static const std::string text = [] {
        std::string out = "{";
        for (const char* kind : {"models", "hardware", "plans"}) {
            out += std::string(out.size() > 1 ? "," : "") + "\"" + kind + "\":[";
            bool first = true;
            for (const auto& p : embedded_presets())
                if (kind == std::string(p.kind)) {
                    // A plan file is a scenario, which has no id: the file name is its id.
                    const bool plan = kind == std::string("plans");
                    out += (first ? "" : ",") + (plan ? "{\"id\":\"" + std::string(p.id) + "\",\"scenario\":" : std::string()) +
                           p.json + (plan ? "}" : "");
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
