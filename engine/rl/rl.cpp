// RL post-training's step: its phases' memory and time from the actor's training estimate and the rollout engine's
// serving estimate (rl/rl.h; docs/rl.md). Sources per term below.
#include "rl/rl.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "comm/collective_time.h"
#include "core/error.h"
#include "graph/build.h"
#include "schedule/step_parts.h"

namespace shardcalc {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

// Sequences per step: n responses to each prompt (DPO trains on a chosen and a rejected response per prompt).
int64_t samples_of(const RlSpec& rl) { return rl.prompts * (rl.algorithm == RlAlgorithm::Dpo ? 2 : rl.n); }

// The actor's training plan for one optimizer update: the scenario with the RL sequence (a prompt of `prompt` tokens and
// a response of `response`) and the samples of one mini-batch as its global batch (verl splits train_batch_size x n
// into ppo_mini_batch_size updates).
//
// Under verl's dynamic batch size each GPU's S sequences of L tokens split into k = ceil(S L / T) micro-batches
// balanced by tokens (verl/utils/seqlen_balancing.py rearrange_micro_batches: ceil(total tokens / max_token_len)
// partitions of near-equal sums): micro-batches of ceil(S / k) sequences, the update rounded up to k of them.
Scenario actor_plan(const Scenario& actor, const RlSpec& rl, int64_t prompt, int64_t response) {
    Scenario s = actor;
    const int64_t sequence = prompt + response, per_update = samples_of(rl) / rl.mini_batches;
    s.training.seq_len = sequence;
    s.training.global_batch = per_update;
    if (rl.max_token_len_per_gpu > 0) {
        const int64_t dp = actor.parallel.dp, per_gpu = per_update / dp;
        const int64_t splits = (per_gpu * sequence + rl.max_token_len_per_gpu - 1) / rl.max_token_len_per_gpu;
        s.training.micro_batch = (per_gpu + splits - 1) / splits;
        s.training.global_batch = s.training.micro_batch * dp * splits;
    }
    return s;
}

// The rollout replica: the actor's model and GPUs, served at the rollout's tensor parallelism by replicas over them
// (an adapter's few weights left out: the engine serves the base).
Scenario rollout_plan(const Scenario& actor, const RlSpec& rl, int64_t world) {
    Scenario s = actor;
    s.adapter = AdapterSpec{};
    s.parallel = ParallelSpec{};
    s.parallel.tp = rl.rollout_tp;
    s.parallel.dp = world / rl.rollout_tp;
    return s;
}

int64_t world_of(const Scenario& s) {
    const ParallelSpec& p = s.parallel;
    return p.dp * p.tp * p.pp * p.cp * p.ulysses;
}

// The step's forward passes over one mini-batch (forward compute and the host's launches), as the training estimate
// times them: what a log-probability pass over the same sequences costs.
double forward_seconds(const Report& r) {
    double s = 0;
    for (const auto& [key, seconds] : r.perf.breakdown)
        if (key == part_key<StepPart::ForwardCompute> || key == part_key<StepPart::ForwardHostWait>) s += seconds;
    return s;
}

}  // namespace

