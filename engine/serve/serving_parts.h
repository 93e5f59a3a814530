#pragma once
// The pieces of a served plan both servers' estimates use (vLLM's in serve/serving.cpp, transformers' generate in
// serve/generate.cpp): the KV cache's bytes per token and request, attention's FLOPs over it, and a forward's
// activation peak.
#include "scenario/resolve.h"
#include "serve/serving.h"

namespace shardcalc {

double kv_element_bytes(const Config& c, const ServingSpec& s);
// One layer's K and V for one token on one tensor-parallel rank (vLLM's KV cache spec: 2 x num_kv_heads x head_size
// x dtype per token, the heads divided over tp and replicated when tp exceeds them, num_kv_heads = max(1, kv_heads
// // tp); with latent attention one latent of kv_lora_rank + qk_rope_head_dim, on every rank).
double layer_kv_bytes(const Config& c, const ServingSpec& s);

// The model's layers by what they attend to: every earlier token, or (sliding-window layers) the last window's.
struct LayerKinds {
    double full = 0, local = 0;
};
LayerKinds layer_kinds(const ModelFields& m);
LayerKinds scaled(LayerKinds k, double share);
// The tokens a layer of each kind sees of a request of `context` tokens.
double window_of(const ModelFields& m, double context);
// The cache of one request of `context` tokens on one GPU over the layers `k`, each layer's tokens rounded up to whole
// blocks when `blocks` (vLLM allocates a layer's cache block by block); a sliding-window layer keeps its window only.
// `shared`: tokens of it (whole blocks) that the full-attention layers hold in blocks shared with other requests.
double request_kv(const Config& c, const ServingSpec& s, const LayerKinds& k, double context, bool blocks, double shared = 0);
// FLOPs of attention's scores and weighted values for `queries` tokens that each see `past` earlier tokens and, when
// `causal` (a prompt's uncached part), the part's tokens before them, summed over the layers `k`, on one GPU (2 per
// multiply-add; the QK^T dot products at the query/key width, AV at the value's).
double attention_flops(const Config& c, const LayerKinds& k, double queries, double past, bool causal);

// The activation peak of one forward over `tokens` tokens on one tensor-parallel rank: the residual stream and a layer's
// input, with the larger of attention's q, k, v and the MLP's intermediates (fused MoE: its three caches over the routed
// rows) -- an estimate of what vLLM's profile run measures, not validated against a measured run.
double forward_peak(const Config& c, double tokens);

// Megatron-style tensor parallelism as vLLM and transformers' tp_plan run it: an all-reduce of `tokens` hidden states
// after attention and after the MLP of each of `layers` layers, over the tp GPUs: vLLM's (vllm_all_reduce_seconds), or
// NCCL's through torch.distributed (transformers).
enum class TpAllReduce { Vllm, Nccl };
double tensor_parallel_seconds(const Config& c, double tokens, double layers, TpAllReduce by);

// vLLM's own code (serve/vllm_step.cpp). Its all-reduce of `bytes` over the tp GPUs: its custom all-reduce where it
// runs (2 to 8 GPUs, an even number, on one NVLink domain, messages within its 8 MiB buffer), else NCCL's.
double vllm_all_reduce_seconds(const Config& c, double bytes);
// The kernels its compiled model launches for layer `i` in one forward (collectives aside), and once a step beside the
// layers (the ends and the sampler): each costs the device's gap between kernels beyond the roofline
// (hardware.kernel_launch_us), as a training kernel does.
double vllm_attention_kernels(const ModelFields& m);
double vllm_mlp_kernels(const ModelFields& m, bool moe);
double vllm_layer_kernels(const ModelFields& m, int64_t i);
double vllm_step_kernels();
// One draft forward of a multi-token prediction module (`mtp`) or of an EAGLE head.
double vllm_draft_kernels(const ModelFields& m, bool mtp);

// The served GEMMs' FLOP rate: fp8 weights run fp8 GEMMs, NVFP4 fp4 ones where the device has them (the activations
// quantized as they come: vLLM's CUTLASS W4A4 path on Blackwell), weight-only formats 16-bit ones on dequantized tiles.
double served_flop_rate(const Config& c, const ServingSpec& s);

// transformers' model.generate (ServingEngine::Transformers): serve/generate.cpp.
ServingEstimate generate_estimate(const Config& c, const ModelGraph& g, const ServingSpec& s);

}  // namespace shardcalc
