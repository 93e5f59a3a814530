#include "io/codec/json_reader.h"

#include <algorithm>
#include <cmath>

#include "io/codec/json_text.h"
#include "io/codec/json_writer.h"

namespace shardcalc {

std::string number_range(double min, double max) {
    return "must be a number from " + compact_json(min) + " to " + compact_json(max);
}

ObjectReader::ObjectReader(const nlohmann::json& j, std::string path, const nlohmann::json* preset)
    : j_(j), preset_(preset && preset->is_object() ? preset : nullptr), path_(std::move(path)) {
    if (!j_.is_object()) throw InputError(path_, path_.empty() ? "the scenario must be a JSON object" : "must be a JSON object");
}

const nlohmann::json* ObjectReader::get(const char* key) {
    known_.push_back(key);
    auto it = j_.find(key);
    if (it == j_.end()) {
        if (!preset_) return nullptr;
        it = preset_->find(key);
        if (it == preset_->end()) return nullptr;
    }
    return it->is_null() ? nullptr : &*it;
}

namespace {

// A JSON integer in [min, max], or nothing; an unsigned value past max never reads as a negative one.
std::optional<int64_t> integer_in(const nlohmann::json& v, int64_t min, int64_t max) {
    if (!v.is_number_integer()) return std::nullopt;
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(max)) return std::nullopt;
    const int64_t x = v.get<int64_t>();
    if (x < min || x > max) return std::nullopt;
    return x;
}

std::string integer_range(int64_t min, int64_t max) {
    return "must be an integer from " + std::to_string(min) + " to " + std::to_string(max);
}

}  // namespace

std::optional<int64_t> ObjectReader::integer(const char* key, int64_t min, int64_t max) {
    const nlohmann::json* v = get(key);
    if (!v) return std::nullopt;
    if (const auto x = integer_in(*v, min, max)) return x;
    return fail(key, integer_range(min, max) + ", got " + compact_json(*v));
}

std::optional<std::vector<int64_t>> ObjectReader::integers(const char* key, int64_t min, int64_t max, size_t max_count) {
    const nlohmann::json* v = get(key);
    if (!v) return std::nullopt;
    const std::string what = "must be a list of at most " + std::to_string(max_count) + " integers from " +
                             std::to_string(min) + " to " + std::to_string(max);
    if (!v->is_array() || v->size() > max_count) return fail(key, what + ", got " + compact_json(*v).substr(0, 80));
    std::vector<int64_t> out;
    for (size_t i = 0; i < v->size(); ++i) {
        const auto x = integer_in((*v)[i], min, max);
        if (!x) {
            problems_.add(field(key) + "/" + std::to_string(i), integer_range(min, max) + ", got " + compact_json((*v)[i]).substr(0, 40));
            return std::nullopt;
        }
        out.push_back(*x);
    }
    return out;
}

std::optional<double> ObjectReader::number(const char* key, double min, double max) {
    const nlohmann::json* v = get(key);
    if (!v) return std::nullopt;
    // The message is built only for a value that fails (a scenario reads dozens of numbers).
    const double x = v->is_number() ? v->get<double>() : 0;
    if (!v->is_number() || !std::isfinite(x) || x < min || x > max) return fail(key, number_range(min, max) + ", got " + compact_json(*v));
    return x;
}

std::optional<bool> ObjectReader::boolean(const char* key) {
    const nlohmann::json* v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) return fail(key, "must be true or false, got " + compact_json(*v));
    return v->get<bool>();
}

std::optional<std::string> ObjectReader::string(const char* key) {
    const nlohmann::json* v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_string()) return fail(key, "must be a string, got " + compact_json(*v));
    return v->get<std::string>();
}

const nlohmann::json* ObjectReader::value(const char* key) { return get(key); }

const nlohmann::json* ObjectReader::object(const char* key) {
    const nlohmann::json* v = get(key);
    if (v && !v->is_object()) {
        problem(key, "must be a JSON object, got " + compact_json(*v));
        return nullptr;
    }
    return v;
}

void ObjectReader::finish() {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
        if (std::find(known_.begin(), known_.end(), std::string_view(it.key())) != known_.end()) continue;
        std::vector<std::string_view> names = known_;
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());
        std::string allowed;
        for (const std::string_view k : names) (allowed += allowed.empty() ? "" : ", ") += k;
        problems_.add(path_ + "/" + pointer_token(it.key()), "unknown field; allowed here: " + allowed);
    }
    problems_.raise();
}

}  // namespace shardcalc
