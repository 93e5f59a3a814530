#pragma once
// The "rl" object of a scenario (docs/rl.md) and the RL estimate as JSON.
#include <nlohmann/json.hpp>

#include "rl/rl.h"

namespace shardcalc {

RlSpec rl_spec_from_json(const nlohmann::json* j);  // j: the "rl" object or nullptr (every default); throws InputError
nlohmann::json rl_to_json(const RlSpec& rl, const RlEstimate& e, const RlLimits& limits);

}  // namespace shardcalc