void validate_rl(const Scenario& actor, const RlSpec& rl) {
    Problems problems;
    auto require = [&](bool ok, const char* path, const std::string& message) {
        if (!ok) problems.add(path, message);
    };
    const ParallelSpec& p = actor.parallel;
    const int64_t world = world_of(actor);
    require(actor.framework != Framework::Xla, "/framework", "RL post-training is modelled on GPUs: megatron, deepspeed, fsdp or pytorch");
    require(actor.model.arch == Arch::Decoder, "/model/arch", "RL post-training trains a decoder's policy: allowed: decoder");
    require(p.pp == 1, "/parallel/pp", "the actor is modelled as verl's FSDP workers run it, one pipeline stage: set it to 1");
    require(!actor.training.seq_len, "/training/seq_len",
            "set by the rl object: prompt_tokens + response_tokens (" + str(rl.prompt_tokens + rl.response_tokens) + "); leave it out");
    require(!actor.training.global_batch, "/training/global_batch",
            "set by the rl object: prompts x n / mini_batches sequences per update; leave it out");
    const int64_t samples = samples_of(rl);
    const int64_t per_update = samples / rl.mini_batches;
    require(samples % rl.mini_batches == 0, "/rl/mini_batches",
            "must divide the step's " + str(samples) + " sequences (prompts x n) into equal updates");
    const int64_t micro = actor.training.micro_batch * p.dp;
    const bool dynamic = rl.max_token_len_per_gpu > 0;
    require(samples % rl.mini_batches != 0 || dynamic || per_update % micro == 0, "/rl/prompts",
            "each update's " + str(per_update) + " sequences must split into micro-batches of training.micro_batch (" +
                str(actor.training.micro_batch) + ") on each of the " + str(p.dp) + " data-parallel ranks");
    require(samples % rl.mini_batches != 0 || !dynamic || per_update % p.dp == 0, "/rl/prompts",
            "each update's " + str(per_update) + " sequences must split evenly over the " + str(p.dp) +
                " data-parallel ranks (verl balances each rank's tokens into micro-batches)");
    require(!dynamic || rl.max_token_len_per_gpu >= rl.prompt_tokens + rl.response_tokens, "/rl/max_token_len_per_gpu",
            "at least one whole sequence, prompt_tokens + response_tokens (" + str(rl.prompt_tokens + rl.response_tokens) +
                "), as verl requires; 0 for micro-batches of training.micro_batch");
    require(!dynamic || rl.algorithm != RlAlgorithm::Dpo, "/rl/max_token_len_per_gpu",
            "verl's dynamic batch size: DPO here is TRL's, whose micro-batches count pairs; 0");
    require(rl.algorithm != RlAlgorithm::Dpo || rl.n == 2, "/rl/n", "DPO trains on a chosen and a rejected response per prompt: 2");
    require(rl.algorithm != RlAlgorithm::Dpo || actor.training.micro_batch % 2 == 0, "/training/micro_batch",
            "DPO's micro-batch holds whole preference pairs (a chosen and a rejected sequence each): an even number of sequences");
    require(rl.mean_response_tokens <= rl.response_tokens, "/rl/mean_response_tokens",
            "at most response_tokens (" + str(rl.response_tokens) + "), the longest; 0 for every response at that length");
    require(rl.mean_prompt_tokens <= rl.prompt_tokens, "/rl/mean_prompt_tokens",
            "at most prompt_tokens (" + str(rl.prompt_tokens) + "), the longest; 0 for every prompt at that length");
    require(world % rl.rollout_tp == 0, "/rl/rollout_tp",
            "must divide the " + str(world) + " GPUs the actor trains on (the rollout runs on the same GPUs)");
    problems.raise();
}

