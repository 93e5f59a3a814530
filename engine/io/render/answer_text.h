#pragma once
// The engine's answers for people, each written from the engine's own result, not from its JSON (which is
// io/contract/'s): what `shardcalc` prints and the page's Markdown export.
#include <string>

#include "core/units.h"
#include "report/kernel_table.h"
#include "report/report.h"

namespace shardcalc {

enum class TextFormat { Table, Markdown, Csv };

// The report: the table for terminals and CSV for spreadsheets (io/render/report_text.cpp), and the Markdown, a summary
// (the plan, the memory verdict, the step time) then the tables, amounts in `unit` (io/render/report_markdown.cpp).
std::string format_table(const Report& report);
std::string format_csv(const Report& report);
std::string format_markdown(const Report& report, ByteUnit unit = ByteUnit::GiB);

// The per-kernel table of one pipeline stage (io/render/kernels_text.cpp).
std::string format_kernels(const KernelTable& table, TextFormat format);

}  // namespace shardcalc
