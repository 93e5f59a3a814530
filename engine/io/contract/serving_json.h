#pragma once
// The "serving" object of a scenario (docs/serving.md) and the serving estimate as JSON.
#include <nlohmann/json.hpp>

#include <optional>

#include "serve/closed_loop.h"
#include "serve/serving.h"
#include "serve/serving_reconcile.h"
#include "serve/serving_search.h"

namespace shardcalc {

// The "serving" object: the request shape and formats, and (a "search" object inside it) the plan search's bounds.
struct ServingInput {
    ServingSpec spec;
    std::optional<ServingSearchSpec> search;
};
ServingInput serving_input_from_json(const nlohmann::json* j);  // j: the "serving" object or nullptr; throws InputError
// `curve`: the replica's latency-throughput points (serve/serving.h), written as "curve" when given.
// `benchmark`: the closed-loop run (serve/closed_loop.h), written as "benchmark" when given, and as its reason when
// serving.benchmark_requests asked for one that vLLM would not start.
nlohmann::json serving_to_json(const Config& c, const ServingSpec& s, const ServingEstimate& e,
                               const std::vector<CurvePoint>& curve = {}, const ClosedLoopRun* benchmark = nullptr);
nlohmann::json serving_search_to_json(const ServingSearchSpec& q, const ServingSearchResult& r);
// A vLLM log set against the estimate (serve/serving_reconcile.h): {"source", "terms": [{"key", "label", "log", "estimate",
// "gap", "unit"}], "kv_bytes_per_token"?: {"log", "estimate"}, "calibration": {...}, "findings", "unknowns"}.
nlohmann::json serving_reconciliation_json(const ServingReconciliation& r);

}  // namespace shardcalc
