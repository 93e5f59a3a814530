// The serving estimate (the "serving" object of `shardcalc serve`) as text: the verdict, a GPU's memory, the latency and
// throughput. It formats what the engine computed.
#include "io/render/text_format.h"

#include <cmath>

#include "io/render/text_table.h"

namespace shardcalc {

namespace {

// The serving plan search: the plans ranked by output tokens per second per GPU, and why the others were left out.
std::string format_serving_search(const nlohmann::json& s) {
    using namespace text;
    const auto& n = s["counts"];
    const auto& t = s["targets"];
    std::string out = "serving plans: " + thousands(n["tried"].get<int64_t>()) + " tried, " + thousands(n["listed"].get<int64_t>()) +
                      " listed; left out: " + thousands(n["does_not_fit"].get<int64_t>()) + " do not fit one request, " +
                      thousands(n["misses_target"].get<int64_t>()) + " miss a latency target alone, " +
                      thousands(n["invalid"].get<int64_t>()) + " not allowed";
    if (t["ttft_ms"].get<double>() > 0) out += "; time to first token <= " + fixed(t["ttft_ms"].get<double>(), 0) + " ms";
    if (t["tpot_ms"].get<double>() > 0) out += "; time per output token <= " + fixed(t["tpot_ms"].get<double>(), 0) + " ms";
    out += "\n\n";
    std::vector<Row> rows{{"rank", "tp", "pp", "dp attention", "weights", "KV cache", "concurrency", "TTFT ms", "TPOT ms", "tokens/s/GPU", "$/M tokens",
                           "pareto"}};
    for (const auto& p : s["plans"]) {
        const double cost = p["cost_per_million_tokens"].get<double>();
        rows.push_back({std::to_string(p["rank"].get<int64_t>()), std::to_string(p["replica"]["tp"].get<int64_t>()),
                        std::to_string(p["replica"]["pp"].get<int64_t>()), std::to_string(p["replica"]["dp_attention_ranks"].get<int64_t>()),
                        p["serving"]["weights"].get<std::string>(), p["serving"]["kv_cache_dtype"].get<std::string>(),
                        thousands(p["request"]["concurrency"].get<int64_t>()), fixed(p["time"]["ttft_seconds"].get<double>() * 1e3, 1),
                        fixed(p["time"]["tpot_seconds"].get<double>() * 1e3, 2), fixed(p["time"]["tokens_per_second_per_gpu"].get<double>(), 1),
                        cost > 0 ? fixed(cost, 3) : "-", p["pareto"].get<bool>() ? "yes" : "no"});
    }
    out += aligned(rows);
    if (!s["plans"].empty()) out += "\nLaunch (rank 1)\n" + format_launch_text(s["plans"][0]["launch"]);
    return out;
}

}  // namespace

std::string format_serving_table(const nlohmann::json& s) {
    using namespace text;
    if (s.contains("plans")) return format_serving_search(s);
    const auto& m = s["memory"];
    const auto& t = s["time"];
    const auto& r = s["request"];
    const auto& rep = s["replica"];
    const double ms = 1e3;
    std::string out;
    const int64_t stages = rep["pp"].get<int64_t>(), dpa = rep["dp_attention_ranks"].get<int64_t>();
    // transformers' generate: one static batch on the replica's GPUs, the memory its own (no reservation), the host's
    // launches.
    const bool generate = s["serving"]["engine"] == "transformers";
    const int64_t tp = rep["tp"].get<int64_t>();
    if (generate)
        out += "transformers' generate (" + s["serving"]["cache"].get<std::string>() + " cache) on " + rep["device"].get<std::string>() +
               ", " + (tp > 1 ? "tp " + std::to_string(tp) : std::string("one GPU")) + " per replica, " +
               std::to_string(rep["replicas"].get<int64_t>()) + " replica(s); a batch of " +
               thousands(r["concurrency"].get<int64_t>()) + " requests of " + thousands(r["prompt_tokens"].get<int64_t>()) +
               " prompt + " + thousands(r["output_tokens"].get<int64_t>()) + " output tokens, padded to the longest (" +
               thousands(r["longest_request_tokens"].get<int64_t>()) + " tokens)\n";
    else out += "serving on " + rep["device"].get<std::string>() + ": tp " + std::to_string(rep["tp"].get<int64_t>()) +
           (stages > 1 ? " x pp " + std::to_string(stages) : "") +
           (dpa > 1 ? " x " + std::to_string(dpa) + " data-parallel attention ranks (experts over all)" : "") + " per replica, " +
           std::to_string(rep["replicas"].get<int64_t>()) + " replica(s); requests of " +
           thousands(r["prompt_tokens"].get<int64_t>()) + " prompt + " + thousands(r["output_tokens"].get<int64_t>()) +
           " output tokens" +
           (r["longest_request_tokens"].get<int64_t>() > r["prompt_tokens"].get<int64_t>() + r["output_tokens"].get<int64_t>()
                ? " (the longest " + thousands(r["longest_request_tokens"].get<int64_t>()) + ")"
                : "") +
           ", " + thousands(r["concurrency"].get<int64_t>()) + " at once\n";
    if (r["request_rate"].get<double>() > 0)
        out += r["keeps_up"].get<bool>()
                   ? "at " + fixed(r["request_rate"].get<double>(), 2) + " requests/s the replica settles at " +
                         thousands(r["concurrency"].get<int64_t>()) + " requests at once (Little's law)\n"
                   : "DOES NOT KEEP UP with " + fixed(r["request_rate"].get<double>(), 2) + " requests/s: at most " +
                         fixed(r["max_request_rate"].get<double>(), 2) + " with the " + thousands(r["concurrency"].get<int64_t>()) +
                         " requests its KV cache holds; the queue grows\n";
    out += std::string(m["fits"].get<bool>() ? "FITS" : "DOES NOT FIT") + (!generate ? ": the KV cache holds " : tp > 1 ? ": its GPUs hold a batch of " : ": the GPU holds a batch of ") +
           thousands(m["max_concurrency"].get<int64_t>()) + " such requests at once; the longest single request: " +
           thousands(m["max_model_len"].get<int64_t>()) + " tokens\n\n";
    out += "Memory of one GPU (GiB = 2^30 bytes)\n";
    std::vector<Row> parts{{"part", "GiB"}, {"device", gib(m["capacity_bytes"])}};
    if (!generate) parts.push_back({"budget (gpu_memory_utilization)", gib(m["budget_bytes"])});
    parts.push_back({"weights", gib(m["weights_bytes"])});
    parts.push_back({generate ? "activation peak (the batch's prefill)" : "activation peak (profile run)", gib(m["activation_peak_bytes"])});
    parts.push_back({"outside PyTorch", gib(m["non_torch_bytes"])});
    if (m["cuda_graphs_bytes"].get<int64_t>() > 0) parts.push_back({"CUDA graphs (reserved in the budget)", gib(m["cuda_graphs_bytes"])});
    parts.push_back({generate ? "left for the KV cache" : "KV cache", gib(m["kv_available_bytes"])});
    if (generate && m["cache_transient_bytes"].get<int64_t>() > 0)
        parts.push_back({"of which DynamicCache's copy of one layer", gib(m["cache_transient_bytes"])});
    out += aligned(parts);
    out += "KV cache per token: " + thousands(m["kv_bytes_per_token"].get<int64_t>()) + " bytes; per request: " +
           mib(m["kv_bytes_per_request"]) + " MiB";
    if (m["prefix_cached_tokens"].get<int64_t>() > 0)
        out += " (its own blocks); the shared prefix: " + thousands(m["prefix_cached_tokens"].get<int64_t>()) +
               " tokens of each prompt cached, " + mib(m["kv_shared_prefix_bytes"]) + " MiB held once";
    out += "\n\n";
    out += "Time of one replica\n";
    const double per_step = t["tokens_per_step"].get<double>();
    std::vector<Row> rows{{"", "value"},
                          {"time to first token", fixed(t["ttft_seconds"].get<double>() * ms, 2) + " ms"},
                          {"time per output token", fixed(t["tpot_seconds"].get<double>() * ms, 2) + " ms (" +
                                                        t["decode_bound"].get<std::string>() + "-bound)"}};
    // Speculative decoding: a step drafts, then verifies, and yields more than one token per request.
    if (per_step > 1) {
        rows.push_back({"decode step (drafts and verification)", fixed(t["decode_step_seconds"].get<double>() * ms, 2) + " ms"});
        rows.push_back({"of which drafting", fixed(t["draft_seconds"].get<double>() * ms, 2) + " ms"});
        rows.push_back({"output tokens per step and request", fixed(per_step, 2)});
    }
    if (generate)
        rows.push_back({"the host's launches per step (the longer of the two is the step)",
                        fixed(t["decode_host_seconds"].get<double>() * ms, 2) + " ms"});
    else
        rows.push_back({per_step > 1 ? "of the step, tensor-parallel all-reduces" : "of which tensor-parallel all-reduces",
                        fixed(t["decode_tp_seconds"].get<double>() * ms, 2) + " ms"});
    if (t["decode_all_to_all_seconds"].get<double>() > 0)
        rows.push_back({"and the experts' dispatch and combine", fixed(t["decode_all_to_all_seconds"].get<double>() * ms, 2) + " ms"});
    rows.push_back({"one request, end to end", fixed(t["request_seconds"].get<double>(), 3) + " s"});
    rows.push_back({"output tokens/s (replica)", fixed(t["tokens_per_second"].get<double>(), 1)});
    rows.push_back({"output tokens/s per GPU", fixed(t["tokens_per_second_per_gpu"].get<double>(), 1)});
    if (t["cost_per_million_tokens"].get<double>() > 0)
        rows.push_back({"cost per million output tokens", fixed(t["cost_per_million_tokens"].get<double>(), 3)});
    out += aligned(rows);
    if (s.contains("curve")) {
        out += "\nLatency against throughput (this request shape)\n";
        std::vector<Row> points{{"requests at once", "time per output token ms", "output tokens/s per GPU"}};
        for (const auto& p : s["curve"])
            points.push_back({thousands(p["concurrency"].get<int64_t>()), fixed(p["tpot_seconds"].get<double>() * ms, 2),
                              fixed(p["tokens_per_second_per_gpu"].get<double>(), 1)});
        out += aligned(points);
    }
    out += "\nLaunch\n" + format_launch_text(s["launch"]);
    return out;
}

}  // namespace shardcalc
