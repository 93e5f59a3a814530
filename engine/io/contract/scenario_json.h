#pragma once
// Scenario JSON <-> Scenario. Presets named in the JSON are applied first and explicit
// fields override them. Field names are the public contract (docs/scenario.md).
#include <nlohmann/json.hpp>

#include "scenario/scenario.h"

namespace shardcalc {

Scenario scenario_from_json(const nlohmann::json& j);  // throws InputError
nlohmann::json scenario_to_json(const Scenario& s);          // every field, its value where engaged
nlohmann::json scenario_to_json(const ResolvedScenario& s);  // the same, written back in the scenario's form

}  // namespace shardcalc
