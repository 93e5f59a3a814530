#pragma once
// Strict reading of one JSON object: every key must be known, every value of the right
// type and range; failures name the field by JSON pointer and say what is allowed.
// A field that fails reads as absent and its problem is kept: finish() throws every problem of
// the object at once (with the unknown keys), so the caller must call it before trusting a value.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "scenario/names.h"

namespace shardcalc {

// "must be a number from MIN to MAX": the one wording of a real-valued range.
std::string number_range(double min, double max);

class ObjectReader {
public:
    // `preset`: the fields a preset gives, read where `j` does not have the key (a key `j` holds as null removes the
    // preset's value); the preset is not copied into `j`, and only `j`'s own keys are checked by finish().
    ObjectReader(const nlohmann::json& j, std::string path, const nlohmann::json* preset = nullptr);

    // Integers in [min, max]; the maxima keep products of sizes far from int64 overflow and the
    // evaluation bounded (docs/scenario.md lists them).
    std::optional<int64_t> integer(const char* key, int64_t min, int64_t max);
    // Finite numbers in [min, max]; the maxima keep every derived time, byte count and cost finite.
    std::optional<double> number(const char* key, double min, double max);
    // A list of integers in [min, max], at most max_count of them; an element's problem names it (".../3").
    std::optional<std::vector<int64_t>> integers(const char* key, int64_t min, int64_t max, size_t max_count);
    std::optional<bool> boolean(const char* key);
    std::optional<std::string> string(const char* key);
    const nlohmann::json* object(const char* key);  // nullptr when absent
    const nlohmann::json* value(const char* key);   // any type, for the caller to check; nullptr when absent

    template <class E>
    std::optional<E> choice(const char* key) {
        const auto text = string(key);
        if (!text) return std::nullopt;
        const auto v = parse_name<E>(*text);
        if (!v) return fail(key, "unknown value \"" + *text + "\"; allowed: " + allowed_names<E>());
        return v;
    }

    // A list of distinct names of E; an element's problem names it (".../1").
    template <class E>
    std::optional<std::vector<E>> choices(const char* key) {
        const nlohmann::json* v = get(key);
        if (!v) return std::nullopt;
        if (!v->is_array()) return fail(key, "must be a list of names from " + allowed_names<E>());
        std::vector<E> out;
        for (size_t i = 0; i < v->size(); ++i) {
            const std::string at = field(key) + "/" + std::to_string(i);
            const auto e = (*v)[i].is_string() ? parse_name<E>((*v)[i].get<std::string>()) : std::nullopt;
            if (!e) {
                problems_.add(at, "must be one of " + allowed_names<E>());
                return std::nullopt;
            }
            if (std::find(out.begin(), out.end(), *e) != out.end()) {
                problems_.add(at, std::string("\"") + name_of(*e) + "\" is listed twice");
                return std::nullopt;
            }
            out.push_back(*e);
        }
        return out;
    }

    std::string field(const char* key) const { return path_ + "/" + key; }
    // A problem of this object that is not a single field's type or range (a missing required field).
    void problem(const char* key, std::string message) { problems_.add(field(key), std::move(message)); }
    bool failed(const char* key) const { return problems_.has(field(key)); }
    // Runs a parser of a nested value, keeping its problems with this object's.
    template <class F>
    void collect(F&& f) {
        problems_.collect(std::forward<F>(f));
    }

    // Throws every problem found, and the keys that no accessor asked for.
    void finish();

private:
    const nlohmann::json* get(const char* key);
    std::nullopt_t fail(const char* key, std::string message) {
        problem(key, std::move(message));
        return std::nullopt;
    }
    const nlohmann::json& j_;
    const nlohmann::json* preset_;
    std::string path_;
    // The keys asked for: the schema's and the callers' literals, which outlive the reader (no copy of each key); a
    // list, searched only when the object is finished (a set's node per key was a tenth of a scenario's reading).
    std::vector<std::string_view> known_;
    Problems problems_;
};

template <class T>
void assign(T& target, const std::optional<T>& value) {
    if (value) target = *value;
}

}  // namespace shardcalc
