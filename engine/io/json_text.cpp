#include "io/json_text.h"

#include <vector>

#include "core/error.h"

namespace shardcalc {
namespace {

using nlohmann::json;

// A SAX pass that only checks: depth, finite numbers, syntax; and knows the pointer of every value.
class Guard : public nlohmann::json_sax<json> {
public:
    std::string error_path, error_message;
    // A number beyond double range: the text as the parser read it, and the offset just past it.
    std::string overflow_token;
    std::size_t overflow_end = 0;

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool string(string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override { return open(false); }
    bool key(string_t& k) override {
        frames_.back().key = k;
        return true;
    }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(true); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& ex) override {
        if (ex.id == 406) {  // out_of_range.406: a number that overflows a double
            error_path = pending_path();
            error_message = "the number " + token + " is beyond the range of a 64-bit float (about 1.8e308)";
            overflow_token = token;
            overflow_end = position;
        } else {
            error_path = "";
            error_message = std::string("invalid JSON: ") + ex.what();
        }
        return false;
    }

private:
    struct Frame {
        bool array = false;
        std::string key;
        long long next = 0;     // elements started (arrays)
        long long current = -1;
    };
    std::vector<Frame> frames_;

    bool value() {
        if (!frames_.empty() && frames_.back().array) frames_.back().current = frames_.back().next++;
        return true;
    }
    bool open(bool array) {
        value();
        if (static_cast<int>(frames_.size()) >= kMaxJsonDepth) {
            error_path = path();
            error_message = "nested deeper than " + std::to_string(kMaxJsonDepth) +
                            " levels; a scenario needs three (/hardware/peak_tflops/fp32)";
            return false;
        }
        frames_.push_back(Frame{array, "", 0, -1});
        return true;
    }
    bool close() {
        frames_.pop_back();
        return true;
    }
    std::string path() const {
        std::string p;
        for (const auto& f : frames_) p += "/" + (f.array ? std::to_string(f.current) : pointer_token(f.key));
        return p;
    }
    // The value being read when the parser failed: the next element of an array, or the current key.
    std::string pending_path() const {
        std::string p;
        for (size_t i = 0; i < frames_.size(); ++i) {
            const Frame& f = frames_[i];
            const bool last = i + 1 == frames_.size();
            p += "/" + (f.array ? std::to_string(last ? f.next : f.current) : pointer_token(f.key));
        }
        return p;
    }
};

// nlohmann's lexer takes a NUL byte for the end of the input and would ignore what follows; JSON allows
// none outside strings and none unescaped inside them (RFC 8259 sec. 7), so the text is refused.
void refuse_nul(const std::string& text) {
    if (const auto nul = text.find('\0'); nul != std::string::npos)
        throw InputError("", "invalid JSON: a NUL byte at offset " + std::to_string(nul) +
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
    // Read through a pair of char pointers, as the embedded presets are (io/presets.cpp): nlohmann
    // instantiates its whole parser once per kind of input, and the page downloads each copy.
    const char* const begin = text.data();
    const char* const end = begin + text.size();
    Guard guard;
    if (!json::sax_parse(begin, end, &guard)) throw InputError(guard.error_path, guard.error_message);
    // The text is now known to be well formed, shallow and finite.
    return json::parse(begin, end);
}

json parse_json_text(const std::string& text, std::vector<OutOfRangeNumber>& out_of_range) {
    refuse_nul(text);
    // nlohmann's parser stops at the first number it cannot hold, so each one is replaced by null in a
    // copy and the copy read again: at most kMaxOutOfRange + 1 reads.
    std::string patched;
    const std::string* current = &text;
    for (;;) {
        const char* const begin = current->data();
        const char* const end = begin + current->size();
        Guard guard;
        if (json::sax_parse(begin, end, &guard)) return json::parse(begin, end);
        const std::size_t length = guard.overflow_token.size(), stop = guard.overflow_end;
        // The token must sit just before the offset the parser gave; anything else is reported as found.
        const bool located = length > 0 && stop >= length && stop <= current->size() &&
                             current->compare(stop - length, length, guard.overflow_token) == 0;
        if (!located || out_of_range.size() >= kMaxOutOfRange) throw InputError(guard.error_path, guard.error_message);
        out_of_range.push_back({guard.error_path, guard.overflow_token});
        if (current == &text) patched = text;
        patched.replace(stop - length, length, "null");
        current = &patched;
    }
}

}  // namespace shardcalc
