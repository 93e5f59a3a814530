#pragma once
// A layer's costs, which the plans of one search share (plan/layer_memo.h says which plan fields they depend on). An
// interface: the search holds the memo (search/search_memos.h), so the page's core engine, which has no search, links
// no table of them.
#include <utility>
#include <vector>

#include "compute/op_cost.h"
#include "plan/layer_memo.h"

namespace shardcalc {

struct LayerCost {
    OpCost cost;
    std::vector<std::pair<double, double>> attention;  // each core attention's forward and backward seconds
    OpCost experts;                                    // of `cost`, its experts' (graph/op.h Module::expert_compute)
    double param_tensors = 0;                          // graph/blocks.h param_tensor_count
};
// A module's cost and its core attentions' seconds (per instance).
LayerCost layer_cost(const Module& m, const Config& c, bool in_layer);

class ComputeMemo {
public:
    virtual ~ComputeMemo() = default;
    virtual const LayerCost& cost(const Module& m, const Config& c, bool in_layer) = 0;
};

// The stages' view of their modules' costs under one plan (plan/layer_memo.h KeptFigures), as memory's LayerFigures.
class LayerCosts final : public ComputeMemo {
public:
    explicit LayerCosts(ComputeMemo* memo) : memo_(memo) {}
    const LayerCost& cost(const Module& m, const Config& c, bool in_layer) override;

private:
    ComputeMemo* memo_;
    KeptFigures<LayerCost> kept_;
};

}  // namespace shardcalc
