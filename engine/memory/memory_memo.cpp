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
    for (int i = 0; i < count_; ++i)
        if (kept_[static_cast<size_t>(i)].first == &layer) return kept_[static_cast<size_t>(i)].second;
    if (count_ == kKept) return memo_ ? memo_->memory(layer, c_) : (spare_ = layer_memory(layer, c_));
    auto& slot = kept_[static_cast<size_t>(count_++)];
    slot = {&layer, memo_ ? memo_->memory(layer, c_) : layer_memory(layer, c_)};
    return slot.second;
}

}  // namespace shardcalc
