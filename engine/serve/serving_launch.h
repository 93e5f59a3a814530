#pragma once
// The served plan's start-up flags for vLLM and SGLang (serve/serving_launch.cpp).
#include <vector>

#include "search/launch.h"
#include "serve/serving.h"

namespace shardcalc {

std::vector<LaunchCommand> serving_launch(const Config& c, const ServingSpec& s);

}  // namespace shardcalc
