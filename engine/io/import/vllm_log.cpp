#include "io/import/vllm_log.h"

#include <cctype>
#include <optional>

#include "core/error.h"
#include "core/units.h"
#include "io/import/log_text.h"
#include "io/import/oom_message.h"

namespace shardcalc {

namespace {

using log_text::number_after;

// The GiB figure right after `key` (vLLM prints every memory figure in GiB, some labelled GB), in bytes.
std::optional<double> gib_after(const std::string& line, const char* key) {
    const auto v = number_after(line, key);
    return v ? std::optional<double>(*v * kGiB) : std::nullopt;
}

// The GiB figure right before `key` ("8.58 GiB for weight"), in bytes.
std::optional<double> gib_before(const std::string& line, const char* key) {
    const size_t k = line.find(key);
    if (k == std::string::npos) return std::nullopt;
    size_t start = k;
    while (start > 0 && (std::isdigit(static_cast<unsigned char>(line[start - 1])) || line[start - 1] == '.')) --start;
    const auto v = log_text::number_at(line.substr(start, k - start));
    return v ? std::optional<double>(*v * kGiB) : std::nullopt;
}

// Keeps `value` in `into` when the line gave one; true if it did.
bool take(double& into, const std::optional<double>& value) {
    if (!value) return false;
    into = *value;
    return true;
}

}  // namespace

MeasuredServing read_vllm_log(const std::string& text) {
    MeasuredServing m;
    bool known = false;
    log_text::Lines lines(text);
    std::string line;
    while (lines.next(line)) {
        const size_t number = lines.number();
        // A worker's out-of-memory error (io/import/oom_message.h), its GPU as the message names it: the last one.
        if (const auto oom = read_oom_message(line, number)) {
            m.has_oom = known = true;
            m.oom = oom->oom;
            m.oom_gpu = oom->rank;
            continue;
        }
        bool any = false;
        // V0's one-line budget, or the 0.6.5 table's lines: of a key's two spellings ("total_gpu_memory (23.58GiB)",
        // "total_gpu_memory     79.22GiB"; "non_torch_memory takes 0.20GiB", "non_torch_memory     1.79GiB") only the
        // one followed by the number reads.
        any |= take(m.total_gpu_memory, gib_after(line, "total_gpu_memory ("));
        any |= take(m.total_gpu_memory, gib_after(line, "total_gpu_memory "));
        any |= take(m.gpu_memory_utilization, number_after(line, "gpu_memory_utilization ("));
        any |= take(m.gpu_memory_utilization, number_after(line, "gpu_memory_utilization "));
        if (const size_t eq = line.find("gpu_memory_utilization ("); eq != std::string::npos)
            any |= take(m.budget, gib_after(line.substr(eq), ") = "));
        any |= take(m.budget, gib_after(line, "the current vLLM instance can use "));
        any |= take(m.weights, gib_after(line, "model weights take "));
        any |= take(m.non_torch, gib_after(line, "non_torch_memory takes "));
        any |= take(m.non_torch, gib_after(line, "non_torch_memory "));
        any |= take(m.activation_peak, gib_after(line, "PyTorch activation peak memory takes "));
        any |= take(m.activation_peak, gib_after(line, "PyTorch activation peak memory "));
        any |= take(m.kv_available, gib_after(line, "the rest of the memory reserved for KV Cache is "));
        any |= take(m.kv_available, gib_after(line, "available_kv_cache_memory "));
        // V1.
        any |= take(m.weights, gib_after(line, "Model loading took "));
        any |= take(m.weights, gib_after(line, "Loading model weights took "));
        any |= take(m.kv_available, gib_after(line, "Available KV cache memory: "));
        any |= take(m.kv_tokens, number_after(line, "GPU KV cache size: ", 0, true));
        // The CUDA graphs' capture (vllm/worker/model_runner.py, v1/worker/gpu_model_runner.py capture_model): the device
        // memory it took, measured as the free memory before less after; and the pool after capture beside the reserve.
        if (const size_t at = line.find("Graph capturing finished in "); at != std::string::npos)
            any |= take(m.cuda_graphs, gib_after(line.substr(at), ", took "));
        if (const size_t at = line.find("CUDA graph pool memory: "); at != std::string::npos) {
            any |= take(m.cuda_graphs, gib_after(line, "CUDA graph pool memory: "));
            if (const size_t comma = line.find("(actual), ", at); comma != std::string::npos && m.cuda_graphs_estimated < 0)
                take(m.cuda_graphs_estimated, gib_after(line.substr(comma), "(actual), "));
        }
        // vLLM 0.21 and later (gpu_model_runner.py profile_cudagraph_memory, gpu_worker.py determine_available_memory):
        // the pool estimated by a dummy capture at start-up, and whether it was taken out of the KV cache's budget.
        any |= take(m.cuda_graphs_estimated, gib_after(line, "Estimated CUDA graph memory: "));
        if (line.find("CUDA graph memory profiling is enabled") != std::string::npos) m.graphs_in_budget = 1, any = true;
        if (line.find("CUDA graph memory profiling is disabled") != std::string::npos) m.graphs_in_budget = 0, any = true;
        any |= take(m.gpu_memory_utilization, number_after(line, "The current --gpu-memory-utilization="));
        any |= take(m.equivalent_utilization, number_after(line, "is equivalent to --gpu-memory-utilization="));
        // The engine's refusal to start when nothing of the budget is left for the KV cache (v1/core/kv_cache_utils.py).
        if (line.find("No available memory for the cache blocks") != std::string::npos) m.no_kv_memory = true, any = true;
        // The summary after capture that suggests --kv-cache-memory (gpu_worker.py, vllm-project/vllm#21489): "Free memory
        // on device (F/T GiB) on startup. Desired GPU memory utilization is (u, B GiB). Actual usage is W GiB for weight,
        // P GiB for peak activation, N GiB for non-torch memory, and G GiB for CUDAGraph memory."
        if (const size_t at = line.find("Free memory on device ("); at != std::string::npos) {
            if (const size_t slash = line.find('/', at); slash != std::string::npos)
                any |= take(m.total_gpu_memory, gib_after(line.substr(slash), "/"));
            any |= take(m.gpu_memory_utilization, number_after(line, "Desired GPU memory utilization is ("));
            if (const size_t u = line.find("Desired GPU memory utilization is ("); u != std::string::npos)
                any |= take(m.budget, gib_after(line.substr(u), ", "));
            any |= take(m.weights, gib_before(line, " GiB for weight"));
            any |= take(m.activation_peak, gib_before(line, " GiB for peak activation"));
            any |= take(m.non_torch, gib_before(line, " GiB for non-torch memory"));
            any |= take(m.cuda_graphs, gib_before(line, " GiB for CUDAGraph memory"));
        }
        if (line.find("Maximum concurrency for ") != std::string::npos) {
            const auto tokens = number_after(line, "Maximum concurrency for ", 0, true);
            const auto times = number_after(line, "tokens per request: ");
            if (tokens && times) {
                m.concurrency_request_tokens = *tokens;
                m.max_concurrency = *times;
                any = true;
            }
        }
        known |= any;
    }
    if (!known)
        throw InputError("/log", "no line of vLLM's start-up log was found: it reads the memory profile (\"model weights take "
                                 "…\", \"Available KV cache memory: …\"), the KV cache size and the maximum concurrency lines, the CUDA graphs' "
                                 "capture line and PyTorch's out-of-memory error");
    return m;
}

}  // namespace shardcalc
