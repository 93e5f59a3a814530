#pragma once
#include <nlohmann/json.hpp>

#include "report/report.h"

namespace shardcalc {

// The report in the public JSON contract: byte counts as integers, per device.
nlohmann::json report_to_json(const Report& r);

}  // namespace shardcalc
