#pragma once
// The model graph under an adapter (scenario/adapter.h): the base frozen, the adapters' ops beside the linear layers
// they target (graph/adapter.cpp).
#include "graph/op.h"
#include "scenario/resolve.h"

namespace shardcalc {

void apply_adapter(ModelGraph& g, const Config& c);

}  // namespace shardcalc
