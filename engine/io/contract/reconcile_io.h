#pragma once
// The reconciliation of a run's log with its estimate (report/reconcile.h) as JSON, and the scenario fields each kind of
// log implies (a run's, vLLM's, verl's), by their paths. The writers format what the reconciliations computed; they
// compute nothing.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/reconcile.h"
#include "rl/rl_reconcile.h"
#include "serve/serving_reconcile.h"

namespace shardcalc {

nlohmann::json reconciliation_json(const Reconciliation& r, const std::string& source);

// A scenario field a log implies, by its dotted path ("hardware.matmul_efficiency"), for a link or a scenario file to
// keep; in path order (as the JSON object lists them).
struct ImpliedField {
    const char* path;
    double value;
    bool integer = false;  // a count (rl.mean_response_tokens), written as one
};
std::vector<ImpliedField> implied_fields(const Reconciliation& r);
std::vector<ImpliedField> implied_fields(const ServingReconciliation& r);
std::vector<ImpliedField> implied_fields(const RlReconciliation& r);
// The "calibration" object of a reconciliation's JSON.
nlohmann::json implied_fields_json(const std::vector<ImpliedField>& fields);

}  // namespace shardcalc
