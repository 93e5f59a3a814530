#include "io/import/log_text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "core/error.h"

namespace shardcalc::log_text {

bool Lines::next(std::string& line) {
    if (start_ >= text_.size()) return false;
    const size_t end = std::min(text_.find('\n', start_), text_.size());
    line = text_.substr(start_, end - start_);
    start_ = end + 1;
    ++number_;
    return true;
}

std::string trim(const std::string& s) {
    const size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos) return "";
    return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

std::optional<double> number_at(const std::string& s, bool grouped) {
    std::string t = trim(s);
    if (grouped) {
        // Commas between digits only: "178,880" reads 178880; a comma after the number ends it.
        std::string digits;
        size_t i = 0;
        for (; i < t.size(); ++i) {
            const char ch = t[i];
            if (ch == ',' && i > 0 && i + 1 < t.size() && std::isdigit(static_cast<unsigned char>(t[i - 1])) &&
                std::isdigit(static_cast<unsigned char>(t[i + 1])))
                continue;
            if (!std::isdigit(static_cast<unsigned char>(ch)) && ch != '.') break;
            digits += ch;
        }
        t = digits + t.substr(i);
    }
    if (t.empty()) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || !std::isfinite(v) || v < 0 || v > 1e12) return std::nullopt;
    return v;
}

std::optional<double> number_after(const std::string& text, const char* key, size_t from, bool grouped) {
    const size_t k = text.find(key, from);
    return k == std::string::npos ? std::nullopt : number_at(text.substr(k + std::strlen(key)), grouped);
}

void bad_line(size_t line, const std::string& what) { throw InputError("/log", "line " + std::to_string(line) + ": " + what); }

}  // namespace shardcalc::log_text
