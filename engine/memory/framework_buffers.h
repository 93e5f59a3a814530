#pragma once
// What a framework holds beside the weights, gradients and states for its communication and casts: DDP's reducer
// buckets, DeepSpeed's ZeRO gradient buckets and gathered parameters, FSDP's units, autocast's and Transformer
// Engine's cast weights (docs/memory.md "The rest, named separately").
#include "graph/build.h"
#include "memory/memory.h"
#include "memory/memory_memo.h"
#include "memory/model_states.h"

namespace shardcalc {

// The largest layer's parameters on one device (an FSDP unit).
double largest_layer_params(const ModelGraph& g, const LayerFigures& layers);
// One of DeepSpeed's ZeRO gradient buckets (parallel.reduce_bucket_size elements in the gradients' dtype): one
// tensor the allocator must serve whole.
double one_bucket_bytes(const Config& c);
// The buffers of stage parameters `tally` into `o` (comm_buffers, cast_weights).
void framework_buffers(const Config& c, const ModelGraph& g, const ParamTally& tally, const LayerFigures& layers, OtherBytes& o);

}  // namespace shardcalc
