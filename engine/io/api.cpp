#include "io/api.h"

#include "core/error.h"
#include "io/json_text.h"
#include "io/presets.h"
#include "io/report_json.h"
#include "io/scenario_json.h"
#include "io/search_json.h"
#include "search/search.h"

namespace shardcalc {

nlohmann::json error_value(const std::string& path, const std::string& message) {
    return {{"ok", false}, {"error", {{"path", path}, {"message", message}}}};
}

namespace {

// The answer as text, written without building a tree; InputError for an invalid scenario.
std::string answer_text(const nlohmann::json& scenario) {
    const Report r = evaluate(scenario_from_json(scenario));
    return "{\"ok\":true,\"report\":" + report_json_text(r) + "}";
}

}  // namespace

nlohmann::json evaluate_scenario(const nlohmann::json& scenario) {
    try {
        return nlohmann::json::parse(answer_text(scenario));
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
        return answer_text(parse_json_text(scenario_json));
    } catch (const InputError& e) {
        return to_text(error_value(e.path(), e.message()));
    } catch (const std::exception& e) {
        return to_text(error_value("", std::string("internal error: ") + e.what()));
    } catch (...) {
        return to_text(error_value("", "internal error"));
    }
}

std::string presets_text() { return embedded_presets_document(); }

namespace {

// A scenario with a "search" object: the searcher, or an InputError.
std::unique_ptr<Searcher> make_searcher(const std::string& text) {
    nlohmann::json j = parse_json_text(text);
    if (!j.is_object()) throw InputError("", "the scenario must be a JSON object");
    nlohmann::json spec;
    if (const auto it = j.find("search"); it != j.end()) {
        spec = std::move(*it);
        j.erase("search");
    }
    const SearchSpec s = search_spec_from_json(spec.is_null() ? nullptr : &spec);
    return std::make_unique<Searcher>(scenario_from_json(j), s);
}

// Runs `f`, turning every exception into the API's error value (the same rules as evaluate).
template <class F>
std::string guarded_text(F&& f) {
    try {
        return f();
    } catch (const InputError& e) {
        return to_text(error_value(e.path(), e.message()));
    } catch (const std::exception& e) {
        return to_text(error_value("", std::string("internal error: ") + e.what()));
    } catch (...) {
        return to_text(error_value("", "internal error"));
    }
}

}  // namespace

std::string search_scenario_text(const std::string& scenario_json) {
    return guarded_text([&] {
        auto searcher = make_searcher(scenario_json);
        while (!searcher->done()) searcher->step(1 << 20);
        return to_text({{"ok", true}, {"search", search_result_to_json(searcher->result())}});
    });
}

SearchSession::SearchSession(const std::string& scenario_json) {
    error_ = guarded_text([&] {
        searcher_ = make_searcher(scenario_json);
        return std::string();
    });
}

SearchSession::~SearchSession() = default;

bool SearchSession::done() const { return !searcher_ || searcher_->done(); }

double SearchSession::progress() const { return searcher_ ? searcher_->progress() : 1.0; }

void SearchSession::step(int budget) {
    if (!searcher_ || searcher_->done()) return;
    const std::string failure = guarded_text([&] {
        searcher_->step(budget);
        return std::string();
    });
    if (!failure.empty()) {
        error_ = failure;
        searcher_.reset();
    }
}

std::string SearchSession::result() const {
    if (!searcher_) return error_;
    return guarded_text([&] { return to_text({{"ok", true}, {"search", search_result_to_json(searcher_->result())}}); });
}

}  // namespace shardcalc
