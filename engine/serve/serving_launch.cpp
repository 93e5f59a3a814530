// How to start the served plan: vLLM's, SGLang's and TensorRT-LLM's server flags for the replica shardcalc sized
// (argument names as vllm/engine/arg_utils.py EngineArgs, sglang/srt/server_args.py ServerArgs and trtllm-serve's
// options define them).
#include "serve/serving_launch.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/decimal.h"
#include "scenario/names.h"

namespace shardcalc {

namespace {

// The GPUs of a replica's tensor-parallel group as SGLang and TensorRT-LLM count them: every GPU of the replica under
// data-parallel attention, whose experts spread over all of them.
int64_t group_gpus(const ParallelFields& p, const ServingSpec& s) { return p.tp * (s.dp_attention ? p.dp : 1); }

// TensorRT-LLM's trtllm-serve (its documented options: --tp_size, --pp_size, --max_batch_size, --max_num_tokens,
// --max_seq_len, --kv_cache_free_gpu_memory_fraction). Its KV cache is a fraction of the memory free after the weights
// and buffers, not of the device: the fraction that gives the KV cache sized here, rounded down.
LaunchCommand trtllm_launch(const Config& c, const ServingSpec& s, const ServingEstimate& e, const std::string& checkpoint) {
    const ResolvedParallel& p = c.s.parallel;
    const auto n = [](int64_t v) { return std::to_string(v); };
    const double free = e.capacity - e.weights - e.activation_peak - e.non_torch;
    const double fraction = free > 0 ? std::clamp(std::floor(e.kv_available / free * 100) / 100, 0.01, 1.0) : 0.01;
    // Under data-parallel attention its tp_size counts every GPU of the replica and ep_size spreads the experts over them.
    const int64_t gpus = group_gpus(p, s);
    LaunchCommand cmd{"TensorRT-LLM (trtllm-serve)", {"trtllm-serve " + checkpoint, "--tp_size " + n(gpus)}};
    if (s.dp_attention) cmd.lines.push_back("--ep_size " + n(gpus));
    if (p.pp > 1) cmd.lines.push_back("--pp_size " + n(p.pp));
    cmd.lines.push_back("--max_batch_size " + n(s.concurrency));
    cmd.lines.push_back("--max_num_tokens " + n(s.max_num_batched_tokens));
    cmd.lines.push_back("--max_seq_len " + n(s.longest_request()));
    cmd.lines.push_back("--kv_cache_free_gpu_memory_fraction " + decimal(fraction, 2));
    if (s.kv_cache_dtype == KvCacheDtype::Fp8 || s.weights != WeightFormat::Model)
        cmd.lines.push_back("# quantized weights or an fp8 KV cache: serve a checkpoint quantized for TensorRT-LLM (ModelOpt)");
    if (s.dp_attention) cmd.lines.push_back("# data-parallel attention: enable_attention_dp in --extra_llm_api_options");
    if (s.shared_prefix_tokens > 0 || s.speculative.method != SpeculativeMethod::None)
        cmd.lines.push_back("# prefix reuse (kv_cache_config.enable_block_reuse) and speculative decoding: --extra_llm_api_options");
    return cmd;
}

}  // namespace

namespace {

// transformers' generate from Python (from_pretrained's dtype, GenerationConfig's cache_implementation and
// max_new_tokens; torch.compile's mode on the model's forward, as transformers' documentation compiles it).
LaunchCommand generate_launch(const Config& c, const ServingSpec& s, const std::string& checkpoint) {
    LaunchCommand cmd{"transformers (model.generate)", {}};
    auto& l = cmd.lines;
    // Tensor parallelism: one process per GPU under torchrun, the model's own plan (tp_plan="auto"), which excludes
    // device_map (transformers' tensor-parallelism documentation).
    const int64_t tp = c.s.parallel.tp;
    if (tp > 1) l.push_back("# torchrun --nproc-per-node=" + std::to_string(tp) + " this_script.py");
    l.push_back("model = AutoModelForCausalLM.from_pretrained(\"" + checkpoint + "\", dtype=torch." +
                (c.s.training.dtype == Dtype::Fp16 ? "float16" : c.s.training.dtype == Dtype::Fp32 ? "float32" : "bfloat16") +
                (tp > 1 ? ", tp_plan=\"auto\")" : ", device_map=\"cuda\")"));
    if (s.weights != WeightFormat::Model)
        l.push_back(std::string("# ") + name_of(s.weights) + " weights: load a checkpoint quantized so (its quantization_config names the method)");
    if (const CompileMode m = c.s.implementation.compile; m != CompileMode::None)
        l.push_back(std::string("model.forward = torch.compile(model.forward") +
                    (m == CompileMode::ReduceOverhead ? ", mode=\"reduce-overhead\"" : m == CompileMode::MaxAutotune ? ", mode=\"max-autotune\"" : "") +
                    ", fullgraph=True)");
    l.push_back("# a batch of " + std::to_string(s.concurrency) + " prompts, padded on the left (tokenizer padding_side=\"left\")");
    l.push_back("model.generate(**inputs, max_new_tokens=" + std::to_string(std::max(s.output_tokens, s.max_output_tokens)) +
                (s.cache == KvCacheImpl::Static ? ", cache_implementation=\"static\"" : "") + ")");
    return cmd;
}

}  // namespace

std::vector<LaunchCommand> serving_launch(const Config& c, const ServingSpec& s, const ServingEstimate& e) {
    const ResolvedParallel& p = c.s.parallel;
    const auto n = [](int64_t v) { return std::to_string(v); };
    const std::string checkpoint = "<checkpoint of " + (c.s.model.preset.empty() ? std::string("the model") : c.s.model.preset) + ">";
    if (s.engine == ServingEngine::Transformers) return {generate_launch(c, s, checkpoint)};
    const bool fp8_cache = s.kv_cache_dtype == KvCacheDtype::Fp8, fp8_weights = s.weights == WeightFormat::Fp8;
    // One setting, as each engine names it and writes its value; absent where the engine has none (nullptr).
    struct Flag {
        const char* vllm;
        const char* sglang;
        std::string vllm_value, sglang_value;
        bool given;
    };
    const std::string length = n(s.longest_request()), share = decimal(s.gpu_memory_utilization, 2);
    // Data-parallel attention: vLLM's data parallelism with expert parallelism for the MoE layers; SGLang's --tp-size
    // counts every GPU of the replica, --dp-size its attention ranks, and its experts spread over all of them.
    const int64_t gpus = group_gpus(p, s);
    const Flag flags[] = {
        {"--tensor-parallel-size", "--tp-size", n(p.tp), n(gpus), true},
        {"--pipeline-parallel-size", "--pp-size", n(p.pp), n(p.pp), p.pp > 1},
        {"--data-parallel-size", "--dp-size", n(p.dp), n(p.dp), p.dp > 1},
        {"--enable-expert-parallel", "--enable-dp-attention", "", "", s.dp_attention},
        {nullptr, "--ep-size", "", n(gpus), s.dp_attention},
        {"--max-model-len", "--context-length", length, length, true},
        // SGLang's fraction is of the weights and the KV cache together; vLLM's is of everything it allocates.
        {"--gpu-memory-utilization", "--mem-fraction-static", share, share, true},
        {"--max-num-seqs", "--max-running-requests", n(s.concurrency), n(s.concurrency), true},
        {"--max-num-batched-tokens", "--chunked-prefill-size", n(s.max_num_batched_tokens), n(s.max_num_batched_tokens), true},
        {"--block-size", nullptr, n(s.block_size), "", s.block_size != 16},
        {"--kv-cache-dtype", "--kv-cache-dtype", "fp8", "fp8_e4m3", fp8_cache},
        // A 16-bit checkpoint quantized to fp8 as it loads; an fp8 checkpoint names its quantization itself.
        {"--quantization", "--quantization", "fp8", "fp8", fp8_weights},
    };
    LaunchCommand vllm{"vLLM (vllm serve)", {"vllm serve " + checkpoint}};
    LaunchCommand sglang{"SGLang (sglang.launch_server)", {"python -m sglang.launch_server --model-path " + checkpoint}};
    // A flag without a value (a switch) is written alone.
    const auto line = [](const char* name, const std::string& value) { return value.empty() ? std::string(name) : std::string(name) + " " + value; };
    for (const Flag& f : flags) {
        if (!f.given) continue;
        if (f.vllm) vllm.lines.push_back(line(f.vllm, f.vllm_value));
        if (f.sglang) sglang.lines.push_back(line(f.sglang, f.sglang_value));
    }
    // Prefix caching is on by default in vLLM's V1 engine and SGLang (its radix cache); said explicitly where the plan
    // counts on it.
    if (s.shared_prefix_tokens > 0) vllm.lines.push_back("--enable-prefix-caching");
    // Speculative decoding: vLLM's --speculative-config (vllm/config/speculative.py SpeculativeConfig: method, model,
    // num_speculative_tokens); SGLang drafts with the model's MTP module as its NEXTN algorithm, or with an EAGLE head,
    // one token per step, no tree (--speculative-eagle-topk 1), the target verifying the drafts and one more.
    const Speculation& sp = s.speculative;
    if (sp.method != SpeculativeMethod::None) {
        // An EAGLE head is a checkpoint of its own, which both servers are given by path.
        const bool eagle = sp.method == SpeculativeMethod::Eagle;
        vllm.lines.push_back("--speculative-config '{\"method\": \"" + std::string(name_of(sp.method)) + "\", " +
                             (eagle ? "\"model\": \"<EAGLE head>\", " : "") + "\"num_speculative_tokens\": " + n(sp.tokens) + "}'");
        if (eagle)
            for (const std::string& line : {std::string("--speculative-algorithm EAGLE --speculative-draft-model-path <EAGLE head>"),
                                            "--speculative-num-steps " + n(sp.tokens), std::string("--speculative-eagle-topk 1"),
                                            "--speculative-num-draft-tokens " + n(sp.tokens + 1)})
                sglang.lines.push_back(line);
        else if (sp.method == SpeculativeMethod::Mtp)
            for (const std::string& line : {std::string("--speculative-algorithm NEXTN"), "--speculative-num-steps " + n(sp.tokens),
                                            std::string("--speculative-eagle-topk 1"), "--speculative-num-draft-tokens " + n(sp.tokens + 1)})
                sglang.lines.push_back(line);
        else
            sglang.lines.push_back("# n-gram drafting: no SGLang flags written here");
    }
    // The 4-bit and weight-only formats come as quantized checkpoints, whose quantization_config names the method.
    const char* checkpoint_kind = s.weights == WeightFormat::Int8 || s.weights == WeightFormat::Int4 ? "a GPTQ or AWQ"
                                  : s.weights == WeightFormat::Nvfp4                                   ? "an NVFP4 (ModelOpt)"
                                  : s.weights == WeightFormat::Mxfp4                                   ? "an MXFP4"
                                                                                                       : nullptr;
    if (checkpoint_kind)
        for (LaunchCommand* cmd : {&vllm, &sglang})
            cmd->lines.push_back(std::string("# ") + name_of(s.weights) + ": serve " + checkpoint_kind +
                                 " checkpoint; its quantization_config names the method");
    return {vllm, sglang, trtllm_launch(c, s, e, checkpoint)};
}

}  // namespace shardcalc
