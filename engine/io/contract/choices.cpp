#include "io/contract/choices.h"

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "io/contract/scenario_json.h"
#include "scenario/resolve.h"

namespace shardcalc {
namespace {

using nlohmann::json;

// How many candidates one step looks at before it gives up: enough to go from a degree to the next divisor
// of any real head count, layer count or batch (a stepper that finds nothing stays where it is).
constexpr int64_t kStepWindow = 1024;

// Every problem the engine finds in the scenario (empty when it evaluates).
std::vector<Problem> problems_of(const json& scenario) {
    try {
        resolve(scenario_from_json(scenario));
    } catch (const InputError& e) {
        return e.problems();
    }
    return {};
}

// Why `value` cannot go at `path`: a problem at the field itself, or one the scenario did not have before
// (a degree that breaks another rule); empty when it is valid.
std::string objection(json scenario, const json::json_pointer& at, const json& value, const std::vector<Problem>& before) {
    scenario[at] = value;
    const std::string path = at.to_string();
    const std::vector<Problem> after = problems_of(scenario);
    for (const Problem& p : after)
        if (p.path == path) return p.message;
    for (const Problem& p : after) {
        // The same words at the same place: a problem the candidate did not cause (messages name the values involved).
        const bool known = std::any_of(before.begin(), before.end(),
                                       [&](const Problem& b) { return b.path == p.path && b.message == p.message; });
        if (!known) return p.path + ": " + p.message;
    }
    return "";
}

json::json_pointer pointer(const std::string& path) {
    try {
        return json::json_pointer(path);
    } catch (const json::exception&) {
        throw InputError(path, "is not a JSON pointer to a scenario field");
    }
}

}  // namespace

json field_options(const json& scenario, const json& request) {
    if (!request.is_object()) throw InputError("", "the request must map field paths to lists of candidate values");
    const std::vector<Problem> before = problems_of(scenario);
    json out = json::object();
    for (auto it = request.begin(); it != request.end(); ++it) {
        if (!it.value().is_array()) throw InputError(it.key(), "must be a list of candidate values");
        const json::json_pointer at = pointer(it.key());
        json list = json::array();
        for (const json& value : it.value()) {
            const std::string why = objection(scenario, at, value, before);
            json entry = {{"value", value}, {"valid", why.empty()}};
            if (!why.empty()) entry["reason"] = why;
            list.push_back(std::move(entry));
        }
        out[it.key()] = std::move(list);
    }
    return {{"ok", true}, {"options", out}};
}

json step_value(const json& scenario, const std::string& path, int64_t from, int direction) {
    if (direction != 1 && direction != -1) throw InputError("/step/direction", "must be 1 or -1");
    const json::json_pointer at = pointer(path);
    const std::vector<Problem> before = problems_of(scenario);
    for (int64_t v = from + direction, n = 0; v >= 0 && n < kStepWindow; v += direction, ++n)
        if (objection(scenario, at, v, before).empty()) return {{"ok", true}, {"value", v}};
    return {{"ok", true}, {"value", nullptr}};
}

}  // namespace shardcalc
