// RL post-training (rl/rl.h): each phase's memory and the step's time composed from the actor's training estimate and
// the rollout replica's serving estimate, checked term by term on a small model.
#include <cmath>

#include "helpers.h"
#include "io/contract/rl_json.h"
#include "rl/rl.h"
#include "rl/rl_launch.h"

using namespace shardcalc;

namespace {

// A 1.3B-class decoder on 8 H100s under FSDP full sharding; GRPO, 64 prompts x 4 responses of 256 + 512 tokens.
Scenario actor(const std::string& extra_parallel = "", const std::string& extra_training = "", const std::string& extra_hardware = "") {
    return test::scenario(R"({"framework":"fsdp","model":{"layers":16,"hidden":2048,"heads":16,"ffn_hidden":5504,"vocab":32000,)"
                          R"("max_positions":4096,"mlp":"swiglu","norm":"rmsnorm","position_embedding":"rope","bias":false,)"
                          R"("tied_embeddings":false},"training":{"micro_batch":2,"recompute":"full")" + extra_training +
                          R"(},"parallel":{"dp":8,"zero":3)" + extra_parallel + R"(},"hardware":{"preset":"h100-sxm-80gb")" + extra_hardware + "}}");
}

RlSpec grpo() {
    RlSpec rl;
    rl.prompts = 64;
    rl.n = 4;
    rl.prompt_tokens = 256;
    rl.response_tokens = 512;
    rl.mini_batches = 2;
    rl.rollout_tp = 2;
    rl.gpu_memory_utilization = 0.4;
    return rl;
}

const RlPhase& phase(const RlEstimate& e, const std::string& name) {
    for (const RlPhase& p : e.phases)
        if (name == p.name) return p;
    FAIL("no phase " << name);
    return e.phases.front();
}

// An example of examples/rl: its scenario as the actor, its rl object.
RlEstimate example(const std::string& path) {
    nlohmann::json s = nlohmann::json::parse(test::repo_file(path));
    const RlSpec rl = rl_spec_from_json(&s["rl"]);
    s.erase("rl");
    return rl_estimate(scenario_from_json(s), rl);
}

}  // namespace

TEST_CASE("rl: the actor's update is the scenario with the RL sequence and one mini-batch of sequences") {
    const RlEstimate e = rl_estimate(actor(), grpo());
    CHECK(e.samples == 256);
    CHECK(e.training.config.s.training.seq_len == 768);
    CHECK(e.training.config.s.training.global_batch == 128);  // 256 sequences over 2 updates
    CHECK(e.training.config.d.microbatches == 8);         // 128 / (2 x 8 ranks)
}

TEST_CASE("rl: each phase's memory, term by term") {
    const RlSpec rl = grpo();
    const RlEstimate e = rl_estimate(actor(), rl);
    const StageMemory& m = e.training.peak();
    const double capacity = e.capacity;
    const RlPhase& rollout = phase(e, "rollout");
    // The actor outside its update: weights, last gradients and optimizer states; the bf16 reference sharded over 8.
    CHECK(rollout.actor == doctest::Approx(m.weights + m.gradients + m.optimizer));
    CHECK(rollout.reference == doctest::Approx(e.training.parameters.total * 2 / 8));
    // vLLM's share: gpu_memory_utilization of the GPU, its weights at tp 2, activations and the KV cache.
    CHECK(rollout.rollout_weights + rollout.rollout_activations + rollout.kv_cache == doctest::Approx(0.4 * capacity));
    CHECK(rollout.rollout_weights == doctest::Approx(e.training.parameters.total * 2 / 2).epsilon(0.01));
    // The training phase: the update's own peak (with the allocator's reserve) beside the reference; the sleeping
    // rollout engine holds nothing.
    const RlPhase& training = phase(e, "training");
    CHECK(training.actor + training.overhead == doctest::Approx(m.total()));
    CHECK(training.rollout_weights == 0);
    CHECK(training.kv_cache == 0);
    // Log-probabilities: one micro-batch's logits in bf16.
    CHECK(phase(e, "log_probs").logits == doctest::Approx(2.0 * 2 * 768 * 32000));
    // Without sleep the engine's weights and KV cache stay through training.
    RlSpec awake = rl;
    awake.sleep = false;
    const RlEstimate a = rl_estimate(actor(), awake);
    CHECK(phase(a, "training").kv_cache == doctest::Approx(rollout.kv_cache));
    CHECK(phase(a, "training").total() > training.total());
    // Offloading the actor's weights and states empties its share of the rollout phase.
    RlSpec off = rl;
    off.param_offload = off.optimizer_offload = off.reference_offload = true;
    CHECK(phase(rl_estimate(actor(), off), "rollout").actor == 0);
    CHECK(phase(rl_estimate(actor(), off), "rollout").reference == 0);
}

