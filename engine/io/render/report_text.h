#pragma once
// The report for people (io/render/report_text.cpp): the table for terminals, Markdown for docs and CSV for
// spreadsheets, written from the engine's report itself; the JSON report is io/contract/report_json.h.
#include <string>

#include "report/report.h"

namespace shardcalc {

std::string format_table(const Report& report);
std::string format_markdown(const Report& report);
std::string format_csv(const Report& report);

}  // namespace shardcalc
