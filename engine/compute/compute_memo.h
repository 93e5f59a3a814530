#pragma once
// The costs of a module that the plans of one search share. A layer's kernels (compute/op_cost.h) depend on the graph
// module and on a few fields of the plan — the framework and its traits, tensor, sequence, context, Ulysses and expert
// parallelism, the micro-batch, the recompute choice, the microbatches per step (an fp8 weight's per-step cast) and the
// sequence — and not on the rest (data parallelism, pipeline stages, ZeRO's sharding, offload): the plan search costs
// 380,000 layer groups of an MoE model over three device counts that hold 6,400 distinct ones (measured). Valid only for
// plans of one base scenario: the fields a search never varies (dtypes, the device, the implementation) are not in the
// key. tests/test_search.cpp checks a search with the memo against the same plans without it.
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "compute/op_cost.h"

namespace shardcalc {

class ComputeMemo {
public:
    struct Cost {
        OpCost cost;
        std::vector<std::pair<double, double>> attention;  // each core attention's forward and backward seconds
    };
    // The module's cost under `c`, computed by `compute` the first time.
    template <class F>
    const Cost& get(const Module& m, const Config& c, bool in_layer, F&& compute) {
        const Key key = key_of(m, c, in_layer);
        auto it = costs_.find(key);
        if (it == costs_.end()) it = costs_.emplace(key, compute()).first;
        return it->second;
    }

private:
    using Key = std::tuple<const Module*, bool, int, int, bool, bool, bool, bool, bool, int64_t, int64_t, int64_t, int64_t,
                           int64_t, bool, int64_t, int, unsigned, int64_t, int64_t>;
    static Key key_of(const Module& m, const Config& c, bool in_layer);
    std::map<Key, Cost> costs_;
};

}  // namespace shardcalc
