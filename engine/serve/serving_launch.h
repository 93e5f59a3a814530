#pragma once
// The served plan's start-up flags for vLLM, SGLang and TensorRT-LLM (serve/serving_launch.cpp).
#include <vector>

#include "search/launch.h"
#include "serve/serving.h"

namespace shardcalc {

// `e`: the plan's estimate (TensorRT-LLM sizes its KV cache as a share of what the weights leave).
std::vector<LaunchCommand> serving_launch(const Config& c, const ServingSpec& s, const ServingEstimate& e);

}  // namespace shardcalc
