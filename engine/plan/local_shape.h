#pragma once
// The part of a split tensor, or of a piece of elementwise work, that one device holds under the plan's mesh: one
// rule per split (graph/op.h SavedSplit), read by memory (saved tensors' bytes and shapes) and by compute
// (elementwise work, attention's score pairs), so the two can never split one tensor two ways.
#include <array>
#include <cstddef>
#include <cstdint>

#include "graph/op.h"
#include "scenario/resolve.h"

namespace shardcalc {

// The local dimensions of a tensor `width` wide (for scores: `width` heads) over `seq` positions of one microbatch:
//   Sequence  [b, seq / (cp ulysses (tp under sp)), width]   outside the tensor-parallel region (Korthikanti Table 2)
//   Tensor    [b, seq / (cp ulysses), width / tp]            inside it
//   Scores    [b, heads / (tp ulysses), seq / cp, seq]       Ulysses splits heads over the whole sequence (the
//                                                            Ulysses memory walk, docs/sources.md); ring attention
//                                                            gives each rank seq / cp queries against every key
//   Routed    [tokens routed to the busiest rank, width]     (scenario/resolve.h routed_tokens_factor)
//   Expert    [tokens routed to the busiest rank, width / etp]
// Two to four dimensions, in place (the search asks for millions of them).
struct LocalDims {
    std::array<double, 4> d{};
    size_t n = 0;
    const double* begin() const { return d.data(); }
    const double* end() const { return d.data() + n; }
    double operator[](size_t i) const { return d[i]; }
};
LocalDims local_dims(SavedSplit split, int64_t width, double seq, const Config& c);
double local_elements(SavedSplit split, int64_t width, double seq, const Config& c);  // their product

}  // namespace shardcalc
