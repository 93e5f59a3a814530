#pragma once
// A streaming JSON writer: values go straight into the text, no tree is built (the report of a big plan
// has thousands of numbers; building, printing and freeing an nlohmann tree was most of a request's time).
// Numbers are printed as nlohmann prints them (shortest round-trip form; NaN and Infinity as null),
// strings escaped as JSON requires, invalid UTF-8 replaced.
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace shardcalc {

// A byte count as the reports write it: a whole number.
inline int64_t whole(double bytes) { return static_cast<int64_t>(std::llround(bytes)); }
// A figure as the reports write it where it is not finite: 0 (never NaN or Infinity).
inline double finite(double v) { return std::isfinite(v) ? v : 0.0; }
// A double as the writer prints it (JsonWriter::value): its shortest round-trip form, null where it is not finite.
std::string json_number(double v);

class JsonWriter {
public:
    JsonWriter& begin_object();
    JsonWriter& end_object();
    JsonWriter& begin_array();
    JsonWriter& end_array();
    JsonWriter& key(std::string_view k);  // inside an object, before its value
    JsonWriter& value(double v);
    JsonWriter& value(int64_t v);
    JsonWriter& value(int v) { return value(static_cast<int64_t>(v)); }
    JsonWriter& value(size_t v) { return value(static_cast<int64_t>(v)); }
    JsonWriter& value(bool v);
    JsonWriter& value(std::string_view v);
    JsonWriter& value(const char* v) { return value(std::string_view(v)); }
    JsonWriter& value(const std::string& v) { return value(std::string_view(v)); }
    JsonWriter& value(const nlohmann::json& v);  // a small tree already built elsewhere (the scenario echo)
    template <class T>
    JsonWriter& field(std::string_view k, const T& v) {
        key(k);
        return value(v);
    }
    template <class Range>
    JsonWriter& array(std::string_view k, const Range& items) {
        key(k).begin_array();
        for (const auto& x : items) value(x);
        return end_array();
    }
    void reserve(size_t bytes);  // room for this much text in all, made at once
    std::string_view text() const { return {out_.data(), len_}; }
    std::string take();

private:
    void separate();  // the comma before a value that is not the first of its container
    // The text is written straight into a buffer grown ahead (out_'s first len_ bytes; the rest is room), not appended
    // piece by piece: each std::string append is a call with its own capacity check, most of the writer's time in
    // WebAssembly.
    char* room(size_t n);  // where n bytes more can be written
    void put(char c);
    void put(std::string_view s);
    std::string out_;
    size_t len_ = 0;
    // Per open container, '1' while no value is written yet (a string: its code is in every build already, where
    // std::vector<bool>'s was 1.8 KB of the page's core).
    std::string first_;
    bool after_key_ = false;
};

// `v` as compact JSON text, as nlohmann's dump(-1) with invalid UTF-8 replaced (error_handler_t::replace); the one
// serializer of the WebAssembly core, which then links neither nlohmann's nor printf (docs/performance.md).
std::string compact_json(const nlohmann::json& v);

// `s` as the inside of a JSON string, invalid UTF-8 replaced (nlohmann's dump with error_handler_t::replace).
void append_escaped(std::string& out, std::string_view s);

}  // namespace shardcalc
