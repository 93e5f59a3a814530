#pragma once
// A name the report gives a part (its key) and the words a reader sees for it (its label). Each producer lists its
// terms once, in the order they are shown (schedule/step_parts.h, memory/memory_terms.h); the CLI's text and the page
// (through web/build.mjs) take their words from those lists. The lists are constexpr arrays whose keys producers take at
// compile time (part_key<StepPart::...>), so a build that shows no words (the page's core) links none of the labels.
#include <cstddef>
#include <string>

namespace shardcalc {

struct Term {
    const char* key;
    const char* label;
};

// A key in words: its underscores as spaces ("comm_buffers" -> "comm buffers").
inline std::string spaced(std::string key) {
    for (char& ch : key)
        if (ch == '_') ch = ' ';
    return key;
}

// The label of `key` in `terms`, or the key spaced where the list has none.
template <size_t N>
std::string label_of(const Term (&terms)[N], const std::string& key) {
    for (const Term& t : terms)
        if (key == t.key) return t.label;
    return spaced(key);
}

}  // namespace shardcalc
