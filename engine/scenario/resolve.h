#pragma once
// Turns a user scenario into a complete configuration: framework conventions fill the
// fields left open (scenario/framework.cpp), derived quantities are computed once, and
// every constraint between fields is checked (scenario/validate.cpp).
#include <string>
#include <vector>

#include "core/error.h"
#include "scenario/framework.h"
#include "scenario/scenario.h"

namespace shardcalc {

struct Derived {
    int64_t world_size = 0;
    int64_t microbatches = 0;      // gradient-accumulation steps per iteration and DP rank
    int64_t tokens_per_step = 0;
    int64_t replica_degree = 0;    // dp * cp * ulysses: ranks holding identical weights (ZeRO shards over these)
    int64_t expert_replica_degree = 0;  // ranks holding the same experts: dp * cp * ulysses * tp / (ep * etp)
    // Expert copies of each token processed: on average top-k (top-k x capacity_factor where that is below 1: the
    // rest are dropped); on the busiest expert-parallel rank top-k times the load (training.expert_imbalance, capped
    // by training.capacity_factor, past which tokens are dropped).
    double routed_mean = 0, routed_busiest = 0;
    int64_t vocab_padded = 0;
    int64_t nodes = 0;
    // The share of a sequence's tokens an encoder's MLM head sees: training.mlm_predictions / seq_len, or 1.
    double mlm_share = 1;
};

struct Config {
    ResolvedScenario s;  // every defaulted field filled
    Derived d;
    FrameworkTraits traits;
    std::vector<std::string> notes;  // assumptions made and warnings, shown to the user
};

// Throws InputError naming the offending field.
Config resolve(Scenario scenario);
// What resolve() checks: every rule of a training plan, or (serving) the model and the device alone, whose other
// rules are the serving engine's (serve/serving.h validate_serving).
enum class Rules { Training, ModelAndDevice };
Config resolve(Scenario scenario, Rules rules);
// As resolve(scenario) for a plan of a valid base scenario, the rules it breaks returned instead of thrown: the plan
// search checks hundreds of thousands of plans, most of them breaking a rule, and an exception each was about a third
// of its time. `c` is complete only where no problem comes back; it carries the notes its defaults gave but not those of
// the resolved plan (the search shows none, and building them for every plan it weighs cost about a tenth of its time).
std::vector<Problem> resolve_checked(const Scenario& scenario, Config& c);

// The tokens a device's experts process per token of its sequence shard: each token's expert copies (on
// average, or on the busiest expert-parallel rank), times the expert-tensor group whose shards are gathered
// under sequence parallelism (Megatron's alltoall dispatcher all-gathers over etp before the expert GEMMs).
double routed_tokens_factor(const Config& c, bool busiest);

// Tokens of one microbatch on one device: in the tensor-parallel region, or in the sequence region (its sp
// shard). The compute, communication and memory models all read it here.
double tokens_per_device(const Config& c, bool tensor_region);

// Megatron's allgather dispatcher: the rows of hidden states each device gathers per MoE layer and microbatch,
// its sequence shard's tokens from every rank of the expert-tensor x expert-parallel group.
double allgather_dispatch_rows(const Config& c);

// The scenario with every defaulted field filled (apply_defaults first) into `out`, and back: the form the echo writes
// and a search or a twin varies (every defaulted field given).
void fill(Scenario&& given, ResolvedScenario& out);
Scenario given_form(const ResolvedScenario& resolved);

// The individual steps, exposed for tests.
void apply_defaults(Scenario& s, std::vector<std::string>& notes);
// Every rule the resolved plan breaks (scenario/validate.cpp), none where it keeps them all.
std::vector<Problem> rule_problems(const Config& c, Rules rules);

}  // namespace shardcalc
