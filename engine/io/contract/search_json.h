#pragma once
// The plan search's JSON edge: the scenario's "search" object -> SearchSpec, and SearchResult -> JSON
// (docs/search.md). The writer only formats what the result holds.
#include <nlohmann/json.hpp>

#include "search/search.h"

namespace shardcalc {

SearchSpec search_spec_from_json(const nlohmann::json* j);  // j: the "search" object or nullptr; throws InputError
nlohmann::json search_result_to_json(const SearchResult& r);

}  // namespace shardcalc
