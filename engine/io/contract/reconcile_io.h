#pragma once
// The reconciliation of a run's log with its estimate (report/reconcile.h) as JSON, and that JSON as a table for a
// terminal. The writers format what reconcile() computed; they compute nothing.
#include <nlohmann/json.hpp>
#include <string>

#include "report/reconcile.h"

namespace shardcalc {

nlohmann::json reconciliation_json(const Reconciliation& r, const std::string& source);
std::string format_reconciliation_table(const nlohmann::json& j);

}  // namespace shardcalc
