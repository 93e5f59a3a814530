#include "memory/memory_memo.h"

#include "memory/activations.h"

namespace shardcalc {

LayerMemory layer_memory(const Module& layer, const Config& c) {
    LayerMemory m;
    m.tally = tally_module(layer, c, true);
    m.saved = layer_activation_bytes(layer, c);
    m.saved_all = module_activation_bytes(layer, c, false);
    m.largest_saved = largest_saved_tensor_bytes(layer, c);
    return m;
}

const LayerMemory& LayerFigures::figures(const Module& layer) const {
    return kept_.get(
        layer, false, [&]() -> const LayerMemory* { return memo_ ? &memo_->memory(layer, c_) : nullptr; },
        [&] { return layer_memory(layer, c_); });
}

}  // namespace shardcalc
