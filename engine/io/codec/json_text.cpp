#include "io/codec/json_text.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "core/error.h"
#include "io/codec/number_text.h"
#include "io/codec/utf8.h"

namespace shardcalc {
namespace {

// Where `at` lies in the text that starts at `begin`, as an editor shows it: "line 2, column 6 (byte 15)". Columns
// count characters (UTF-8 continuation bytes are not counted), from 1; the byte offset is for tools.
std::string text_position(const char* begin, const char* at) {
    long long line = 1, column = 1;
    for (const char* p = begin; p < at; ++p) {
        if (*p == '\n') {
            ++line;
            column = 1;
        } else if ((static_cast<unsigned char>(*p) & 0xC0) != 0x80) {
            ++column;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column) + " (byte " + std::to_string(at - begin) + ")";
}

using nlohmann::json;

// JSON text (RFC 8259) read into an nlohmann document in one pass that checks as it goes: the nesting depth, the
// range of numbers, strings as valid UTF-8, and the pointer of every value for the error. It accepts and builds
// exactly what nlohmann's parser does (tested against it on random text), numbers included: integers as signed
// (negative) or unsigned when they fit 64 bits, else as a double; a UTF-8 byte-order mark skipped. One exception:
// a key repeated in one object is an error at its pointer, where nlohmann keeps the last value. Written here
// rather than driving nlohmann's SAX parser so that the page's WebAssembly core carries one small reader
// (docs/performance.md).
class Reader {
public:
    Reader(const std::string& text, std::vector<OutOfRangeNumber>* out_of_range)
        : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), out_of_range_(out_of_range) {}

    json read() {
        if (end_ - p_ >= 3 && p_[0] == '\xEF' && p_[1] == '\xBB' && p_[2] == '\xBF') p_ += 3;
        json root;
        value(root, 0);
        space();
        if (p_ != end_) fail("text after the value");
        return root;
    }

private:
    struct Frame {
        bool array = false;
        std::string key;
        long long index = -1;
    };
    const char* const begin_;
    const char* p_;
    const char* const end_;
    std::vector<OutOfRangeNumber>* out_of_range_;
    std::vector<Frame> frames_;

    [[noreturn]] void fail(const std::string& what, const std::string& path = "") const {
        throw InputError(path, "invalid JSON: " + what + " at " + text_position(begin_, p_));
    }
    [[noreturn]] void unexpected(const char* expected) const {
        if (p_ == end_) fail(std::string("unexpected end of input; expected ") + expected);
        const auto c = static_cast<unsigned char>(*p_);
        const std::string shown = c >= 0x20 && c < 0x7f ? "'" + std::string(1, *p_) + "'" : "byte " + std::to_string(c);
        fail("unexpected " + shown + "; expected " + expected);
    }

    std::string path() const {
        std::string out;
        for (const Frame& f : frames_) out += "/" + (f.array ? std::to_string(f.index) : pointer_token(f.key));
        return out;
    }

    void space() {
        while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
    }
    bool take(char c) {
        if (p_ != end_ && *p_ == c) {
            ++p_;
            return true;
        }
        return false;
    }
    void literal(const char* word) {
        for (const char* w = word; *w; ++w)
            if (!take(*w)) unexpected(word);
    }

    void value(json& out, int depth) {
        space();
        if (p_ == end_) unexpected("a value");
        switch (*p_) {
            case '{': return object(out, depth);
            case '[': return array(out, depth);
            case '"': {
                ++p_;
                std::string s;
                string(s);
                out = std::move(s);
                return;
            }
            case 't': literal("true"); out = true; return;
            case 'f': literal("false"); out = false; return;
            case 'n': literal("null"); out = nullptr; return;
            default: return number(out);
        }
    }

    void open(int depth, bool array) {
        if (depth >= kMaxJsonDepth)
            throw InputError(path(), "nested deeper than " + std::to_string(kMaxJsonDepth) +
                                         " levels; a scenario needs three (/hardware/peak_tflops/fp32)");
        ++p_;
        frames_.push_back(Frame{array, "", -1});
    }

    void object(json& out, int depth) {
        open(depth, false);
        out = json::object();
        space();
        if (!take('}')) {
            do {
                space();
                const char* const key_at = p_;
                if (!take('"')) unexpected("a key string");
                std::string key;
                string(key);
                space();
                if (!take(':')) unexpected("':'");
                frames_.back().key = key;
                // A repeated key is refused (nlohmann's parser, and most others, keep the last silently): which
                // value the writer meant is unknowable, and a scenario edited by hand hides the first.
                if (out.contains(key))
                    throw InputError(path(), "duplicate key \"" + key + "\" at " + text_position(begin_, key_at) +
                                                 ": a key may appear once in an object (which value was meant cannot be told)");
                value(out[key], depth + 1);
                space();
            } while (take(','));
            if (!take('}')) unexpected("',' or '}'");
        }
        frames_.pop_back();
    }

    void array(json& out, int depth) {
        open(depth, true);
        out = json::array();
        space();
        if (!take(']')) {
            do {
                ++frames_.back().index;
                out.push_back(nullptr);
                value(out.back(), depth + 1);
                space();
            } while (take(','));
            if (!take(']')) unexpected("',' or ']'");
        }
        frames_.pop_back();
    }

    unsigned hex4() {
        unsigned v = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = p_ == end_ ? '\0' : *p_;
            const unsigned d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 16;
            if (d == 16) fail("a \\u escape needs four hexadecimal digits");
            v = v * 16 + d;
            ++p_;
        }
        return v;
    }

