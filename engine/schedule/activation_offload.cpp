#include "schedule/activation_offload.h"

#include <algorithm>

namespace shardcalc {

// Transformer Engine's offload handler (transformer_engine/pytorch/cpu_offload.py) spreads the N offloaded layers'
// copies evenly over the model: layer i's copy to the host must end by layer floor(L / N) * (i + 1) - 1, so each
// copy runs on its own stream beside about floor(L / N) layers of forward compute, and each reload beside as many
// layers of backward; a copy longer than that window delays the layer that waits for it. The layers' share of the
// backward is taken as their share of the forward (the embedding's and the head's aside).
OffloadExposed activation_offload_exposed(const Config& c, const StageCompute& sc, const StageMemory& m) {
    OffloadExposed out;
    const double n = static_cast<double>(m.offloaded_layers);
    const double link = c.s.hardware.host_link_gbps * 1e9;
    if (n == 0 || sc.layers == 0 || link <= 0) return out;
    const double layers = static_cast<double>(sc.layers);
    const double copy = m.offloaded_activations / n / link;
    const double window = std::max(1.0, static_cast<double>(sc.layers / m.offloaded_layers));
    const double forward_layer = sc.layers_fwd.seconds / layers;
    const double layer_share = sc.cost.fwd.seconds > 0 ? sc.layers_fwd.seconds / sc.cost.fwd.seconds : 1;
    const double backward_layer = sc.cost.bwd.seconds * layer_share / layers;
    out.forward = n * std::max(0.0, copy - window * forward_layer);
    out.backward = n * std::max(0.0, copy - window * backward_layer);
    return out;
}

}  // namespace shardcalc
