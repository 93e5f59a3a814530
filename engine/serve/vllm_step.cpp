// What vLLM's own code adds to a forward beyond its GEMMs' and caches' roofline: the kernels it launches and its
// tensor-parallel all-reduce (serve/serving_parts.h).
#include <algorithm>

#include "comm/collective_time.h"
#include "device/device.h"
#include "graph/build.h"
#include "serve/serving_parts.h"

namespace shardcalc {
namespace {

// vLLM's custom all-reduce runs on 2, 4, 6 or 8 GPUs joined by NVLink, for messages within its buffer
// (vllm/distributed/device_communicators/custom_all_reduce.py: _SUPPORTED_WORLD_SIZES, max_size 8 MiB).
constexpr double kCustomAllReduceBuffer = 8.0 * 1024 * 1024;
// Its one-stage kernel's time for a message of a few KiB in a CUDA graph: 7 µs on H100 (vllm-project/vllm#24111,
// benchmark_device_communicators, TP 2 at 0.5 MB) and on B300 (#37756, 16 KiB): its synchronisation through flags in
// the peers' memory, which the bytes then add to.
constexpr double kCustomAllReduceLatency = 7e-6;

}  // namespace

double vllm_all_reduce_seconds(const Config& c, double bytes) {
    const Group g = make_group(c.s.parallel.tp, 1, c);
    const int64_t n = g.size;
    const bool custom = c.s.hardware.kind == DeviceKind::Gpu && !g.scale_out && n >= 2 && n <= 8 && n % 2 == 0 &&
                        bytes < kCustomAllReduceBuffer;
    if (!custom) return collective_time(CollectiveKind::AllReduce, bytes, g, c).seconds;
    // One stage: every GPU reads each peer's whole buffer over NVLink and sums them; two stages: a reduce-scatter then
    // an all-gather, (n - 1) / n of the buffer each, at twice the synchronisation (csrc/custom_all_reduce.cuh
    // cross_device_reduce_1stage / _2stage). vLLM takes one stage for small messages, two for large: the shorter here.
    const double link = device_of(c.s.hardware).link(c.s.hardware, false, n).bytes_per_s;
    const double peers = static_cast<double>(n - 1);
    const double one = kCustomAllReduceLatency + peers * bytes / link;
    const double two = 2 * kCustomAllReduceLatency + 2 * peers / static_cast<double>(n) * bytes / link;
    return std::min(one, two);
}

double vllm_attention_kernels(const ModelFields& m) {
    // vllm/model_executor/models/llama.py and its kin, compiled by vLLM's inductor pass, which folds the residual add
    // into the next norm: the norm, the q/k/v GEMM, q and k's norms (one kernel), the rotary embedding, the KV cache
    // write (reshape_and_cache_flash), the attention kernel, the output GEMM. Latent attention (deepseek_v2.py, decode):
    // the norm, the q and kv down-projections, their two norms, q's up-projection, the keys' absorbed up-projection,
    // the rotary embedding, the cache write, the attention kernel, the values' up-projection and the output GEMM.
    if (m.kv_lora_rank > 0) return 12;
    return 5 + (m.qk_norm ? 1 : 0) + (m.position_embedding == PositionEmbedding::Rope ? 1 : 0);
}

double vllm_mlp_kernels(const ModelFields& m, bool moe) {
    if (!moe) return 4;  // the norm, the first GEMM (gate and up together), the activation, the second GEMM
    // fused_moe.py: the norm, the router GEMM, top-k over its logits, the tokens sorted by expert
    // (moe_align_block_size), the two expert GEMMs with the activation between them, the sum over the k copies; a
    // shared expert's gate/up GEMM, activation and down GEMM, and its gate's GEMM.
    return 8 + (m.shared_experts > 0 ? 3 + (m.shared_expert_gate ? 1 : 0) : 0);
}

double vllm_layer_kernels(const ModelFields& m, int64_t i) { return vllm_attention_kernels(m) + vllm_mlp_kernels(m, is_moe_layer(m, i)); }

// The embedding, the final norm, the output GEMM, and the sampler's six (vllm/v1/sample/sampler.py, random sampling:
// the cast to fp32, the temperature, the softmax, the exponential draw, the division, the argmax).
double vllm_step_kernels() { return 9; }

// A multi-token prediction module (deepseek_mtp.py): its two norms and the projection of their concatenation, a layer
// of the last layer's kind, then the shared output GEMM and the draft's argmax. An EAGLE head (llama_eagle.py): the
// fusing projection, one dense layer, the output GEMM and the argmax.
double vllm_draft_kernels(const ModelFields& m, bool mtp) {
    return mtp ? 3 + vllm_layer_kernels(m, m.layers - 1) + 2 : 1 + vllm_attention_kernels(m) + vllm_mlp_kernels(m, false) + 2;
}

}  // namespace shardcalc
