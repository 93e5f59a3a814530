#pragma once
// Architecture builders: each emits the op graph of one family of models. A new family
// (MoE, encoder-decoder, LSTM LM) is a new builder beside these, selected in build.cpp.
#include "graph/op.h"
#include "scenario/resolve.h"

namespace shardcalc {

ModelGraph build_graph(const Config& c);

ModelGraph build_decoder(const Config& c);  // GPT-2/3, LLaMA, Mistral, Bloom
ModelGraph build_encoder(const Config& c);  // BERT, ALBERT
ModelGraph build_lstm(const Config& c);     // LSTM language models (DeepFlow's LSTM projection)

// Shared pieces of the two builders.
Module embedding_module(const Config& c);
Module transformer_layer(const Config& c, bool post_norm, bool moe = false, bool local = false);
// Layer i (from 0) is a mixture-of-experts layer: after model.first_dense_layers, every model.moe_every-th
// (the last of each run of moe_every, as transformers' Llama 4 `(i + 1) % interleave_moe_layer_step == 0`).
bool is_moe_layer(const ModelFields& m, int64_t i);
// Layer i attends through a sliding window: every layer when model.global_every is 0, else all but every
// global_every-th (Gemma 3: 5 local then 1 global; gpt-oss: alternating, sliding first).
bool is_local_layer(const ModelFields& m, int64_t i);
// The model's layers in one group per kind (dense or MoE, local or global attention), each built once;
// `layer_group` gets each layer's group in execution order (the plan counts a stage's layers by group).
std::vector<LayerGroup> layer_groups(const Config& c, bool post_norm, std::vector<int64_t>& layer_group);

}  // namespace shardcalc
