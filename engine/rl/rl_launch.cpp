// verl's Hydra overrides (verl/trainer/config/ppo_trainer.yaml: data, actor_rollout_ref.actor / rollout / ref, critic,
// algorithm, trainer) and TRL's GRPOConfig arguments (trl/trainer/grpo_config.py: num_generations,
// max_completion_length, use_vllm, vllm_mode, vllm_gpu_memory_utilization, vllm_tensor_parallel_size,
// vllm_enable_sleep_mode, beta, num_iterations) and DPOConfig's (trl/trainer/dpo_config.py), the names as those files
// define them.
#include "rl/rl_launch.h"

#include <string>

#include "core/decimal.h"

namespace shardcalc {
namespace {

std::string n(int64_t v) { return std::to_string(v); }
std::string flag(bool b) { return b ? "True" : "False"; }
// A fraction as written in a config (0.5, 0.45).
std::string fraction(double v) {
    std::string s = decimal(v, 3);
    while (s.find('.') != std::string::npos && (s.back() == '0' || s.back() == '.')) s.pop_back();
    return s;
}

LaunchCommand verl(const Config& c, const RlSpec& rl) {
    const bool ppo = rl.algorithm == RlAlgorithm::Ppo;
    const int64_t per_node = std::min(c.s.hardware.gpus_per_node, c.d.world_size);
    LaunchCommand cmd{"verl (python3 -m verl.trainer.main_ppo, Hydra overrides)", {}};
    auto& l = cmd.lines;
    l.push_back(std::string("algorithm.adv_estimator=") + (ppo ? "gae" : "grpo"));
    l.push_back("data.train_batch_size=" + n(rl.prompts));
    l.push_back("data.max_prompt_length=" + n(rl.prompt_tokens));
    l.push_back("data.max_response_length=" + n(rl.response_tokens));
    l.push_back("actor_rollout_ref.rollout.n=" + n(rl.n));
    l.push_back("actor_rollout_ref.actor.ppo_mini_batch_size=" + n(rl.prompts / rl.mini_batches));
    // verl's dynamic batch size packs sequences (use_remove_padding) into micro-batches of at most a token budget,
    // which the log-probability passes inherit (rollout.yaml, ref: log_prob_max_token_len_per_gpu).
    const bool dynamic = rl.max_token_len_per_gpu > 0;
    if (dynamic) {
        l.push_back("actor_rollout_ref.model.use_remove_padding=True");
        l.push_back("actor_rollout_ref.actor.use_dynamic_bsz=True");
        l.push_back("actor_rollout_ref.actor.ppo_max_token_len_per_gpu=" + n(rl.max_token_len_per_gpu));
    } else {
        l.push_back("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=" + n(c.s.training.micro_batch));
    }
    l.push_back("actor_rollout_ref.actor.ppo_epochs=" + n(rl.epochs));
    l.push_back("actor_rollout_ref.actor.use_kl_loss=" + flag(rl.reference));
    l.push_back("actor_rollout_ref.model.enable_gradient_checkpointing=" + flag(c.s.training.recompute != Recompute::None));
    l.push_back("actor_rollout_ref.actor.fsdp_config.param_offload=" + flag(rl.param_offload));
    l.push_back("actor_rollout_ref.actor.fsdp_config.optimizer_offload=" + flag(rl.optimizer_offload));
    if (rl.reference) l.push_back("actor_rollout_ref.ref.fsdp_config.param_offload=" + flag(rl.reference_offload));
    if (!dynamic) {
        const int64_t lp = rl.log_prob_micro_batch > 0 ? rl.log_prob_micro_batch : c.s.training.micro_batch;
        l.push_back("actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=" + n(lp));
        if (rl.reference) l.push_back("actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=" + n(lp));
    }
    l.push_back("actor_rollout_ref.rollout.name=vllm");
    l.push_back("actor_rollout_ref.rollout.tensor_model_parallel_size=" + n(rl.rollout_tp));
    l.push_back("actor_rollout_ref.rollout.gpu_memory_utilization=" + fraction(rl.gpu_memory_utilization));
    l.push_back("actor_rollout_ref.rollout.free_cache_engine=" + flag(rl.sleep));
    if (ppo) {
        if (dynamic) {
            l.push_back("critic.use_dynamic_bsz=True");
            l.push_back("critic.ppo_max_token_len_per_gpu=" + n(rl.max_token_len_per_gpu));
        } else {
            l.push_back("critic.ppo_micro_batch_size_per_gpu=" + n(c.s.training.micro_batch));
        }
        l.push_back("critic.model.fsdp_config.param_offload=" + flag(rl.param_offload));
        l.push_back("critic.model.fsdp_config.optimizer_offload=" + flag(rl.optimizer_offload));
    }
    l.push_back("trainer.nnodes=" + n(c.d.nodes));
    l.push_back("trainer.n_gpus_per_node=" + n(per_node));
    return cmd;
}

// TRL's GRPOTrainer with vLLM colocated on the training GPUs (its PPO and DPO trainers are other classes: not written).
LaunchCommand trl_grpo(const Config& c, const RlSpec& rl) {
    LaunchCommand cmd{"TRL GRPOConfig arguments (vLLM colocated)", {}};
    auto& l = cmd.lines;
    l.push_back("--num_generations " + n(rl.n));
    l.push_back("--max_completion_length " + n(rl.response_tokens));
    l.push_back("--per_device_train_batch_size " + n(c.s.training.micro_batch));
    l.push_back("--gradient_accumulation_steps " + n(c.d.microbatches));
    l.push_back("--num_iterations " + n(rl.epochs));
    l.push_back("--use_vllm --vllm_mode colocate --vllm_tensor_parallel_size " + n(rl.rollout_tp) +
                " --vllm_gpu_memory_utilization " + fraction(rl.gpu_memory_utilization));
    if (rl.sleep) l.push_back("--vllm_enable_sleep_mode");
    l.push_back(rl.reference ? "--beta 0.001  # any beta > 0 loads the reference model" : "--beta 0.0");
    if (c.s.training.recompute != Recompute::None) l.push_back("--gradient_checkpointing");
    return cmd;
}

// TRL's DPOTrainer (trl/trainer/dpo_config.py DPOConfig: max_prompt_length, max_length): a batch counts preference
// pairs, each a chosen and a rejected sequence concatenated into one forward.
LaunchCommand trl_dpo(const Config& c, const RlSpec& rl) {
    LaunchCommand cmd{"TRL DPOConfig arguments", {}};
    auto& l = cmd.lines;
    l.push_back("--max_prompt_length " + n(rl.prompt_tokens));
    l.push_back("--max_length " + n(rl.prompt_tokens + rl.response_tokens));
    l.push_back("--per_device_train_batch_size " + n(c.s.training.micro_batch / 2));
    l.push_back("--gradient_accumulation_steps " + n(c.d.microbatches));
    if (c.s.training.recompute != Recompute::None) l.push_back("--gradient_checkpointing");
    return cmd;
}

}  // namespace

std::vector<LaunchCommand> rl_launch(const Config& c, const RlSpec& rl) {
    if (rl.algorithm == RlAlgorithm::Dpo) return {trl_dpo(c, rl)};
    std::vector<LaunchCommand> out{verl(c, rl)};
    if (rl.algorithm == RlAlgorithm::Grpo) out.push_back(trl_grpo(c, rl));
    return out;
}

}  // namespace shardcalc