    static void utf8(std::string& s, unsigned cp) {
        if (cp < 0x80) {
            s += static_cast<char>(cp);
        } else if (cp < 0x800) {
            s += static_cast<char>(0xC0 | (cp >> 6));
            s += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            s += static_cast<char>(0xE0 | (cp >> 12));
            s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            s += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            s += static_cast<char>(0xF0 | (cp >> 18));
            s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            s += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    // After the opening quote; UTF-8 validated as nlohmann's lexer does (io/codec/utf8.h).
    void string(std::string& s) {
        for (;;) {
            if (p_ == end_) fail("unexpected end of input in a string");
            const auto c = static_cast<unsigned char>(*p_);
            if (c == '"') {
                ++p_;
                return;
            }
            if (c < 0x20) fail("a control character in a string (escape it, e.g. \\n)");
            if (c == '\\') {
                ++p_;
                const char e = p_ == end_ ? '\0' : *p_++;
                const char* escape = nullptr;
                for (const auto& x : kJsonEscapes)
                    if (x[1] == e) escape = x;
                if (escape) {
                    s += escape[0];
                    continue;
                }
                switch (e) {
                    case '/': s += '/'; break;
                    case 'u': {
                        unsigned cp = hex4();
                        if (cp >= 0xDC00 && cp <= 0xDFFF) fail("a \\u escape of a lone low surrogate");
                        if (cp >= 0xD800 && cp <= 0xDBFF) {
                            if (!take('\\') || !take('u')) fail("a high surrogate without its low surrogate");
                            const unsigned low = hex4();
                            if (low < 0xDC00 || low > 0xDFFF) fail("a high surrogate without its low surrogate");
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                        }
                        utf8(s, cp);
                        break;
                    }
                    default: fail("an invalid escape in a string");
                }
                continue;
            }
            if (c < 0x80) {
                s += static_cast<char>(c);
                ++p_;
                continue;
            }
            size_t broken = 0;
            const size_t len = utf8_sequence(std::string_view(p_, static_cast<size_t>(end_ - p_)), broken);
            if (len == 0) fail("ill-formed UTF-8 in a string");
            s.append(p_, len);
            p_ += len;
        }
    }

    void digits() {
        if (p_ == end_ || *p_ < '0' || *p_ > '9') unexpected("a digit");
        while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }

    void number(json& out) {
        const char* const start = p_;
        const bool negative = take('-');
        if (take('0')) {
            // no leading zeros
        } else {
            if (p_ == end_ || *p_ < '1' || *p_ > '9') unexpected(negative ? "a digit" : "a value");
            digits();
        }
        bool integral = true;
        if (take('.')) {
            integral = false;
            digits();
        }
        if (take('e') || take('E')) {
            integral = false;
            if (!take('+')) take('-');
            digits();
        }
        const std::string token(start, p_);
        if (integral) {
            errno = 0;
            char* stop = nullptr;
            if (negative) {
                const long long v = std::strtoll(token.c_str(), &stop, 10);
                if (errno == 0) {
                    out = static_cast<int64_t>(v);
                    return;
                }
            } else {
                const unsigned long long v = std::strtoull(token.c_str(), &stop, 10);
                if (errno == 0) {
                    out = static_cast<uint64_t>(v);
                    return;
                }
            }
        }
        const double v = nearest_double(token);
        if (std::isfinite(v)) {
            out = v;
            return;
        }
        // Beyond a double's range: the field's error, or (for a Hugging Face config.json) null and listed.
        if (out_of_range_ && out_of_range_->size() < kMaxOutOfRange) {
            out_of_range_->push_back({path(), token});
            out = nullptr;
            return;
        }
        throw InputError(path(), "the number " + token + " is beyond the range of a 64-bit float (about 1.8e308)");
    }
};

// NUL bytes are refused by name before reading: JSON allows none outside strings and none unescaped inside
// them (RFC 8259 sec. 7).
void refuse_nul(const std::string& text) {
    if (const auto nul = text.find('\0'); nul != std::string::npos)
        throw InputError("", "invalid JSON: a NUL byte at " + text_position(text.data(), text.data() + nul) +
                                 "; JSON text cannot contain one (write \\u0000 inside a string)");
}

}  // namespace

std::string pointer_token(const std::string& key) {
    std::string out;
    for (char ch : key) out += ch == '~' ? std::string("~0") : ch == '/' ? std::string("~1") : std::string(1, ch);
    return out;
}

json parse_json_text(const std::string& text) {
    refuse_nul(text);
    return Reader(text, nullptr).read();
}

json parse_json_text(const std::string& text, std::vector<OutOfRangeNumber>& out_of_range) {
    refuse_nul(text);
    return Reader(text, &out_of_range).read();
}

}  // namespace shardcalc
