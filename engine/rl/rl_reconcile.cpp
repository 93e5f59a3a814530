#include "rl/rl_reconcile.h"

#include <algorithm>
#include <cmath>

#include "core/decimal.h"
#include "core/error.h"
#include "core/median.h"
#include "memory/out_of_memory.h"

namespace shardcalc {

namespace {

// The median of one metric over the steps that have it; -1 where none does.
double median_of(const std::vector<LoggedRlStep>& steps, double LoggedRlStep::*metric) {
    std::vector<double> v;
    for (const LoggedRlStep& s : steps)
        if (s.*metric >= 0) v.push_back(s.*metric);
    return v.empty() ? -1 : median(std::move(v));
}

const RlPhase* phase_named(const RlEstimate& e, const std::string& name) {
    for (const RlPhase& p : e.phases)
        if (name == p.name) return &p;
    return nullptr;
}

}  // namespace

RlReconciliation reconcile_rl(const RlSpec& rl, const RlEstimate& e, const MeasuredRl& log) {
    if (rl.algorithm == RlAlgorithm::Dpo)
        throw InputError("/rl/algorithm", "the log is verl's RL trainer's (a rollout every step): set it against a grpo or ppo plan");
    RlReconciliation r;
    r.steps_read = static_cast<int64_t>(log.steps.size());
    // The first step also warms up (the rollout engine's first generation and graph capture, the first update's
    // allocations); the steps after it are the run's pace.
    r.first_dropped = log.steps.size() > 1;
    const std::vector<LoggedRlStep> used(log.steps.begin() + (r.first_dropped ? 1 : 0), log.steps.end());
    r.steps_used = static_cast<int64_t>(used.size());
    const auto of = [&](double LoggedRlStep::*metric) { return median_of(used, metric); };
    const auto term = [&](const char* key, const char* label, double logged, double estimate, LoggedUnit unit = LoggedUnit::Seconds) {
        if (logged >= 0) r.terms.push_back({key, label, logged, estimate, estimate - logged, unit});
    };
    const bool ppo = rl.algorithm == RlAlgorithm::Ppo;

    // Time, phase by phase (verl/trainer/ppo/ray_trainer.py marks each with its timer). Where verl times the weight
    // sync apart (timing_s/update_weights, after the update), generation is the rollout alone; before, the rollout's
    // sharding manager loaded the weights inside generate_sequences, so timing_s/gen holds both.
    const double gen = of(&LoggedRlStep::gen), sync = of(&LoggedRlStep::update_weights);
    if (sync >= 0) {
        term("generation_seconds", "generation (timing_s/gen)", gen, e.rollout_seconds);
        term("weight_sync_seconds", "weight sync (timing_s/update_weights)", sync, e.reshard_seconds);
    } else {
        term("generation_seconds", "generation with the weight sync (timing_s/gen)", gen, e.rollout_seconds + e.reshard_seconds);
    }
    const double old = of(&LoggedRlStep::old_log_prob), ref = of(&LoggedRlStep::ref), values = of(&LoggedRlStep::values);
    const double actor = of(&LoggedRlStep::update_actor), critic = of(&LoggedRlStep::update_critic);
    term("old_log_prob_seconds", "old policy's log-probabilities (timing_s/old_log_prob)", old, e.log_prob_pass_seconds);
    if (rl.reference) term("ref_seconds", "reference's log-probabilities (timing_s/ref)", ref, e.log_prob_pass_seconds);
    else if (ref >= 0)
        r.findings.push_back("the log has a reference pass (timing_s/ref) where the scenario has no reference policy: set rl.reference");
    if (ppo) term("values_seconds", "critic's values (timing_s/values)", values, e.log_prob_pass_seconds);
    else if (values >= 0 || critic >= 0)
        r.findings.push_back("the log has a critic (timing_s/values, timing_s/update_critic) where the scenario's algorithm has "
                             "none: set rl.algorithm to ppo");
    term("update_actor_seconds", "actor's updates (timing_s/update_actor)", actor, e.actor_update_seconds);
    if (ppo) term("update_critic_seconds", "critic's updates (timing_s/update_critic)", critic, e.actor_update_seconds);
    const double step = of(&LoggedRlStep::step_seconds);
    term("step_seconds", "step (timing_s/step)", step, e.step_seconds());
    // What verl also times within the step and the estimate does not price: the reward, the advantages, checkpoints,
    // validation.
    double phases = 0;
    for (const double s : {gen, sync, old, ref, values, actor, critic})
        if (s > 0) phases += s;
    if (step > 0 && step - phases > 0.02 * step)
        r.findings.push_back(decimal(step - phases, 2) + " s of the log's step (" + decimal(100 * (step - phases) / step, 1) +
                             "%) is outside the phases above (verl's reward, advantages, checkpoints, validation): the estimate "
                             "does not price it");

    // The actor process's allocator peaks (verl's fsdp_workers.py update_actor: torch.cuda.max_memory_allocated() and
    // max_memory_reserved() over 2^30), against the update's: the actor's training peak with the reference and critic
    // it keeps on the GPU then.
    const RlPhase* training = phase_named(e, "training");
    const RlPhase* rollout = phase_named(e, "rollout");
    const double kept = training ? training->reference + training->critic : 0;
    const double allocated = of(&LoggedRlStep::max_allocated), reserved = of(&LoggedRlStep::max_reserved);
    const double estimated_allocated = e.training.peak().allocated() + kept;
    term("max_allocated_bytes", "actor process's allocated peak (perf/max_memory_allocated_gb)", allocated, estimated_allocated,
         LoggedUnit::Bytes);
    term("max_reserved_bytes", "actor process's reserved peak (perf/max_memory_reserved_gb)", reserved,
         e.training.peak().reserved() + kept, LoggedUnit::Bytes);
    if (allocated >= 0) {
        r.unknowns.push_back("which phase verl's allocator peaks come from: they are its process's peaks up to the end of the "
                             "update, and they hold the rollout engine's memory where the engine allocates through PyTorch in "
                             "the actor's process (vLLM in verl's hybrid engine), not where it runs in processes of its own");
        if (rollout && allocated > 1.1 * estimated_allocated)
            r.findings.push_back("the log's allocated peak is " + allocator_size_text(allocated - estimated_allocated) +
                                 " above the estimate's update; the rollout engine's weights, activations and KV cache, were "
                                 "they counted in the same process, are " +
                                 allocator_size_text(rollout->rollout_weights + rollout->rollout_activations + rollout->kv_cache));
    }

    // The sequences' lengths: their means set the estimate's time, the longest its memory.
    const double response = of(&LoggedRlStep::response_mean), longest = of(&LoggedRlStep::response_max);
    const double prompt = of(&LoggedRlStep::prompt_mean);
    term("response_mean_tokens", "responses' mean length (response_length/mean)", response,
         static_cast<double>(rl.mean_response()), LoggedUnit::Count);
    term("prompt_mean_tokens", "prompts' mean length (prompt_length/mean)", prompt, static_cast<double>(rl.mean_prompt()),
         LoggedUnit::Count);
    // The means the log implies (rl.mean_response_tokens, rl.mean_prompt_tokens), rounded within the longest.
    const auto implied_mean = [](double logged, int64_t longest, int64_t current, bool& has, int64_t& value) {
        if (logged < 0) return;
        const int64_t mean = std::clamp<int64_t>(std::llround(logged), 1, longest);
        if (mean != current) has = true, value = mean;
    };
    implied_mean(response, rl.response_tokens, rl.mean_response(), r.has_mean_response, r.implied_mean_response_tokens);
    implied_mean(prompt, rl.prompt_tokens, rl.mean_prompt(), r.has_mean_prompt, r.implied_mean_prompt_tokens);
    // What the actor's updates imply for its GEMMs or its host (report/time_calibration.h), as `shardcalc reconcile`
    // reads a training step: one update is the log's updates over their count. Only at the log's mean lengths, which
    // their time depends on.
    if (actor > 0 && (r.has_mean_response || r.has_mean_prompt)) {
        r.unknowns.push_back("the GEMM efficiency or host time the actor's updates imply: keep the sequences' mean lengths "
                             "first (their time depends on them), then compare again");
    } else if (actor > 0) {
        const Config& c = e.timed.config;
        r.has_time_calibration = true;
        r.time = implied_time_calibration(c, actor / static_cast<double>(rl.mini_batches * rl.epochs));
        if (const std::string f = time_calibration_finding(r.time, c, "the log's actor update"); !f.empty()) r.findings.push_back(f);
    }
    if (longest > static_cast<double>(rl.response_tokens))
        r.findings.push_back("the log's longest response (" + decimal(longest, 0) + " tokens) is longer than rl.response_tokens (" +
                             std::to_string(rl.response_tokens) + "): every phase's memory is sized for shorter ones");
    if (gen < 0 && step < 0)
        r.unknowns.push_back("the phases' times: the log's step lines have no timing_s metrics (cut short?)");
    return r;
}

}  // namespace shardcalc
