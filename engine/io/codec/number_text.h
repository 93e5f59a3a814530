#pragma once
// A JSON number's text to the nearest double (ties to even), without the C library's strtod: musl's works in
// long double, which on WebAssembly is a 128-bit software float, and its arithmetic (__multf3, __divtf3, fmodl,
// ...) was about 10 KB of the page's core engine (docs/performance.md). The decimal digits are shifted by powers of
// two until the value sits in [1/2, 1), then 53 more bits are shifted out and rounded: exact at every step, so the
// result is correctly rounded (the method of Go's strconv.ParseFloat, decimal.go).
#include <string_view>

namespace shardcalc {

// `text` matches JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?. Beyond a double's range
// the result is +-infinity; below its smallest subnormal, +-0.
double nearest_double(std::string_view text);

}  // namespace shardcalc
