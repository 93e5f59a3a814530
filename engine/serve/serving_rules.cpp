// The rules of a served plan beyond the model's and the device's (serve/serving.h validate_serving).
#include <algorithm>
#include <string>
#include <tuple>

#include "core/error.h"
#include "scenario/names.h"
#include "serve/closed_loop.h"
#include "serve/serving.h"

namespace shardcalc {

void validate_serving(const Config& c, const ServingSpec& s) {
    Problems problems;
    const ResolvedModel& m = c.s.model;
    const ResolvedParallel& p = c.s.parallel;
    if (m.arch != Arch::Decoder)
        problems.add("/model/arch", std::string("serving estimates a decoder's generation; got ") + name_of(m.arch));
    // Served here: tensor and pipeline parallelism within a replica, replicas over dp (vLLM --tensor-parallel-size,
    // --pipeline-parallel-size, --data-parallel-size).
    for (const auto& [path, degree] : {std::pair<const char*, int64_t>{"/parallel/cp", p.cp}, {"/parallel/ulysses", p.ulysses},
                                       {"/parallel/ep", p.ep}})
        if (degree != 1) problems.add(path, "serving is modelled with tensor and pipeline parallelism (tp, pp) and replicas (dp) only: 1");
    if (m.arch == Arch::Decoder && p.pp > m.layers)
        problems.add("/parallel/pp", "at most model.layers (" + std::to_string(m.layers) + ") pipeline stages, got " + std::to_string(p.pp));
    if (p.pp > 1 && s.speculative.method != SpeculativeMethod::None)
        problems.add("/serving/speculative/method", "speculative decoding is modelled without pipeline parallelism: pp must be 1");
    // vLLM splits the query heads over tp and the key/value heads too, or replicates them when tp is a multiple of them
    // (vllm/model_executor/layers/linear.py QKVParallelLinear).
    const int64_t tp = p.tp, kv = m.kv_heads;
    if (m.arch == Arch::Decoder && (m.heads % tp != 0 || (kv % tp != 0 && tp % kv != 0)))
        problems.add("/parallel/tp", "must divide model.heads (" + std::to_string(m.heads) + ") and divide or be a multiple of "
                                     "model.kv_heads (" + std::to_string(kv) + "), got " + std::to_string(tp));
    const int64_t request = s.longest_request();
    const bool longest = s.max_prompt_tokens > 0 || s.max_output_tokens > 0;
    if (m.max_positions > 0 && request > m.max_positions)
        problems.add(longest ? "/serving/max_output_tokens" : "/serving/output_tokens",
                     std::string(longest ? "the longest prompt + output" : "prompt_tokens + output_tokens") + " (" +
                         std::to_string(request) + ") exceed the model's positions (model.max_positions = " +
                         std::to_string(m.max_positions) + ")");
    for (const auto& [path, longest_one, mean] : {std::tuple<const char*, int64_t, int64_t>{"/serving/max_prompt_tokens", s.max_prompt_tokens, s.prompt_tokens},
                                                  {"/serving/max_output_tokens", s.max_output_tokens, s.output_tokens}})
        if (longest_one > 0 && longest_one < mean)
            problems.add(path, "the longest must be at least the average (" + std::to_string(mean) + "), got " + std::to_string(longest_one));
    if (s.shared_prefix_tokens > s.prompt_tokens)
        problems.add("/serving/shared_prefix_tokens", "at most prompt_tokens (" + std::to_string(s.prompt_tokens) + "), got " +
                                                          std::to_string(s.shared_prefix_tokens));
    if (s.speculative.method == SpeculativeMethod::Mtp && m.mtp_layers < 1)
        problems.add("/serving/speculative/method", "mtp drafts with the model's multi-token prediction modules; the model has "
                                                    "none (model.mtp_layers is 0): use ngram, or a model with them");
    if (s.weights == WeightFormat::Fp8 && c.s.hardware.peak_tflops_fp8 <= 0)
        problems.add("/serving/weights", "fp8 weights run fp8 GEMMs; the device has no fp8 tensor cores (hardware.peak_tflops.fp8 is 0)");
    if (s.dp_attention) {
        const int64_t gpus = p.dp * p.tp;
        if (m.experts == 0)
            problems.add("/serving/dp_attention", "spreads the experts of an MoE model over the data-parallel ranks; this model "
                                                  "has none (its dp ranks are replicas: leave dp_attention out)");
        else if (m.experts % gpus != 0)
            problems.add("/serving/dp_attention", "the experts (" + std::to_string(m.experts) + ") must divide over dp x tp = " +
                                                      std::to_string(gpus) + " GPUs");
        if (p.dp < 2) problems.add("/parallel/dp", "data-parallel attention needs at least 2 ranks, got " + std::to_string(p.dp));
        if (p.pp > 1) problems.add("/parallel/pp", "data-parallel attention is modelled without pipeline stages: pp must be 1");
        if (s.speculative.method != SpeculativeMethod::None)
            problems.add("/serving/speculative/method", "speculative decoding is modelled without data-parallel attention: none");
    }
    if (s.benchmark_requests > 0) {
        // The closed-loop run (serve/closed_loop.h) steps one vLLM replica of tensor parallelism alone.
        const char* at = "/serving/benchmark_requests";
        if (s.engine != ServingEngine::Vllm) problems.add(at, "a run of vLLM's scheduler: serving.engine vllm");
        if (p.pp != 1) problems.add(at, "simulated without pipeline stages: pp must be 1");
        if (s.dp_attention) problems.add(at, "simulated without data-parallel attention: leave dp_attention out");
        if (s.speculative.method != SpeculativeMethod::None) problems.add(at, "simulated without speculative decoding: method none");
        if (s.shared_prefix_tokens > 0) problems.add(at, "simulated without prefix caching: shared_prefix_tokens 0");
        if (s.request_rate > 0) problems.add(at, "a closed loop at `concurrency`: leave request_rate out");
        const double work = static_cast<double>(s.benchmark_requests) * static_cast<double>(std::max(s.output_tokens, s.max_output_tokens));
        if (work > kMaxClosedLoopTokens)
            problems.add(at, "requests x the longest output (" + std::to_string(static_cast<int64_t>(work)) + ") at most " +
                                 std::to_string(static_cast<int64_t>(kMaxClosedLoopTokens)) + ", the work of a run bounded to about half a second");
    }
    if (s.engine == ServingEngine::Transformers) {
        // transformers' generate runs the model's own modules in one PyTorch process per replica (data parallelism
        // side by side), one static batch at a time: none of vLLM's scheduler, pool or drafters.
        if (c.s.framework != Framework::Pytorch)
            problems.add("/framework", "transformers' generate runs in plain PyTorch: framework pytorch");
        // Tensor parallelism (from_pretrained(tp_plan="auto") under torchrun): the model's base_model_tp_plan splits q, k
        // and v column-wise (by heads) and o row-wise, the MLP's up and down projections likewise; a fused QKV projection
        // (GPT-2's c_attn) has no such plan, and the experts' plans are not modelled.
        if (p.tp > 1) {
            const std::string t = std::to_string(p.tp);
            if (m.fused_qkv) problems.add("/parallel/tp", "transformers' tensor parallelism (tp_plan) splits separate q, k and v "
                                                           "projections; this model fuses them: tp 1");
            if (m.experts > 0) problems.add("/parallel/tp", "transformers' tensor parallelism of the experts is not modelled: tp 1");
            if (const int64_t kv = m.kv_heads; kv % p.tp != 0)
                problems.add("/parallel/tp", "transformers' tp_plan splits the key/value heads (" + std::to_string(kv) +
                                             ") over the ranks without replicating them: tp must divide them, got " + t);
        }
        if (p.pp != 1) problems.add("/parallel/pp", "transformers' generate is modelled with tp_plan's tensor parallelism only, no pipeline stages: pp 1");
        const ServingSpec vllm;
        for (const auto& [path, given] : {std::pair<const char*, bool>{"/serving/gpu_memory_utilization",
                                                                       s.gpu_memory_utilization != vllm.gpu_memory_utilization},
                                          {"/serving/cuda_graph_gib", s.cuda_graph_gib != vllm.cuda_graph_gib},
                                          {"/serving/block_size", s.block_size != vllm.block_size},
                                          {"/serving/max_num_batched_tokens", s.max_num_batched_tokens != vllm.max_num_batched_tokens},
                                          {"/serving/max_num_seqs", s.max_num_seqs != vllm.max_num_seqs},
                                          {"/serving/shared_prefix_tokens", s.shared_prefix_tokens != 0},
                                          {"/serving/request_rate", s.request_rate != 0},
                                          {"/serving/dp_attention", s.dp_attention},
                                          {"/serving/speculative/method", s.speculative.method != SpeculativeMethod::None}})
            if (given) problems.add(path, "a vLLM setting; transformers' generate (serving.engine transformers) has none: leave it out");
        // CUDA graphs replay fixed shapes: a DynamicCache grows every step (torch.compile recompiles or falls back).
        if (cuda_graphs(c.s.implementation.compile) && s.cache != KvCacheImpl::Static)
            problems.add("/implementation/compile", "CUDA graphs (reduce_overhead, max_autotune) need fixed shapes: set serving.cache "
                                                    "static, or compile inductor");
    } else if (s.cache != KvCacheImpl::Dynamic) {
        problems.add("/serving/cache", "transformers' cache implementation: set serving.engine transformers (vLLM pages its cache)");
    }
    problems.raise();
}


}  // namespace shardcalc
