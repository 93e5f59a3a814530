#pragma once
// Shared by the text renderings (io/render/report_text.cpp, io/render/search_text.cpp and the others): number formatting and
// tables as aligned text, Markdown and CSV.
#include <string>
#include <vector>

#include "core/units.h"

namespace shardcalc::text {

// Fixed point, rounded half away from zero as the page writes numbers (core/decimal.h; js/number-text.js).
std::string fixed(double v, int digits);
std::string gib(double bytes);  // "12.34"
std::string mib(double bytes);  // "12.3"
// A byte count as the reports write it (a whole number of bytes) in the reader's unit: "12.34" GiB or GB, "12.3" MiB
// or MB.
std::string amount(double bytes, ByteUnit u);
std::string small_amount(double bytes, ByteUnit u);
std::string thousands(int64_t v);              // "1,234,567"

// Text as Markdown that shows exactly that text: on one line, with no table cell break, emphasis, code, link or HTML
// (line breaks become spaces, Markdown's characters get a backslash, HTML's become entities).
std::string markdown_text(const std::string& text);

using Row = std::vector<std::string>;
std::string aligned(const std::vector<Row>& rows);   // columns after the first right-aligned
std::string markdown(const std::vector<Row>& rows);  // the first row is the header
std::string csv(const std::vector<Row>& rows);

}  // namespace shardcalc::text
