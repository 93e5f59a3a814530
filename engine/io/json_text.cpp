#include "io/json_text.h"

#include <vector>

#include "core/error.h"

namespace shardcalc {
namespace {

using nlohmann::json;

// One SAX pass that checks (depth, finite numbers, syntax), knows the pointer of every value, and builds
// the document. Reading with this handler alone, never with json::parse, keeps one instance of nlohmann's
// parser in the program: each kind of reader is a whole parser, and the page downloads every copy.
class Reader : public nlohmann::json_sax<json> {
public:
    json root;
    std::string error_path, error_message;
    // A number beyond double range: the text as the parser read it, and the offset just past it.
    std::string overflow_token;
    std::size_t overflow_end = 0;

    bool null() override { return put(nullptr) != nullptr; }
    bool boolean(bool v) override { return put(v) != nullptr; }
    bool number_integer(number_integer_t v) override { return put(v) != nullptr; }
    bool number_unsigned(number_unsigned_t v) override { return put(v) != nullptr; }
    bool number_float(number_float_t v, const string_t&) override { return put(v) != nullptr; }
    bool string(string_t& v) override { return put(std::move(v)) != nullptr; }
    bool binary(binary_t& v) override { return put(json::binary(std::move(v))) != nullptr; }
    bool start_object(std::size_t) override { return open(json::object(), false); }
    bool key(string_t& k) override {
        frames_.back().key = k;
        member_ = &(*frames_.back().value)[k];  // a repeated key: the last value wins, as in json::parse
        return true;
    }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(json::array(), true); }
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
        json* value = nullptr;  // the object or array being filled
        bool array = false;
        std::string key;
        long long next = 0;     // elements started (arrays)
        long long current = -1;
    };
    std::vector<Frame> frames_;
    json* member_ = nullptr;  // the object member whose key was read last

    // Places a value where the parser is: the root, the next array element, or the pending member.
    json* put(json v) {
        if (frames_.empty()) return &(root = std::move(v));
        Frame& f = frames_.back();
        if (f.array) {
            f.current = f.next++;
            f.value->push_back(std::move(v));
            return &f.value->back();
        }
        return &(*member_ = std::move(v));
    }
    bool open(json empty, bool array) {
        if (static_cast<int>(frames_.size()) >= kMaxJsonDepth) {
            if (!frames_.empty() && frames_.back().array) frames_.back().current = frames_.back().next++;
            error_path = path();
            error_message = "nested deeper than " + std::to_string(kMaxJsonDepth) +
                            " levels; a scenario needs three (/hardware/peak_tflops/fp32)";
            return false;
        }
        json* at = put(std::move(empty));
        frames_.push_back(Frame{at, array, "", 0, -1});
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
    // Read through a pair of char pointers, always: nlohmann instantiates its parser once per kind of input.
    const char* const begin = text.data();
    Reader reader;
    if (!json::sax_parse(begin, begin + text.size(), &reader)) throw InputError(reader.error_path, reader.error_message);
    return std::move(reader.root);
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
        Reader reader;
        if (json::sax_parse(begin, end, &reader)) return std::move(reader.root);
        const std::size_t length = reader.overflow_token.size(), stop = reader.overflow_end;
        // The token must sit just before the offset the parser gave; anything else is reported as found.
        const bool located = length > 0 && stop >= length && stop <= current->size() &&
                             current->compare(stop - length, length, reader.overflow_token) == 0;
        if (!located || out_of_range.size() >= kMaxOutOfRange) throw InputError(reader.error_path, reader.error_message);
        out_of_range.push_back({reader.error_path, reader.overflow_token});
        if (current == &text) patched = text;
        patched.replace(stop - length, length, "null");
        current = &patched;
    }
}

}  // namespace shardcalc
