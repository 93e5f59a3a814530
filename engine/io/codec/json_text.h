#pragma once
// Reading JSON text from outside (a file, stdin, a link) in one checking pass that builds the document: the
// nesting depth is limited while reading (the reader recurses once per level; so do copying and walking a deep
// tree), numbers beyond the range of a double are a field error, and every failure is an InputError naming
// where in the document it happened (RFC 6901 pointer). Accepts and builds what nlohmann's parser does, except a key
// repeated in one object: an error at the repeated member's pointer ("duplicate key ..."), not the last value kept.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace shardcalc {

// Deeper than any scenario needs (three levels: /hardware/peak_tflops/fp32) by far; the same limit
// natively and in WebAssembly, whose stack overflows first.
constexpr int kMaxJsonDepth = 64;

// One key as a token of an RFC 6901 pointer: "~" and "/" inside it become "~0" and "~1".
std::string pointer_token(const std::string& key);

// Throws InputError("/path", message).
nlohmann::json parse_json_text(const std::string& text);

// A number beyond the range of a double: where it is (RFC 6901 pointer) and as it was written.
struct OutOfRangeNumber {
    std::string path;
    std::string text;
};
// At most this many are listed; one more is the InputError of parse_json_text.
constexpr size_t kMaxOutOfRange = 16;

// As parse_json_text, except that each number beyond the range of a double reads as null and is listed
// in `out_of_range` instead of ending the read at the first: for a document whose every such number is
// named in one answer (a Hugging Face config.json, io/import/hf_config.cpp).
nlohmann::json parse_json_text(const std::string& text, std::vector<OutOfRangeNumber>& out_of_range);

}  // namespace shardcalc
