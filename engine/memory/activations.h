#pragma once
// Bytes of activations saved for backward, per microbatch and per device, under the
// parallel plan and the recompute policy.
#include <cstdint>
#include <vector>

#include "graph/op.h"
#include "scenario/resolve.h"

namespace shardcalc {

// Bytes of one element of a saved tensor of this kind under the training dtype and autocast.
double saved_element_bytes(SavedKind kind, const Config& c);

// One saved tensor on one device for one microbatch.
double saved_tensor_bytes(const SavedTensor& t, const Config& c);

// Its shape on one device, as XLA would print it ([b, s, width], [b, heads, s, s]; routed tokens [rows, width]),
// for the layouts and the largest-allocation list; the bytes stay saved_tensor_bytes'.
std::vector<int64_t> saved_tensor_shape(const SavedTensor& t, const Config& c);

// Saved bytes of one op; `in_layer` ops obey the recompute policy (embedding and head do not:
// Megatron checkpoints transformer layers only).
double op_activation_bytes(const Op& op, const Config& c, bool in_layer);
double module_activation_bytes(const Module& m, const Config& c, bool in_layer);

// What one transformer layer keeps per microbatch under the policy. Full recompute keeps only
// the layer input, 2sbh (Korthikanti et al. 2022 sec. 5, Table 2 last row); under autocast the
// input is the fp32 residual stream, 4sbh (validation/measured: gpt2 with gradient checkpointing).
double layer_activation_bytes(const Module& layer, const Config& c);
double layer_checkpoint_bytes(const Config& c);
SavedTensor layer_checkpoint(const Config& c);  // the tensor full recompute keeps per layer: its input

// Largest single saved tensor of a module without recompute: its gradient and the gradient
// flowing into it are live together in backward.
double largest_saved_tensor_bytes(const Module& m, const Config& c);

}  // namespace shardcalc
