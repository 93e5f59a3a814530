#pragma once
// A layer's costs, shared by the plans of one search (plan/layer_memo.h says which plan fields they depend on).
#include <utility>
#include <vector>

#include "compute/op_cost.h"
#include "plan/layer_memo.h"

namespace shardcalc {

struct LayerCost {
    OpCost cost;
    std::vector<std::pair<double, double>> attention;  // each core attention's forward and backward seconds
};
using ComputeMemo = LayerMemo<LayerCost>;

}  // namespace shardcalc
