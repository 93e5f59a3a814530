#pragma once
// A layer's costs, which the plans of one search share (plan/layer_memo.h says which plan fields they depend on). An
// interface: the search holds the memo (search/search_memos.h), so the page's core engine, which has no search, links
// no table of them.
#include <array>
#include <utility>
#include <vector>

#include "compute/op_cost.h"

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

// The stages' view of their modules' costs under one plan (as memory's LayerFigures): each module's taken once from
// the search's memo when there is one (by reference: its entries stay where they are), else computed once, then kept
// for the other chunks and stages (a plan of pp stages asks about each layer kind in every chunk of every stage, and a
// memo lookup hashes the twenty fields of its key).
class LayerCosts final : public ComputeMemo {
public:
    explicit LayerCosts(ComputeMemo* memo) : memo_(memo) {}
    const LayerCost& cost(const Module& m, const Config& c, bool in_layer) override;

private:
    ComputeMemo* memo_;
    // The modules asked about so far (a model has a few kinds; past kKept they are looked up or computed every time).
    static constexpr size_t kKept = 8;
    struct Kept {
        const Module* module = nullptr;
        bool in_layer = false;
        const LayerCost* cost = nullptr;
    };
    std::array<Kept, kKept> kept_{};
    size_t count_ = 0;
    std::vector<LayerCost> owned_;  // computed here without a memo (reserved for kKept: the kept pointers stay valid)
    LayerCost spare_;               // a module past kKept
};

}  // namespace shardcalc
