#include "io/contract/serving_json.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "io/codec/json_reader.h"
#include "io/codec/json_writer.h"
#include "io/contract/logged_term_json.h"
#include "io/contract/reconcile_io.h"
#include "scenario/names.h"
#include "serve/serving_launch.h"

namespace shardcalc {

namespace {

constexpr int64_t kTokens = int64_t{1} << 26;  // as training.seq_len

}  // namespace

namespace {

ServingSearchSpec search_spec_from_json(const nlohmann::json& j) {
    ServingSearchSpec q;
    ObjectReader r(j, "/serving/search");
    assign(q.max_tp, r.integer("max_tp", 1, 1 << 16));
    assign(q.max_pp, r.integer("max_pp", 1, 1 << 10));
    if (auto v = r.choices<WeightFormat>("weights")) q.weights = *v;
    if (auto v = r.choices<KvCacheDtype>("kv_cache_dtypes")) q.kv_cache_dtypes = *v;
    assign(q.ttft_ms, r.number("ttft_ms", 0, 1e9));
    assign(q.tpot_ms, r.number("tpot_ms", 0, 1e9));
    assign(q.top, r.integer("top", 1, 1000));
    r.finish();
    return q;
}

// The "speculative" object: the drafter, its tokens per step and their acceptance (required: it is the workload's, and
// vLLM reports it per draft position).
Speculation speculation_from_json(const nlohmann::json& j) {
    Speculation sp;
    ObjectReader r(j, "/serving/speculative");
    assign(sp.method, r.choice<SpeculativeMethod>("method"));
    assign(sp.tokens, r.integer("tokens", 1, 16));
    assign(sp.acceptance, r.number("acceptance", 0, 0.999));
    if (!r.failed("acceptance") && !j.contains("acceptance") && sp.method != SpeculativeMethod::None)
        r.problem("acceptance", "required with a method: the chance the target accepts a draft token, from 0 to 0.999 "
                                "(vLLM's spec-decode metrics give it per draft position)");
    r.finish();
    return sp;
}

}  // namespace

ServingInput serving_input_from_json(const nlohmann::json* j) {
    ServingInput in;
    if (!j) return in;
    ServingSpec& s = in.spec;
    ObjectReader r(*j, "/serving");
    if (const nlohmann::json* v = r.object("search")) r.collect([&] { in.search = search_spec_from_json(*v); });
    assign(s.prompt_tokens, r.integer("prompt_tokens", 1, kTokens));
    assign(s.output_tokens, r.integer("output_tokens", 1, kTokens));
    assign(s.max_prompt_tokens, r.integer("max_prompt_tokens", 1, kTokens));
    assign(s.max_output_tokens, r.integer("max_output_tokens", 1, kTokens));
    assign(s.concurrency, r.integer("concurrency", 1, int64_t{1} << 20));
    assign(s.request_rate, r.number("request_rate", 0, 1e6));
    assign(s.weights, r.choice<WeightFormat>("weights"));
    assign(s.group_size, r.integer("group_size", 1, 1 << 16));
    assign(s.kv_cache_dtype, r.choice<KvCacheDtype>("kv_cache_dtype"));
    assign(s.gpu_memory_utilization, r.number("gpu_memory_utilization", 0.01, 1));
    assign(s.cuda_graph_gib, r.number("cuda_graph_gib", 0, 1e6));
    assign(s.block_size, r.integer("block_size", 1, 1 << 16));
    assign(s.max_num_batched_tokens, r.integer("max_num_batched_tokens", 1, kTokens));
    assign(s.max_num_seqs, r.integer("max_num_seqs", 1, int64_t{1} << 20));
    assign(s.shared_prefix_tokens, r.integer("shared_prefix_tokens", 0, kTokens));
    assign(s.dp_attention, r.boolean("dp_attention"));
    assign(s.benchmark_requests, r.integer("benchmark_requests", 0, int64_t{1} << 20));
    if (const nlohmann::json* v = r.object("speculative")) r.collect([&] { s.speculative = speculation_from_json(*v); });
    assign(s.engine, r.choice<ServingEngine>("engine"));
    assign(s.cache, r.choice<KvCacheImpl>("cache"));
    r.finish();
    return in;
}

nlohmann::json serving_to_json(const Config& c, const ServingSpec& s, const ServingEstimate& e, const std::vector<CurvePoint>& curve,
                               const ClosedLoopRun* benchmark) {
    using nlohmann::json;
    json points = json::array();
    for (const CurvePoint& p : curve)
        points.push_back({{"concurrency", p.concurrency}, {"tpot_seconds", p.tpot_seconds}, {"tokens_per_second_per_gpu", p.tokens_per_second_per_gpu}});
    json launch = json::array();
    for (const LaunchCommand& l : serving_launch(c, s, e)) launch.push_back({{"tool", l.tool}, {"lines", l.lines}});
    json out = {
        {"launch", std::move(launch)},
        {"request",
         {{"prompt_tokens", s.prompt_tokens},
          {"output_tokens", s.output_tokens},
          {"longest_request_tokens", s.longest_request()},
          {"concurrency", s.concurrency},
          {"request_rate", s.request_rate},
          {"keeps_up", e.keeps_up},
          {"max_request_rate", e.max_request_rate}}},
        {"replica",
         {{"tp", c.s.parallel.tp},
          {"pp", c.s.parallel.pp},
          {"dp_attention_ranks", e.attention_ranks},
          {"replicas", c.s.parallel.dp / e.attention_ranks},
          {"gpus", e.replica_gpus},
          {"device", c.s.hardware.name}}},
        {"memory",
         {{"capacity_bytes", whole(e.capacity)},
          {"budget_bytes", whole(e.budget)},
          {"weights_bytes", whole(e.weights)},
          {"activation_peak_bytes", whole(e.activation_peak)},
          {"non_torch_bytes", whole(e.non_torch)},
          {"cuda_graphs_bytes", whole(e.cuda_graphs)},
          {"kv_available_bytes", whole(e.kv_available)},
          {"kv_bytes_per_token", whole(e.kv_bytes_per_token)},
          {"kv_bytes_per_request", whole(e.kv_bytes_per_request)},
          {"kv_shared_prefix_bytes", whole(e.kv_shared_prefix)},
          {"prefix_cached_tokens", static_cast<int64_t>(e.prefix_cached_tokens)},
          {"max_concurrency", e.max_concurrency},
          {"max_model_len", e.max_model_len},
          {"fits", e.fits}}},
        {"time",
         {{"ttft_seconds", e.prefill_seconds},
          {"tpot_seconds", e.tpot_seconds},
          {"decode_step_seconds", e.decode_step_seconds},
          {"draft_seconds", e.draft_seconds},
          {"tokens_per_step", e.tokens_per_step},
          {"decode_bound", e.decode_memory_bound ? "memory" : "compute"},
          {"decode_bytes", whole(e.decode_bytes)},
          {"decode_flops", e.decode_flops},
          {"decode_tp_seconds", e.tp_seconds},
          {"decode_launch_seconds", e.decode_launch_seconds},
          {"decode_all_to_all_seconds", e.all_to_all_seconds},
          {"request_seconds", e.request_seconds},
          {"tokens_per_second", e.tokens_per_second},
          {"tokens_per_second_per_gpu", e.tokens_per_second_per_gpu},
          {"cost_per_million_tokens", e.cost_per_million_tokens}}},
        {"serving",
         {{"engine", name_of(s.engine)},
          {"weights", name_of(s.weights)},
          {"group_size", s.group_size},
          {"kv_cache_dtype", name_of(s.kv_cache_dtype)},
          {"gpu_memory_utilization", s.gpu_memory_utilization},
          {"cuda_graph_gib", s.cuda_graph_gib},
          {"block_size", s.block_size},
          {"max_num_batched_tokens", s.max_num_batched_tokens},
          {"max_num_seqs", s.max_num_seqs},
          {"max_prompt_tokens", std::max(s.prompt_tokens, s.max_prompt_tokens)},
          {"max_output_tokens", std::max(s.output_tokens, s.max_output_tokens)},
          {"request_rate", s.request_rate},
          {"shared_prefix_tokens", s.shared_prefix_tokens},
          {"dp_attention", s.dp_attention},
          {"benchmark_requests", s.benchmark_requests},
          {"speculative",
           {{"method", name_of(s.speculative.method)},
            {"tokens", s.speculative.tokens},
            {"acceptance", s.speculative.acceptance}}}}}};
    if (!curve.empty()) out["curve"] = std::move(points);
    if (const std::string why = closed_loop_skipped(s, benchmark); !why.empty()) {
        out["benchmark"] = {{"skipped", why}};
    } else if (benchmark) {
        const ClosedLoopRun& b = *benchmark;
        out["benchmark"] = {{"requests", b.requests},
                            {"concurrency", s.concurrency},
                            {"steps", b.steps},
                            {"preemptions", b.preemptions},
                            {"duration_seconds", b.duration_seconds},
                            {"mean_ttft_seconds", b.mean_ttft_seconds},
                            {"median_ttft_seconds", b.median_ttft_seconds},
                            {"p99_ttft_seconds", b.p99_ttft_seconds},
                            {"median_tpot_seconds", b.median_tpot_seconds},
                            {"mean_tpot_seconds", b.mean_tpot_seconds},
                            {"mean_e2e_seconds", b.mean_e2e_seconds},
                            {"output_tokens_per_second", b.output_tokens_per_second},
                            {"output_tokens_per_second_per_gpu", b.output_tokens_per_second_per_gpu}};
    }
    if (s.engine == ServingEngine::Transformers) {
        out["serving"]["cache"] = name_of(s.cache);
        out["time"]["decode_host_seconds"] = e.decode_host_seconds;
        out["memory"]["cache_transient_bytes"] = whole(e.cache_transient);
    }
    return out;
}

nlohmann::json serving_search_to_json(const ServingSearchSpec& q, const ServingSearchResult& r) {
    using nlohmann::json;
    json plans = json::array();
    for (size_t i = 0; i < r.plans.size(); ++i) {
        const ServingPlan& p = r.plans[i];
        json one = serving_to_json(p.config, p.spec, p.estimate);
        one["rank"] = static_cast<int64_t>(i + 1);
        one["cost_per_million_tokens"] = p.estimate.cost_per_million_tokens;
        one["pareto"] = p.pareto;
        plans.push_back(std::move(one));
    }
    return {{"targets", {{"ttft_ms", q.ttft_ms}, {"tpot_ms", q.tpot_ms}}},
            {"counts",
             {{"tried", r.tried}, {"invalid", r.invalid}, {"does_not_fit", r.does_not_fit}, {"misses_target", r.misses_target},
              {"listed", static_cast<int64_t>(r.plans.size())}}},
            {"plans", std::move(plans)}};
}

nlohmann::json serving_reconciliation_json(const ServingReconciliation& r) {
    using nlohmann::json;
    json out = {{"source", "vLLM"}, {"terms", logged_terms_json(r.terms)}, {"calibration", implied_fields_json(implied_fields(r))},
                {"findings", r.findings}, {"unknowns", r.unknowns}};
    if (r.has_oom) {
        const OutOfMemory& o = r.oom.oom;
        json failed = {{"request", o.request},  {"allocated", o.allocated},        {"cached", o.cached},
                       {"free", o.free},        {"capacity", o.capacity},          {"cause", name_of(r.oom.cause)},
                       {"shortfall", r.oom.shortfall},
                       {"needed", {{"log", r.oom.needed}, {"budget", r.oom.needed + r.oom_needed_gap}, {"gap", r.oom_needed_gap}}},
                       {"other_processes", o.other_processes}};
        if (o.allowed >= 0) failed["allowed"] = o.allowed;
        if (o.process_used >= 0) failed["process_used"] = o.process_used;
        out["out_of_memory"] = std::move(failed);
    }
    if (r.has_kv_per_token)
        out["kv_bytes_per_token"] = {{"log", r.log_kv_bytes_per_token}, {"estimate", r.estimated_kv_bytes_per_token}};
    return out;
}

}  // namespace shardcalc
