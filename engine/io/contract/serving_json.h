#pragma once
// The "serving" object of a scenario (docs/serving.md) and the serving estimate as JSON.
#include <nlohmann/json.hpp>

#include <optional>

#include "serve/serving.h"
#include "serve/serving_search.h"

namespace shardcalc {

// The "serving" object: the request shape and formats, and (a "search" object inside it) the plan search's bounds.
struct ServingInput {
    ServingSpec spec;
    std::optional<ServingSearchSpec> search;
};
ServingInput serving_input_from_json(const nlohmann::json* j);  // j: the "serving" object or nullptr; throws InputError
nlohmann::json serving_to_json(const Config& c, const ServingSpec& s, const ServingEstimate& e);
nlohmann::json serving_search_to_json(const Scenario& scenario, const ServingSearchSpec& q, const ServingSearchResult& r);

}  // namespace shardcalc
