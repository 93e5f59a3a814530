#pragma once
// The scenario's `adapter` object (scenario/adapter.h): its schema entries and its reading. A file of its own so that
// the page's WebAssembly core, which leaves adapters to the whole engine, leaves it out (wasm/core_features.cpp: there
// the entries are none and reading an adapter asks for the whole engine).
#include <nlohmann/json.hpp>
#include <vector>

#include "io/contract/scenario_schema.h"

namespace shardcalc {

FieldList adapter_fields();
// Reads `adapter` (given) into `s`; its problems are thrown as one InputError.
void parse_adapter(const nlohmann::json& adapter, Scenario& s);

}  // namespace shardcalc
