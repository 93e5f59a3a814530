#pragma once
// Spelling of every enum in the public JSON contract, in one table per enum so that the
// parser, the report writer and the error messages ("allowed: a|b|c") cannot disagree.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scenario/scenario.h"

namespace shardcalc {

template <class E>
const std::vector<std::pair<E, const char*>>& enum_names();

template <class E>
const char* name_of(E value) {
    for (const auto& [v, n] : enum_names<E>())
        if (v == value) return n;
    return "?";
}

template <class E>
std::optional<E> parse_name(const std::string& text) {
    for (const auto& [v, n] : enum_names<E>())
        if (text == n) return v;
    return std::nullopt;
}

template <class E>
std::string allowed_names() {
    std::string out;
    for (const auto& [v, n] : enum_names<E>()) {
        if (!out.empty()) out += "|";
        out += n;
    }
    return out;
}

// The names of the bits set in `bits` of an enum kept as bits (RecomputeModule, AdapterTarget: each has bit(E)), in the
// table's order.
template <class E>
std::vector<std::string> bit_names(unsigned bits) {
    std::vector<std::string> out;
    for (const auto& [e, name] : enum_names<E>())
        if (bits & bit(e)) out.emplace_back(name);
    return out;
}

}  // namespace shardcalc
