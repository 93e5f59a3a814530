#pragma once
// What the log readers share (io/import/run_log.cpp for training logs, io/import/vllm_log.cpp for vLLM's start-up
// lines): trimming a line, reading the number a key precedes, and naming a bad line.
#include <cstddef>
#include <optional>
#include <string>

namespace shardcalc::log_text {

// A log's lines one by one, without their '\n', numbered from 1 (without iostreams, whose static initialisation would
// join the page's core engine): while (lines.next(line)) { ... lines.number() ... }.
class Lines {
public:
    explicit Lines(const std::string& text) : text_(text) {}
    bool next(std::string& line);
    size_t number() const { return number_; }

private:
    const std::string& text_;
    size_t start_ = 0, number_ = 0;
};

std::string trim(const std::string& s);
// A number from 0 to 10^12 at the start of `s` (after blanks), or nothing. 10^12 MB, ms or GB is beyond any run, and
// the bound keeps every product finite and every rank a representable integer. `grouped`: digits may be grouped by
// commas ("178,880", as vLLM prints token counts).
std::optional<double> number_at(const std::string& s, bool grouped = false);
// The number right after `key` (searched from `from`), or nothing where the key or the number is missing.
std::optional<double> number_after(const std::string& text, const char* key, size_t from = 0, bool grouped = false);
// An input error at "/log" naming the line.
[[noreturn]] void bad_line(size_t line, const std::string& what);

}  // namespace shardcalc::log_text
