#pragma once
// Numbers in messages, written without printf: the WebAssembly core then links no printf at all (with the JSON
// writer's own escaping, io/json_writer.cpp: the page's first download, README.md "Page budget"). Fixed point with
// `digits` decimals (at most 6), rounded half away from zero; from 2^53 on, scientific with 4 significant digits
// ("1.329e+36", as printf's %.4g).
#include <cmath>
#include <cstdint>
#include <string>

namespace shardcalc {

inline std::string decimal(double v, int digits) {
    if (std::isnan(v)) return "nan";
    const std::string sign = v < 0 ? "-" : "";
    double a = std::fabs(v);
    if (std::isinf(a)) return sign + "inf";
    if (a >= 9007199254740992.0) {
        int e = 0;
        while (a >= 10) {
            a /= 10;
            ++e;
        }
        auto m = std::llround(a * 1000);  // 4 significant digits
        if (m >= 10000) {
            m /= 10;
            ++e;
        }
        const std::string d = std::to_string(m);
        return sign + d.substr(0, 1) + "." + d.substr(1) + "e+" + (e < 10 ? "0" : "") + std::to_string(e);
    }
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

}  // namespace shardcalc
