#include "io/api.h"

#include "core/error.h"
#include "io/json_text.h"
#include "io/presets.h"
#include "io/report_json.h"
#include "io/scenario_json.h"

namespace shardcalc {

nlohmann::json error_value(const std::string& path, const std::string& message) {
    return {{"ok", false}, {"error", {{"path", path}, {"message", message}}}};
}

nlohmann::json evaluate_scenario(const nlohmann::json& scenario) {
    try {
        const Report r = evaluate(scenario_from_json(scenario));
        return {{"ok", true}, {"report", report_to_json(r)}};
    } catch (const InputError& e) {
        return error_value(e.path(), e.message());
    } catch (const std::exception& e) {
        // Anything else is an engine defect; still a value, never a crash.
        return error_value("", std::string("internal error: ") + e.what());
    } catch (...) {
        return error_value("", "internal error");
    }
}

std::string to_text(const nlohmann::json& j) {
    // Invalid UTF-8 (from a user's key echoed in an error) is replaced, never thrown.
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string evaluate_scenario_text(const std::string& scenario_json) {
    // No exception of any kind leaves: the CLI and the WebAssembly page get a value either way.
    try {
        return to_text(evaluate_scenario(parse_json_text(scenario_json)));
    } catch (const InputError& e) {
        return to_text(error_value(e.path(), e.message()));
    } catch (const std::exception& e) {
        return to_text(error_value("", std::string("internal error: ") + e.what()));
    } catch (...) {
        return to_text(error_value("", "internal error"));
    }
}

std::string presets_text() { return embedded_presets_document(); }

}  // namespace shardcalc
