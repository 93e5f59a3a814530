// io/codec/number_text.cpp against the C library's strtod (glibc rounds correctly): JSON number text to the nearest double.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "io/codec/number_text.h"

using shardcalc::nearest_double;

namespace {

// Equal as bit patterns (so -0 and 0 differ, and any rounding slip shows).
bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void check(const std::string& text) {
    CAPTURE(text);
    const double expected = std::strtod(text.c_str(), nullptr);
    const double got = nearest_double(text);
    CHECK(same(got, expected));
}

}  // namespace

TEST_CASE("number text: the nearest double, ties to even, over the whole range") {
    for (const char* t : {"0", "-0", "1", "-1", "0.1", "0.5", "1.5", "2.5", "123456789", "3.141592653589793", "1e0", "1E+2",
                          "1e-2", "0.000001", "12.340e3", "1.7976931348623157e308", "1.7976931348623159e308",
                          "1.7976931348623158e308", "2e308", "-2e308", "4.9e-324", "2.4703282292062327e-324",
                          "2.4703282292062328e-324", "1e-400", "2.2250738585072011e-308", "2.2250738585072014e-308",
                          "9007199254740993", "9007199254740995", "9007199254740992.5", "18014398509481985",
                          "0.30000000000000004", "123456789012345678901234567890", "1e23", "8.98846567431158e307",
                          "6.0221409e+23", "0.83999999999999997", "1000000000000000000000000",
                          "7.038531e-26", "9.9999999999999995e-1", "5e-324", "1e-323",
                          "2.22507385850720113605740979670913197593481954635164564e-308"})
        check(t);
    // A decimal halfway between two doubles, with 800+ digits: only the digits past the first 800 break the tie.
    std::string half = "9007199254740993";
    check(half + "." + std::string(850, '0'));
    check(half + "." + std::string(850, '0') + "1");
    // Random numbers of 1 to 25 significant digits across the exponent range, and exact doubles printed in full.
    std::mt19937_64 rng(20261126);
    for (int n = 0; n < 60000; ++n) {
        const int digits = 1 + static_cast<int>(rng() % 25);
        std::string s = rng() % 2 ? "-" : "";
        s += static_cast<char>('1' + rng() % 9);
        for (int i = 1; i < digits; ++i) s += static_cast<char>('0' + rng() % 10);
        if (rng() % 2 && digits > 1) s.insert(s.size() - static_cast<size_t>(rng() % static_cast<unsigned>(digits - 1)) - 1, ".");
        s += "e" + std::to_string(static_cast<int>(rng() % 700) - 350);
        check(s);
    }
    char buf[64];
    for (int n = 0; n < 20000; ++n) {
        uint64_t bits = rng();
        double v;
        std::memcpy(&v, &bits, sizeof v);
        if (!std::isfinite(v)) continue;
        std::snprintf(buf, sizeof buf, "%.17g", v);
        check(buf);
        std::snprintf(buf, sizeof buf, "%.16e", v);  // often one step off v: the nearest double to these digits
        check(buf);
    }
}
