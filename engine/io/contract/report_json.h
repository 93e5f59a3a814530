#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "io/codec/json_writer.h"
#include "report/report.h"

namespace shardcalc {

// The report in the public JSON contract (docs/scenario.md sec. 5): byte counts as integers, per device.
// Written as text by a streaming writer; report_to_json parses it for callers that want a tree.
std::string report_json_text(const Report& r);
void write_report_json(JsonWriter& w, const Report& r);  // the same into a larger answer
nlohmann::json report_to_json(const Report& r);

}  // namespace shardcalc
