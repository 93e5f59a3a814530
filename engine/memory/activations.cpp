#include "memory/activations.h"

#include <algorithm>

#include "graph/blocks.h"
#include "plan/local_shape.h"

namespace shardcalc {

double saved_element_bytes(SavedKind kind, const Config& c) {
    switch (kind) {
        case SavedKind::Activation: return bytes_of(c.s.training.dtype);
        // Under XLA dropout keeps its RNG's output, uniforms in the activation dtype (TensorFlow's tf.nn.dropout:
        // random_uniform(dtype=x.dtype); an rng has a side effect, so XLA never recomputes it: rng.117 in XLA's BERT
        // report, docs/sources.md).
        case SavedKind::Mask: return c.traits.xla ? bytes_of(c.s.training.dtype) : 1;
        case SavedKind::Fp32: return 4;
        case SavedKind::Upcast: return c.traits.autocast ? 4 : bytes_of(c.s.training.dtype);
        // Transformer Engine keeps the fp8 input for the weight gradient, with its scales (graph/blocks.h).
        case SavedKind::GemmInput:
        case SavedKind::SharedGemmInput:
            if (c.s.training.fp8 == Fp8Recipe::None) return kind == SavedKind::GemmInput ? bytes_of(c.s.training.dtype) : 0;
            return fp8_element_bytes(c, false);
    }
    return 4;
}

double saved_tensor_bytes(const SavedTensor& t, const Config& c) {
    if (!on_path(t.path, c)) return 0;
    // An MLM head over gathered positions keeps its tensors for those positions only (training.mlm_predictions).
    const double elem = saved_element_bytes(t.kind, c) * (t.gathered ? c.d.mlm_share : 1);
    // The scores' split has no cp term in practice: cp > 1 requires flash attention, which saves none.
    return local_elements(t.split, t.width, static_cast<double>(c.s.training.seq_len), c) * elem;
}

std::vector<int64_t> saved_tensor_shape(const SavedTensor& t, const Config& c) {
    const double s = static_cast<double>(t.gathered ? c.s.training.mlm_predictions : c.s.training.seq_len);
    std::vector<int64_t> shape;
    for (const double d : local_dims(t.split, t.width, s, c)) shape.push_back(static_cast<int64_t>(d + 0.5));
    return shape;
}

double op_activation_bytes(const Op& op, const Config& c, bool in_layer) {
    if (in_layer && c.s.training.recompute == Recompute::Full) return 0;
    const unsigned recomputed = in_layer ? recomputed_modules(c.s.training) : 0;
    double sum = 0;
    for (const auto& t : op.saved) {
        if (t.dropped_by & recomputed) continue;
        sum += saved_tensor_bytes(t, c);
    }
    return sum;
}

double module_activation_bytes(const Module& m, const Config& c, bool in_layer) {
    return sum_over_ops<double>(m, [&](const Op& op) { return op_activation_bytes(op, c, in_layer); });
}

SavedTensor layer_checkpoint(const Config& c) {
    return SavedTensor{"layer_input", SavedKind::Upcast, SavedSplit::Sequence, c.s.model.hidden};
}

double layer_checkpoint_bytes(const Config& c) { return saved_tensor_bytes(layer_checkpoint(c), c); }

double layer_activation_bytes(const Module& layer, const Config& c) {
    if (c.s.training.recompute == Recompute::Full) return layer_checkpoint_bytes(c);
    return module_activation_bytes(layer, c, true);
}

double largest_saved_tensor_bytes(const Module& m, const Config& c) {
    double best = 0;
    for_each_op(m, [&](const Op& op) {
        // A weight-shaped tensor (a frozen weight dequantized for backward) has no gradient of its own.
        for (const auto& t : op.saved)
            if (t.split != SavedSplit::Weight) best = std::max(best, saved_tensor_bytes(t, c));
    });
    return best;
}

}  // namespace shardcalc
