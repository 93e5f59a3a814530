// The RL estimate (rl/rl.h) as text: the verdict, each phase's memory on a GPU (and in the host memory of its process),
// the step's time, the largest settings that fit and the launch. It formats what the engine computed.
#include "io/render/answer_text.h"
#include "io/render/text_table.h"
#include "rl/rl_launch.h"
#include "scenario/names.h"

namespace shardcalc {

std::string format_rl(const RlSpec& rl, const RlEstimate& e, const RlLimits& lim) {
    using namespace text;
    const Config& c = e.training.config;
    const auto gib_of = [](double bytes) { return amount(bytes, ByteUnit::GiB); };
    const auto sec = [](double s) { return fixed(s, 2); };
    const bool dpo = rl.algorithm == RlAlgorithm::Dpo;
    std::string out = std::string(name_of(rl.algorithm)) + " on " + thousands(c.d.world_size) + " x " + c.s.hardware.name +
                      ": " + thousands(e.samples) + " sequences of " + thousands(c.s.training.seq_len) + " tokens per step\n";
    out += std::string("memory: ") + (e.fits ? "FITS" : "DOES NOT FIT") + " (peak in the " + e.phases[e.peak_phase].name +
           " phase; the actor's update alone: " + verdict_name(e.training.verdict.verdict) + ")\n";
    if (rl.rollout_tp > 0 && e.replicas > 0)
        out += "rollout: tp " + std::to_string(rl.rollout_tp) + ", " + thousands(e.replicas) + " replica(s), " +
               thousands(e.concurrency) + " sequences at once in " + thousands(e.waves) + " wave(s) (its KV cache holds " +
               thousands(e.rollout.max_concurrency) + " at the longest)\n";
    out += "\nMemory per GPU by phase (GiB = 2^30 bytes; host: what the GPU's process holds in the host's memory)\n";
    std::vector<Row> rows{{"phase", "actor", "reference", "critic", "rollout weights", "rollout activations", "KV cache", "logits",
                           "overhead", "total", "capacity", "host"}};
    for (const RlPhase& p : e.phases)
        rows.push_back({p.name, gib_of(p.actor), gib_of(p.reference), gib_of(p.critic), gib_of(p.rollout_weights),
                        gib_of(p.rollout_activations), gib_of(p.kv_cache), gib_of(p.logits), gib_of(p.overhead),
                        gib_of(p.total()), gib_of(e.capacity), gib_of(p.host)});
    out += aligned(rows);
    out += "host memory per node: " + gib_of(e.host_per_node) + " GiB at most, in the " + e.phases[e.host_peak_phase].name +
           " phase (" + std::to_string(e.processes_per_node) +
           " processes, each its \"host\" above; the processes' own memory comes on top)\n";
    out += "\nStep time (seconds)\n";
    out += aligned({{"reshard", "rollout", "log-probs", "training", "step", "one update", "generated tokens/s"},
                    {sec(e.reshard_seconds), sec(e.rollout_seconds), sec(e.log_prob_seconds), sec(e.training_seconds),
                     sec(e.step_seconds()), sec(e.timed.perf.step_seconds), fixed(e.response_tokens_per_second, 0)}});
    const std::string n = dpo               ? std::string("2 (DPO's pair)")
                          : lim.n_unbounded ? "any up to " + thousands(lim.n) + " (memory does not grow with it)"
                                            : thousands(lim.n);
    // Under verl's dynamic batch size the micro-batch is a token budget.
    const std::string micro = lim.max_token_len_per_gpu > 0
                                  ? "token budget " + thousands(lim.max_token_len_per_gpu) + " (" + thousands(lim.micro_batch) +
                                        " sequences at the longest)"
                                  : "micro-batch " + thousands(lim.micro_batch);
    out += "\nLargest that fit, each alone: " + micro + ", n " + n + ", response tokens " + thousands(lim.response_tokens) + "\n";
    if (!dpo)
        out += lim.gpu_memory_utilization_max > 0 ? "gpu_memory_utilization that fits: " + fixed(lim.gpu_memory_utilization_min, 2) +
                                                        " to " + fixed(lim.gpu_memory_utilization_max, 2) + "\n"
                                                  : "gpu_memory_utilization that fits: none\n";
    if (!lim.rollout_tp.empty()) {
        std::vector<Row> tps{{"rollout tp", "fits", "rollout s"}};
        for (const RlLimits::RolloutTp& t : lim.rollout_tp)
            tps.push_back({std::to_string(t.tp), t.fits ? "yes" : "no", sec(t.rollout_seconds)});
        out += aligned(tps);
    }
    const std::vector<LaunchCommand> launch = rl_launch(c, rl);
    if (!launch.empty()) out += "\nLaunch\n" + launch_text(launch);
    return out;
}

}  // namespace shardcalc
