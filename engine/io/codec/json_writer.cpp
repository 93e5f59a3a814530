#include "io/codec/json_writer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "io/codec/utf8.h"

namespace shardcalc {

char* JsonWriter::room(size_t n) {
    if (out_.size() - len_ < n) out_.resize(std::max(2 * out_.size(), len_ + n + 256));
    return out_.data() + len_;
}

void JsonWriter::put(char c) {
    *room(1) = c;
    ++len_;
}

void JsonWriter::put(std::string_view s) {
    std::memcpy(room(s.size()), s.data(), s.size());
    len_ += s.size();
}

void JsonWriter::reserve(size_t bytes) {
    if (out_.size() < bytes) out_.resize(bytes);
}

std::string JsonWriter::take() {
    out_.resize(len_);
    len_ = 0;
    return std::move(out_);
}

void JsonWriter::separate() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (first_.empty()) return;
    char& first = first_.back();
    if (first == '0') put(',');
    else first = '0';
}

JsonWriter& JsonWriter::begin_object() {
    separate();
    put('{');
    first_.push_back('1');
    return *this;
}

JsonWriter& JsonWriter::end_object() {
    put('}');
    first_.pop_back();
    return *this;
}

JsonWriter& JsonWriter::begin_array() {
    separate();
    put('[');
    first_.push_back('1');
    return *this;
}

JsonWriter& JsonWriter::end_array() {
    put(']');
    first_.pop_back();
    return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
    value(k);
    put(':');
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

// `v` at `at` (room for 21 bytes); returns the end.
char* write_integer(char* at, int64_t v) {
    char buf[24];
    char* end = buf + sizeof buf;
    const uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    char* begin = digits_before(end, magnitude);
    if (v < 0) *--begin = '-';
    const size_t n = static_cast<size_t>(end - begin);
    std::memcpy(at, begin, n);
    return at + n;
}

constexpr size_t kNumberRoom = 64;  // the longest a number is written: Grisu2's 24 and an integer's 20, with room

// A double as nlohmann's dump writes it (its shortest round-trip form, Grisu2: Emscripten 3.1.6's libc++ has no
// std::to_chars for doubles, docs/toolchain.md), NaN and Infinity as null, at `at` (kNumberRoom bytes); returns the
// end. A whole number under 10^15 is written as nlohmann writes it, its digits and ".0" (dtoa_impl::format_buffer:
// digits10 is 15), without the digit search that is most of a report's writing time: below 2^53 every whole number is
// a double and its own shortest form.
char* write_number(char* at, double v) {
    if (!std::isfinite(v)) {
        std::memcpy(at, "null", 4);
        return at + 4;
    }
    if (v == std::trunc(v) && std::fabs(v) < 1e15 && !(v == 0 && std::signbit(v))) {
        at = write_integer(at, static_cast<int64_t>(v));
        at[0] = '.';
        at[1] = '0';
        return at + 2;
    }
    return nlohmann::detail::to_chars(at, at + kNumberRoom, v);
}

// Whether a byte is written other than as itself inside quotes: escaped, or checked as part of a UTF-8 sequence.
bool needs_care(char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c < 0x20 || c >= 0x80 || c == '"' || c == '\\';
}

// Whether `s` is written as it is inside quotes (most of a report's text).
bool plain(std::string_view s) { return std::none_of(s.begin(), s.end(), needs_care); }

}  // namespace

std::string json_number(double v) {
    char buf[kNumberRoom];
    return std::string(buf, write_number(buf, v));
}

JsonWriter& JsonWriter::value(double v) {
    separate();
    char* at = room(kNumberRoom);
    len_ += static_cast<size_t>(write_number(at, v) - at);
    return *this;
}

JsonWriter& JsonWriter::value(int64_t v) {
    separate();
    char* at = room(kNumberRoom);
    len_ += static_cast<size_t>(write_integer(at, v) - at);
    return *this;
}

JsonWriter& JsonWriter::value(bool v) {
    separate();
    put(v ? std::string_view("true") : std::string_view("false"));
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view v) {
    separate();
    if (plain(v)) {
        char* at = room(v.size() + 2);
        at[0] = '"';
        std::memcpy(at + 1, v.data(), v.size());
        at[v.size() + 1] = '"';
        len_ += v.size() + 2;
        return *this;
    }
    // Escapes appended to the text itself (the room past it dropped first).
    out_.resize(len_);
    out_ += '"';
    append_escaped(out_, v);
    out_ += '"';
    len_ = out_.size();
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
            put(std::string_view(begin, static_cast<size_t>(buf + sizeof buf - begin)));
            return *this;
        }
        case json::value_t::number_float: return value(v.get<double>());
        default:
            separate();
            put("null");
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
        size_t run_end = i;
        while (run_end < s.size() && !needs_care(s[run_end])) ++run_end;
        if (run_end > i) {
            out.append(s.data() + i, run_end - i);
            i = run_end;
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
