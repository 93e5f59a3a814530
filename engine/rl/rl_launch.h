#pragma once
// An RL plan's launch: verl's trainer overrides and TRL's GRPO arguments (rl/rl_launch.cpp).
#include <vector>

#include "rl/rl.h"
#include "search/launch.h"

namespace shardcalc {

// `c`: the actor's resolved training plan (RlEstimate::training.config).
std::vector<LaunchCommand> rl_launch(const Config& c, const RlSpec& rl);

}  // namespace shardcalc
