#pragma once
// Serving a decoder: the KV cache per token, a GPU's memory in a replica as vLLM sizes it, how many requests of a given
// length fit, and the prefill and decode steps on the roofline (docs/serving.md). The model graph and the device are
// the training estimate's; only the request shapes are new.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "graph/op.h"
#include "scenario/resolve.h"

namespace shardcalc {

// The weights as served: the model's dtype, fp8 (W8A8: fp8 GEMMs), weight-only int8 / int4 (GPTQ, AWQ: 16-bit
// GEMMs on dequantized tiles, an fp16 scale and an int4 zero per group of group_size weights), NVFP4 (4-bit with an
// fp8 scale per 16: fp4 GEMMs where the device has them, else weight-only) or MXFP4 (4-bit with a power-of-two scale
// per 32: weight-only, as vLLM runs gpt-oss's checkpoints on Hopper).
enum class WeightFormat { Model, Fp8, Int8, Int4, Nvfp4, Mxfp4 };
// vLLM's --kv-cache-dtype: the model's dtype (auto) or fp8.
enum class KvCacheDtype { Auto, Fp8 };
// Speculative decoding's drafter (vLLM --speculative-config "method"): none; n-gram lookup in the prompt (proposed on
// the host: no device work); the model's own multi-token prediction modules (DeepSeek-V3's MTP, model.mtp_layers); an
// EAGLE head (Li et al. 2024: one decoder layer of the target's shape over its last hidden state and the token's
// embedding, fused by a [2h, h] projection, reading the target's embedding and output layer: vLLM method "eagle").
enum class SpeculativeMethod { None, Ngram, Mtp, Eagle };

// Who serves: vLLM (continuous batching over a paged KV cache sized by gpu_memory_utilization; SGLang's and
// TensorRT-LLM's flags are written for the same plan), or transformers' model.generate (one static batch of
// `concurrency` prompts padded to the longest, decoded step by step in eager PyTorch or under torch.compile).
enum class ServingEngine { Vllm, Transformers };
// transformers' KV cache (generate's cache_implementation): DynamicCache grows every layer's keys and values by
// torch.cat each step; StaticCache allocates the batch's whole length up front and attends over all of it.
enum class KvCacheImpl { Dynamic, Static };

struct Speculation {
    SpeculativeMethod method = SpeculativeMethod::None;
    int64_t tokens = 1;      // draft tokens proposed per step (vLLM num_speculative_tokens)
    double acceptance = 0;   // the chance the target accepts a draft token after accepting the ones before it
};

struct ServingSpec {
    int64_t prompt_tokens = 1024;   // of a request, on average
    int64_t output_tokens = 256;
    // The longest prompt and output the server must accept (0: the averages): vLLM's --max-model-len is their sum, and
    // it refuses to start when its KV cache cannot hold one such request.
    int64_t max_prompt_tokens = 0, max_output_tokens = 0;
    int64_t longest_request() const {
        return std::max(prompt_tokens, max_prompt_tokens) + std::max(output_tokens, max_output_tokens);
    }
    int64_t concurrency = 1;           // requests decoding together (the running batch of continuous batching)
    double request_rate = 0;           // requests arriving per second at one replica; when given, sets the concurrency
    WeightFormat weights = WeightFormat::Model;
    int64_t group_size = 128;          // weight-only quantization group
    KvCacheDtype kv_cache_dtype = KvCacheDtype::Auto;
    double gpu_memory_utilization = 0.9;  // vLLM --gpu-memory-utilization
    // The CUDA graphs' pool vLLM reserves inside its budget before sizing the KV cache (0.21 and later, by default: its
    // start-up estimate, "Estimated CUDA graph memory: X GiB total"), in GiB; 0: none reserved (vLLM before 0.21
    // captures the graphs on top of its budget; --enforce-eager captures none). Not sized by the engine: the log's.
    double cuda_graph_gib = 0;
    int64_t block_size = 16;              // vLLM --block-size: tokens per KV cache block
    int64_t max_num_batched_tokens = 8192;  // vLLM's profile run and prefill chunk
    int64_t max_num_seqs = 256;             // vLLM's sampler profile
    int64_t shared_prefix_tokens = 0;       // tokens every prompt starts with, held once by vLLM's prefix cache
    bool dp_attention = false;              // parallel.dp ranks run attention on their own requests, the experts spread over all
    // Requests a closed-loop benchmark run serves at `concurrency` (serve/closed_loop.h); 0: none simulated.
    int64_t benchmark_requests = 0;
    Speculation speculative;
    ServingEngine engine = ServingEngine::Vllm;
    KvCacheImpl cache = KvCacheImpl::Dynamic;  // engine transformers only
};

struct ServingEstimate {
    // One GPU of a replica (bytes).
    double capacity = 0;           // the device's memory
    double budget = 0;             // gpu_memory_utilization x capacity
    double weights = 0;
    double activation_peak = 0;    // the profile run's forward of max_num_batched_tokens, and the sampler's logits
    double non_torch = 0;          // outside PyTorch's allocator: the CUDA context and library handles
    double cuda_graphs = 0;        // the CUDA graphs' pool reserved in the budget (ServingSpec::cuda_graph_gib)
    double kv_available = 0;       // what is left for the KV cache (0 when nothing is)
    double kv_bytes_per_token = 0;  // every layer's K and V for one token (full-attention and windowed layers alike)
    double kv_bytes_per_request = 0;  // one request's own blocks of prompt + output tokens, windows kept short
    double kv_shared_prefix = 0;   // the shared prefix's blocks, held once for every request
    double prefix_cached_tokens = 0;  // of each prompt, found in the prefix cache (whole blocks of the shared prefix)
    int64_t max_concurrency = 0;   // requests of that length the KV cache holds at once
    int64_t max_model_len = 0;     // the longest single request the KV cache holds (tokens), at most the model's positions
    bool fits = false;             // the weights and activations fit, `concurrency` requests' KV caches do too, and the
                                   // longest request's (ServingSpec::longest_request) within what one GPU's cache holds
    // Time of one replica.
    double prefill_seconds = 0;    // time to first token of one prompt (no queueing)
    double decode_step_seconds = 0;  // one decode step at `concurrency`: the target's forward, and the drafts before it
    double draft_seconds = 0;      // of which the drafter's forwards (multi-token prediction)
    double tokens_per_step = 1;    // output tokens one step yields per request (speculative decoding: above 1)
    double tpot_seconds = 0;       // time per output token: a step over the tokens it yields
    bool decode_memory_bound = false;
    // transformers' generate: the host's time to issue one decode step (the model's kernels and the generate loop's
    // own), and the transient of DynamicCache's torch.cat (one layer's keys and values copied at full length).
    double decode_host_seconds = 0;
    double cache_transient = 0;
    double decode_bytes = 0;       // HBM bytes one decode step reads (weights touched and KV)
    double decode_flops = 0;
    double tp_seconds = 0;         // of which the tensor-parallel all-reduces, per decode step
    double decode_launch_seconds = 0;  // and the gaps between vLLM's kernels (serve/vllm_step.cpp), per decode step
    double all_to_all_seconds = 0;  // and the MoE layers' dispatch and combine under data-parallel attention
    double request_seconds = 0;    // prefill + output_tokens x decode step
    double tokens_per_second = 0;  // output tokens per second of the replica at `concurrency`, new requests' prefills included
    double tokens_per_second_per_gpu = 0;
    int64_t attention_ranks = 1;  // the data-parallel attention ranks of one replica (1: none)
    int64_t replica_gpus = 1;  // the GPUs of one replica: tp x pp x data-parallel attention ranks
    double cost_per_million_tokens = 0;  // output tokens, at hardware.price_per_gpu_hour (0: no price given)
    // Under a request rate (ServingSpec::request_rate): the concurrency it settles at (Little's law), whether the
    // replica keeps up with it within what its KV cache holds, and the most it sustains.
    int64_t settled_concurrency = 0;
    bool keeps_up = true;
    double max_request_rate = 0;   // requests per second at the largest concurrency the KV cache holds
};

// The rules of a served plan beyond the model's and the device's (resolve with Rules::ModelAndDevice): a decoder,
// tensor and pipeline parallelism and replicas (or data-parallel attention ranks), a request within the model's
// positions, fp8 weights on fp8 tensor cores, the serving object's own rules. Throws InputError naming each field.
void validate_serving(const Config& c, const ServingSpec& s);

ServingEstimate serving_estimate(const Config& c, const ModelGraph& g, const ServingSpec& s);

// The latency-throughput curve of the replica: time per output token and output tokens per second per GPU at 1, 2, 4,
// ... requests at once, up to what the KV cache holds (and that number itself), for the request shape of `s`.
struct CurvePoint {
    int64_t concurrency = 0;
    double tpot_seconds = 0, tokens_per_second_per_gpu = 0;
};
std::vector<CurvePoint> latency_throughput(const Config& c, const ModelGraph& g, const ServingSpec& s, int64_t max_concurrency);

}  // namespace shardcalc