RlEstimate rl_estimate(const Scenario& actor, const RlSpec& rl) {
    validate_rl(actor, rl);
    RlEstimate e;
    e.samples = samples_of(rl);
    e.training = evaluate(actor_plan(actor, rl, rl.prompt_tokens, rl.response_tokens));
    // Shorter means than the longest: the time is taken at them (the actor's update here, the rollout below).
    const bool means = rl.mean_prompt() < rl.prompt_tokens || rl.mean_response() < rl.response_tokens;
    e.timed = means ? evaluate(actor_plan(actor, rl, rl.mean_prompt(), rl.mean_response())) : e.training;
    const Config& c = e.training.config;
    const StageMemory& m = e.training.peak();
    const int64_t world = c.d.world_size;
    e.capacity = e.training.capacity;
    const bool dpo = rl.algorithm == RlAlgorithm::Dpo, ppo = rl.algorithm == RlAlgorithm::Ppo;
    const bool reference = rl.reference || dpo;
    const double layers_in_dtype = bytes_of(c.s.training.dtype);

    // The reference policy in the compute dtype, sharded as the actor's weights are (verl loads it as an FSDP module in
    // bf16); under an adapter the reference is the actor's own frozen base with the adapter switched off (verl and TRL
    // keep no copy). The critic (PPO) as large as the actor with its states (a value head instead of the output layer:
    // the output layer's share is not told apart).
    const double shard = (c.s.parallel.zero >= 3 ? static_cast<double>(c.d.replica_degree) : 1) * static_cast<double>(c.s.parallel.tp);
    const bool own_reference = reference && c.s.adapter.method == AdapterMethod::None;
    const double reference_bytes = own_reference ? e.training.parameters.total * layers_in_dtype / shard : 0;
    // Outside its own phases the actor keeps its weights, its last update's gradients (torch.optim's zero_grad frees
    // them at the next update) and its optimizer states, unless verl offloads them.
    const double actor_resident = (rl.param_offload ? 0 : m.weights + m.gradients) + (rl.optimizer_offload ? 0 : m.optimizer);
    const double reference_resident = rl.reference_offload ? 0 : reference_bytes;
    const double critic_resident = ppo ? actor_resident : 0;
    // What is offloaded lives in the process's host memory meanwhile (verl's FSDP CPU offload of each rank's shard).
    const double actor_states = m.weights + m.gradients + m.optimizer;
    const double actor_offloaded = actor_states - actor_resident;
    const double reference_offloaded = reference_bytes - reference_resident;
    const double critic_offloaded = ppo ? actor_offloaded : 0;

    // The rollout replica as vLLM sizes it: gpu_memory_utilization of each GPU for its weights, its profile run's
    // activations and the KV cache (vLLM V1's requested memory); the actor's memory is outside that share.
    ServingEstimate r;
    if (!dpo) {
        e.replicas = world / rl.rollout_tp;
        const Config rc = resolve(rollout_plan(given_form(c.s), rl, world), Rules::ModelAndDevice);
        ServingSpec spec;
        spec.prompt_tokens = rl.prompt_tokens;
        spec.output_tokens = rl.response_tokens;
        spec.gpu_memory_utilization = rl.gpu_memory_utilization;
        spec.max_num_seqs = 1024;  // verl rollout.max_num_seqs
        const int64_t per_replica = (e.samples + e.replicas - 1) / e.replicas;
        spec.concurrency = 1;
        validate_serving(rc, spec);
        const ModelGraph rg = build_graph(rc);
        // Continuous batching holds as many sequences as the KV cache (and max_num_seqs) allows; the rest wait. vLLM gives
        // a sequence its blocks as its tokens grow (its scheduler admits one while blocks are free), so sequences
        // shorter than the longest fit more of them: the concurrency and the time are the mean lengths', the memory the
        // longest's (the KV cache is the budget's either way).
        ServingSpec timing = spec;
        timing.prompt_tokens = rl.mean_prompt();
        timing.output_tokens = rl.mean_response();
        const ServingEstimate one = serving_estimate(rc, rg, means ? timing : spec);
        e.concurrency = std::max<int64_t>(1, std::min({per_replica, one.max_concurrency, spec.max_num_seqs}));
        e.waves = (per_replica + e.concurrency - 1) / e.concurrency;
        spec.concurrency = timing.concurrency = e.concurrency;
        r = serving_estimate(rc, rg, spec);
        // Every prompt's prefill (compute-bound: one prompt's time each), then decode steps at that concurrency: as many
        // as its sequences' tokens need with a finished sequence's slot refilled at once, and at least the longest
        // response's (the step waits for it); each at the mean lengths (a prompt's prefill, a step's context).
        const ServingEstimate timed = means ? serving_estimate(rc, rg, timing) : r;
        e.prefill_seconds = timed.prefill_seconds;
        e.decode_step_seconds = timed.decode_step_seconds;
        const double tokens = static_cast<double>(per_replica) * static_cast<double>(rl.mean_response());
        const double steps = std::max(static_cast<double>(rl.response_tokens), std::ceil(tokens / static_cast<double>(e.concurrency)));
        e.rollout_seconds = static_cast<double>(per_replica) * e.prefill_seconds + steps * e.decode_step_seconds;
    }
    e.rollout = r;
    const double overhead = m.other.overhead;
    const double kept_rollout_weights = rl.sleep ? 0 : r.weights;
    const double sleeping_rollout_weights = r.weights - kept_rollout_weights;  // on the host (vLLM's sleep, level 1)
    const double kept_kv = rl.sleep ? 0 : r.kv_available;

    if (!dpo) {
        RlPhase ph;
        ph.name = "rollout";
        ph.actor = actor_resident;
        ph.reference = reference_resident;
        ph.critic = critic_resident;
        ph.rollout_weights = r.weights;
        ph.rollout_activations = std::max(0.0, r.budget - r.weights - r.kv_available);
        ph.kv_cache = r.kv_available;
        ph.overhead = overhead;
        ph.host = actor_offloaded + reference_offloaded + critic_offloaded;
        e.phases.push_back(ph);
    }
    {
        // A log-probability forward keeps no activations for backward; the logits of one micro-batch in the compute
        // dtype are its largest temporary (verl's logprobs_from_logits takes the log-softmax blockwise with flash-attn's
        // Triton cross entropy, keeping one fp32 value per token).
        // Under the dynamic batch size the passes take the actor's token budget (verl rollout.yaml
        // log_prob_max_token_len_per_gpu: the actor's ppo_max_token_len_per_gpu), so the update's micro-batches.
        const int64_t lp = rl.log_prob_micro_batch > 0 && rl.max_token_len_per_gpu == 0 ? rl.log_prob_micro_batch : c.s.training.micro_batch;
        RlPhase ph;
        ph.name = "log_probs";
        ph.actor = m.weights + (rl.optimizer_offload ? 0 : m.optimizer) + (rl.param_offload ? 0 : m.gradients);
        ph.reference = reference_bytes;
        ph.critic = critic_resident;
        ph.rollout_weights = kept_rollout_weights;
        ph.kv_cache = kept_kv;
        ph.logits = layers_in_dtype * static_cast<double>(lp) * static_cast<double>(c.s.training.seq_len) *
                    static_cast<double>(c.d.vocab_padded) / static_cast<double>(c.s.parallel.tp);
        ph.overhead = overhead;
        // The forward needs the actor's weights back.
        ph.host = (actor_states - ph.actor) + critic_offloaded + sleeping_rollout_weights;
        e.phases.push_back(ph);
    }
    {
        RlPhase ph;
        ph.name = "training";
        ph.actor = m.total() - overhead;  // its training peak with the allocator's reserve
        ph.reference = reference_resident;
        ph.critic = critic_resident;
        ph.rollout_weights = kept_rollout_weights;
        ph.kv_cache = kept_kv;
        ph.overhead = overhead;
        ph.host = reference_offloaded + critic_offloaded + sleeping_rollout_weights;
        e.phases.push_back(ph);
    }
    for (size_t i = 1; i < e.phases.size(); ++i) {
        if (e.phases[i].total() > e.phases[e.peak_phase].total()) e.peak_phase = i;
        if (e.phases[i].host > e.phases[e.host_peak_phase].host) e.host_peak_phase = i;
    }
    e.processes_per_node = std::min(c.s.hardware.gpus_per_node, world);
    e.host_per_node = static_cast<double>(e.processes_per_node) * e.phases[e.host_peak_phase].host;
    e.fits = e.phases[e.peak_phase].total() <= e.capacity && e.training.verdict.verdict != Verdict::DoesNotFit &&
             (dpo || r.max_concurrency >= 1);

    // Time. Resharding (verl's sharding manager): FSDP gathers each GPU's full weights in the compute dtype (an
    // all-gather over the data-parallel ranks; a copy when they are whole) and loads its rollout shard; a sleeping
    // engine first takes its weights back from the host.
    if (!dpo) {
        const double full = e.training.parameters.total * layers_in_dtype / static_cast<double>(c.s.parallel.tp);
        if (c.s.parallel.zero >= 3 && c.d.replica_degree > 1) {
            const Group g = make_group(c.d.replica_degree, c.s.parallel.tp, c);
            e.reshard_seconds = collective_time(CollectiveKind::AllGather, full, g, c).seconds;
        } else {
            e.reshard_seconds = 2 * full / (c.s.hardware.hbm_gbps * 1e9 * c.s.hardware.hbm_efficiency);
        }
        if (rl.sleep && c.s.hardware.host_link_gbps > 0) e.reshard_seconds += r.weights / (c.s.hardware.host_link_gbps * 1e9);
    }
    // Log-probability passes over every sequence of the step: the actor's old policy (not in DPO, whose training
    // forward computes it), the reference, PPO's critic values; each costs the training plan's forward.
    const double passes = (dpo ? 0 : 1) + (reference ? 1 : 0) + (ppo ? 1 : 0);
    const double updates = static_cast<double>(rl.mini_batches * rl.epochs);
    e.log_prob_pass_seconds = static_cast<double>(rl.mini_batches) * forward_seconds(e.timed);
    e.log_prob_seconds = passes * e.log_prob_pass_seconds;
    e.actor_update_seconds = updates * e.timed.perf.step_seconds;
    e.training_seconds = (ppo ? 2 : 1) * e.actor_update_seconds;
    if (!dpo && e.step_seconds() > 0)
        e.response_tokens_per_second = static_cast<double>(e.samples * rl.mean_response()) / e.step_seconds();
    return e;
}

