#include "serve/serving_reconcile.h"

#include <cmath>

#include "core/decimal.h"
#include "core/units.h"

namespace shardcalc {

namespace {

// A worker's out-of-memory error: its cause, and what it needed against the budget the estimate gives vLLM. The error
// also tells the device's total and, where it names this process, the memory outside PyTorch, where the log's own
// lines do not.
void failed_allocation(const ServingEstimate& e, MeasuredServing& m, ServingReconciliation& r) {
    r.has_oom = true;
    r.oom = diagnose(m.oom);
    const OutOfMemory& o = r.oom.oom;
    const std::string who = "vLLM's worker on GPU " + std::to_string(m.oom_gpu);
    r.findings.push_back(failure_words(who, r.oom));
    r.oom_needed_gap = e.budget - r.oom.needed;
    const auto size = allocator_size_text;
    r.findings.push_back(who + " needed at least " + size(r.oom.needed) + " (allocated + request) when it failed, " +
                         (r.oom.needed > e.budget
                              ? size(-r.oom_needed_gap) + " more than the budget the estimate gives vLLM (" + size(e.budget) +
                                    ", gpu_memory_utilization of the device): it allocated past its budget (CUDA graph "
                                    "capture, the sampler) or its budget holds less than its weights and activations"
                              : "within the budget the estimate gives vLLM (" + size(e.budget) +
                                    "): what else holds the device left it less than that budget"));
    if (o.other_processes > 0)
        r.findings.push_back("other processes held " + size(o.other_processes) + " of GPU " + std::to_string(m.oom_gpu) +
                             " (the error names " + std::to_string(o.named_processes) +
                             " by PID): the device was shared, where vLLM's budget assumes all of it");
    if (m.total_gpu_memory < 0) m.total_gpu_memory = o.capacity;
    if (const double reserved = o.allocated + o.cached; m.non_torch < 0 && o.process_used > reserved)
        m.non_torch = o.process_used - reserved;
}

}  // namespace

ServingReconciliation reconcile_serving(const ServingSpec& s, const ServingEstimate& e, const MeasuredServing& logged) {
    ServingReconciliation r;
    MeasuredServing m = logged;
    if (m.has_oom) failed_allocation(e, m, r);
    const auto term = [&](const char* key, const char* label, double log, double estimate, LoggedUnit unit = LoggedUnit::Bytes) {
        if (log >= 0) r.terms.push_back({key, label, log, estimate, estimate - log, unit});
    };
    // The KV cache in tokens as vLLM counts it: whole blocks of block_size tokens, each holding every layer's K and V
    // (vllm/v1/core/kv_cache_utils.py: num_blocks x block_size); its maximum concurrency is those tokens over the
    // request length it names (num_tokens / max_model_len).
    const double block = static_cast<double>(s.block_size);
    const double per_block = e.kv_bytes_per_token * block;
    const double tokens = per_block > 0 ? std::floor(e.kv_available / per_block) * block : 0;
    term("device_bytes", "device memory", m.total_gpu_memory, e.capacity);
    term("budget_bytes", "budget (gpu_memory_utilization)", m.budget, e.budget);
    term("weights_bytes", "weights", m.weights, e.weights);
    term("activation_peak_bytes", "activation peak (profile run)", m.activation_peak, e.activation_peak);
    term("non_torch_bytes", "outside PyTorch", m.non_torch, e.non_torch);
    // The graphs' estimated pool where vLLM took it out of the budget (not where it says the profiling is off).
    const bool reserved = m.cuda_graphs_estimated >= 0 && m.graphs_in_budget != 0;
    if (reserved) term("cuda_graphs_reserved_bytes", "CUDA graphs (reserved in the budget)", m.cuda_graphs_estimated, e.cuda_graphs);
    term("kv_available_bytes", "KV cache", m.kv_available, e.kv_available);
    term("kv_tokens", "KV cache size (tokens)", m.kv_tokens, tokens, LoggedUnit::Count);
    if (m.max_concurrency >= 0 && m.concurrency_request_tokens > 0)
        term("max_concurrency", "maximum concurrency at the log's request length", m.max_concurrency,
             tokens / m.concurrency_request_tokens, LoggedUnit::Count);
    if (m.kv_available > 0 && m.kv_tokens > 0) {
        r.has_kv_per_token = true;
        r.log_kv_bytes_per_token = m.kv_available / m.kv_tokens;
        r.estimated_kv_bytes_per_token = e.kv_bytes_per_token;
    }
    if (m.non_torch >= 0) {
        r.has_overhead = true;
        r.implied_overhead_gib = m.non_torch / kGiB;
    }
    if (m.gpu_memory_utilization > 0 && std::fabs(m.gpu_memory_utilization - s.gpu_memory_utilization) > 0.005) {
        r.has_utilization = true;
        r.implied_utilization = m.gpu_memory_utilization;
        r.findings.push_back("the run gave vLLM " + decimal(m.gpu_memory_utilization, 2) + " of the device, the scenario " +
                             decimal(s.gpu_memory_utilization, 2) + ": the budget and the KV cache differ by that much before any "
                             "term does (serving.gpu_memory_utilization)");
    }
    // What is left outside the KV cache, where the log gives only the cache (vLLM V1).
    if (m.kv_available >= 0 && m.weights < 0)
        r.unknowns.push_back("how the memory outside the KV cache splits into weights, activations and the rest: the log "
                             "prints only the KV cache (vLLM V1 without its debug lines)");
    if (m.kv_available >= 0 && m.activation_peak < 0 && m.weights >= 0)
        r.unknowns.push_back("the profile run's activation peak and the memory outside PyTorch: the log gives the weights "
                             "and the KV cache only");
    if (m.no_kv_memory)
        r.findings.push_back(std::string("vLLM refused to start: its budget left nothing for the KV cache (\"No available memory "
                                         "for the cache blocks\"); the estimate leaves it ") + allocator_size_text(e.kv_available));
    // The CUDA graphs' pool. vLLM allocates the KV cache for its budget, then captures the graphs (V0 worker.py
    // initialize_cache then _warm_up_model; V1 initialize_from_config then compile_or_warm_up_model); from 0.21 it first
    // takes an estimate of their pool out of the budget (vllm-project/vllm#30515: "Estimated CUDA graph memory", "CUDA
    // graph memory profiling is enabled"), so the pool is inside the budget; otherwise it comes on top. The engine does
    // not size the pool: serving.cuda_graph_gib carries the log's.
    const auto size = allocator_size_text;
    if (reserved) {
        r.findings.push_back("vLLM reserved " + size(m.cuda_graphs_estimated) + " of its budget for its CUDA graphs before sizing "
                             "the KV cache (CUDA graph memory profiling, its default since 0.21), where the scenario reserves " +
                             size(e.cuda_graphs) + " (serving.cuda_graph_gib)" +
                             (m.graphs_in_budget < 0 ? "; the log does not say the profiling was on, as vLLM 0.21 and later do" : ""));
        if (std::fabs(m.cuda_graphs_estimated - e.cuda_graphs) > 0.005 * kGiB) {
            r.has_cuda_graphs = true;
            r.implied_cuda_graph_gib = m.cuda_graphs_estimated / kGiB;
        }
        // vLLM states the reserve as a share of the device too ("is equivalent to --gpu-memory-utilization=…"): the
        // device's size follows where the log gives none, to the rounding of its figures (the shares to 1/10,000).
        const double share = m.gpu_memory_utilization - m.equivalent_utilization;
        if (m.total_gpu_memory < 0 && m.gpu_memory_utilization > 0 && m.equivalent_utilization >= 0 && share >= 0.001) {
            const double device = m.cuda_graphs_estimated / share;
            if (std::fabs(device - e.capacity) > 0.1 * e.capacity)
                r.findings.push_back("the run's device holds about " + size(device) + " (vLLM's reserve over the share it says it "
                                     "equals), the scenario's " + size(e.capacity) + ": is the scenario the run's device?");
        }
    } else if (m.graphs_in_budget == 0 && e.cuda_graphs > 0) {
        r.findings.push_back("vLLM's CUDA graph memory profiling was off (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0): it reserved "
                             "nothing for its graphs in the budget, where the scenario reserves " + size(e.cuda_graphs));
        r.has_cuda_graphs = true;
        r.implied_cuda_graph_gib = 0;
    }
    if (m.cuda_graphs >= 0) {
        const double whole = e.budget + m.cuda_graphs;
        if (reserved)
            r.findings.push_back("vLLM's CUDA graphs took " + size(m.cuda_graphs) + " when captured, against the " +
                                 size(m.cuda_graphs_estimated) + " it reserved for them" +
                                 (m.cuda_graphs > m.cuda_graphs_estimated ? ": the rest came on top of its budget" : ""));
        else
            r.findings.push_back("vLLM's CUDA graphs took " + size(m.cuda_graphs) + ", captured after its KV cache was sized to its "
                                 "budget (" + size(e.budget) + "): together " + size(whole) + " of the device's " +
                                 size(e.capacity) + (whole > e.capacity ? ", more than it holds," : "") +
                                 " before what is outside PyTorch (the estimate does not size the graphs' pool)");
    } else if (!reserved) {
        r.unknowns.push_back("the CUDA graphs' memory pool: these lines do not report it");
    }
    return r;
}

}  // namespace shardcalc
