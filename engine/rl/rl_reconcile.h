#pragma once
// verl's per-step metrics set against the RL estimate of their scenario: each phase's seconds (generation, the weight
// sync, the log-probability passes, the updates, the whole step) and the actor process's allocator peaks beside the
// estimate's, the responses' lengths against the scenario's, and what the log implies for the scenario
// (rl.mean_response_tokens, then the actor's GEMM efficiency or host time). Pure arithmetic on plain structs; io/import/verl_log.cpp reads the log.
#include <cstdint>
#include <string>
#include <vector>

#include "core/logged_term.h"
#include "report/time_calibration.h"
#include "rl/rl.h"

namespace shardcalc {

// One step's metrics line ("step:N - key:value - …"); -1 where the line does not have the metric. Seconds, bytes and
// tokens.
struct LoggedRlStep {
    int64_t step = 0;
    double gen = -1, update_weights = -1, old_log_prob = -1, ref = -1, values = -1, update_actor = -1, update_critic = -1;
    double step_seconds = -1;
    double max_allocated = -1, max_reserved = -1;  // the actor process's allocator peaks, read after its update
    double response_mean = -1, response_max = -1, prompt_mean = -1;
};

struct MeasuredRl {
    std::vector<LoggedRlStep> steps;  // in the log's order, each with at least one metric read
};

struct RlReconciliation {
    int64_t steps_read = 0, steps_used = 0;  // the log's steps, and those the medians are over
    bool first_dropped = false;              // the first step was left out (its rollout warms up); not when it is the only one
    std::vector<LoggedTerm> terms;           // seconds in the step's order, then the allocator peaks
    // What the log implies for the scenario: the responses' mean length (rl.mean_response_tokens).
    bool has_mean_response = false;
    int64_t implied_mean_response_tokens = 0;
    bool has_mean_prompt = false;  // and the prompts' (rl.mean_prompt_tokens)
    int64_t implied_mean_prompt_tokens = 0;
    // And the GEMM efficiency or the host's time per launch at which the estimate's update takes the log's (the actor's
    // updates over their count), once the responses' mean is the log's.
    bool has_time_calibration = false;
    TimeCalibration time;
    std::vector<std::string> findings, unknowns;  // in words
};

RlReconciliation reconcile_rl(const RlSpec& rl, const RlEstimate& e, const MeasuredRl& log);

}  // namespace shardcalc