RlLimits rl_limits(const Scenario& actor, const RlSpec& rl) {
    RlLimits out;
    const auto fits = [&](const Scenario& s, const RlSpec& q) {
        try {
            return rl_estimate(s, q).fits;
        } catch (const InputError&) {
            return false;
        }
    };
    // The largest power of two up to a bound that fits (what a step needs grows with each of them).
    const auto largest = [&](int64_t limit, auto&& with) {
        int64_t best = 0;
        for (int64_t v = 1; v <= limit && with(v); v *= 2) best = v;
        return best;
    };
    // Under the dynamic batch size the micro-batch is the token budget's: the largest budget of v whole sequences at
    // the longest.
    const int64_t sequence = rl.prompt_tokens + rl.response_tokens;
    out.micro_batch = largest(1024, [&](int64_t v) {
        if (rl.max_token_len_per_gpu > 0) {
            RlSpec q = rl;
            q.max_token_len_per_gpu = v * sequence;
            return fits(actor, q);
        }
        Scenario s = actor;
        s.training.micro_batch = v;
        return fits(s, rl);
    });
    if (rl.max_token_len_per_gpu > 0) out.max_token_len_per_gpu = out.micro_batch * sequence;
    // Responses per prompt: generation runs in waves and updates in micro-batches, so memory need not grow with n;
    // up to 1,024 is tried.
    constexpr int64_t kMostN = 1024;
    if (rl.algorithm != RlAlgorithm::Dpo) {
        out.n = largest(kMostN, [&](int64_t v) {
            RlSpec q = rl;
            q.n = v;
            return fits(actor, q);
        });
        out.n_unbounded = out.n == kMostN;
    }
    // The response length to the token: the largest power of two that fits, then halving steps up from it.
    const auto response_fits = [&](int64_t v) {
        RlSpec q = rl;
        q.response_tokens = v;
        q.mean_response_tokens = std::min(rl.mean_response_tokens, v);  // a mean is at most the longest
        return fits(actor, q);
    };
    out.response_tokens = largest(int64_t{1} << 20, response_fits);
    for (int64_t step = out.response_tokens / 2; step >= 1; step /= 2)
        if (response_fits(out.response_tokens + step)) out.response_tokens += step;
    if (rl.algorithm != RlAlgorithm::Dpo) {
        // gpu_memory_utilization (the usual cause of a colocated rollout's out-of-memory error, and the usual fix):
        // what fits is one range of hundredths, a larger share growing the rollout phase and a smaller one shrinking
        // the KV cache. A point inside it (the given share, or else the first hundredth that fits: a range may be
        // narrow), then each edge by halving steps.
        const auto util_fits = [&](int64_t hundredths) {
            RlSpec q = rl;
            q.gpu_memory_utilization = static_cast<double>(hundredths) / 100;
            return fits(actor, q);
        };
        int64_t inside = static_cast<int64_t>(std::lround(rl.gpu_memory_utilization * 100));
        if (!util_fits(inside)) {
            inside = 0;
            for (int64_t h = 1; h <= 100 && inside == 0; ++h)
                if (util_fits(h)) inside = h;
        }
        if (inside > 0) {
            int64_t hi = inside, lo = inside;
            for (int64_t step = 64; step >= 1; step /= 2) {
                if (hi + step <= 100 && util_fits(hi + step)) hi += step;
                if (lo - step >= 1 && util_fits(lo - step)) lo -= step;
            }
            out.gpu_memory_utilization_min = static_cast<double>(lo) / 100;
            out.gpu_memory_utilization_max = static_cast<double>(hi) / 100;
        }
        const int64_t world = world_of(actor);
        for (int64_t tp = 1; tp <= world; ++tp) {
            if (world % tp != 0) continue;
            RlSpec q = rl;
            q.rollout_tp = tp;
            RlLimits::RolloutTp row{tp, false, 0};
            try {
                const RlEstimate e = rl_estimate(actor, q);
                row.fits = e.fits;
                row.rollout_seconds = e.rollout_seconds;
            } catch (const InputError&) {
                continue;  // a size the model's heads do not allow
            }
            out.rollout_tp.push_back(row);
        }
    }
    return out;
}

}  // namespace shardcalc
