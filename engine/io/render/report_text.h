#pragma once
// The report for people (io/render/report_text.cpp): the table for terminals, Markdown for docs and CSV for
// spreadsheets, written from the engine's report itself; the JSON report is io/contract/report_json.h.
#include <string>

#include "core/units.h"
#include "report/report.h"

namespace shardcalc {

std::string format_table(const Report& report);
// A summary (the plan, the memory verdict, the step time), then the tables; amounts in `unit` (io/render/report_markdown.cpp).
std::string format_markdown(const Report& report, ByteUnit unit = ByteUnit::GiB);
std::string format_csv(const Report& report);

}  // namespace shardcalc
