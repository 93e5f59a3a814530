#pragma once
// Numbers in messages, written without printf: with the JSON writer's own escaping (io/codec/json_writer.cpp), the
// WebAssembly core links no nlohmann serializer, and every byte counts there (docs/performance.md). Fixed point
// with `digits` decimals (at most 6), rounded half away from zero; for the magnitudes messages show (GiB, percent),
// below 2^53.
#include <cmath>
#include <cstdint>
#include <string>

#include "core/units.h"

namespace shardcalc {

inline std::string decimal(double v, int digits) {
    if (std::isnan(v)) return "nan";
    const std::string sign = v < 0 ? "-" : "";
    double a = std::fabs(v);
    if (std::isinf(a)) return sign + "inf";
    double scale = 1;
    for (int i = 0; i < digits; ++i) scale *= 10;
    const long long n = std::llround(a * scale);
    std::string s = std::to_string(n);
    if (digits > 0) {
        if (s.size() <= static_cast<size_t>(digits)) s.insert(0, static_cast<size_t>(digits) + 1 - s.size(), '0');
        s.insert(s.size() - static_cast<size_t>(digits), ".");
    }
    return (n == 0 ? "" : sign) + s;
}

// Bytes in GiB for messages: "21.42 GiB"; in the reader's unit: "23.00 GB".
inline std::string gib_text(double bytes) { return decimal(bytes / kGiB, 2) + " GiB"; }
inline std::string unit_text(double bytes, ByteUnit u) {
    const ByteScale s = byte_scale(u, 0);
    return decimal(bytes / s.bytes, 2) + " " + s.name;
}

}  // namespace shardcalc
