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

namespace {

// `v`'s decimal digits at `end`, backwards; returns where they start.
char* digits_before(char* end, uint64_t v) {
    do {
        *--end = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v != 0);
    return end;
}

void append_integer(std::string& out, int64_t v) {
    char buf[24];
    char* end = buf + sizeof buf;
    const uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    char* begin = digits_before(end, magnitude);
    if (v < 0) *--begin = '-';
    out.append(begin, static_cast<size_t>(end - begin));
}

// A double as nlohmann's dump writes it (its shortest round-trip form, Grisu2: Emscripten 3.1.6's libc++ has no
// std::to_chars for doubles, docs/toolchain.md), NaN and Infinity as null. A whole number under 10^15 is written as
// nlohmann writes it, its digits and ".0" (dtoa_impl::format_buffer: digits10 is 15), without the digit search that
// is most of a report's writing time: below 2^53 every whole number is a double and its own shortest form.
void append_number(std::string& out, double v) {
    if (!std::isfinite(v)) {
        out += "null";
        return;
    }
    if (v == std::trunc(v) && std::fabs(v) < 1e15 && !(v == 0 && std::signbit(v))) {
        append_integer(out, static_cast<int64_t>(v));
        out += ".0";
        return;
    }
    char buf[64];
    const char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, static_cast<size_t>(end - buf));
}

}  // namespace

std::string json_number(double v) {
    std::string out;
    append_number(out, v);
    return out;
}

JsonWriter& JsonWriter::value(double v) {
    separate();
    append_number(out_, v);
    return *this;
}

JsonWriter& JsonWriter::value(int64_t v) {
    separate();
    append_integer(out_, v);
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
        case json::value_t::number_unsigned: {
            separate();
            char buf[24];
            const char* begin = digits_before(buf + sizeof buf, v.get<uint64_t>());
            out_.append(begin, static_cast<size_t>(buf + sizeof buf - begin));
            return *this;
        }
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
