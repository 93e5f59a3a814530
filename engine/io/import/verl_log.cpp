#include "io/import/verl_log.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "core/error.h"
#include "core/units.h"
#include "io/import/log_text.h"

namespace shardcalc {

namespace {

bool word_char(char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '/'; }

// Where the metrics of a step line start (after "step:N - "), and its step; npos where the line is not one. The
// header's "step:" stands alone ("training/global_step:" inside the metrics does not start a line).
size_t metrics_start(const std::string& line, int64_t& step) {
    for (size_t at = line.find("step:"); at != std::string::npos; at = line.find("step:", at + 1)) {
        if (at > 0 && word_char(line[at - 1])) continue;
        size_t i = at + 5;
        const size_t digits = i;
        while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
        if (i == digits || i - digits > 9 || line.compare(i, 3, " - ") != 0) continue;
        step = std::stoll(line.substr(digits, i - digits));
        return i + 3;
    }
    return std::string::npos;
}

// A metric's value: the whole of it one number from 0 to 10^12 (Python's repr: "74.020", "2.129909887280346e-05").
std::optional<double> value_of(const std::string& text) {
    const std::string t = log_text::trim(text);
    if (t.empty()) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end != t.c_str() + t.size() || !std::isfinite(v) || v < 0 || v > 1e12) return std::nullopt;
    return v;
}

// The metric each key of interest fills, with its scale (GiB to bytes for the allocator peaks).
struct Metric {
    const char* key;
    double LoggedRlStep::*field;
    double scale;
};
constexpr Metric kMetrics[] = {
    {"timing_s/gen", &LoggedRlStep::gen, 1},
    {"timing_s/update_weights", &LoggedRlStep::update_weights, 1},
    {"timing_s/old_log_prob", &LoggedRlStep::old_log_prob, 1},
    {"timing_s/ref", &LoggedRlStep::ref, 1},
    {"timing_s/values", &LoggedRlStep::values, 1},
    {"timing_s/update_actor", &LoggedRlStep::update_actor, 1},
    {"timing_s/update_critic", &LoggedRlStep::update_critic, 1},
    {"timing_s/step", &LoggedRlStep::step_seconds, 1},
    {"perf/max_memory_allocated_gb", &LoggedRlStep::max_allocated, kGiB},
    {"actor/perf/max_memory_allocated_gb", &LoggedRlStep::max_allocated, kGiB},
    {"perf/max_memory_reserved_gb", &LoggedRlStep::max_reserved, kGiB},
    {"actor/perf/max_memory_reserved_gb", &LoggedRlStep::max_reserved, kGiB},
    {"response_length/mean", &LoggedRlStep::response_mean, 1},
    {"response_length/max", &LoggedRlStep::response_max, 1},
    {"prompt_length/mean", &LoggedRlStep::prompt_mean, 1},
};

}  // namespace

MeasuredRl read_verl_log(const std::string& text) {
    MeasuredRl m;
    log_text::Lines lines(text);
    std::string line;
    while (lines.next(line)) {
        const size_t number = lines.number();
        LoggedRlStep s;
        size_t at = metrics_start(line, s.step);
        if (at == std::string::npos) continue;
        // "key:value" fields joined by " - " (a negative value follows its colon, never a separator).
        bool known = false;
        while (at < line.size()) {
            const size_t next = std::min(line.find(" - ", at), line.size());
            const std::string field = log_text::trim(line.substr(at, next - at));
            at = next + 3;
            const size_t colon = field.find(':');
            if (colon == std::string::npos) continue;
            const std::string key = field.substr(0, colon);
            for (const Metric& metric : kMetrics) {
                if (key != metric.key) continue;
                const auto v = value_of(field.substr(colon + 1));
                if (!v) log_text::bad_line(number, std::string(metric.key) + " is not a number of at least zero");
                s.*metric.field = *v * metric.scale;
                known = true;
            }
        }
        if (known) m.steps.push_back(s);
    }
    if (m.steps.empty())
        throw InputError("/log", "no verl metrics line was found: verl prints one a step, "
                                 "\"step:N - … - timing_s/gen:… - … - timing_s/step:…\"");
    return m;
}

}  // namespace shardcalc
