#include "io/render/text_table.h"

#include <algorithm>
#include <string_view>

#include "core/decimal.h"
#include "io/codec/json_writer.h"

namespace shardcalc::text {

std::string fixed(double v, int digits) { return decimal(v, digits); }

std::string gib(double bytes) { return fixed(bytes / kGiB, 2); }
std::string mib(double bytes) { return fixed(bytes / kMiB, 1); }
std::string amount(double bytes, ByteUnit u) {
    return fixed(static_cast<double>(whole(bytes)) / byte_scale(u, 0).bytes, 2);
}
std::string small_amount(double bytes, ByteUnit u) {
    return fixed(static_cast<double>(whole(bytes)) / byte_scale(u, 1).bytes, 1);
}

std::string thousands(int64_t v) {
    std::string digits = std::to_string(v < 0 ? -v : v), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return v < 0 ? "-" + out : out;
}

std::string aligned(const std::vector<Row>& rows) {
    std::vector<size_t> width;
    for (const auto& r : rows)
        for (size_t i = 0; i < r.size(); ++i) {
            if (width.size() <= i) width.push_back(0);
            width[i] = std::max(width[i], r[i].size());
        }
    std::string out;
    for (const auto& r : rows) {
        std::string line;
        for (size_t i = 0; i < r.size(); ++i) {
            const std::string pad(width[i] - r[i].size(), ' ');
            line += i == 0 ? r[i] + pad : "  " + pad + r[i];
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    return out;
}

std::string markdown_text(const std::string& text) {
    std::string out;
    bool space = false;  // a run of line breaks is one space
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        // U+2028 and U+2029 (line and paragraph separators) are E2 80 A8 and E2 80 A9 in UTF-8.
        const bool separator = c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
                               (text[i + 2] == '\xA8' || text[i + 2] == '\xA9');
        if (c == '\n' || c == '\r' || separator) {
            if (!space) out += ' ';
            space = true;
            if (separator) i += 2;
            continue;
        }
        space = false;
        if (c == '&') out += "&amp;";
        else if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (std::string_view("\\|*_`[]~#!").find(c) != std::string_view::npos) out += std::string("\\") + c;
        else out += c;
    }
    return out;
}

std::string markdown(const std::vector<Row>& rows) {
    std::string out;
    for (size_t k = 0; k < rows.size(); ++k) {
        out += "|";
        for (const auto& cell : rows[k]) out += " " + cell + " |";
        out += "\n";
        if (k == 0) {
            out += "|";
            for (size_t i = 0; i < rows[k].size(); ++i) out += i == 0 ? "---|" : "---:|";
            out += "\n";
        }
    }
    return out;
}

namespace {
std::string csv_cell(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
}

}  // namespace

std::string csv(const std::vector<Row>& rows) {
    std::string out;
    for (const auto& r : rows) {
        for (size_t i = 0; i < r.size(); ++i) out += (i ? "," : "") + csv_cell(r[i]);
        out += "\n";
    }
    return out;
}

}  // namespace shardcalc::text
