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

ParamTally LayerFigures::tally(const Module& layer) const {
    return memo_ ? memo_->memory(layer, c_).tally : tally_module(layer, c_, true);
}

double LayerFigures::saved(const Module& layer) const {
    return memo_ ? memo_->memory(layer, c_).saved : layer_activation_bytes(layer, c_);
}

double LayerFigures::saved_all(const Module& layer) const {
    return memo_ ? memo_->memory(layer, c_).saved_all : module_activation_bytes(layer, c_, false);
}

double LayerFigures::largest_saved(const Module& layer) const {
    return memo_ ? memo_->memory(layer, c_).largest_saved : largest_saved_tensor_bytes(layer, c_);
}

}  // namespace shardcalc