TEST_CASE("rl: the host memory of each GPU's process: what verl offloads while a phase does not use it, a sleeping engine's weights") {
    const RlSpec rl = grpo();
    const RlEstimate e = rl_estimate(actor(), rl);
    const StageMemory& m = e.training.peak();
    const double rollout_weights = phase(e, "rollout").rollout_weights;
    const double reference = phase(e, "log_probs").reference;
    // Nothing offloaded: only the sleeping engine's weights (vLLM's sleep, level 1) outside the rollout.
    CHECK(phase(e, "rollout").host == 0);
    CHECK(phase(e, "log_probs").host == doctest::Approx(rollout_weights));
    CHECK(phase(e, "training").host == doctest::Approx(rollout_weights));
    // A node of 8 GPUs: 8 processes, each holding the most of its phases.
    CHECK(e.processes_per_node == 8);
    CHECK(e.host_per_node == doctest::Approx(8 * rollout_weights));
    // Awake, the engine keeps its weights on the GPU.
    RlSpec awake = rl;
    awake.sleep = false;
    const RlEstimate a = rl_estimate(actor(), awake);
    for (const RlPhase& p : a.phases) CHECK(p.host == 0);
    CHECK(a.host_per_node == 0);
    // Everything offloaded: the actor's states and the reference on the host in the rollout; in the log-probability
    // passes the actor's gradients and optimizer states and the engine's weights (the weights and the reference are
    // back for their forwards); in the update the reference and the engine's weights.
    RlSpec off = rl;
    off.param_offload = off.optimizer_offload = off.reference_offload = true;
    const RlEstimate o = rl_estimate(actor(), off);
    CHECK(phase(o, "rollout").host == doctest::Approx(m.weights + m.gradients + m.optimizer + reference));
    CHECK(phase(o, "log_probs").host == doctest::Approx(m.gradients + m.optimizer + rollout_weights));
    CHECK(phase(o, "training").host == doctest::Approx(reference + rollout_weights));
    // What a phase holds on the GPU and on the host together is the same whatever is offloaded (the states move).
    CHECK(phase(o, "rollout").host + phase(o, "rollout").actor + phase(o, "rollout").reference ==
          doctest::Approx(phase(e, "rollout").host + phase(e, "rollout").actor + phase(e, "rollout").reference));
    // A host of 4 GPUs holds 4 processes.
    const RlEstimate four = rl_estimate(actor("", "", R"(,"gpus_per_node":4)"), rl);
    CHECK(four.processes_per_node == 4);
}

TEST_CASE("rl: with an adapter the reference is the actor's own frozen base, no copy") {
    Scenario s = actor();
    s.framework = Framework::Pytorch;
    s.parallel.zero = 0;
    s.adapter.method = AdapterMethod::Lora;
    const RlEstimate e = rl_estimate(s, grpo());
    CHECK(phase(e, "log_probs").reference == 0);
    CHECK(e.training.parameters.trained < e.training.parameters.total / 50);
    // Its pass still runs: old policy and reference, two mini-batches.
    double forward = 0;
    for (const auto& [key, sec] : e.training.perf.breakdown)
        if (key == "forward_compute" || key == "forward_host_wait") forward += sec;
    CHECK(e.log_prob_seconds == doctest::Approx(2 * 2 * forward));
}

