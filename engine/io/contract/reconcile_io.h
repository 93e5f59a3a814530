#pragma once
// The reconciliation of a run's log with its estimate (report/reconcile.h) as JSON, and that JSON as a table for a
// terminal. The writers format what reconcile() computed; they compute nothing.
#include <nlohmann/json.hpp>
#include <string>

#include "report/reconcile.h"

namespace shardcalc {

nlohmann::json reconciliation_json(const Reconciliation& r, const std::string& source);
// The scenario fields a found time calibration sets (report/time_calibration.h), added to a "calibration" object.
void add_time_calibration(const TimeCalibration& t, nlohmann::json& calibration);
std::string format_reconciliation_table(const nlohmann::json& j);

}  // namespace shardcalc
