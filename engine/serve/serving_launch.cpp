// How to start the served plan: vLLM's and SGLang's server flags for the replica shardcalc sized (argument names as
// vllm/engine/arg_utils.py EngineArgs and sglang/srt/server_args.py ServerArgs define them).
#include "serve/serving_launch.h"

#include <string>

#include "core/decimal.h"
#include "scenario/names.h"

namespace shardcalc {

std::vector<LaunchCommand> serving_launch(const Config& c, const ServingSpec& s) {
    const ParallelSpec& p = c.s.parallel;
    const auto n = [](int64_t v) { return std::to_string(v); };
    const std::string checkpoint = "<checkpoint of " + (c.s.model.preset.empty() ? std::string("the model") : c.s.model.preset) + ">";
    const std::string length = n(s.prompt_tokens + s.output_tokens);
    LaunchCommand vllm{"vLLM (vllm serve)", {"vllm serve " + checkpoint}};
    auto& v = vllm.lines;
    v.push_back("--tensor-parallel-size " + n(p.tp));
    if (p.dp > 1) v.push_back("--data-parallel-size " + n(p.dp));
    v.push_back("--max-model-len " + length);
    v.push_back("--gpu-memory-utilization " + decimal(s.gpu_memory_utilization, 2));
    v.push_back("--max-num-seqs " + n(s.concurrency));
    v.push_back("--max-num-batched-tokens " + n(s.max_num_batched_tokens));
    if (s.block_size != 16) v.push_back("--block-size " + n(s.block_size));
    if (s.kv_cache_dtype == KvCacheDtype::Fp8) v.push_back("--kv-cache-dtype fp8");
    LaunchCommand sglang{"SGLang (sglang.launch_server)", {"python -m sglang.launch_server --model-path " + checkpoint}};
    auto& g = sglang.lines;
    g.push_back("--tp-size " + n(p.tp));
    if (p.dp > 1) g.push_back("--dp-size " + n(p.dp));
    g.push_back("--context-length " + length);
    // SGLang's fraction is of the weights and the KV cache together; vLLM's is of everything it allocates.
    g.push_back("--mem-fraction-static " + decimal(s.gpu_memory_utilization, 2));
    g.push_back("--max-running-requests " + n(s.concurrency));
    g.push_back("--chunked-prefill-size " + n(s.max_num_batched_tokens));
    if (s.kv_cache_dtype == KvCacheDtype::Fp8) g.push_back("--kv-cache-dtype fp8_e4m3");
    switch (s.weights) {
        case WeightFormat::Model: break;
        case WeightFormat::Fp8:
            // A 16-bit checkpoint quantized to fp8 as it loads; an fp8 checkpoint names its quantization itself.
            v.push_back("--quantization fp8");
            g.push_back("--quantization fp8");
            break;
        case WeightFormat::Int8:
        case WeightFormat::Int4:
            for (auto* lines : {&v, &g})
                lines->push_back(std::string("# ") + name_of(s.weights) +
                                 ": serve a GPTQ or AWQ checkpoint; its quantization_config names the method");
            break;
    }
    return {vllm, sglang};
}

}  // namespace shardcalc