TEST_CASE("rl: the step is resharding, rollout in waves, log-probability passes and the updates") {
    const RlSpec rl = grpo();
    const RlEstimate e = rl_estimate(actor(), rl);
    CHECK(e.replicas == 4);
    CHECK(e.concurrency <= e.rollout.max_concurrency);
    CHECK(e.waves * e.concurrency >= 64);  // 256 sequences over 4 replicas
    // Every prompt's prefill, then the decode steps its sequences' tokens need at that concurrency (at least the
    // longest response's).
    const double steps = std::max(512.0, std::ceil(64.0 * 512 / e.concurrency));
    CHECK(e.rollout_seconds == doctest::Approx(64 * e.rollout.prefill_seconds + steps * e.rollout.decode_step_seconds));
    // Without means the rollout is timed as sized.
    CHECK(e.decode_step_seconds == e.rollout.decode_step_seconds);
    CHECK(e.prefill_seconds == e.rollout.prefill_seconds);
    double forward = 0;
    for (const auto& [key, s] : e.training.perf.breakdown)
        if (key == "forward_compute" || key == "forward_host_wait") forward += s;
    CHECK(e.log_prob_seconds == doctest::Approx(2 * 2 * forward));  // old policy and reference, two mini-batches
    CHECK(e.training_seconds == doctest::Approx(2 * e.training.perf.step_seconds));
    CHECK(e.step_seconds() == doctest::Approx(e.reshard_seconds + e.rollout_seconds + e.log_prob_seconds + e.training_seconds));
    CHECK(e.response_tokens_per_second == doctest::Approx(256.0 * 512 / e.step_seconds()));
    // PPO adds the critic's values and its update; DPO has no rollout and no old-policy pass.
    RlSpec ppo = rl;
    ppo.algorithm = RlAlgorithm::Ppo;
    const RlEstimate p = rl_estimate(actor(), ppo);
    CHECK(p.log_prob_seconds == doctest::Approx(3 * 2 * forward));
    CHECK(p.training_seconds == doctest::Approx(2 * e.training_seconds));
    CHECK(phase(p, "rollout").critic == doctest::Approx(phase(p, "rollout").actor));
    RlSpec dpo = rl;
    dpo.algorithm = RlAlgorithm::Dpo;
    dpo.n = 2;
    const RlEstimate d = rl_estimate(actor(), dpo);
    CHECK(d.rollout_seconds == 0);
    CHECK(d.phases.size() == 2);
    CHECK(d.samples == 128);
    // TRL's DPO flags count pairs: a micro-batch of 2 sequences is one pair.
    std::string dpo_flags;
    for (const LaunchCommand& cmd : rl_launch(d.training.config, dpo))
        for (const std::string& line : cmd.lines) dpo_flags += line + "\n";
    CHECK(dpo_flags.find("--per_device_train_batch_size 1\n") != std::string::npos);
    CHECK(dpo_flags.find("--max_length 768\n") != std::string::npos);
}

TEST_CASE("rl: responses of a mean length shorter than the longest take less time, the same memory") {
    RlSpec rl = grpo();
    const RlEstimate full = rl_estimate(actor(), rl);
    rl.mean_response_tokens = 128;
    const RlEstimate mean = rl_estimate(actor(), rl);
    CHECK(mean.phases[mean.peak_phase].total() == full.phases[full.peak_phase].total());
    CHECK(mean.timed.config.s.training.seq_len == 256 + 128);
    CHECK(mean.training_seconds == doctest::Approx(2 * mean.timed.perf.step_seconds));
    // Half the tokens: about half the work (this small model's update is bound by the host's launches, so its time
    // barely moves; a larger one's would).
    CHECK(mean.timed.perf.model_flops < 0.6 * full.training.perf.model_flops);
    CHECK(mean.training_seconds <= full.training_seconds);
    // The rollout still waits for the longest response: 512 decode steps at least.
    CHECK(mean.rollout_seconds >= 512 * mean.decode_step_seconds);
    CHECK(mean.rollout_seconds <= full.rollout_seconds);
    // Its decode steps read the mean context, not the longest: no slower than the rollout sized at the longest; and
    // shorter sequences share the KV cache among at least as many at once.
    CHECK(mean.decode_step_seconds <= mean.rollout.decode_step_seconds);
    CHECK(mean.concurrency >= full.concurrency);
    // Where the KV cache binds (64 responses a prompt: 1,024 sequences a replica), the mean lengths' hold more at once.
    RlSpec many = grpo();
    many.n = 64;
    const RlEstimate many_full = rl_estimate(actor(), many);
    many.mean_response_tokens = 128;
    const RlEstimate many_mean = rl_estimate(actor(), many);
    REQUIRE(many_full.concurrency == many_full.rollout.max_concurrency);  // the cache binds at the longest
    CHECK(many_mean.concurrency > many_full.concurrency);
    CHECK(many_mean.waves <= many_full.waves);
    rl.mean_response_tokens = 513;
    CHECK_THROWS_AS(rl_estimate(actor(), rl), InputError);
}

