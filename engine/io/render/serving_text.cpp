// Serving (serve/serving.h) as text: the verdict, a GPU's memory, the latency and throughput of one replica and its
// latency-throughput curve, or the serving plan search's ranking (serve/serving_search.h). It formats what the engine
// computed.
#include <cmath>

#include "io/render/answer_text.h"
#include "io/render/text_table.h"
#include "scenario/names.h"
#include "serve/serving_launch.h"

namespace shardcalc {
namespace {

using namespace text;

std::string gib_of(double bytes) { return amount(bytes, ByteUnit::GiB); }
std::string mib_of(double bytes) { return small_amount(bytes, ByteUnit::GiB); }

// The serving plan search: the plans ranked by output tokens per second per GPU, and why the others were left out.
std::string format_serving_search(const ServingSearchSpec& q, const ServingSearchResult& s) {
    std::string out = "serving plans: " + thousands(s.tried) + " tried, " + thousands(static_cast<int64_t>(s.plans.size())) +
                      " listed; left out: " + thousands(s.does_not_fit) + " do not fit one request, " +
                      thousands(s.misses_target) + " miss a latency target alone, " + thousands(s.invalid) + " not allowed";
    if (q.ttft_ms > 0) out += "; time to first token <= " + fixed(q.ttft_ms, 0) + " ms";
    if (q.tpot_ms > 0) out += "; time per output token <= " + fixed(q.tpot_ms, 0) + " ms";
    out += "\n\n";
    std::vector<Row> rows{{"rank", "tp", "pp", "dp attention", "weights", "KV cache", "concurrency", "TTFT ms", "TPOT ms",
                           "tokens/s/GPU", "$/M tokens", "pareto"}};
    for (size_t i = 0; i < s.plans.size(); ++i) {
        const ServingPlan& p = s.plans[i];
        const ServingEstimate& e = p.estimate;
        const double cost = e.cost_per_million_tokens;
        rows.push_back({std::to_string(i + 1), std::to_string(p.config.s.parallel.tp), std::to_string(p.config.s.parallel.pp),
                        std::to_string(e.attention_ranks), name_of(p.spec.weights), name_of(p.spec.kv_cache_dtype),
                        thousands(p.spec.concurrency), fixed(e.prefill_seconds * 1e3, 1), fixed(e.tpot_seconds * 1e3, 2),
                        fixed(e.tokens_per_second_per_gpu, 1), cost > 0 ? fixed(cost, 3) : "-", p.pareto ? "yes" : "no"});
    }
    out += aligned(rows);
    if (!s.plans.empty()) {
        const ServingPlan& first = s.plans.front();
        out += "\nLaunch (rank 1)\n" + launch_text(serving_launch(first.config, first.spec, first.estimate));
    }
    return out;
}

}  // namespace

std::string format_serving(const ServingAnswer& a) {
    if (a.search) return format_serving_search(*a.search, a.found);
    const Config& c = a.config;
    const ServingSpec& s = a.spec;
    const ServingEstimate& e = a.estimate;
    const double ms = 1e3;
    std::string out;
    const int64_t tp = c.s.parallel.tp, stages = c.s.parallel.pp, dpa = e.attention_ranks;
    const int64_t replicas = c.s.parallel.dp / e.attention_ranks;
    const std::string& device = c.s.hardware.name;
    const int64_t longest = s.longest_request();
    // transformers' generate: one static batch on the replica's GPUs, the memory its own (no reservation), the host's
    // launches.
    const bool generate = s.engine == ServingEngine::Transformers;
    if (generate)
        out += std::string("transformers' generate (") + name_of(s.cache) + " cache) on " + device + ", " +
               (tp > 1 ? "tp " + std::to_string(tp) : std::string("one GPU")) + " per replica, " + std::to_string(replicas) +
               " replica(s); a batch of " + thousands(s.concurrency) + " requests of " + thousands(s.prompt_tokens) +
               " prompt + " + thousands(s.output_tokens) + " output tokens, padded to the longest (" + thousands(longest) +
               " tokens)\n";
    else
        out += "serving on " + device + ": tp " + std::to_string(tp) + (stages > 1 ? " x pp " + std::to_string(stages) : "") +
               (dpa > 1 ? " x " + std::to_string(dpa) + " data-parallel attention ranks (experts over all)" : "") +
               " per replica, " + std::to_string(replicas) + " replica(s); requests of " + thousands(s.prompt_tokens) +
               " prompt + " + thousands(s.output_tokens) + " output tokens" +
               (longest > s.prompt_tokens + s.output_tokens ? " (the longest " + thousands(longest) + ")" : "") + ", " +
               thousands(s.concurrency) + " at once\n";
    if (s.request_rate > 0)
        out += e.keeps_up ? "at " + fixed(s.request_rate, 2) + " requests/s the replica settles at " +
                                thousands(s.concurrency) + " requests at once (Little's law)\n"
                          : "DOES NOT KEEP UP with " + fixed(s.request_rate, 2) + " requests/s: at most " +
                                fixed(e.max_request_rate, 2) + " with the " + thousands(s.concurrency) +
                                " requests its KV cache holds; the queue grows\n";
    out += std::string(e.fits ? "FITS" : "DOES NOT FIT") +
           (!generate ? ": the KV cache holds " : tp > 1 ? ": its GPUs hold a batch of " : ": the GPU holds a batch of ") +
           thousands(e.max_concurrency) + " such requests at once; the longest single request: " +
           thousands(e.max_model_len) + " tokens\n\n";
    out += "Memory of one GPU (GiB = 2^30 bytes)\n";
    std::vector<Row> parts{{"part", "GiB"}, {"device", gib_of(e.capacity)}};
    if (!generate) parts.push_back({"budget (gpu_memory_utilization)", gib_of(e.budget)});
    parts.push_back({"weights", gib_of(e.weights)});
    parts.push_back({generate ? "activation peak (the batch's prefill)" : "activation peak (profile run)", gib_of(e.activation_peak)});
    parts.push_back({"outside PyTorch", gib_of(e.non_torch)});
    if (std::llround(e.cuda_graphs) > 0) parts.push_back({"CUDA graphs (reserved in the budget)", gib_of(e.cuda_graphs)});
    parts.push_back({generate ? "left for the KV cache" : "KV cache", gib_of(e.kv_available)});
    if (generate && std::llround(e.cache_transient) > 0)
        parts.push_back({"of which DynamicCache's copy of one layer", gib_of(e.cache_transient)});
    out += aligned(parts);
    out += "KV cache per token: " + thousands(std::llround(e.kv_bytes_per_token)) + " bytes; per request: " +
           mib_of(e.kv_bytes_per_request) + " MiB";
    const int64_t prefix = static_cast<int64_t>(e.prefix_cached_tokens);
    if (prefix > 0)
        out += " (its own blocks); the shared prefix: " + thousands(prefix) + " tokens of each prompt cached, " +
               mib_of(e.kv_shared_prefix) + " MiB held once";
    out += "\n\n";
    out += "Time of one replica\n";
    const double per_step = e.tokens_per_step;
    std::vector<Row> rows{{"", "value"},
                          {"time to first token", fixed(e.prefill_seconds * ms, 2) + " ms"},
                          {"time per output token", fixed(e.tpot_seconds * ms, 2) + " ms (" +
                                                        (e.decode_memory_bound ? "memory" : "compute") + "-bound)"}};
    // Speculative decoding: a step drafts, then verifies, and yields more than one token per request.
    if (per_step > 1) {
        rows.push_back({"decode step (drafts and verification)", fixed(e.decode_step_seconds * ms, 2) + " ms"});
        rows.push_back({"of which drafting", fixed(e.draft_seconds * ms, 2) + " ms"});
        rows.push_back({"output tokens per step and request", fixed(per_step, 2)});
    }
    if (generate)
        rows.push_back({"the host's launches per step (the longer of the two is the step)",
                        fixed(e.decode_host_seconds * ms, 2) + " ms"});
    else {
        rows.push_back({per_step > 1 ? "of the step, tensor-parallel all-reduces" : "of which tensor-parallel all-reduces",
                        fixed(e.tp_seconds * ms, 2) + " ms"});
        rows.push_back({"and the gaps between vLLM's kernels", fixed(e.decode_launch_seconds * ms, 2) + " ms"});
    }
    if (e.all_to_all_seconds > 0)
        rows.push_back({"and the experts' dispatch and combine", fixed(e.all_to_all_seconds * ms, 2) + " ms"});
    rows.push_back({"one request, end to end", fixed(e.request_seconds, 3) + " s"});
    rows.push_back({"output tokens/s (replica)", fixed(e.tokens_per_second, 1)});
    rows.push_back({"output tokens/s per GPU", fixed(e.tokens_per_second_per_gpu, 1)});
    if (e.cost_per_million_tokens > 0) rows.push_back({"cost per million output tokens", fixed(e.cost_per_million_tokens, 3)});
    out += aligned(rows);
    if (!a.curve.empty()) {
        out += "\nLatency against throughput (this request shape)\n";
        std::vector<Row> points{{"requests at once", "time per output token ms", "output tokens/s per GPU"}};
        for (const CurvePoint& p : a.curve)
            points.push_back({thousands(p.concurrency), fixed(p.tpot_seconds * ms, 2), fixed(p.tokens_per_second_per_gpu, 1)});
        out += aligned(points);
    }
    const ClosedLoopRun* run = a.benchmark ? &*a.benchmark : nullptr;
    if (const std::string why = closed_loop_skipped(s, run); !why.empty()) {
        out += "\nBenchmark run: not run: " + why + "\n";
    } else if (run) {
        out += "\nBenchmark run (" + thousands(run->requests) + " requests, " + thousands(s.concurrency) +
               " at once, simulated step by step)\n";
        out += aligned({{"", "value"},
                        {"time to first token, mean", fixed(run->mean_ttft_seconds * ms, 2) + " ms"},
                        {"time to first token, median", fixed(run->median_ttft_seconds * ms, 2) + " ms"},
                        {"time to first token, p99", fixed(run->p99_ttft_seconds * ms, 2) + " ms"},
                        {"time per output token, median", fixed(run->median_tpot_seconds * ms, 2) + " ms"},
                        {"time per output token, mean", fixed(run->mean_tpot_seconds * ms, 2) + " ms"},
                        {"one request, end to end, mean", fixed(run->mean_e2e_seconds, 3) + " s"},
                        {"output tokens/s (replica)", fixed(run->output_tokens_per_second, 1)},
                        {"output tokens/s per GPU", fixed(run->output_tokens_per_second_per_gpu, 1)},
                        {"steps, preemptions", thousands(run->steps) + ", " + thousands(run->preemptions)}});
    }
    out += "\nLaunch\n" + launch_text(serving_launch(c, s, e));
    return out;
}

}  // namespace shardcalc
