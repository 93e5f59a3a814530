#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "report/report.h"

namespace shardcalc {

// The report in the public JSON contract (docs/scenario.md sec. 5): byte counts as integers, per device.
// Written as text by a streaming writer; report_to_json parses it for callers that want a tree.
std::string report_json_text(const Report& r);
nlohmann::json report_to_json(const Report& r);

}  // namespace shardcalc
