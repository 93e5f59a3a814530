#include "memory/memory_memo.h"

#include "memory/activations.h"

namespace shardcalc {

const LayerMemory& LayerFigures::memoized(const Module& layer) const {
    return memo_->get(layer, c_, true, [&] {
        LayerMemory m;
        m.tally = tally_module(layer, c_, true);
        m.saved = layer_activation_bytes(layer, c_);
        m.saved_all = module_activation_bytes(layer, c_, false);
        m.largest_saved = largest_saved_tensor_bytes(layer, c_);
        return m;
    });
}

ParamTally LayerFigures::tally(const Module& layer) const { return memo_ ? memoized(layer).tally : tally_module(layer, c_, true); }

double LayerFigures::saved(const Module& layer) const {
    return memo_ ? memoized(layer).saved : layer_activation_bytes(layer, c_);
}

double LayerFigures::saved_all(const Module& layer) const {
    return memo_ ? memoized(layer).saved_all : module_activation_bytes(layer, c_, false);
}

double LayerFigures::largest_saved(const Module& layer) const {
    return memo_ ? memoized(layer).largest_saved : largest_saved_tensor_bytes(layer, c_);
}

}  // namespace shardcalc
