#pragma once
// A vLLM server's start-up log set against the serving estimate of its scenario: each memory term vLLM reports (the
// device, its budget, the weights, the profile run's activations, the memory outside PyTorch, the KV cache) and the
// KV cache's size in tokens and requests, beside the estimate's, with the gap and what the log implies for the
// scenario. Pure arithmetic on plain structs; io/import/vllm_log.cpp reads the log.
#include <string>
#include <vector>

#include "core/logged_term.h"
#include "memory/out_of_memory.h"
#include "serve/serving.h"

namespace shardcalc {

// What vLLM's start-up lines say (bytes and counts; -1: the log does not say).
struct MeasuredServing {
    double total_gpu_memory = -1, gpu_memory_utilization = -1, budget = -1;
    double weights = -1, non_torch = -1, activation_peak = -1, kv_available = -1;
    double kv_tokens = -1;                      // "GPU KV cache size: N tokens"
    double max_concurrency = -1;                // "Maximum concurrency for L tokens per request: X x"
    double concurrency_request_tokens = -1;     // that L
    double cuda_graphs = -1;                    // the graphs' pool as captured ("Graph capturing finished in N secs, took X
                                                // GiB", "CUDA graph pool memory: X GiB (actual)", "… GiB for CUDAGraph memory")
    // vLLM 0.21 and later reserve an estimate of the pool in the budget before sizing the KV cache ("Estimated CUDA graph
    // memory: X GiB total", then "CUDA graph memory profiling is enabled"; "… is disabled" where turned off).
    double cuda_graphs_estimated = -1;
    int graphs_in_budget = -1;                  // 1: enabled, 0: disabled, -1: the log does not say
    double equivalent_utilization = -1;         // "… is equivalent to --gpu-memory-utilization=X without CUDA graph memory
                                                // profiling": the run's share less the reserve's
    bool no_kv_memory = false;                  // "No available memory for the cache blocks": vLLM refused to start
    // PyTorch's out-of-memory error where a worker printed one (the last), and the GPU it names.
    bool has_oom = false;
    OutOfMemory oom;
    int64_t oom_gpu = 0;
};

struct ServingReconciliation {
    std::vector<LoggedTerm> terms;  // those the log reports, in vLLM's order
    // The KV cache per token the log implies (its KV memory over its tokens) against the estimate's.
    bool has_kv_per_token = false;
    double log_kv_bytes_per_token = 0, estimated_kv_bytes_per_token = 0;
    // What the log implies for the scenario, as fields: the memory outside PyTorch (hardware.overhead_gib, GiB) and the
    // share of the device the run was given (serving.gpu_memory_utilization).
    bool has_overhead = false, has_utilization = false;
    double implied_overhead_gib = 0, implied_utilization = 0;
    // And the CUDA graphs' pool vLLM reserved in its budget (serving.cuda_graph_gib, GiB; 0 where it reserved none).
    bool has_cuda_graphs = false;
    double implied_cuda_graph_gib = 0;
    // The out-of-memory error: why it failed, and what the worker needed against the budget the estimate gives vLLM.
    bool has_oom = false;
    OomDiagnosis oom;
    double oom_needed_gap = 0;  // the estimate's budget less what the worker needed (oom.needed)
    std::vector<std::string> findings, unknowns;  // in words
};

ServingReconciliation reconcile_serving(const ServingSpec& s, const ServingEstimate& e, const MeasuredServing& logged);

}  // namespace shardcalc
