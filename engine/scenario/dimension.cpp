#include "scenario/dimension.h"

#include <algorithm>
#include <iterator>

namespace shardcalc {

namespace {
constexpr bool in_dim_order() {
    for (size_t i = 0; i < std::size(kDimensions); ++i)
        if (static_cast<size_t>(kDimensions[i].id) != i) return false;
    return true;
}
static_assert(in_dim_order(), "kDimensions is indexed by Dim");
}  // namespace

const char* name_of_dim(Dim d) { return dimension(d).name; }

// Neither the in-world nor the weight-replicating dimensions are expert ones: no etp is read.
int64_t world_size(const ParallelFields& p) {
    int64_t n = 1;
    for (const Dimension& d : dimensions())
        if (d.in_world) n *= d.degree(p, 1);
    return n;
}

int64_t expert_tp(const ParallelSpec& p) { return p.etp.value_or(p.tp); }

int64_t replica_degree(const ParallelFields& p) {
    int64_t n = 1;
    for (const Dimension& d : dimensions())
        if (d.replicates_weights) n *= d.degree(p, 1);
    return n;
}

}  // namespace shardcalc