TEST_CASE("rl: prompts of a mean length shorter than the longest: less time in prefill and updates, the same memory") {
    RlSpec rl = grpo();
    const RlEstimate full = rl_estimate(actor(), rl);
    rl.mean_prompt_tokens = 64;
    const RlEstimate mean = rl_estimate(actor(), rl);
    CHECK(mean.phases[mean.peak_phase].total() == full.phases[full.peak_phase].total());
    CHECK(mean.timed.config.s.training.seq_len == 64 + 512);
    CHECK(mean.timed.perf.model_flops < full.training.perf.model_flops);
    CHECK(mean.rollout_seconds < full.rollout_seconds);  // each prompt's prefill at 64 tokens, not 256
    CHECK(mean.prefill_seconds < mean.rollout.prefill_seconds);
    CHECK(mean.rollout_seconds >= 512 * mean.decode_step_seconds);
    rl.mean_prompt_tokens = 257;
    try {
        rl_estimate(actor(), rl);
        FAIL("a mean above the longest was taken");
    } catch (const InputError& e) {
        CHECK(e.path() == "/rl/mean_prompt_tokens");
    }
}

TEST_CASE("rl: a responses' mean does not stop the longest response from being searched (it is capped at each length tried)") {
    RlSpec rl = grpo();
    const int64_t without = rl_limits(actor(), rl).response_tokens;
    rl.mean_response_tokens = 300;
    CHECK(rl_limits(actor(), rl).response_tokens == without);  // memory is sized by the longest alone
}

TEST_CASE("rl: the largest settings that fit are where fitting stops") {
    const RlSpec rl = grpo();
    const RlLimits l = rl_limits(actor(), rl);
    REQUIRE(l.micro_batch >= 1);
    REQUIRE(l.response_tokens >= 1);
    RlSpec longer = rl;
    longer.response_tokens = l.response_tokens;
    CHECK(rl_estimate(actor(), longer).fits);
    // One token more does not fit, or passes the model's positions (here: 256 + 3,840 = 4,096).
    longer.response_tokens = l.response_tokens + 1;
    bool fits_longer = false;
    try {
        fits_longer = rl_estimate(actor(), longer).fits;
    } catch (const InputError& e) {
        CHECK(std::string(e.message()).find("positions") != std::string::npos);
    }
    CHECK_FALSE(fits_longer);
    CHECK(l.n_unbounded);  // generation in waves, updates in micro-batches: memory does not grow with n
    CHECK(l.rollout_tp.size() == 4);  // 1, 2, 4, 8
    // gpu_memory_utilization: exactly the hundredths that fit, awake and asleep (every one of them tried).
    for (const bool sleep : {true, false}) {
        RlSpec q = rl;
        q.sleep = sleep;
        const RlLimits lq = rl_limits(actor(), q);
        REQUIRE(lq.gpu_memory_utilization_max > 0);
        for (int h = 1; h <= 100; ++h) {
            q.gpu_memory_utilization = h / 100.0;
            const bool inside = h >= std::lround(100 * lq.gpu_memory_utilization_min) && h <= std::lround(100 * lq.gpu_memory_utilization_max);
            CHECK_MESSAGE(rl_estimate(actor(), q).fits == inside, "gpu_memory_utilization " << h << "%, sleep " << sleep);
        }
        // From a share that does not fit, the same range.
        q.gpu_memory_utilization = 1;
        REQUIRE_FALSE(rl_estimate(actor(), q).fits);
        const RlLimits from_outside = rl_limits(actor(), q);
        CHECK(from_outside.gpu_memory_utilization_min == lq.gpu_memory_utilization_min);
        CHECK(from_outside.gpu_memory_utilization_max == lq.gpu_memory_utilization_max);
    }
}

TEST_CASE("rl: the plans it does not model are refused at their fields") {
    const auto path = [](const Scenario& s, const RlSpec& rl) {
        try {
            rl_estimate(s, rl);
        } catch (const InputError& e) {
            return e.path();
        }
        return std::string("(none)");
    };
    CHECK(path(actor(R"(,"pp":2)"), grpo()) == "/parallel/pp");
    CHECK(path(actor("", R"(,"seq_len":1024)"), grpo()) == "/training/seq_len");
    RlSpec rl = grpo();
    rl.rollout_tp = 3;
    CHECK(path(actor(), rl) == "/rl/rollout_tp");
    rl = grpo();
    rl.mini_batches = 3;
    CHECK(path(actor(), rl) == "/rl/mini_batches");
    rl = grpo();
    rl.prompts = 6;  // 24 sequences over 2 updates: 12, not a multiple of 2 x 8
    CHECK(path(actor(), rl) == "/rl/prompts");
}

