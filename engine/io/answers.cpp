#include "io/answers.h"

#include "core/error.h"
#include "graph/build.h"
#include "io/codec/json_text.h"
#include "io/contract/rl_json.h"
#include "io/contract/scenario_json.h"
#include "io/contract/search_json.h"
#include "io/import/run_log.h"
#include "io/import/verl_log.h"
#include "io/import/vllm_log.h"
#include "scenario/resolve.h"
#include "serve/serving.h"

namespace shardcalc {
namespace {

// A scenario with a command's own object (`key`: "search", "serving", "rl"), read into the scenario and that object's
// spec by `read_spec` (given nullptr when the object is absent); InputError if either cannot be.
template <class Spec>
std::pair<Scenario, Spec> read_with(const std::string& text, const char* key, Spec (*read_spec)(const nlohmann::json*)) {
    nlohmann::json j = parse_json_text(text);
    if (!j.is_object()) throw InputError("", "the scenario must be a JSON object");
    nlohmann::json spec;
    if (const auto it = j.find(key); it != j.end()) {
        spec = std::move(*it);
        j.erase(key);
    }
    // Both are read, so that the problems of each are reported together.
    Problems problems;
    Spec s;
    Scenario scenario;
    problems.collect([&] { s = read_spec(spec.is_null() ? nullptr : &spec); });
    problems.collect([&] { scenario = scenario_from_json(j); });
    problems.raise();
    return {std::move(scenario), std::move(s)};
}

}  // namespace

Scenario scenario_of(const std::string& text) { return scenario_from_json(parse_json_text(text)); }

std::pair<Scenario, SearchSpec> read_search(const std::string& text) { return read_with(text, "search", search_spec_from_json); }

SearchResult search_of(const std::string& text, const Workers& workers) {
    const auto [scenario, spec] = read_search(text);
    return search(scenario, spec, workers);
}

RunReconciliation run_reconciliation(const std::string& scenario_text, const std::string& log_text) {
    const Report r = evaluate(scenario_of(scenario_text));
    const MeasuredRun run = read_run_log(log_text);
    return {reconcile(r, run), run.source};
}

RlAnswer rl_answer(const std::string& scenario_text) {
    const auto [scenario, rl] = read_with(scenario_text, "rl", rl_spec_from_json);
    return {rl, rl_estimate(scenario, rl), rl_limits(scenario, rl)};
}

RlReconciliation rl_reconciliation(const std::string& scenario_text, const std::string& log_text) {
    const auto [scenario, rl] = read_with(scenario_text, "rl", rl_spec_from_json);
    const MeasuredRl run = read_verl_log(log_text);
    return reconcile_rl(rl, rl_estimate(scenario, rl), run);
}

ServingAnswer serving_answer(const std::string& scenario_text) {
    auto [scenario, in] = read_with(scenario_text, "serving", serving_input_from_json);
    ServingAnswer a;
    a.spec = in.spec;
    a.search = in.search;
    if (in.search && a.spec.request_rate > 0)
        throw InputError("/serving/request_rate", "the plan search finds each replica's largest concurrency itself; give "
                                                  "request_rate without a search object");
    if (in.search && a.spec.benchmark_requests > 0)
        throw InputError("/serving/benchmark_requests", "a benchmark run steps one served plan; give it without a search object");
    if (in.search && a.spec.engine == ServingEngine::Transformers)
        throw InputError("/serving/engine", "the serving plan search ranks vLLM plans; give transformers' generate without a "
                                            "search object");
    if (in.search) {
        // The model, the device and the request, checked once with their own paths (the search chooses tp).
        Scenario one = scenario;
        one.parallel.tp = one.parallel.dp = 1;
        validate_serving(resolve(one, Rules::ModelAndDevice), a.spec);
        a.found = serving_search(scenario, a.spec, *in.search);
        return a;
    }
    a.config = resolve(std::move(scenario), Rules::ModelAndDevice);
    validate_serving(a.config, a.spec);
    const ModelGraph g = build_graph(a.config);
    a.estimate = serving_estimate(a.config, g, a.spec);
    // Under a request rate the answer is at the concurrency the rate settles at (its flags too).
    if (a.spec.request_rate > 0) a.spec.concurrency = a.estimate.settled_concurrency;
    a.curve = latency_throughput(a.config, g, a.spec, a.estimate.max_concurrency);
    const ServingEstimate& e = a.estimate;
    if (a.spec.benchmark_requests > 0 && e.max_model_len >= a.spec.longest_request())
        a.benchmark = closed_loop(a.config, a.spec, ServedForward(a.config, g, a.spec), e.kv_available);
    return a;
}

ServingReconciliation serving_reconciliation(const std::string& scenario_text, const std::string& log_text) {
    auto [scenario, in] = read_with(scenario_text, "serving", serving_input_from_json);
    if (in.search) throw InputError("/serving/search", "a log is set against one served plan: leave the search object out");
    if (in.spec.engine != ServingEngine::Vllm)
        throw InputError("/serving/engine", "the log is vLLM's: it is set against a vLLM plan (serving.engine vllm)");
    const Config c = resolve(std::move(scenario), Rules::ModelAndDevice);
    validate_serving(c, in.spec);
    const MeasuredServing run = read_vllm_log(log_text);
    const ServingEstimate e = serving_estimate(c, build_graph(c), in.spec);
    return reconcile_serving(in.spec, e, run);
}

}  // namespace shardcalc
