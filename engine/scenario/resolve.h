#pragma once
// Turns a user scenario into a complete configuration: framework conventions fill the
// fields left open (scenario/framework.cpp), derived quantities are computed once, and
// every constraint between fields is checked (scenario/validate.cpp).
#include <string>
#include <vector>

#include "scenario/framework.h"
#include "scenario/scenario.h"

namespace shardcalc {

struct Derived {
    int64_t seq_len = 0;
    int64_t world_size = 0;
    int64_t microbatches = 0;      // gradient-accumulation steps per iteration and DP rank
    int64_t samples_per_step = 0;  // global batch
    int64_t tokens_per_step = 0;
    int64_t replica_degree = 0;    // dp * cp * ulysses: ranks holding identical weights (ZeRO shards over these)
    int64_t vocab_padded = 0;
    int64_t nodes = 0;
};

struct Config {
    Scenario s;          // every optional is engaged after resolve()
    Derived d;
    FrameworkTraits traits;
    std::vector<std::string> notes;  // assumptions made and warnings, shown to the user
};

// Throws InputError naming the offending field.
Config resolve(Scenario scenario);

// The individual steps, exposed for tests.
void apply_defaults(Scenario& s, std::vector<std::string>& notes);
void validate(const Config& c);

}  // namespace shardcalc
