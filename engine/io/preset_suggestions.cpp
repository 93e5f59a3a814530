// Preset ids close to a misspelled one, for the "did you mean" of an unknown preset's error. An error path only: the
// page's core answers such a scenario "whole engine" (wasm/core_features.cpp), leaving this code to the whole engine.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/edit_distance.h"
#include "io/presets.h"

namespace shardcalc {

std::vector<std::string> similar_preset_ids(const char* kind, const std::string& id) {
    // Close in spelling (a third of the length), or one id containing the other ("llama-70b" and
    // "llama-3.1-70b" are far apart in edits but obviously related).
    std::vector<std::pair<size_t, std::string>> scored;
    if (id.size() > 64) return {};
    for (const auto& p : embedded_presets()) {
        if (std::string(p.kind) != kind) continue;
        const std::string candidate = p.id;
        const size_t d = edit_distance(id, candidate);
        const bool contains = id.size() >= 3 && (candidate.find(id) != std::string::npos);
        if (d <= std::max<size_t>(2, candidate.size() / 3) || contains) scored.emplace_back(contains ? 0 : d, candidate);
    }
    // The three lowest (score, id), lowest first, picked one by one: std::sort's code for these pairs was 1 KB of the
    // page's core.
    std::vector<std::string> out;
    while (out.size() < 3 && !scored.empty()) {
        const auto best = std::min_element(scored.begin(), scored.end());
        out.push_back(best->second);
        scored.erase(best);
    }
    return out;
}

}  // namespace shardcalc
