#include "io/json_writer.h"

#include <cmath>

namespace shardcalc {

void JsonWriter::separate() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (!first_.empty()) {
        if (!first_.back()) out_ += ',';
        first_.back() = false;
    }
}

JsonWriter& JsonWriter::begin_object() {
    separate();
    out_ += '{';
    first_.push_back(true);
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
    first_.push_back(true);
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

JsonWriter& JsonWriter::value(double v) {
    separate();
    if (!std::isfinite(v)) {
        out_ += "null";  // as nlohmann writes them
        return *this;
    }
    char buf[64];
    char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, v);  // nlohmann's own shortest form
    out_.append(buf, end);
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
    // Plain ASCII without quotes, backslashes or control characters (every key, most values) is copied;
    // anything else is escaped by nlohmann, invalid UTF-8 replaced.
    bool plain = true;
    for (unsigned char ch : v)
        if (ch < 0x20 || ch >= 0x80 || ch == '"' || ch == '\\') {
            plain = false;
            break;
        }
    if (plain) {
        out_ += '"';
        out_.append(v.data(), v.size());
        out_ += '"';
    } else {
        out_ += nlohmann::json(std::string(v)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    return *this;
}

JsonWriter& JsonWriter::value(const nlohmann::json& v) {
    separate();
    out_ += v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return *this;
}

}  // namespace shardcalc
