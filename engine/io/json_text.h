#pragma once
// Reading JSON text from outside (a file, stdin, a link) before any recursion touches it: the
// nesting depth is limited while parsing (nlohmann's parser is iterative; copying and walking a
// deep tree is not), numbers beyond the range of a double are a field error, and every failure is
// an InputError naming where in the document it happened (RFC 6901 pointer).
#include <nlohmann/json.hpp>
#include <string>

namespace shardcalc {

// Deeper than any scenario needs (three levels: /hardware/peak_tflops/fp32) by far; the same limit
// natively and in WebAssembly, whose stack overflows first.
constexpr int kMaxJsonDepth = 64;

// Throws InputError("/path", message).
nlohmann::json parse_json_text(const std::string& text);

}  // namespace shardcalc
