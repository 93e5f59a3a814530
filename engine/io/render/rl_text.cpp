// The RL estimate (the "rl" object of `shardcalc rl`) as text: the verdict, each phase's memory on a GPU (and in the host
// memory of its process), the step's time, the largest settings that fit and the launch. It formats what the engine
// computed.
#include "io/render/text_format.h"
#include "io/render/text_table.h"

namespace shardcalc {

std::string format_rl_table(const nlohmann::json& rl) {
    using namespace text;
    const auto& m = rl["memory"];
    const auto& t = rl["time"];
    const auto& ro = rl["rollout"];
    const auto& lim = rl["limits"];
    const auto sec = [](const nlohmann::json& s) { return fixed(s.get<double>(), 2); };
    std::string out = rl["algorithm"].get<std::string>() + " on " + thousands(rl["gpus"].get<int64_t>()) + " x " +
                      rl["device"].get<std::string>() + ": " + thousands(rl["samples"].get<int64_t>()) + " sequences of " +
                      thousands(rl["sequence_tokens"].get<int64_t>()) + " tokens per step\n";
    out += std::string("memory: ") + (m["fits"].get<bool>() ? "FITS" : "DOES NOT FIT") + " (peak in the " +
           m["peak_phase"].get<std::string>() + " phase; the actor's update alone: " + m["training_verdict"].get<std::string>() + ")\n";
    if (ro["tp"].get<int64_t>() > 0 && ro["replicas"].get<int64_t>() > 0)
        out += "rollout: tp " + std::to_string(ro["tp"].get<int64_t>()) + ", " + thousands(ro["replicas"].get<int64_t>()) +
               " replica(s), " + thousands(ro["concurrency"].get<int64_t>()) + " sequences at once in " +
               thousands(ro["waves"].get<int64_t>()) + " wave(s) (its KV cache holds " + thousands(ro["max_concurrency"].get<int64_t>()) + " at the longest)\n";
    out += "\nMemory per GPU by phase (GiB = 2^30 bytes; host: what the GPU's process holds in the host's memory)\n";
    std::vector<Row> rows{{"phase", "actor", "reference", "critic", "rollout weights", "rollout activations", "KV cache", "logits",
                           "overhead", "total", "capacity", "host"}};
    for (const auto& p : m["phases"])
        rows.push_back({p["phase"].get<std::string>(), gib(p["actor_bytes"]), gib(p["reference_bytes"]), gib(p["critic_bytes"]),
                        gib(p["rollout_weights_bytes"]), gib(p["rollout_activations_bytes"]), gib(p["kv_cache_bytes"]),
                        gib(p["logits_bytes"]), gib(p["overhead_bytes"]), gib(p["total_bytes"]), gib(m["capacity_bytes"]),
                        gib(p["host_bytes"])});
    out += aligned(rows);
    out += "host memory per node: " + gib(m["host_per_node_bytes"]) + " GiB at most, in the " + m["host_peak_phase"].get<std::string>() +
           " phase (" + std::to_string(m["processes_per_node"].get<int64_t>()) +
           " processes, each its \"host\" above; the processes' own memory comes on top)\n";
    out += "\nStep time (seconds)\n";
    std::vector<Row> time{{"reshard", "rollout", "log-probs", "training", "step", "one update", "generated tokens/s"},
                          {sec(t["reshard_seconds"]), sec(t["rollout_seconds"]), sec(t["log_prob_seconds"]), sec(t["training_seconds"]),
                           sec(t["step_seconds"]), sec(t["update_seconds"]), fixed(t["response_tokens_per_second"].get<double>(), 0)}};
    out += aligned(time);
    const std::string n = rl["algorithm"] == "dpo"              ? std::string("2 (DPO's pair)")
                          : lim["n_unbounded"].get<bool>() ? "any up to " + thousands(lim["n"].get<int64_t>()) + " (memory does not grow with it)"
                                                         : thousands(lim["n"].get<int64_t>());
    // Under verl's dynamic batch size the micro-batch is a token budget.
    const int64_t budget = lim["max_token_len_per_gpu"].get<int64_t>();
    const std::string micro = budget > 0 ? "token budget " + thousands(budget) + " (" + thousands(lim["micro_batch"].get<int64_t>()) +
                                               " sequences at the longest)"
                                         : "micro-batch " + thousands(lim["micro_batch"].get<int64_t>());
    out += "\nLargest that fit, each alone: " + micro + ", n " + n +
           ", response tokens " + thousands(lim["response_tokens"].get<int64_t>()) + "\n";
    if (rl["algorithm"] != "dpo")
        out += lim["gpu_memory_utilization_max"].get<double>() > 0
                   ? "gpu_memory_utilization that fits: " + fixed(lim["gpu_memory_utilization_min"].get<double>(), 2) + " to " +
                         fixed(lim["gpu_memory_utilization_max"].get<double>(), 2) + "\n"
                   : "gpu_memory_utilization that fits: none\n";
    if (!lim["rollout_tp"].empty()) {
        std::vector<Row> tps{{"rollout tp", "fits", "rollout s"}};
        for (const auto& r : lim["rollout_tp"])
            tps.push_back({std::to_string(r["rollout_tp"].get<int64_t>()), r["fits"].get<bool>() ? "yes" : "no", sec(r["rollout_seconds"])});
        out += aligned(tps);
    }
    if (!rl["launch"].empty()) out += "\nLaunch\n" + format_launch_text(rl["launch"]);
    return out;
}

std::string format_rl_reconciliation_table(const nlohmann::json& r) {
    using namespace text;
    const auto& steps = r["steps"];
    std::string out = "verl's log against the RL estimate (GiB = 2^30 bytes; gap = estimate - log; each the median over " +
                      thousands(steps["used"].get<int64_t>()) + " of its " + thousands(steps["read"].get<int64_t>()) + " steps" +
                      (steps["first_dropped"].get<bool>() ? ", the first left out" : "") + ")\n";
    std::vector<Row> rows{{"term", "log", "estimate", "gap"}};
    for (const auto& t : r["terms"]) {
        const std::string unit = t["unit"].get<std::string>();
        const auto cell = [&](const nlohmann::json& v) {
            return unit == "bytes" ? gib(v) + " GiB" : unit == "seconds" ? fixed(v.get<double>(), 2) + " s" : fixed(v.get<double>(), 0);
        };
        rows.push_back({t["label"].get<std::string>(), cell(t["log"]), cell(t["estimate"]), cell(t["gap"])});
    }
    out += aligned(rows);
    for (const auto& f : r["findings"]) out += "- " + f.get<std::string>() + "\n";
    if (!r["calibration"].empty()) {
        out += "What the log implies for the scenario:";
        for (const auto& [key, value] : r["calibration"].items())
            out += " " + key + " = " + (value.is_number_integer() ? std::to_string(value.get<int64_t>()) : fixed(value.get<double>(), 3)) + ";";
        out += "\n";
    }
    for (const auto& u : r["unknowns"]) out += "- not in the log: " + u.get<std::string>() + "\n";
    return out;
}

}  // namespace shardcalc
