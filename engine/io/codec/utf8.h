#pragma once
// UTF-8 as the JSON reader and writer check it (Unicode 15 table 3-7: no overlong forms, surrogates or code points
// past U+10FFFF), one copy for both: the reader refuses what the writer replaces.
#include <cstddef>
#include <string_view>

namespace shardcalc {

// The bytes of the well-formed sequence at the start of `s` (lead byte >= 0x80), or 0 where it is not one; `broken`
// gets the offset of the byte that broke it (1 for a bad lead byte; the end of `s` when it stops short).
inline size_t utf8_sequence(std::string_view s, size_t& broken) {
    const auto c = static_cast<unsigned char>(s[0]);
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    }
    if (len == 0) {
        broken = 1;
        return 0;
    }
    for (size_t k = 1; k < len; ++k) {
        if (k >= s.size()) {
            broken = k;
            return 0;
        }
        const auto b = static_cast<unsigned char>(s[k]);
        if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) {
            broken = k;
            return 0;
        }
    }
    return len;
}

// JSON's two-character escapes (RFC 8259 sec. 7) as (character, letter after the backslash); the reader also
// takes "\/" for '/', which the writer never writes.
constexpr char kJsonEscapes[][2] = {{'"', '"'}, {'\\', '\\'}, {'\b', 'b'}, {'\f', 'f'}, {'\n', 'n'}, {'\r', 'r'}, {'\t', 't'}};

}  // namespace shardcalc
