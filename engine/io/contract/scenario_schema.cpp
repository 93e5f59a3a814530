// The scenario's fields, one entry each, in the order the parser reads them (docs/scenario.md §2 describes each).
#include "io/contract/scenario_schema.h"

#include <cstring>
#include <stdexcept>

#include "io/contract/adapter_json.h"
#include "io/contract/field_types.h"

namespace shardcalc {

using namespace schema;
using nlohmann::json;

namespace {

// Upper bounds of integer fields: generous for any real model or cluster, small enough that shape products stay
// within int64 and an evaluation stays bounded (pp stages are evaluated one by one).
constexpr double kLayers = 1 << 16, kWidth = 1 << 22, kHeads = 1 << 16, kVocab = 1 << 26, kTokens = 1 << 26;
constexpr double kGlobalBatch = 4294967296.0, kDegree = 1 << 20, kWorld = 1 << 30;
// Pipeline stages and virtual chunks per stage: the report holds a memory table and timeline per stage, and the page
// draws them all; 512 keeps the largest answer under a second in the page (a 4,096-layer model at pp 512: 0.9 s from
// opening the link, docs/performance.md), beyond any pipeline trained (Megatron's 1T model: 64 stages).
constexpr double kStages = 512;
constexpr double kExperts = 1 << 16;
constexpr double kElements = 1e12;  // a buffer's elements: 2 TB of 16-bit values
// Real-valued maxima (docs/scenario.md 2.4, 2.6), wide (a million times beyond any device) but closed, so every
// time, byte count and cost the engine derives stays finite:
constexpr double kGiB32 = 4294967296.0;  // 2^32 GiB: byte counts stay below 2^62
constexpr double kRate = 1e9;             // GB/s and TFLOP/s: an exa-scale device
constexpr double kMicros = 1e6;           // one second per launch or collective step

constexpr Echo Value = Echo::Value, WhenOn = Echo::WhenOn, Never = Echo::Never;
constexpr Presence Required = Presence::Required;
using A = Applies;

template <auto M>
constexpr Field model(const char* key, Range range = {}, Echo echo = Value, A where = A::Always, Presence p = Presence::Optional) {
    return field<&Scenario::model, M>(key, range, echo, where, p);
}
template <auto M>
constexpr Field training(const char* key, Range range = {}, Echo echo = Value, A where = A::Always) {
    return field<&Scenario::training, M>(key, range, echo, where);
}
template <auto M>
constexpr Field parallel(const char* key, Range range = {}, Echo echo = Value, A where = A::Always) {
    return field<&Scenario::parallel, M>(key, range, echo, where);
}
template <auto M>
constexpr Field hardware(const char* key, Range range = {}, Echo echo = Value, A where = A::Always, Presence p = Presence::Optional) {
    return field<&Scenario::hardware, M>(key, range, echo, where, p);
}
template <auto M>
constexpr Field implementation(const char* key, Range range = {}, Echo echo = Value) {
    return field<&Scenario::implementation, M>(key, range, echo);
}

// training.recompute_modules: distinct names of RecomputeModule, kept as bits.
constexpr char kModule[] = "module";

constexpr Field kTopFields[] = {
    checked_field<int64_t>("version", {0, 1000}),  // the parser refuses any version but 1
    checked_field<std::string>("name"),
    checked_field<std::string>("source"),  // where a plan comes from (presets/plans): for readers, not the engine
    top_field<&Scenario::framework>("framework"),
};

using M = ModelSpec;
constexpr Field kModelFields[] = {
    model<&M::preset>("preset", {}, WhenOn),
    model<&M::arch>("arch"),
    model<&M::layers>("layers", {1, kLayers}, Value, A::Always, Required),
    model<&M::hidden>("hidden", {1, kWidth}, Value, A::Always, Required),
    // An LSTM has no heads: the parser refuses them there (io/contract/scenario_json.cpp).
    model<&M::heads>("heads", {1, kHeads}, Value, A::Transformer, Required),
    model<&M::kv_heads>("kv_heads", {1, kHeads}, Value, A::Transformer),
    // A field another defaults from takes every value that default can have, so that the echo, which writes the
    // defaults, reads back (head_dim = hidden / heads, ffn_hidden = 4 hidden, the experts' widths from it).
    model<&M::head_dim>("head_dim", {1, kWidth}, Value, A::Transformer),
    model<&M::ffn_hidden>("ffn_hidden", {1, 4 * kWidth}, Value, A::Transformer),
    model<&M::mlp>("mlp", {}, Value, A::Transformer),
    model<&M::vocab>("vocab", {1, kVocab}, Value, A::Always, Required),
    model<&M::max_positions>("max_positions", {0, kTokens}),  // 0: not known
    model<&M::position_embedding>("position_embedding"),
    model<&M::norm>("norm", {}, Value, A::Transformer),
    model<&M::bias>("bias"),
    model<&M::tied_embeddings>("tied_embeddings"),
    model<&M::embedding_dim>("embedding_dim", {1, kWidth}),
    model<&M::shared_layers>("shared_layers", {}, Value, A::Transformer),
    model<&M::embedding_norm>("embedding_norm", {}, Value, A::Transformer),
    model<&M::type_vocab>("type_vocab", {0, kHeads}, Value, A::Transformer),
    model<&M::pooler>("pooler", {}, Value, A::Transformer),
    model<&M::head>("head"),
    model<&M::hidden_act>("hidden_act", {}, Value, A::Transformer),
    model<&M::fused_qkv>("fused_qkv", {}, Value, A::Transformer),
    model<&M::qkv_bias>("qkv_bias", {}, Value, A::Transformer),
    model<&M::mlp_bias>("mlp_bias", {}, Value, A::Transformer),
    model<&M::output_bias>("output_bias", {}, WhenOn),
    model<&M::qk_norm>("qk_norm", {}, WhenOn, A::Transformer),
    model<&M::experts>("experts", {0, kExperts}, WhenOn, A::Transformer),
    model<&M::experts_per_token>("experts_per_token", {1, kExperts}, Value, A::Moe),
    model<&M::expert_ffn_hidden>("expert_ffn_hidden", {1, 4 * kWidth}, Value, A::Moe),
    model<&M::shared_experts>("shared_experts", {0, kExperts}, Value, A::Moe),
    model<&M::shared_expert_ffn_hidden>("shared_expert_ffn_hidden", {1, kExperts * 4 * kWidth}, Value, A::Moe),
    model<&M::first_dense_layers>("first_dense_layers", {0, kLayers}, Value, A::Moe),
    model<&M::moe_every>("moe_every", {1, kLayers}, Value, A::Moe),
    model<&M::router_bias>("router_bias", {}, WhenOn, A::Moe),
    model<&M::shared_expert_gate>("shared_expert_gate", {}, WhenOn, A::Moe),
    model<&M::projection>("projection", {0, kWidth}, Value, A::Lstm),
    model<&M::proj_size>("proj_size", {0, kWidth}, WhenOn, A::Lstm),
    model<&M::fused_gates>("fused_gates", {}, Value, A::Lstm),
    model<&M::gate_biases>("gate_biases", {1, 2}, Value, A::Lstm),
    model<&M::q_lora_rank>("q_lora_rank", {0, kWidth}, Value, A::Mla),
    model<&M::kv_lora_rank>("kv_lora_rank", {0, kWidth}, WhenOn, A::Transformer),
    model<&M::qk_rope_head_dim>("qk_rope_head_dim", {0, kHeads}, Value, A::Mla),
    model<&M::v_head_dim>("v_head_dim", {1, kWidth}, Value, A::Mla),
    model<&M::mtp_layers>("mtp_layers", {0, 64}, WhenOn, A::Transformer),
    model<&M::sliding_window>("sliding_window", {0, kTokens}, WhenOn, A::Transformer),
    model<&M::logit_softcap>("logit_softcap", {0, 1e6}, WhenOn, A::Transformer),
    model<&M::attention_softcap>("attention_softcap", {0, 1e6}, WhenOn, A::Transformer),
    model<&M::swiglu_limit>("swiglu_limit", {0, 1e6}, WhenOn, A::Moe),
    model<&M::global_every>("global_every", {0, kLayers}, Value, A::Window),
    model<&M::attention_sinks>("attention_sinks", {}, WhenOn, A::Transformer),
    model<&M::parallel_block>("parallel_block", {}, WhenOn, A::Transformer),
    model<&M::post_norms>("post_norms", {}, WhenOn, A::Transformer),
    model<&M::parallel_norms>("parallel_norms", {}, WhenOn, A::Transformer),
};

using T = TrainingSpec;
constexpr Field kTrainingFields[] = {
    training<&T::seq_len>("seq_len", {1, kTokens}),
    training<&T::micro_batch>("micro_batch", {1, kHeads}),
    training<&T::global_batch>("global_batch", {1, kGlobalBatch}),
    training<&T::dtype>("dtype"),  // fp8 refused by the parser: fp8 GEMMs are training.fp8
    training<&T::param_dtype>("param_dtype"),
    training<&T::grad_dtype>("grad_dtype"),
    training<&T::master_weights>("master_weights"),
    training<&T::optimizer>("optimizer"),
    training<&T::recompute>("recompute"),
    {"recompute_modules", &kBitSet<RecomputeModule, kModule>, 0, 0, [](Scenario& s) -> void* { return &s.training.recompute_modules; },
     WhenOn, A::Always, Presence::Optional},
    training<&T::attention>("attention"),
    training<&T::dropout>("dropout", {0, 1}),  // 1 itself is refused in validate.cpp
    // 10^18 tokens: 25,000 times the largest runs published, so run time and cost stay finite.
    training<&T::train_tokens>("train_tokens", {0, 1e18}),
    training<&T::expert_imbalance>("expert_imbalance", {1, 1e6}, Value, A::Moe),
    training<&T::capacity_factor>("capacity_factor", {1e-3, 1e6}, Value, A::Moe),
    training<&T::router_z_loss>("router_z_loss", {}, Value, A::Moe),
    training<&T::grad_clip>("grad_clip"),
    // Written where it applies: 0 read back must stay 0 under xla's 15% default.
    training<&T::mlm_predictions>("mlm_predictions", {0, kTokens}, Value, A::MlmPositions),
    training<&T::fp8>("fp8", {}, WhenOn),
    training<&T::activation_offload_layers>("activation_offload_layers", {0, kLayers}, WhenOn),
};

using P = ParallelSpec;
constexpr Field kParallelFields[] = {
    parallel<&P::dp>("dp", {1, kDegree}),
    parallel<&P::tp>("tp", {1, kDegree}),
    parallel<&P::pp>("pp", {1, kStages}),
    parallel<&P::vpp>("vpp", {1, kStages}),
    parallel<&P::sp>("sp"),
    parallel<&P::cp>("cp", {1, kDegree}),
    parallel<&P::ulysses>("ulysses", {1, kDegree}),
    parallel<&P::ep>("ep", {1, kDegree}, Value, A::MoeOrEp),
    parallel<&P::etp>("etp", {1, kDegree}, Value, A::MoeOrEp),
    parallel<&P::overlap_moe_comm>("overlap_moe_comm", {}, Value, A::MoeOrEp),
    parallel<&P::moe_dispatcher>("moe_dispatcher", {}, Value, A::MoeOrEp),
    parallel<&P::zero>("zero", {0, 3}),
    parallel<&P::distributed_optimizer>("distributed_optimizer"),
    parallel<&P::offload_optimizer>("offload_optimizer"),
    parallel<&P::offload_params>("offload_params"),
    parallel<&P::world_size>("world_size", {1, kWorld}),
    parallel<&P::schedule>("schedule"),
    parallel<&P::overlap_grad_reduce>("overlap_grad_reduce"),
    parallel<&P::reduce_bucket_size>("reduce_bucket_size", {1, kElements}),
    parallel<&P::overlap_param_gather>("overlap_param_gather", {}, WhenOn),
    parallel<&P::tp_comm_overlap>("tp_comm_overlap", {}, WhenOn),
    parallel<&P::first_stage_layers>("first_stage_layers", {1, kLayers}),
    parallel<&P::last_stage_layers>("last_stage_layers", {1, kLayers}),
    parallel<&P::stage_layers>("stage_layers", {0, kLayers}, WhenOn),
    parallel<&P::embedding_as_layer>("embedding_as_layer", {}, WhenOn),
    parallel<&P::loss_as_layer>("loss_as_layer", {}, WhenOn),
};

// A hardware field's value comes from the preset; a required one is required when null removed it.
using H = HardwareSpec;
constexpr Field kHardwareFields[] = {
    hardware<&H::preset>("preset"),
    hardware<&H::name>("name"),
    hardware<&H::kind>("kind"),
    hardware<&H::gpus_per_node>("gpus_per_node", {1, kDegree}),
    // Echoed as the domain in use (one host when 0): a preset's larger domain must not return on reading.
    hardware<&H::nvlink_domain>("nvlink_domain", {1, kDegree}, Never),
    hardware<&H::matrix_unit>("matrix_unit", {0, 65536}, Value, A::MatrixUnit),
    hardware<&H::sm_count>("sm_count", {0, kDegree}),
    hardware<&H::memory_gib>("memory_gib", {1e-6, kGiB32}, Value, A::Always, Required),
    hardware<&H::overhead_gib>("overhead_gib", {0, kGiB32}),
    hardware<&H::workspace_mib>("workspace_mib", {0, 4398046511104.0}),
    hardware<&H::hbm_gbps>("hbm_gbps", {1e-3, kRate}, Value, A::Always, Required),
    hardware<&H::l2_mib>("l2_mib", {0, kGiB32}),
    hardware<&H::shared_memory_kib>("shared_memory_kib", {0, kGiB32}),
    hardware<&H::gemm_fill_k>("gemm_fill_k", {0, kGiB32}),
    hardware<&H::intra_node_gbps>("intra_node_gbps", {1e-3, kRate}, Value, A::Always, Required),
    hardware<&H::inter_node_gbps>("inter_node_gbps", {1e-3, kRate}, Value, A::Always, Required),
    hardware<&H::matmul_efficiency>("matmul_efficiency", {1e-3, 1}, Value, A::Always, Required),
    hardware<&H::matmul_efficiency_fp8>("matmul_efficiency_fp8", {0, 1}),
    hardware<&H::attention_efficiency>("attention_efficiency", {1e-3, 1}, Value, A::Always, Required),
    hardware<&H::hbm_efficiency>("hbm_efficiency", {1e-3, 1}, Value, A::Always, Required),
    hardware<&H::kernel_launch_us>("kernel_launch_us", {0, kMicros}),
    hardware<&H::intra_node_latency_us>("intra_node_latency_us", {0, kMicros}),
    hardware<&H::inter_node_latency_us>("inter_node_latency_us", {0, kMicros}),
    hardware<&H::intra_node_efficiency>("intra_node_efficiency", {1e-3, 1}, Value, A::Always, Required),
    hardware<&H::inter_node_efficiency>("inter_node_efficiency", {1e-3, 1}, Value, A::Always, Required),
    hardware<&H::price_per_gpu_hour>("price_per_gpu_hour", {0, kRate}),
    hardware<&H::host_link_gbps>("host_link_gbps", {0, kRate}),
    hardware<&H::host_memory_gbps>("host_memory_gbps", {0, kRate}),
};

// A peak of 0 means the device lacks that unit; a positive peak is at least 10^-3 TFLOP/s (validate.cpp). Every
// entry is echoed, zeros included: a zero read back must not let the preset's value return.
using H = HardwareSpec;
constexpr Field kPeakFields[] = {
    hardware<&H::peak_tflops_fp32>("fp32", {0, kRate}),   hardware<&H::peak_tflops_tf32>("tf32", {0, kRate}),
    hardware<&H::peak_tflops_fp16>("fp16", {0, kRate}),   hardware<&H::peak_tflops_bf16>("bf16", {0, kRate}),
    hardware<&H::peak_tflops_fp8>("fp8", {0, kRate}),     hardware<&H::peak_tflops_int8>("int8", {0, kRate}),
    hardware<&H::peak_tflops_mxfp8>("mxfp8", {0, kRate}), hardware<&H::peak_tflops_nvfp4>("nvfp4", {0, kRate}),
};

using I = ImplementationSpec;
constexpr Field kImplementationFields[] = {
    implementation<&I::model_code>("model_code"),
    implementation<&I::optimizer_impl>("optimizer_impl"),
    implementation<&I::tf32>("tf32"),
    implementation<&I::cudnn_tf32>("cudnn_tf32"),
    implementation<&I::rnn>("rnn"),
    implementation<&I::experts>("experts"),
    implementation<&I::allocator>("allocator"),
    implementation<&I::host_forward_us>("host_forward_us", {0, kMicros}),
    implementation<&I::host_backward_us>("host_backward_us", {0, kMicros}),
    implementation<&I::fragmentation>("fragmentation", {0, 1}),
    implementation<&I::compile>("compile", {}, WhenOn),
    implementation<&I::host_compiled_us>("host_compiled_us", {0, kMicros}),
    implementation<&I::moe_router_fusion>("moe_router_fusion", {}, WhenOn),
    implementation<&I::loss_16bit>("loss_16bit", {}, WhenOn),
};

}  // namespace

const Schema& scenario_schema() {
    static const Schema objects = {{
        {"", kTopFields},
        {"/model", kModelFields},
        {"/training", kTrainingFields},
        {"/parallel", kParallelFields},
        {"/hardware", kHardwareFields},
        {"/hardware/peak_tflops", kPeakFields},
        {"/implementation", kImplementationFields},
        {"/adapter", adapter_fields()},
    }};
    return objects;
}

FieldList schema_fields(const char* path) {
    for (const SchemaObject& o : scenario_schema())
        if (std::strcmp(o.path, path) == 0) return o.fields;
    throw std::out_of_range(std::string("no scenario object ") + path);
}

}  // namespace shardcalc
