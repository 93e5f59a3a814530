#pragma once
// A layer's memory figures, which the plans of one search share (plan/layer_memo.h says which plan fields they depend
// on): its parameters, what it saves per microbatch under the plan's recompute policy and without it, and its largest
// saved tensor. An interface: the search holds the memo (search/search_memos.h), so the page's core engine, which has
// no search, links no table of them.
#include "memory/model_states.h"

namespace shardcalc {

struct LayerMemory {
    ParamTally tally;           // tally_module(layer, c, true)
    double saved = 0;           // layer_activation_bytes
    double saved_all = 0;       // module_activation_bytes(layer, c, false): nothing recomputed
    double largest_saved = 0;   // largest_saved_tensor_bytes
};
// All four figures of a layer.
LayerMemory layer_memory(const Module& layer, const Config& c);

class MemoryMemo {
public:
    virtual ~MemoryMemo() = default;
    virtual const LayerMemory& memory(const Module& layer, const Config& c) = 0;
};

// A stage's view of its layers' figures: through the search's memo when there is one, else each computed as asked.
class LayerFigures {
public:
    LayerFigures(const Config& c, MemoryMemo* memo) : c_(c), memo_(memo) {}
    ParamTally tally(const Module& layer) const;
    double saved(const Module& layer) const;
    double saved_all(const Module& layer) const;
    double largest_saved(const Module& layer) const;

private:
    const Config& c_;
    MemoryMemo* memo_;
};

}  // namespace shardcalc
