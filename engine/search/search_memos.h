#pragma once
// The layer figures the plans of one search share: a layer's memory and costs, each computed once per distinct key
// (plan/layer_memo.h), behind the interfaces memory and compute read them through.
#include "compute/compute_memo.h"
#include "compute/op_cost.h"
#include "memory/memory_memo.h"
#include "plan/layer_memo.h"

namespace shardcalc {

class SearchMemos final : public MemoryMemo, public ComputeMemo {
public:
    const LayerMemory& memory(const Module& layer, const Config& c) override {
        // A layer's saved tensors and parameters are the same whatever the microbatches per step.
        return memory_.get(layer, c, true, 0, [&] { return layer_memory(layer, c); });
    }
    const LayerCost& cost(const Module& m, const Config& c, bool in_layer) override {
        return cost_.get(m, c, in_layer, cost_microbatches(c), [&] { return layer_cost(m, c, in_layer); });
    }

private:
    LayerMemo<LayerMemory> memory_;
    LayerMemo<LayerCost> cost_;
};

}  // namespace shardcalc