TEST_CASE("rl: verl's overrides and TRL's GRPO arguments, by their own names") {
    const RlSpec rl = grpo();
    const RlEstimate e = rl_estimate(actor(), rl);
    std::string text;
    for (const LaunchCommand& cmd : rl_launch(e.training.config, rl))
        for (const std::string& line : cmd.lines) text += line + "\n";
    for (const char* expected : {"data.train_batch_size=64\n", "actor_rollout_ref.rollout.n=4\n",
                                 "actor_rollout_ref.actor.ppo_mini_batch_size=32\n",
                                 "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2\n",
                                 "actor_rollout_ref.rollout.tensor_model_parallel_size=2\n",
                                 "actor_rollout_ref.rollout.gpu_memory_utilization=0.4\n", "algorithm.adv_estimator=grpo\n",
                                 "--num_generations 4\n", "--max_completion_length 512\n",
                                 "--use_vllm --vllm_mode colocate --vllm_tensor_parallel_size 2 --vllm_gpu_memory_utilization 0.4\n"})
        CHECK_MESSAGE(text.find(expected) != std::string::npos, expected);
    // The JSON contract carries the phases and the launch.
    const nlohmann::json j = rl_to_json(rl, e, rl_limits(actor(), rl));
    CHECK(j["memory"]["phases"].size() == 3);
    CHECK(j["launch"].size() == 2);
}

TEST_CASE("rl: verl's published GRPO example for Qwen2-7B on 8 GPUs of 80 GB fits (examples/rl/verl-grpo-qwen2-7b-gsm8k.json)") {
    // verl examples/grpo_trainer/run_qwen2-7b.sh: 1,024 prompts x 5 responses of 512 + 512 tokens, 4 mini-batches, 128
    // sequences per micro-batch over 8 GPUs, rollout tp 2 at 0.6 of each GPU, the reference offloaded; it runs.
    const RlEstimate e = example("examples/rl/verl-grpo-qwen2-7b-gsm8k.json");
    CHECK(e.fits);
    CHECK(e.samples == 5120);
    CHECK(e.replicas == 4);
}

TEST_CASE("rl: vLLM colocated at 0.9 of each GPU beside an 8B actor does not fit; at TRL's default since, 0.3, it does") {
    // huggingface/trl issue #2688 (GRPO, an 8B model on 8 H100s under DeepSpeed, vLLM beside the training processes at
    // the default vllm_gpu_memory_utilization of 0.9): out of memory as vLLM loaded; the maintainers' fix, lowering
    // it, became TRL's default (0.3). Llama-3.1-8B stands in for the thread's unnamed 8B model.
    const Scenario s = test::scenario(R"({"framework":"deepspeed","model":{"preset":"llama-3.1-8b"},"training":{"micro_batch":1,)"
                                      R"("recompute":"full"},"parallel":{"dp":8,"zero":3},"hardware":{"preset":"h100-sxm-80gb"}})");
    RlSpec rl;
    rl.prompts = 64;
    rl.n = 8;
    rl.prompt_tokens = 512;
    rl.response_tokens = 1024;
    rl.mini_batches = 8;
    rl.gpu_memory_utilization = 0.9;
    const RlEstimate tight = rl_estimate(s, rl);
    CHECK_FALSE(tight.fits);
    CHECK(std::string(tight.phases[tight.peak_phase].name) == "rollout");
    rl.gpu_memory_utilization = 0.3;
    CHECK(rl_estimate(s, rl).fits);
}

TEST_CASE("rl: the answer's request, read back with the actor, reproduces the answer") {
    RlSpec rl = grpo();
    rl.mean_response_tokens = 200;
    rl.sleep = false;
    const RlEstimate e = rl_estimate(actor(), rl);
    const nlohmann::json answer = rl_to_json(rl, e, rl_limits(actor(), rl));
    const RlSpec again = rl_spec_from_json(&answer["request"]);
    const RlEstimate f = rl_estimate(actor(), again);
    CHECK(f.step_seconds() == e.step_seconds());
    CHECK(f.phases[f.peak_phase].total() == e.phases[e.peak_phase].total());
    CHECK(answer["request"]["mean_response_tokens"] == 200);
}

