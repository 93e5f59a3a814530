#pragma once
// Internal to io/: how each C++ member type of the scenario is read, written, tested and described, and the helper
// that makes a schema entry from a member pointer (io/contract/scenario_schema.h). The entry's type is deduced from the
// member, so an entry cannot read a field into a member of another type.
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "io/contract/scenario_schema.h"
#include "scenario/names.h"

namespace shardcalc::schema {

// The most elements an integer list may hold (parallel.stage_layers has one per pipeline stage: at most 512).
inline constexpr size_t kMaxListLength = 4096;

template <class T>
struct unwrap {
    using type = T;
    static constexpr bool optional = false;
};
template <class T>
struct unwrap<std::optional<T>> {
    using type = T;
    static constexpr bool optional = true;
};

template <class T>
std::optional<T> read_value(ObjectReader& r, const Field& f) {
    if constexpr (std::is_same_v<T, bool>) {
        return r.boolean(f.key);
    } else if constexpr (std::is_same_v<T, double>) {
        return r.number(f.key, f.min, f.max);
    } else if constexpr (std::is_same_v<T, std::string>) {
        return r.string(f.key);
    } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
        return r.integers(f.key, static_cast<int64_t>(f.min), static_cast<int64_t>(f.max), kMaxListLength);
    } else if constexpr (std::is_enum_v<T>) {
        return r.choice<T>(f.key);
    } else {
        static_assert(std::is_integral_v<T>, "a scenario field is a bool, number, string, integer list, enum or integer");
        const auto v = r.integer(f.key, static_cast<int64_t>(f.min), static_cast<int64_t>(f.max));
        if (!v) return std::nullopt;
        return static_cast<T>(*v);
    }
}

template <class M>
bool read(ObjectReader& r, const Field& f, void* target) {
    const auto v = read_value<typename unwrap<M>::type>(r, f);
    if (v && target) {
        if constexpr (unwrap<M>::optional) *static_cast<M*>(target) = v;
        else *static_cast<M*>(target) = *v;
    }
    return v.has_value();
}

template <class T>
void write_value(nlohmann::json& object, const char* key, const T& v) {
    if constexpr (std::is_enum_v<T>) object[key] = name_of(v);
    else object[key] = v;
}

template <class M>
void write(nlohmann::json& object, const Field& f, const void* value) {
    const M& v = *static_cast<const M*>(value);
    if constexpr (unwrap<M>::optional) {
        if (v) write_value(object, f.key, *v);
    } else {
        write_value(object, f.key, v);
    }
}

template <class T>
bool on_value(const T& v) {
    if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::vector<int64_t>>) return !v.empty();
    else return v != T{};  // false, 0, an enum's zero value (none)
}

template <class M>
bool on(const void* value) {
    const M& v = *static_cast<const M*>(value);
    if constexpr (unwrap<M>::optional) return v && on_value(*v);
    else return on_value(v);
}

template <class T>
constexpr const char* type_name() {
    if constexpr (std::is_same_v<T, bool>) return "boolean";
    else if constexpr (std::is_same_v<T, double>) return "number";
    else if constexpr (std::is_same_v<T, std::string>) return "string";
    else if constexpr (std::is_same_v<T, std::vector<int64_t>>) return "integer list";
    else if constexpr (std::is_enum_v<T>) return "enum";
    else return "integer";
}

template <class T>
constexpr auto choices_of() -> std::string (*)() {
    if constexpr (std::is_enum_v<T>) return &allowed_names<T>;
    else return nullptr;
}

// One constant per member type: the tables are data, built by the compiler.
template <class M>
inline constexpr FieldType kFieldType{type_name<typename unwrap<M>::type>(), &read<M>, &write<M>, &on<M>,
                                      choices_of<typename unwrap<M>::type>(), unwrap<M>::optional};
template <class M>
constexpr const FieldType* type_of() {
    return &kFieldType<M>;
}

// A list of distinct names of the enum E kept as bits (training.recompute_modules, adapter.targets); `One` says what
// one of them is, for the message of an empty list.
template <class E, const char* One>
bool read_bits(ObjectReader& r, const Field& f, void* target) {
    const auto names = r.choices<E>(f.key);
    if (!names) return false;
    if (names->empty()) {
        r.problem(f.key, std::string("must name at least one ") + One + ": " + allowed_names<E>());
        return false;
    }
    unsigned bits = 0;
    for (const E e : *names) bits |= bit(e);
    if (target) *static_cast<unsigned*>(target) = bits;
    return true;
}
template <class E>
void write_bits(nlohmann::json& object, const Field& f, const void* value) {
    object[f.key] = bit_names<E>(*static_cast<const unsigned*>(value));
}
inline bool bits_on(const void* value) { return *static_cast<const unsigned*>(value) != 0; }
template <class E, const char* One>
inline constexpr FieldType kBitSet{"enum list", &read_bits<E, One>, &write_bits<E>, &bits_on, &allowed_names<E>, false};

// A field's range: an integer's or number's, a list's elements' (none for booleans, enums and strings).
struct Range {
    double min = 0, max = 0;
};

// The entry for member `Member` of the scenario's object `Object` (&Scenario::model, &ModelSpec::layers).
template <auto Object, auto Member>
constexpr Field field(const char* key, Range range = {}, Echo echo = Echo::Value, Applies where = Applies::Always,
            Presence presence = Presence::Optional) {
    using M = std::remove_reference_t<decltype(std::declval<Scenario&>().*Object.*Member)>;
    return {key, type_of<M>(), range.min, range.max, [](Scenario& s) -> void* { return &(s.*Object.*Member); },
            echo, where, presence};
}

// A top-level member of the scenario (&Scenario::framework).
template <auto Member>
constexpr Field top_field(const char* key) {
    using M = std::remove_reference_t<decltype(std::declval<Scenario&>().*Member)>;
    return {key, type_of<M>(), 0, 0, [](Scenario& s) -> void* { return &(s.*Member); }, Echo::Value, Applies::Always,
            Presence::Optional};
}

// A field read for its checks only, stored nowhere (a scenario's name; the parser reads `version` itself).
template <class T>
constexpr Field checked_field(const char* key, Range range = {}) {
    return {key, type_of<T>(), range.min, range.max, nullptr, Echo::Never, Applies::Always, Presence::Optional};
}

}  // namespace shardcalc::schema
