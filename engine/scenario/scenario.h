#pragma once
// The three independent inputs of an estimate (model, training run, parallel plan) plus
// the hardware and the framework whose conventions fill in what the user left open.
// Plain data only: parsing lives in io/, defaults in scenario/resolve.cpp.
#include <cstdint>
#include <optional>
#include <string>

#include "core/dtype.h"

namespace shardcalc {

enum class Arch { Decoder, Encoder };
enum class Mlp { Gelu, Relu, Swiglu, Geglu };
enum class PositionEmbedding { Learned, Rope, Alibi, None };
enum class Norm { LayerNorm, RmsNorm };
enum class Head { Lm, None };
enum class Optimizer { Adam, AdamW, Sgd, SgdMomentum, Lion, Adafactor };
enum class Recompute { None, Selective, Full };
enum class Attention { Flash, Eager };
enum class Offload { None, Cpu, Nvme };
enum class Framework { Megatron, DeepSpeed, Fsdp, Pytorch };
enum class Schedule { OneFOneB, GPipe };  // interleaved 1F1B is OneFOneB with vpp > 1

struct ModelSpec {
    std::string preset;  // informational once resolved
    Arch arch = Arch::Decoder;
    int64_t layers = 0;
    int64_t hidden = 0;
    int64_t heads = 0;
    std::optional<int64_t> kv_heads;        // default: heads (multi-head attention)
    std::optional<int64_t> head_dim;        // default: hidden / heads
    std::optional<int64_t> ffn_hidden;      // default: 4 * hidden
    Mlp mlp = Mlp::Gelu;
    int64_t vocab = 0;
    int64_t max_positions = 0;              // 0: no limit known
    PositionEmbedding position_embedding = PositionEmbedding::Learned;
    Norm norm = Norm::LayerNorm;
    bool bias = true;
    bool tied_embeddings = true;
    std::optional<int64_t> embedding_dim;   // ALBERT factorized embedding; default hidden
    bool shared_layers = false;             // ALBERT cross-layer sharing
    std::optional<bool> embedding_norm;     // default: true for encoders
    std::optional<int64_t> type_vocab;      // default: 2 for encoders, 0 for decoders
    std::optional<bool> pooler;             // default: true for encoders
    Head head = Head::Lm;
};

struct TrainingSpec {
    std::optional<int64_t> seq_len;         // default: max_positions capped at 8192
    int64_t micro_batch = 1;
    std::optional<int64_t> global_batch;    // default: micro_batch * dp
    Dtype dtype = Dtype::Bf16;              // activations and matmul inputs
    std::optional<Dtype> param_dtype;       // weights resident on the device
    std::optional<Dtype> grad_dtype;
    std::optional<bool> master_weights;
    Optimizer optimizer = Optimizer::AdamW;
    Recompute recompute = Recompute::None;
    Attention attention = Attention::Flash;
    double dropout = 0.0;
    double train_tokens = 0;  // tokens to train for time-to-train and cost; 0: not reported
};

struct ParallelSpec {
    int64_t dp = 1, tp = 1, pp = 1, vpp = 1, cp = 1, ulysses = 1;
    bool sp = false;
    int zero = 0;
    bool distributed_optimizer = false;
    Offload offload_optimizer = Offload::None;
    Offload offload_params = Offload::None;
    std::optional<int64_t> world_size;      // when given, must equal dp*tp*pp*cp*ulysses
    Schedule schedule = Schedule::OneFOneB;
    std::optional<bool> overlap_grad_reduce;  // gradient reduction hidden behind backward; default per framework
};

struct HardwareSpec {
    std::string preset;
    bool preset_defaulted = false;  // no preset named: the default accelerator was assumed
    std::string name;
    double memory_gib = 0;
    int64_t gpus_per_node = 8;
    double overhead_gib = 0;
    double hbm_gbps = 0;
    double l2_mib = 0;
    double intra_node_gbps = 0;
    double inter_node_gbps = 0;
    double peak_tflops_fp32 = 0, peak_tflops_tf32 = 0, peak_tflops_fp16 = 0,
           peak_tflops_bf16 = 0, peak_tflops_fp8 = 0, peak_tflops_int8 = 0;
    // Achievable-performance figures for the roofline and the alpha-beta model (each sourced in
    // the preset): fraction of peak a large GEMM / attention kernel / streaming kernel reaches,
    // streaming multiprocessors (wave quantization), kernel launch cost, collective latency and
    // the fraction of link bandwidth NCCL reaches as bus bandwidth.
    int64_t sm_count = 0;
    double matmul_efficiency = 0, attention_efficiency = 0, hbm_efficiency = 0;
    double kernel_launch_us = 0;
    double intra_node_latency_us = 0, inter_node_latency_us = 0;
    double intra_node_efficiency = 0, inter_node_efficiency = 0;
    double price_per_gpu_hour = 0;  // user input; 0: no cost figures
};

struct Scenario {
    Framework framework = Framework::Megatron;
    ModelSpec model;
    TrainingSpec training;
    ParallelSpec parallel;
    HardwareSpec hardware;
};

}  // namespace shardcalc
