#pragma once
// The "rl" object of a scenario (docs/rl.md) and the RL estimate as JSON.
#include <nlohmann/json.hpp>

#include "rl/rl.h"
#include "rl/rl_reconcile.h"

namespace shardcalc {

RlSpec rl_spec_from_json(const nlohmann::json* j);  // j: the "rl" object or nullptr (every default); throws InputError
nlohmann::json rl_to_json(const RlSpec& rl, const RlEstimate& e, const RlLimits& limits);
// verl's log against the estimate (rl/rl_reconcile.h): {"source": "verl", "steps": {"read", "used", "first_dropped"},
// "terms": [{"key", "label", "log", "estimate", "gap", "unit"}], "calibration": {"rl.mean_response_tokens"?, or the time
// calibration's "hardware.matmul_efficiency" (and its fp8 twin) or "implementation.host_forward_us" and "_backward_us"},
// "findings", "unknowns"}.
nlohmann::json rl_reconciliation_json(const RlReconciliation& r);

}  // namespace shardcalc
