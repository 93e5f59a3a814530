#pragma once
// An LSTM language model's rules between fields (model.arch lstm; graph/lstm.cpp): none of a transformer's fields,
// a tied output layer as wide as the embedding, data and pipeline parallelism only. A file of its own so that the
// page's WebAssembly core, which leaves LSTMs to the whole engine, leaves these out too (wasm/core_features.cpp).
#include <vector>

#include "core/error.h"
#include "scenario/resolve.h"

namespace shardcalc {

std::vector<Problem> lstm_problems(const Config& c);

}  // namespace shardcalc
