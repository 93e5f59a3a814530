#pragma once
// The engine's answers to the API's requests (io/api.h) as the engine's own results, read from the request's text: the
// JSON API (io/api.cpp) writes them as JSON, text_answer (io/text_answer.cpp) for people. Each throws InputError for a
// request it cannot answer, at the field's path.
#include <optional>
#include <string>
#include <utility>

#include "io/contract/serving_json.h"
#include "report/kernel_table.h"
#include "report/reconcile.h"
#include "report/report.h"
#include "rl/rl.h"
#include "rl/rl_reconcile.h"
#include "serve/closed_loop.h"
#include "search/search.h"
#include "serve/serving_reconcile.h"
#include "serve/serving_search.h"

namespace shardcalc {

// The scenario of a request's text.
Scenario scenario_of(const std::string& text);
// The scenario and its "search" object, read side by side (the problems of both reported together), and its search
// (split over the workers: search/search.h).
std::pair<Scenario, SearchSpec> read_search(const std::string& text);
SearchResult search_of(const std::string& text, const Workers& workers = {});

// A run's log against the scenario's estimate, with the log's source ("Megatron-LM", ...).
struct RunReconciliation {
    Reconciliation reconciliation;
    std::string source;
};
RunReconciliation run_reconciliation(const std::string& scenario_text, const std::string& log_text);

struct RlAnswer {
    RlSpec rl;
    RlEstimate estimate;
    RlLimits limits;
};
RlAnswer rl_answer(const std::string& scenario_text);
RlReconciliation rl_reconciliation(const std::string& scenario_text, const std::string& log_text);

// Serving one plan (its request, estimate and latency-throughput curve), or the serving plan search.
struct ServingAnswer {
    Config config;
    ServingSpec spec;
    ServingEstimate estimate;
    std::vector<CurvePoint> curve;
    // The closed-loop run, when serving.benchmark_requests asks for one and vLLM would start (the longest request fits).
    std::optional<ClosedLoopRun> benchmark;
    std::optional<ServingSearchSpec> search;
    ServingSearchResult found;  // when `search`
};
ServingAnswer serving_answer(const std::string& scenario_text);
ServingReconciliation serving_reconciliation(const std::string& scenario_text, const std::string& log_text);

}  // namespace shardcalc
