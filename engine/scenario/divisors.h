#pragma once
// "1, 2, 4, 8": the divisors of n in ascending order, at most `cap` of them — the values a degree could take
// instead, in the messages of the rules that need a divisor (validate.cpp, pipeline_split.cpp).
#include <cstdint>
#include <string>
#include <vector>

namespace shardcalc {

inline std::string divisors_text(int64_t n, size_t cap = 12) {
    std::vector<int64_t> low, high;
    for (int64_t d = 1; d * d <= n; ++d)
        if (n % d == 0) {
            low.push_back(d);
            if (d != n / d) high.push_back(n / d);
        }
    low.insert(low.end(), high.rbegin(), high.rend());
    std::string out;
    for (size_t i = 0; i < low.size() && i < cap; ++i) out += (i ? ", " : "") + std::to_string(low[i]);
    return low.size() > cap ? out + ", ..." : out;
}

}  // namespace shardcalc
