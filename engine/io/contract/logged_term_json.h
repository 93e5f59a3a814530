#pragma once
// The terms of a log set against an estimate (core/logged_term.h) as JSON rows: {"key", "label", "log", "estimate",
// "gap", "unit"}, byte counts whole. The serving and RL reconciliations write their terms so.
#include <nlohmann/json.hpp>
#include <vector>

#include "core/logged_term.h"

namespace shardcalc {

nlohmann::json logged_terms_json(const std::vector<LoggedTerm>& terms);

}  // namespace shardcalc
