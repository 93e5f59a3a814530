#pragma once
// How to launch a plan with the framework it was evaluated for: Megatron-LM's arguments,
// Megatron-DeepSpeed's arguments and its DeepSpeed config, or PyTorch FSDP/DDP as the Hugging Face
// Trainer (accelerate) spells it. Text derived from the resolved plan, one copy per framework.
#include <string>
#include <vector>

#include "scenario/resolve.h"

namespace shardcalc {

struct LaunchCommand {
    std::string tool;                // "Megatron-LM pretrain_gpt.py", "DeepSpeed config", ...
    std::vector<std::string> lines;  // arguments (one per line) or the lines of a config file
};

std::vector<LaunchCommand> launch_commands(const Config& c);

}  // namespace shardcalc
