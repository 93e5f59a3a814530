#include "io/scenario_json.h"

#include "io/hardware_fields.h"
#include "io/json_reader.h"
#include "io/presets.h"

namespace shardcalc {
namespace {

using nlohmann::json;

constexpr const char* kDefaultHardware = "h100-sxm-80gb";

// Upper bounds of integer fields: generous for any real model or cluster, small enough that
// shape products stay within int64 and an evaluation stays bounded (pp stages are evaluated one
// by one).
constexpr int64_t kLayers = 1 << 16, kWidth = 1 << 22, kHeads = 1 << 16, kVocab = 1 << 26, kTokens = 1 << 26;
constexpr int64_t kGlobalBatch = int64_t{1} << 32, kDegree = 1 << 20, kStages = 4096, kWorld = int64_t{1} << 30;
constexpr int64_t kExperts = 1 << 16;

// The preset's fields overlaid with the user's (explicit fields win).
json with_preset(const json& user, const json& preset_fields, const char* skip) {
    json merged = preset_fields;
    for (auto it = user.begin(); it != user.end(); ++it)
        if (it.key() != skip) merged[it.key()] = it.value();
    return merged;
}

// "; did you mean \"a\" or \"b\"? `shardcalc presets` lists them all" for a misspelled preset id.
std::string suggestion(const char* kind, const std::string& id) {
    const auto similar = similar_preset_ids(kind, id);
    std::string out = "; ";
    if (!similar.empty()) {
        out += "did you mean ";
        for (size_t i = 0; i < similar.size(); ++i)
            out += (i == 0 ? "" : i + 1 == similar.size() ? " or " : ", ") + std::string("\"") + similar[i] + "\"";
        out += "? ";
    }
    return out + "`shardcalc presets` lists them all";
}

int64_t required(ObjectReader& r, const char* key, int64_t min, int64_t max) {
    const auto v = r.integer(key, min, max);
    if (!v && !r.failed(key)) r.problem(key, "required: give it, or name a model.preset");
    return v.value_or(min);  // only read when finish() finds no problem
}

ModelSpec parse_model(const json* user) {
    if (!user) throw InputError("/model", "required: give model.preset or the model's shape (layers, hidden, ...)");
    ObjectReader probe(*user, "/model");
    const auto preset_id = probe.string("preset");
    json merged = *user;
    if (preset_id) {
        const json* preset = model_preset(*preset_id);
        if (!preset)
            throw InputError("/model/preset", "unknown model preset \"" + *preset_id + "\"" + suggestion("models", *preset_id));
        merged = with_preset(*user, preset->at("model"), "preset");
    }
    ObjectReader r(merged, "/model");
    ModelSpec m;
    m.preset = preset_id.value_or("");
    r.string("preset");
    assign(m.arch, r.choice<Arch>("arch"));
    m.layers = required(r, "layers", 1, kLayers);
    m.hidden = required(r, "hidden", 1, kWidth);
    if (m.arch == Arch::Lstm) {
        // An LSTM has no attention; heads = 1 keeps the transformer-only defaults defined (never read for it).
        if (r.integer("heads", 1, kHeads)) r.problem("heads", "an LSTM (arch lstm) has no attention heads: remove it");
        m.heads = 1;
    } else {
        m.heads = required(r, "heads", 1, kHeads);
    }
    m.kv_heads = r.integer("kv_heads", 1, kHeads);
    m.head_dim = r.integer("head_dim", 1, kHeads);
    m.ffn_hidden = r.integer("ffn_hidden", 1, kWidth);
    assign(m.mlp, r.choice<Mlp>("mlp"));
    m.vocab = required(r, "vocab", 1, kVocab);
    assign(m.max_positions, r.integer("max_positions", 0, kTokens));  // 0: not known (the echo writes it)
    assign(m.position_embedding, r.choice<PositionEmbedding>("position_embedding"));
    if (m.arch == Arch::Lstm && merged.contains("position_embedding") && m.position_embedding != PositionEmbedding::None)
        r.problem("position_embedding", "an LSTM (arch lstm) has no position embeddings: allowed: none");
    if (m.arch == Arch::Lstm) m.position_embedding = PositionEmbedding::None;
    assign(m.norm, r.choice<Norm>("norm"));
    assign(m.bias, r.boolean("bias"));
    assign(m.tied_embeddings, r.boolean("tied_embeddings"));
    m.embedding_dim = r.integer("embedding_dim", 1, kWidth);
    assign(m.shared_layers, r.boolean("shared_layers"));
    m.embedding_norm = r.boolean("embedding_norm");
    m.type_vocab = r.integer("type_vocab", 0, kHeads);
    m.pooler = r.boolean("pooler");
    assign(m.head, r.choice<Head>("head"));
    m.hidden_act = r.choice<HiddenAct>("hidden_act");
    m.fused_qkv = r.boolean("fused_qkv");
    m.qkv_bias = r.boolean("qkv_bias");
    m.mlp_bias = r.boolean("mlp_bias");
    assign(m.output_bias, r.boolean("output_bias"));
    assign(m.qk_norm, r.boolean("qk_norm"));
    assign(m.experts, r.integer("experts", 0, kExperts));
    m.experts_per_token = r.integer("experts_per_token", 1, kExperts);
    m.expert_ffn_hidden = r.integer("expert_ffn_hidden", 1, kWidth);
    assign(m.shared_experts, r.integer("shared_experts", 0, kExperts));
    m.shared_expert_ffn_hidden = r.integer("shared_expert_ffn_hidden", 1, kWidth);
    assign(m.first_dense_layers, r.integer("first_dense_layers", 0, kLayers));
    assign(m.moe_every, r.integer("moe_every", 1, kLayers));
    assign(m.router_bias, r.boolean("router_bias"));
    assign(m.shared_expert_gate, r.boolean("shared_expert_gate"));
    assign(m.projection, r.integer("projection", 0, kWidth));
    assign(m.proj_size, r.integer("proj_size", 0, kWidth));
    assign(m.fused_gates, r.boolean("fused_gates"));
    assign(m.gate_biases, r.integer("gate_biases", 1, 2));
    assign(m.q_lora_rank, r.integer("q_lora_rank", 0, kWidth));
    assign(m.kv_lora_rank, r.integer("kv_lora_rank", 0, kWidth));
    assign(m.qk_rope_head_dim, r.integer("qk_rope_head_dim", 0, kHeads));
    m.v_head_dim = r.integer("v_head_dim", 1, kHeads);
    assign(m.mtp_layers, r.integer("mtp_layers", 0, 64));
    assign(m.sliding_window, r.integer("sliding_window", 0, kTokens));
    assign(m.logit_softcap, r.number("logit_softcap", 0, 1e6));
    assign(m.global_every, r.integer("global_every", 0, kLayers));
    assign(m.attention_sinks, r.boolean("attention_sinks"));
    assign(m.parallel_block, r.boolean("parallel_block"));
    assign(m.post_norms, r.boolean("post_norms"));
    assign(m.parallel_norms, r.boolean("parallel_norms"));
    r.finish();
    return m;
}

TrainingSpec parse_training(const json* j) {
    TrainingSpec t;
    if (!j) return t;
    ObjectReader r(*j, "/training");
    t.seq_len = r.integer("seq_len", 1, kTokens);
    assign(t.micro_batch, r.integer("micro_batch", 1, kHeads));
    t.global_batch = r.integer("global_batch", 1, kGlobalBatch);
    assign(t.dtype, r.choice<Dtype>("dtype"));
    t.param_dtype = r.choice<Dtype>("param_dtype");
    t.grad_dtype = r.choice<Dtype>("grad_dtype");
    t.master_weights = r.boolean("master_weights");
    assign(t.optimizer, r.choice<Optimizer>("optimizer"));
    assign(t.recompute, r.choice<Recompute>("recompute"));
    if (const auto modules = r.choices<RecomputeModule>("recompute_modules")) {
        for (const RecomputeModule m : *modules) t.recompute_modules |= bit(m);
        if (modules->empty()) r.problem("recompute_modules", "must name at least one module: " + allowed_names<RecomputeModule>());
    }
    assign(t.attention, r.choice<Attention>("attention"));
    assign(t.dropout, r.number("dropout", 0, 1));  // 1 itself is refused in validate.cpp
    // 10^18 tokens: 25,000 times the largest runs published, so run time and cost stay finite.
    assign(t.train_tokens, r.number("train_tokens", 0, 1e18));
    assign(t.expert_imbalance, r.number("expert_imbalance", 1, 1e6));
    t.capacity_factor = r.number("capacity_factor", 1e-3, 1e6);
    assign(t.router_z_loss, r.boolean("router_z_loss"));
    t.grad_clip = r.boolean("grad_clip");
    t.mlm_predictions = r.integer("mlm_predictions", 0, kTokens);
    assign(t.fp8, r.choice<Fp8Recipe>("fp8"));
    const char* fp8_msg = "the activations and weights stay 16-bit in fp8 training; set training.fp8 to a recipe "
                          "(delayed|current|blockwise|mxfp8) for fp8 GEMMs; allowed: fp32|fp16|bf16";
    if (t.dtype == Dtype::Fp8) r.problem("dtype", fp8_msg);
    // FP8 primary weights (Megatron's --fp8-param-gather) go with an fp8 recipe; validate.cpp checks the rest.
    if (t.param_dtype == Dtype::Fp8 && t.fp8 == Fp8Recipe::None)
        r.problem("param_dtype", "fp8 primary weights (Megatron's --fp8-param-gather) need an fp8 recipe: set training.fp8 "
                                 "(delayed|current|blockwise|mxfp8); allowed without one: fp32|fp16|bf16");
    if (t.grad_dtype == Dtype::Fp8) r.problem("grad_dtype", fp8_msg);
    r.finish();
    return t;
}

ParallelSpec parse_parallel(const json* j) {
    ParallelSpec p;
    if (!j) return p;
    ObjectReader r(*j, "/parallel");
    assign(p.dp, r.integer("dp", 1, kDegree));
    assign(p.tp, r.integer("tp", 1, kDegree));
    assign(p.pp, r.integer("pp", 1, kStages));
    assign(p.vpp, r.integer("vpp", 1, kStages));
    assign(p.sp, r.boolean("sp"));
    assign(p.cp, r.integer("cp", 1, kDegree));
    assign(p.ulysses, r.integer("ulysses", 1, kDegree));
    assign(p.ep, r.integer("ep", 1, kDegree));
    p.etp = r.integer("etp", 1, kDegree);
    assign(p.overlap_moe_comm, r.boolean("overlap_moe_comm"));
    assign(p.moe_dispatcher, r.choice<MoeDispatcher>("moe_dispatcher"));
    if (const auto z = r.integer("zero", 0, 3)) p.zero = static_cast<int>(*z);
    assign(p.distributed_optimizer, r.boolean("distributed_optimizer"));
    assign(p.offload_optimizer, r.choice<Offload>("offload_optimizer"));
    assign(p.offload_params, r.choice<Offload>("offload_params"));
    p.world_size = r.integer("world_size", 1, kWorld);
    assign(p.schedule, r.choice<Schedule>("schedule"));
    p.overlap_grad_reduce = r.boolean("overlap_grad_reduce");
    assign(p.overlap_param_gather, r.boolean("overlap_param_gather"));
    assign(p.tp_comm_overlap, r.boolean("tp_comm_overlap"));
    p.first_stage_layers = r.integer("first_stage_layers", 1, kLayers);
    p.last_stage_layers = r.integer("last_stage_layers", 1, kLayers);
    if (const auto list = r.integers("stage_layers", 1, kLayers, kStages)) p.stage_layers = *list;
    assign(p.embedding_as_layer, r.boolean("embedding_as_layer"));
    assign(p.loss_as_layer, r.boolean("loss_as_layer"));
    r.finish();
    return p;
}

ImplementationSpec parse_implementation(const json* j) {
    ImplementationSpec im;
    if (!j) return im;
    ObjectReader r(*j, "/implementation");
    im.model_code = r.choice<ModelCode>("model_code");
    im.optimizer_impl = r.choice<OptimizerImpl>("optimizer_impl");
    im.tf32 = r.boolean("tf32");
    im.cudnn_tf32 = r.boolean("cudnn_tf32");
    im.rnn = r.choice<RnnImpl>("rnn");
    assign(im.allocator, r.choice<Allocator>("allocator"));
    im.host_forward_us = r.number("host_forward_us", 0, kMicros);
    im.host_backward_us = r.number("host_backward_us", 0, kMicros);
    im.fragmentation = r.number("fragmentation", 0, 1);
    r.finish();
    return im;
}



void parse_peaks(const json& j, const std::string& path, HardwareSpec& h) {
    ObjectReader r(j, path);
    for (const auto& [key, member] : kPeaks) assign(h.*member, r.number(key, 0, kRate));
    r.finish();
}

HardwareSpec parse_hardware(const json* user) {
    const json empty = json::object();
    const json& u = user ? *user : empty;
    ObjectReader probe(u, "/hardware");
    const auto given = probe.string("preset");
    const std::string id = given.value_or(kDefaultHardware);
    const json* preset = hardware_preset(id);
    if (!preset)
        throw InputError("/hardware/preset", "unknown hardware preset \"" + id + "\"" + suggestion("hardware", id));
    json fields = *preset;
    for (const char* meta : {"id", "vendor", "sources", "notes"}) fields.erase(meta);
    // An explicit peak_tflops object replaces single entries, not the whole table.
    json merged = with_preset(u, fields, "preset");
    if (u.contains("peak_tflops") && u["peak_tflops"].is_object()) {
        merged["peak_tflops"] = fields.value("peak_tflops", json::object());
        for (auto it = u["peak_tflops"].begin(); it != u["peak_tflops"].end(); ++it)
            merged["peak_tflops"][it.key()] = it.value();
    }
    ObjectReader r(merged, "/hardware");
    HardwareSpec h;
    h.preset = id;
    h.preset_defaulted = !given;
    r.string("preset");
    assign(h.name, r.string("name"));
    assign(h.kind, r.choice<DeviceKind>("kind"));
    assign(h.gpus_per_node, r.integer("gpus_per_node", 1, kDegree));
    assign(h.nvlink_domain, r.integer("nvlink_domain", 1, kDegree));
    assign(h.matrix_unit, r.integer("matrix_unit", 0, 65536));
    assign(h.sm_count, r.integer("sm_count", 0, kDegree));
    for (const auto& f : kHardwareNumbers) {
        if (const auto v = r.number(f.key, f.min, f.max)) h.*f.member = *v;
        // null removed the preset's value and the builder's 0 is outside the range (a bandwidth, an efficiency).
        else if (h.*f.member < f.min && !r.failed(f.key))
            r.problem(f.key, "required (null removed the preset's value): " + number_range(f.min, f.max));
    }
    if (const json* peaks = r.object("peak_tflops")) r.collect([&] { parse_peaks(*peaks, "/hardware/peak_tflops", h); });
    r.finish();
    return h;
}

}  // namespace

Scenario scenario_from_json(const json& j) {
    ObjectReader r(j, "");
    Scenario s;
    // Every section is read even when another has problems, so that all of them are reported at once.
    Problems problems;
    if (const auto v = r.integer("version", 0, 1000); v && *v != 1)
        problems.add("/version", "this engine reads scenario version 1");
    r.string("name");
    r.string("source");  // where a plan comes from (presets/plans): for readers, not for the engine
    assign(s.framework, r.choice<Framework>("framework"));
    const json* model = r.object("model");
    const json* training = r.object("training");
    const json* parallel = r.object("parallel");
    const json* hardware = r.object("hardware");
    const json* implementation = r.object("implementation");
    problems.collect([&] { r.finish(); });  // a misspelled section is reported before its absence
    if (!r.failed("model")) problems.collect([&] { s.model = parse_model(model); });
    problems.collect([&] { s.training = parse_training(training); });
    problems.collect([&] { s.parallel = parse_parallel(parallel); });
    problems.collect([&] { s.hardware = parse_hardware(hardware); });
    problems.collect([&] { s.implementation = parse_implementation(implementation); });
    problems.raise();
    // A TPU runs XLA programs only: with no framework named, a TPU plan is an xla one.
    if (!j.contains("framework") && s.hardware.kind == DeviceKind::Tpu) s.framework = Framework::Xla;
    return s;
}

}  // namespace shardcalc
