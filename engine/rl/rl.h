#pragma once
// RL post-training (GRPO, PPO) and preference training (DPO) of a decoder as verl's hybrid engine and TRL run them on
// one set of GPUs: each step the rollout engine (vLLM) generates `n` responses to each prompt, the actor (with the
// frozen reference and, for PPO, the critic) computes log-probabilities over them, and the actor (and critic) trains on
// them; before each rollout the actor's weights are resharded into the rollout engine. Per phase the memory of one GPU,
// and the step's time (docs/rl.md). The actor's training plan is the scenario's; the rollout replica is the serving
// model's (serve/serving.h) at the rollout's tensor parallelism.
#include <cstdint>
#include <vector>

#include "report/report.h"
#include "serve/serving.h"

namespace shardcalc {

enum class RlAlgorithm { Grpo, Ppo, Dpo };

struct RlSpec {
    RlAlgorithm algorithm = RlAlgorithm::Grpo;
    int64_t prompts = 256;           // per step (verl data.train_batch_size)
    int64_t n = 8;                   // responses per prompt (verl rollout.n, TRL num_generations); DPO: its pair, 2
    int64_t prompt_tokens = 512;     // verl data.max_prompt_length
    int64_t response_tokens = 1024;  // verl data.max_response_length (TRL max_completion_length)
    // The responses' mean length (0: every response at response_tokens): generation ends each sequence there, and
    // verl's use_remove_padding and TRL's padding-free packing process its real tokens only. Memory stays sized by
    // the longest (response_tokens).
    int64_t mean_response_tokens = 0;
    int64_t mean_response() const { return mean_response_tokens > 0 ? mean_response_tokens : response_tokens; }
    // The prompts' mean length (0: every prompt at prompt_tokens), which sets the time likewise: each prompt's prefill,
    // and the real tokens the log-probability passes and updates process.
    int64_t mean_prompt_tokens = 0;
    int64_t mean_prompt() const { return mean_prompt_tokens > 0 ? mean_prompt_tokens : prompt_tokens; }
    int64_t mini_batches = 1;        // optimizer updates per epoch: train_batch_size / ppo_mini_batch_size
    int64_t epochs = 1;              // verl ppo_epochs, TRL num_iterations
    bool reference = true;           // a frozen reference policy for the KL term (verl use_kl_loss, TRL beta > 0)
    int64_t log_prob_micro_batch = 0;  // samples per GPU of a log-probability forward (0: training.micro_batch)
    // verl's dynamic batch size (actor.use_dynamic_bsz with ppo_max_token_len_per_gpu, which the log-probability passes
    // inherit): each GPU's sequences of an update split into ceil(tokens / this) micro-batches balanced by tokens
    // (verl/utils/seqlen_balancing.py rearrange_micro_batches), training.micro_batch and log_prob_micro_batch unused;
    // 0: micro-batches of training.micro_batch sequences.
    int64_t max_token_len_per_gpu = 0;
    int64_t rollout_tp = 1;          // verl rollout.tensor_model_parallel_size, TRL vllm_tensor_parallel_size
    double gpu_memory_utilization = 0.5;  // the rollout engine's share of each GPU (verl rollout.gpu_memory_utilization)
    // Between rollouts the engine frees its KV cache and moves its weights to the host (vLLM's sleep mode: verl
    // free_cache_engine, TRL vllm_enable_sleep_mode); otherwise both stay on the GPUs through training.
    bool sleep = true;
    bool param_offload = false;      // verl actor fsdp_config.param_offload: the actor's weights on the host outside its phases
    bool reference_offload = false;  // verl ref fsdp_config.param_offload: the reference's weights on the host outside its pass
    bool optimizer_offload = false;  // verl fsdp_config.optimizer_offload
};

// One phase's memory on a GPU (bytes), its parts.
struct RlPhase {
    const char* name = "";          // rollout | log_probs | training
    double actor = 0;               // the actor's weights, gradients and optimizer states (its training peak in training)
    double reference = 0;           // the reference policy's weights
    double critic = 0;              // PPO's critic: its weights, gradients and optimizer states
    double rollout_weights = 0, rollout_activations = 0, kv_cache = 0;  // the rollout engine's
    double logits = 0;              // a log-probability forward's fp32 logits and log-softmax
    double overhead = 0;            // the CUDA context and library handles, once per process
    // In host memory for this GPU's process (not in total()): what verl offloads while the phase does not use it (the
    // actor's weights and gradients, its optimizer states, the reference) and a sleeping rollout engine's weights.
    double host = 0;
    double total() const {
        return actor + reference + critic + rollout_weights + rollout_activations + kv_cache + logits + overhead;
    }
};

struct RlEstimate {
    Report training;           // one optimizer update of the actor: the scenario with the RL batch and longest sequence
    Report timed;              // the same at the mean sequence, which sets the log-probability passes' and updates' time
    ServingEstimate rollout;   // one rollout replica (rollout_tp GPUs) at the concurrency it runs, sized at the longest sequence
    // Its prefill of one prompt and its decode step at the sequences' mean lengths (the rollout's time; the same as the
    // rollout's own where no mean is given).
    double prefill_seconds = 0, decode_step_seconds = 0;
    int64_t samples = 0;       // sequences per step: prompts x n
    int64_t replicas = 0;      // rollout replicas on the actor's GPUs
    int64_t concurrency = 0;   // sequences one replica generates at once
    int64_t waves = 0;         // rounds of generation per replica and step
    std::vector<RlPhase> phases;
    size_t peak_phase = 0;
    double capacity = 0;
    bool fits = false;         // every phase within the GPU, and the rollout's KV cache holds at least one sequence
    // Host memory of one node: its processes (one per GPU, as verl and TRL run) times the most one holds in a phase.
    int64_t processes_per_node = 1;
    double host_per_node = 0;
    size_t host_peak_phase = 0;
    // Seconds per step, in the order they run.
    double reshard_seconds = 0, rollout_seconds = 0, log_prob_seconds = 0, training_seconds = 0;
    double log_prob_pass_seconds = 0;  // one log-probability pass over the step's sequences (old policy, reference or values)
    double actor_update_seconds = 0;   // the actor's updates of the step (PPO's critic takes as long again)
    double step_seconds() const { return reshard_seconds + rollout_seconds + log_prob_seconds + training_seconds; }
    double response_tokens_per_second = 0;  // tokens generated per step over the step
};

// The RL plan's rules (each names its field): a decoder on GPUs, one pipeline stage (verl's FSDP workers), the batch
// splitting evenly, the rollout's tensor parallelism dividing the GPUs; the serving rules of the rollout replica.
void validate_rl(const Scenario& actor, const RlSpec& rl);
RlEstimate rl_estimate(const Scenario& actor, const RlSpec& rl);

// The largest settings of one plan that fit, each alone, the others as given (0 where none does), and each rollout
// tensor-parallel size that divides the GPUs with its verdict and rollout time.
struct RlLimits {
    int64_t micro_batch = 0, n = 0, response_tokens = 0;
    int64_t max_token_len_per_gpu = 0;  // under the dynamic batch size: micro_batch whole sequences at the longest
    bool n_unbounded = false;  // every n tried fits: the step's memory does not grow with it (its time does)
    // The rollout engine's share of each GPU that fits, in hundredths (0 and 0 where none does): above the range the
    // rollout phase overflows the GPU, below it the KV cache cannot hold one sequence.
    double gpu_memory_utilization_min = 0, gpu_memory_utilization_max = 0;
    struct RolloutTp {
        int64_t tp = 0;
        bool fits = false;
        double rollout_seconds = 0;
    };
    std::vector<RolloutTp> rollout_tp;
};
RlLimits rl_limits(const Scenario& actor, const RlSpec& rl);

}  // namespace shardcalc
