#include "io/api.h"

#include <algorithm>
#include <utility>

#include "core/error.h"
#include "io/contract/choices.h"
#include "io/import/hf_config.h"
#include "io/codec/json_text.h"
#include "io/answers.h"
#include "io/guarded_text.h"
#include "io/codec/json_writer.h"
#include "io/contract/kernels_json.h"
#include "io/presets.h"
#include "io/contract/reconcile_io.h"
#include "io/contract/rl_json.h"
#include "io/contract/report_json.h"
#include "io/contract/scenario_json.h"
#include "io/contract/scenario_schema.h"
#include "io/contract/search_json.h"
#include "io/contract/serving_json.h"
#include "scenario/names.h"
#include "scenario/resolve.h"
#include "search/launch.h"
#include "search/search.h"

namespace shardcalc {

nlohmann::json error_value(const std::string& path, const std::string& message) {
    return error_value(std::vector<Problem>{{path, message}});
}

// "error" is the first problem (what a reader of one message needs), "errors" every one in input order, up to
// kMaxListedErrors and then one more saying how many were left out: an input of thousands of unknown keys would
// otherwise be answered with megabytes of repeated "allowed here" lists (issue 30: 3.6 MB for 5,300 keys).
constexpr size_t kMaxListedErrors = 100;
nlohmann::json error_value(const std::vector<Problem>& problems) {
    nlohmann::json all = nlohmann::json::array();
    for (size_t i = 0; i < problems.size() && i < kMaxListedErrors; ++i)
        all.push_back({{"path", problems[i].path}, {"message", problems[i].message}});
    if (problems.size() > kMaxListedErrors)
        all.push_back({{"path", ""},
                       {"message", std::to_string(problems.size() - kMaxListedErrors) + " more problems not listed (the first " +
                                       std::to_string(kMaxListedErrors) + " are)"}});
    return {{"ok", false}, {"error", all.front()}, {"errors", all}};
}

namespace {

// The answer as text, written without building a tree; InputError for an invalid scenario.
std::string answer_text(const nlohmann::json& scenario) {
    const Report r = evaluate(scenario_from_json(scenario));
    JsonWriter w;
    w.begin_object().field("ok", true).key("report");
    write_report_json(w, r);
    return w.end_object().take();
}

}  // namespace

std::string to_text(const nlohmann::json& j) {
    // Invalid UTF-8 (from a user's key echoed in an error) is replaced, never thrown: JsonWriter writes it as
    // nlohmann's dump(-1) with error_handler_t::replace would, without linking that serializer into the core.
    return compact_json(j);
}

nlohmann::json evaluate_scenario(const nlohmann::json& scenario) {
    return parse_json_text(guarded_text([&] { return answer_text(scenario); }));
}

std::string evaluate_scenario_text(const std::string& scenario_json) {
    return guarded_text([&] { return answer_text(parse_json_text(scenario_json)); });
}

std::string kernels_scenario_text(const std::string& scenario_json, int64_t stage) {
    return guarded_text([&] {
        const KernelTable t = kernel_table(scenario_of(scenario_json), stage);
        return "{\"ok\":true,\"kernels\":" + to_text(kernel_table_json(t)) + "}";
    });
}

std::string presets_text() { return embedded_presets_document(); }

std::string schema_text() { return schema_to_json().dump(); }

std::string reconcile_text(const std::string& scenario_json, const std::string& log_text) {
    return guarded_text([&] {
        const RunReconciliation r = run_reconciliation(scenario_json, log_text);
        return "{\"ok\":true,\"reconciliation\":" + to_text(reconciliation_json(r.reconciliation, r.source)) + "}";
    });
}

std::string choices_text(const std::string& request_json) {
    return guarded_text([&] {
        const nlohmann::json request = parse_json_text(request_json);
        if (!request.is_object() || !request.contains("scenario"))
            throw InputError("", "the request must be an object with \"scenario\" and \"options\" or \"step\"");
        const nlohmann::json& scenario = request["scenario"];
        if (request.contains("options")) return to_text(field_options(scenario, request["options"]));
        const nlohmann::json* step = request.contains("step") ? &request["step"] : nullptr;
        if (!step || !step->is_object() || !(*step)["path"].is_string() || !(*step)["from"].is_number_integer() ||
            !(*step)["direction"].is_number_integer())
            throw InputError("/step", "needs path (a JSON pointer), from (an integer) and direction (1 or -1)");
        return to_text(step_value(scenario, (*step)["path"].get<std::string>(), (*step)["from"].get<int64_t>(),
                                  static_cast<int>(std::clamp<int64_t>((*step)["direction"].get<int64_t>(), -2, 2))));
    });
}

std::string import_config_text(const std::string& config_json) {
    return guarded_text([&] {
        std::vector<OutOfRangeNumber> out_of_range;  // named together, not only the first
        const nlohmann::json config = parse_json_text(config_json, out_of_range);
        return to_text(import_hf_config(config, out_of_range));
    });
}

namespace {

// Each launch generator of search/launch.cpp by the name `shardcalc export --tool` takes, and the frameworks
// whose plans it writes.
struct LaunchGenerator {
    const char* name;
    Framework frameworks[2];
    int count;
};
constexpr LaunchGenerator kLaunchGenerators[] = {
    {"megatron-lm", {Framework::Megatron}, 1},
    {"megatron-deepspeed", {Framework::DeepSpeed}, 1},
    {"hf-trainer", {Framework::Fsdp, Framework::Pytorch}, 2},
    {"xla-mesh", {Framework::Xla}, 1},
};
constexpr const char* kLaunchToolNames = "megatron-lm|megatron-deepspeed|hf-trainer|torchtitan|xla-mesh|all";

// The generator of a plan: its framework's, or the Trainer's for an adapter (PEFT fine-tunes through transformers'
// Trainer over DDP, FSDP or DeepSpeed) and for transformers' models under DeepSpeed (search/launch.cpp).
const LaunchGenerator* generator_of(const Config& c) {
    const bool trainer = c.s.adapter.method != AdapterMethod::None || (c.s.framework == Framework::DeepSpeed && c.traits.hf_code);
    for (const LaunchGenerator& g : kLaunchGenerators)
        for (int i = 0; i < g.count; ++i)
            if (trainer ? std::string(g.name) == "hf-trainer" : g.frameworks[i] == c.s.framework) return &g;
    return nullptr;
}

std::string launch_text(const std::string& scenario_json, const std::string& tool) {
    bool known = tool == "all" || tool == "torchtitan";
    for (const LaunchGenerator& g : kLaunchGenerators) known = known || tool == g.name;
    if (!known) throw InputError("/tool", "unknown launch tool \"" + tool + "\"; allowed: " + kLaunchToolNames);
    nlohmann::json j = parse_json_text(scenario_json);
    if (j.is_object()) j.erase("search");  // the scenario's own plan; `shardcalc search` gives its rows' launches
    const Config c = resolve(scenario_from_json(j));
    const std::string framework = name_of(c.s.framework);
    const LaunchGenerator* g = generator_of(c);
    std::vector<LaunchCommand> commands;
    if (g) commands = launch_commands(c);
    if (commands.empty()) throw InputError("/framework", "no launch generator writes the flags of framework " + framework);
    if (tool == "torchtitan")
        throw InputError("/framework", "no torchtitan launch generator: the engine writes no torchtitan configuration; the " +
                                           framework + " plan's launch is " + g->name + "'s (--tool " + g->name + " or all)");
    if (tool != "all" && tool != g->name) {
        std::string frameworks;
        for (const LaunchGenerator& other : kLaunchGenerators)
            if (tool == other.name)
                for (int i = 0; i < other.count; ++i) frameworks += std::string(i ? " or " : "") + name_of(other.frameworks[i]);
        throw InputError("/framework", tool + " launches a " + frameworks + " plan; this plan's framework is " + framework +
                                           ", launched by " + g->name + " (--tool " + g->name + " or all)");
    }
    nlohmann::json launch = nlohmann::json::array();
    for (const LaunchCommand& l : commands) launch.push_back({{"tool", l.tool}, {"lines", l.lines}});
    return to_text({{"ok", true}, {"framework", framework}, {"generator", g->name}, {"launch", std::move(launch)}});
}

}  // namespace

std::string serve_scenario_text(const std::string& scenario_json) {
    return guarded_text([&] {
        const ServingAnswer a = serving_answer(scenario_json);
        if (a.search) return to_text({{"ok", true}, {"serving", serving_search_to_json(*a.search, a.found)}});
        return to_text({{"ok", true}, {"serving", serving_to_json(a.config, a.spec, a.estimate, a.curve, a.benchmark ? &*a.benchmark : nullptr)}});
    });
}

std::string rl_scenario_text(const std::string& scenario_json) {
    return guarded_text([&] {
        const RlAnswer a = rl_answer(scenario_json);
        return to_text({{"ok", true}, {"rl", rl_to_json(a.rl, a.estimate, a.limits)}});
    });
}

std::string rl_reconcile_text(const std::string& scenario_json, const std::string& log_text) {
    return guarded_text([&] {
        return to_text({{"ok", true}, {"rl_reconciliation", rl_reconciliation_json(rl_reconciliation(scenario_json, log_text))}});
    });
}

std::string serve_reconcile_text(const std::string& scenario_json, const std::string& log_text) {
    return guarded_text([&] {
        return to_text({{"ok", true},
                        {"serving_reconciliation", serving_reconciliation_json(serving_reconciliation(scenario_json, log_text))}});
    });
}

std::string search_scenario_text(const std::string& scenario_json, const Workers& workers) {
    return guarded_text([&] {
        return to_text({{"ok", true}, {"search", search_result_to_json(search_of(scenario_json, workers))}});
    });
}

std::string launch_scenario_text(const std::string& scenario_json, const std::string& tool) {
    return guarded_text([&] { return launch_text(scenario_json, tool); });
}

SearchSession::SearchSession(const std::string& scenario_json, int part, int parts) {
    error_ = guarded_text([&] {
        auto [scenario, spec] = read_search(scenario_json);
        searcher_ = std::make_unique<Searcher>(std::move(scenario), std::move(spec), SearchPart{part, parts});
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

std::string SearchSession::findings() const {
    if (!searcher_) return error_;
    return guarded_text([&] { return to_text({{"ok", true}, {"findings", search_findings_to_json(searcher_->findings())}}); });
}

void SearchSession::join(const std::string& findings_json) {
    if (!searcher_) return;
    const std::string failure = guarded_text([&] {
        const nlohmann::json answer = parse_json_text(findings_json);
        // Another part's error is this search's: the same input, read the same way.
        if (answer.is_object() && answer.value("ok", true) == false) return findings_json;
        if (!answer.is_object() || !answer.contains("findings"))
            throw InputError("/findings", "a search part's findings: {\"ok\": true, \"findings\": {...}}");
        searcher_->join(search_findings_from_json(answer["findings"]));
        return std::string();
    });
    if (!failure.empty()) {
        error_ = failure;
        searcher_.reset();
    }
}

}  // namespace shardcalc
