#pragma once
// The plan search's JSON edge: the scenario's "search" object -> SearchSpec, and SearchResult -> JSON
// (docs/search.md). The writer only formats what the result holds.
#include <nlohmann/json.hpp>

#include "search/search.h"

namespace shardcalc {

SearchSpec search_spec_from_json(const nlohmann::json* j);  // j: the "search" object or nullptr; throws InputError
nlohmann::json search_result_to_json(const SearchResult& r);
// A search part's findings (search/search.h), as the page's workers pass them to the part that joins them: each plan's
// own figures and its walk_order (its structure is the joining part's to read). Read back exactly (the doubles in
// their shortest round-trip form); InputError at "/findings/..." for anything else.
nlohmann::json search_findings_to_json(const SearchFindings& f);
SearchFindings search_findings_from_json(const nlohmann::json& j);

}  // namespace shardcalc
