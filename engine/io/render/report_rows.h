#pragma once
// The tables the report's renderings share (io/render/report_text.cpp: the terminal's table and the CSV;
// io/render/report_markdown.cpp: the Markdown), built from the engine's report: amounts are the JSON report's (bytes as
// whole numbers, seconds as written), in the reader's unit where they are for people.
#include <string>
#include <string_view>
#include <vector>

#include "core/units.h"
#include "io/render/text_table.h"
#include "report/report.h"

namespace shardcalc::report_rows {

using text::Row;

using text::amount;
using text::small_amount;
std::string raw_bytes(double bytes);                 // "13245" (the CSV's)
std::string human_bytes(double bytes, ByteUnit u);   // "1.23 GiB", "64.0 MiB", "12.0 KiB" (or GB, MB, kB)
std::string seconds_text(double s);                  // "1.234 s", "56.78 ms"

// A timeline phase in words ("forward_end" -> "end of forward": memory/memory_terms.h), and a stage's peak phase.
std::string phase_label(std::string_view phase);
std::string_view peak_phase(const StageMemory& s);

// The tables' titles, their unit defined ("Memory per device, by pipeline stage (GiB = 2^30 bytes)").
std::string stage_title(ByteUnit u);
std::string module_title(ByteUnit u);
std::string xla_title(ByteUnit u);

// Memory per stage, the columns that are zero on every stage left out (for people).
std::vector<Row> stage_rows(const Report& r, ByteUnit u);
// The timeline's lines (indexes into kMemoryLines) that are non-zero somewhere: found once for all stages.
std::vector<size_t> timeline_lines(const Report& r);
// One stage's memory over the step, its peak phase marked, and the title that names the peak.
std::vector<Row> timeline_rows(const std::vector<size_t>& lines, const StageMemory& s, ByteUnit u);
std::string timeline_title(const StageMemory& s, ByteUnit u);
// The module tree (`tree`: indented, as the terminal shows it; else by path); `raw`: bytes, not MiB.
std::vector<Row> module_rows(const Report& r, bool tree, bool raw, ByteUnit u);
// The step's parts in its order, then the step (`raw`: seconds as the JSON writes them).
std::vector<Row> time_rows(const Report& r, bool raw);
// Every collective one device of the reported stage takes part in.
std::vector<Row> comm_rows(const Report& r, bool raw, ByteUnit u);
// XLA's largest program allocations of the peak stage (as XLA's BERT report lists them).
std::vector<Row> xla_rows(const Report& r, bool raw, ByteUnit u);

}  // namespace shardcalc::report_rows
