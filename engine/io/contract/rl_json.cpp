#include "io/contract/rl_json.h"

#include "io/codec/json_reader.h"
#include "io/codec/json_writer.h"
#include "io/contract/logged_term_json.h"
#include "io/contract/reconcile_io.h"
#include "rl/rl_launch.h"
#include "scenario/names.h"

namespace shardcalc {

template <>
const std::vector<std::pair<RlAlgorithm, const char*>>& enum_names<RlAlgorithm>() {
    static const std::vector<std::pair<RlAlgorithm, const char*>> t{
        {RlAlgorithm::Grpo, "grpo"}, {RlAlgorithm::Ppo, "ppo"}, {RlAlgorithm::Dpo, "dpo"}};
    return t;
}

namespace {
constexpr int64_t kTokens = int64_t{1} << 26;  // as training.seq_len
constexpr int64_t kCount = int64_t{1} << 24;
}  // namespace

RlSpec rl_spec_from_json(const nlohmann::json* j) {
    RlSpec rl;
    if (!j) return rl;
    ObjectReader r(*j, "/rl");
    assign(rl.algorithm, r.choice<RlAlgorithm>("algorithm"));
    if (rl.algorithm == RlAlgorithm::Dpo) rl.n = 2;
    assign(rl.prompts, r.integer("prompts", 1, kCount));
    assign(rl.n, r.integer("n", 1, 1 << 16));
    assign(rl.prompt_tokens, r.integer("prompt_tokens", 1, kTokens));
    assign(rl.response_tokens, r.integer("response_tokens", 1, kTokens));
    assign(rl.mean_response_tokens, r.integer("mean_response_tokens", 0, kTokens));
    assign(rl.mean_prompt_tokens, r.integer("mean_prompt_tokens", 0, kTokens));
    assign(rl.mini_batches, r.integer("mini_batches", 1, kCount));
    assign(rl.epochs, r.integer("epochs", 1, 1 << 10));
    assign(rl.reference, r.boolean("reference"));
    assign(rl.log_prob_micro_batch, r.integer("log_prob_micro_batch", 0, 1 << 16));
    assign(rl.max_token_len_per_gpu, r.integer("max_token_len_per_gpu", 0, kTokens));
    assign(rl.rollout_tp, r.integer("rollout_tp", 1, 1 << 16));
    assign(rl.gpu_memory_utilization, r.number("gpu_memory_utilization", 0.01, 1));
    assign(rl.sleep, r.boolean("sleep"));
    assign(rl.param_offload, r.boolean("param_offload"));
    assign(rl.reference_offload, r.boolean("reference_offload"));
    assign(rl.optimizer_offload, r.boolean("optimizer_offload"));
    r.finish();
    return rl;
}

nlohmann::json rl_to_json(const RlSpec& rl, const RlEstimate& e, const RlLimits& limits) {
    using nlohmann::json;
    json phases = json::array();
    for (const RlPhase& p : e.phases)
        phases.push_back({{"phase", p.name},
                          {"total_bytes", whole(p.total())},
                          {"actor_bytes", whole(p.actor)},
                          {"reference_bytes", whole(p.reference)},
                          {"critic_bytes", whole(p.critic)},
                          {"rollout_weights_bytes", whole(p.rollout_weights)},
                          {"rollout_activations_bytes", whole(p.rollout_activations)},
                          {"kv_cache_bytes", whole(p.kv_cache)},
                          {"logits_bytes", whole(p.logits)},
                          {"overhead_bytes", whole(p.overhead)},
                          {"host_bytes", whole(p.host)}});
    json tp = json::array();
    for (const RlLimits::RolloutTp& t : limits.rollout_tp)
        tp.push_back({{"rollout_tp", t.tp}, {"fits", t.fits}, {"rollout_seconds", t.rollout_seconds}});
    const Config& c = e.training.config;
    json launch = json::array();
    for (const LaunchCommand& l : rl_launch(c, rl)) launch.push_back({{"tool", l.tool}, {"lines", l.lines}});
    // The rl object as read, every field with its value: with the report's scenario it reproduces this answer.
    const json request = {{"algorithm", name_of(rl.algorithm)},
                          {"prompts", rl.prompts},
                          {"n", rl.n},
                          {"prompt_tokens", rl.prompt_tokens},
                          {"response_tokens", rl.response_tokens},
                          {"mean_response_tokens", rl.mean_response_tokens},
                          {"mean_prompt_tokens", rl.mean_prompt_tokens},
                          {"mini_batches", rl.mini_batches},
                          {"epochs", rl.epochs},
                          {"reference", rl.reference},
                          {"log_prob_micro_batch", rl.log_prob_micro_batch},
                          {"max_token_len_per_gpu", rl.max_token_len_per_gpu},
                          {"rollout_tp", rl.rollout_tp},
                          {"gpu_memory_utilization", rl.gpu_memory_utilization},
                          {"sleep", rl.sleep},
                          {"param_offload", rl.param_offload},
                          {"reference_offload", rl.reference_offload},
                          {"optimizer_offload", rl.optimizer_offload}};
    return {
        {"algorithm", name_of(rl.algorithm)},
        {"request", request},
        {"samples", e.samples},
        {"sequence_tokens", c.s.training.seq_len},
        {"gpus", c.d.world_size},
        {"device", c.s.hardware.name},
        {"rollout",
         {{"tp", rl.rollout_tp},
          {"replicas", e.replicas},
          {"concurrency", e.concurrency},
          {"waves", e.waves},
          {"kv_cache_bytes", whole(e.rollout.kv_available)},
          {"max_concurrency", e.rollout.max_concurrency},
          {"decode_step_seconds", e.decode_step_seconds}}},
        {"memory",
         {{"capacity_bytes", whole(e.capacity)},
          {"fits", e.fits},
          {"peak_phase", e.phases[e.peak_phase].name},
          {"training_verdict", verdict_name(e.training.verdict.verdict)},
          {"host_per_node_bytes", whole(e.host_per_node)},
          {"host_peak_phase", e.phases[e.host_peak_phase].name},
          {"processes_per_node", e.processes_per_node},
          {"phases", std::move(phases)}}},
        {"time",
         {{"reshard_seconds", e.reshard_seconds},
          {"rollout_seconds", e.rollout_seconds},
          {"log_prob_seconds", e.log_prob_seconds},
          {"training_seconds", e.training_seconds},
          {"step_seconds", e.step_seconds()},
          {"update_seconds", e.timed.perf.step_seconds},
          {"response_tokens_per_second", e.response_tokens_per_second}}},
        {"limits",
         {{"micro_batch", limits.micro_batch},
          {"max_token_len_per_gpu", limits.max_token_len_per_gpu},
          {"n", limits.n},
          {"n_unbounded", limits.n_unbounded},
          {"response_tokens", limits.response_tokens},
          {"gpu_memory_utilization_min", limits.gpu_memory_utilization_min},
          {"gpu_memory_utilization_max", limits.gpu_memory_utilization_max},
          {"rollout_tp", std::move(tp)}}},
        {"launch", std::move(launch)},
    };
}

nlohmann::json rl_reconciliation_json(const RlReconciliation& r) {
    return {{"source", "verl"},
            {"steps", {{"read", r.steps_read}, {"used", r.steps_used}, {"first_dropped", r.first_dropped}}},
            {"terms", logged_terms_json(r.terms)},
            {"calibration", implied_fields_json(implied_fields(r))},
            {"findings", r.findings},
            {"unknowns", r.unknowns}};
}

}  // namespace shardcalc
