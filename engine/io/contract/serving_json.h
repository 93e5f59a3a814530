#pragma once
// The "serving" object of a scenario (docs/serving.md) and the serving estimate as JSON.
#include <nlohmann/json.hpp>

#include "serve/serving.h"

namespace shardcalc {

ServingSpec serving_spec_from_json(const nlohmann::json* j);  // j: the "serving" object or nullptr; throws InputError
nlohmann::json serving_to_json(const Config& c, const ServingSpec& s, const ServingEstimate& e);

}  // namespace shardcalc
