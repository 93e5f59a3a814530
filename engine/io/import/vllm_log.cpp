#include "io/import/vllm_log.h"

#include <algorithm>
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
        // memory it took, measured as the free memory before less after.
        if (const size_t at = line.find("Graph capturing finished in "); at != std::string::npos)
            any |= take(m.cuda_graphs, gib_after(line.substr(at), ", took "));
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