TEST_CASE("rl: verl's dynamic batch size: micro-batches balanced by tokens, the passes and the launch lines") {
    // 128 sequences per update over 8 ranks: 16 a GPU of 768 tokens, 12,288 tokens. A budget of 5,000 tokens splits
    // them into ceil(12,288 / 5,000) = 3 micro-batches of ceil(16 / 3) = 6 sequences, the update rounded up to 18 a GPU.
    RlSpec rl = grpo();
    rl.max_token_len_per_gpu = 5000;
    const RlEstimate e = rl_estimate(actor(), rl);
    CHECK(e.training.config.s.training.micro_batch == 6);
    CHECK(e.training.config.d.microbatches == 3);
    CHECK(e.training.config.s.training.global_batch == 6 * 8 * 3);
    // The responses' mean (300 of 512 tokens: 556 a sequence, 8,896 a GPU) packs into 2 micro-batches of 8 for the time.
    rl.mean_response_tokens = 300;
    const RlEstimate mean = rl_estimate(actor(), rl);
    CHECK(mean.timed.config.s.training.micro_batch == 8);
    CHECK(mean.timed.config.d.microbatches == 2);
    CHECK(mean.training.config.s.training.micro_batch == 6);  // memory at the longest, as before
    // The log-probability passes take the same budget: their logits are the update's micro-batch's.
    rl.mean_response_tokens = 0;
    const RlEstimate fixed = rl_estimate(actor(), grpo());
    CHECK(phase(e, "log_probs").logits == doctest::Approx(phase(fixed, "log_probs").logits * 6 / 2));
    // A larger budget holds more tokens at once: the update's peak does not fall.
    rl.max_token_len_per_gpu = 12288;
    CHECK(rl_estimate(actor(), rl).training.peak().allocated() >= e.training.peak().allocated());
    // verl's overrides name the budget; TRL, which has no token budget, gets the micro-batch it amounts to.
    rl.max_token_len_per_gpu = 5000;
    const std::vector<LaunchCommand> launch = rl_launch(e.training.config, rl);
    const auto has = [&](const LaunchCommand& l, const std::string& line) {
        return std::find(l.lines.begin(), l.lines.end(), line) != l.lines.end();
    };
    CHECK(has(launch[0], "actor_rollout_ref.actor.use_dynamic_bsz=True"));
    CHECK(has(launch[0], "actor_rollout_ref.actor.ppo_max_token_len_per_gpu=5000"));
    CHECK(has(launch[0], "actor_rollout_ref.model.use_remove_padding=True"));
    for (const std::string& line : launch[0].lines) CHECK(line.find("micro_batch_size_per_gpu") == std::string::npos);
    CHECK(has(launch[1], "--per_device_train_batch_size 6"));
    // The largest budget that fits is whole sequences at the longest.
    const RlLimits limits = rl_limits(actor(), rl);
    CHECK(limits.max_token_len_per_gpu == limits.micro_batch * 768);
    CHECK(limits.micro_batch >= 1);
    // A budget below one sequence, or under DPO (TRL's), is refused at its field.
    RlSpec small = grpo();
    small.max_token_len_per_gpu = 700;
    CHECK_THROWS_WITH_AS(rl_estimate(actor(), small), doctest::Contains("at least one whole sequence"), InputError);
    try {
        rl_estimate(actor(), small);
    } catch (const InputError& err) {
        CHECK(err.path() == "/rl/max_token_len_per_gpu");
    }
}

TEST_CASE("rl: verl's dynamic-batch GRPO example for Qwen2-7B fits (examples/rl/verl-grpo-qwen2-7b-seq-balance.json)") {
    // verl examples/grpo_trainer/run_qwen2-7b_seq_balance.sh: 1,024 prompts x 5 responses of 512 + 1,024 tokens, 4
    // mini-batches, use_dynamic_bsz with ppo_max_token_len_per_gpu 24,000 on 8 GPUs: 160 sequences a GPU an update,
    // ceil(160 x 1,536 / 24,000) = 11 micro-batches of 15.
    const RlEstimate e = example("examples/rl/verl-grpo-qwen2-7b-seq-balance.json");
    CHECK(e.fits);
    CHECK(e.training.config.s.training.micro_batch == 15);
    CHECK(e.training.config.d.microbatches == 11);
}
