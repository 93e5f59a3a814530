#include "io/codec/json_writer.h"

#include <cmath>

#include "io/codec/utf8.h"

namespace shardcalc {

void JsonWriter::separate() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (!first_.empty()) {
        if (first_.back() == '0') out_ += ',';
        first_.back() = '0';
    }
}

JsonWriter& JsonWriter::begin_object() {
    separate();
    out_ += '{';
    first_.push_back('1');
    return *this;
}

JsonWriter& JsonWriter::end_object() {
    out_ += '}';
    first_.pop_back();
    return *this;
}

JsonWriter& JsonWriter::begin_array() {
    separate();
    out_ += '[';
    first_.push_back('1');
    return *this;
}

JsonWriter& JsonWriter::end_array() {
    out_ += ']';
    first_.pop_back();
    return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
    value(k);
    out_ += ':';
    after_key_ = true;
    return *this;
}

std::string json_number(double v) {
    if (!std::isfinite(v)) return "null";  // as nlohmann writes them
    // nlohmann's own shortest form: Emscripten 3.1.6's libc++ has no std::to_chars for doubles (docs/toolchain.md).
    char buf[64];
    const char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, v);
    return std::string(static_cast<const char*>(buf), end);
}

JsonWriter& JsonWriter::value(double v) {
    separate();
    out_ += json_number(v);
    return *this;
}

JsonWriter& JsonWriter::value(int64_t v) {
    separate();
    out_ += std::to_string(v);
    return *this;
}

JsonWriter& JsonWriter::value(bool v) {
    separate();
    out_ += v ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view v) {
    separate();
    out_ += '"';
    append_escaped(out_, v);
    out_ += '"';
    return *this;
}

// As nlohmann's dump(-1): objects in their (sorted) order, numbers as value(double) and value(int64_t) write them.
JsonWriter& JsonWriter::value(const nlohmann::json& v) {
    using nlohmann::json;
    switch (v.type()) {
        case json::value_t::object:
            begin_object();
            for (const auto& [k, item] : v.items()) {
                key(k);
                value(item);
            }
            return end_object();
        case json::value_t::array:
            begin_array();
            for (const auto& item : v) value(item);
            return end_array();
        case json::value_t::string: return value(v.get_ref<const std::string&>());
        case json::value_t::boolean: return value(v.get<bool>());
        case json::value_t::number_integer: return value(v.get<int64_t>());
        case json::value_t::number_unsigned:
            separate();
            out_ += std::to_string(v.get<uint64_t>());
            return *this;
        case json::value_t::number_float: return value(v.get<double>());
        default:
            separate();
            out_ += "null";
            return *this;
    }
}

std::string compact_json(const nlohmann::json& v) {
    JsonWriter w;
    w.value(v);
    return w.take();
}

// JSON's escapes (RFC 8259 sec. 7) as nlohmann's dump writes them without ensure_ascii: \", \\, \b \f \n \r \t, other
// control characters as \u00xx; valid UTF-8 copied. An invalid sequence becomes U+FFFD, and the byte that broke
// it is read again as the start of the next one (nlohmann's error_handler_t::replace; the ranges of valid second
// bytes exclude overlong forms, surrogates and code points above U+10FFFF, Unicode 15 table 3-7).
void append_escaped(std::string& out, std::string_view s) {
    static const char* kHex = "0123456789abcdef";
    size_t i = 0;
    while (i < s.size()) {
        // A run of characters that need no escape (most of a report's text), copied at once.
        size_t plain = i;
        while (plain < s.size()) {
            const auto c = static_cast<unsigned char>(s[plain]);
            if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
            ++plain;
        }
        if (plain > i) {
            out.append(s.data() + i, plain - i);
            i = plain;
            continue;
        }
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            const char* escape = nullptr;
            for (const auto& e : kJsonEscapes)
                if (e[0] == static_cast<char>(c)) escape = e;
            if (escape) {
                out += '\\';
                out += escape[1];
            } else if (c < 0x20) {
                out += "\\u00";
                out += kHex[c >> 4];
                out += kHex[c & 15];
            } else {
                out += static_cast<char>(c);
            }
            ++i;
            continue;
        }
        size_t broken = 0;
        if (const size_t len = utf8_sequence(s.substr(i), broken)) {
            out.append(s.data() + i, len);
            i += len;
        } else {
            out += "\xEF\xBF\xBD";
            i += broken;  // the breaking byte (or the end) starts what follows
        }
    }
}

}  // namespace shardcalc
