#pragma once
// Architecture builders: each emits the op graph of one family of models. A new family
// (MoE, encoder-decoder, LSTM LM) is a new builder beside these, selected in build.cpp.
#include "graph/op.h"
#include "scenario/resolve.h"

namespace shardcalc {

ModelGraph build_graph(const Config& c);

ModelGraph build_decoder(const Config& c);  // GPT-2/3, LLaMA, Mistral, Bloom
ModelGraph build_encoder(const Config& c);  // BERT, ALBERT

// Shared pieces of the two builders.
Module embedding_module(const Config& c);
Module transformer_layer(const Config& c, bool post_norm);

}  // namespace shardcalc
