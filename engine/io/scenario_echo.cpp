// The scenario's echo: every field with its resolved value, written so that reading it back gives the same report
// (a field a preset turns on, and the user turned off, is written off).
#include "io/hardware_fields.h"
#include "io/presets.h"
#include "io/scenario_json.h"
#include "scenario/names.h"

namespace shardcalc {

using nlohmann::json;

namespace {

template <class T>
void put(json& j, const char* key, const std::optional<T>& v) {
    if (v) j[key] = *v;
}

template <class E>
void put_name(json& j, const char* key, const std::optional<E>& v) {
    if (v) j[key] = name_of(*v);
}

// Whether the model preset (if any) turns on a field whose default is off (0, false).
bool preset_sets(const json* preset, const char* key) {
    if (!preset) return false;
    const auto it = preset->find(key);
    return it != preset->end() && ((it->is_boolean() && it->get<bool>()) || (it->is_number() && it->get<double>() != 0));
}

// A boolean model field whose default is off: written when on, or when the preset turns it on (reading the echo
// back applies the preset first, so an override that turns a preset's field off must be written too).
void put_flag(json& model, const json* preset, const char* key, bool on) {
    if (on || preset_sets(preset, key)) model[key] = on;
}

// The transformer's fields of the model echo (an LSTM has none of them). Counts whose default is 0 follow put_flag's
// rule (`mtp_layers: 0` on DeepSeek-V3).
void put_transformer_fields(json& model, const ModelSpec& m, const json* preset) {
    auto flag = [&](const char* key, bool on) { put_flag(model, preset, key, on); };
    put(model, "kv_heads", m.kv_heads);
    put(model, "head_dim", m.head_dim);
    put(model, "ffn_hidden", m.ffn_hidden);
    put(model, "embedding_dim", m.embedding_dim);
    put(model, "embedding_norm", m.embedding_norm);
    put(model, "type_vocab", m.type_vocab);
    put(model, "pooler", m.pooler);
    put_name(model, "hidden_act", m.hidden_act);
    put(model, "fused_qkv", m.fused_qkv);
    put(model, "qkv_bias", m.qkv_bias);
    put(model, "mlp_bias", m.mlp_bias);
    flag("output_bias", m.output_bias);
    flag("qk_norm", m.qk_norm);
    if (m.experts > 0) {  // the expert fields are echoed for MoE models only
        model["experts"] = m.experts;
        put(model, "experts_per_token", m.experts_per_token);
        put(model, "expert_ffn_hidden", m.expert_ffn_hidden);
        model["shared_experts"] = m.shared_experts;
        put(model, "shared_expert_ffn_hidden", m.shared_expert_ffn_hidden);
        model["first_dense_layers"] = m.first_dense_layers;
        model["moe_every"] = m.moe_every;
        flag("router_bias", m.router_bias);
        flag("shared_expert_gate", m.shared_expert_gate);
    } else if (preset_sets(preset, "experts")) {
        model["experts"] = 0;
    }
    if (m.kv_lora_rank > 0) {
        model["q_lora_rank"] = m.q_lora_rank;
        model["kv_lora_rank"] = m.kv_lora_rank;
        model["qk_rope_head_dim"] = m.qk_rope_head_dim;
        put(model, "v_head_dim", m.v_head_dim);
    } else if (preset_sets(preset, "kv_lora_rank")) {
        model["kv_lora_rank"] = 0;
    }
    if (m.mtp_layers > 0 || preset_sets(preset, "mtp_layers")) model["mtp_layers"] = m.mtp_layers;
    if (m.sliding_window > 0) {
        model["sliding_window"] = m.sliding_window;
        model["global_every"] = m.global_every;
    } else if (preset_sets(preset, "sliding_window")) {
        model["sliding_window"] = 0;
    }
    if (m.logit_softcap > 0 || preset_sets(preset, "logit_softcap")) model["logit_softcap"] = m.logit_softcap;
    flag("attention_sinks", m.attention_sinks);
    flag("parallel_block", m.parallel_block);
    flag("post_norms", m.post_norms);
    flag("parallel_norms", m.parallel_norms);
}

}  // namespace

json scenario_to_json(const Scenario& s) {
    const ModelSpec& m = s.model;
    json model = {{"arch", name_of(m.arch)}, {"layers", m.layers}, {"hidden", m.hidden}, {"heads", m.heads},
                  {"mlp", name_of(m.mlp)}, {"vocab", m.vocab}, {"max_positions", m.max_positions},
                  {"position_embedding", name_of(m.position_embedding)}, {"norm", name_of(m.norm)},
                  {"bias", m.bias}, {"tied_embeddings", m.tied_embeddings}, {"shared_layers", m.shared_layers},
                  {"head", name_of(m.head)}};
    if (!m.preset.empty()) model["preset"] = m.preset;
    const json* file = m.preset.empty() ? nullptr : model_preset(m.preset);
    const json* preset = file && file->contains("model") ? &(*file)["model"] : nullptr;  // the fields it sets
    if (m.arch == Arch::Lstm) {
        // The echo reads back as it was given: no attention fields for an LSTM.
        for (const char* key : {"heads", "mlp", "norm", "shared_layers"}) model.erase(key);
        model["projection"] = m.projection;
        if (m.proj_size > 0 || preset_sets(preset, "proj_size")) model["proj_size"] = m.proj_size;
        model["fused_gates"] = m.fused_gates;
        model["gate_biases"] = m.gate_biases;
        put(model, "embedding_dim", m.embedding_dim);
        put_flag(model, preset, "output_bias", m.output_bias);
    } else {
        put_transformer_fields(model, m, preset);
    }
    const bool moe = m.experts > 0;

    const TrainingSpec& t = s.training;
    json training = {{"micro_batch", t.micro_batch}, {"dtype", name_of(t.dtype)},
                     {"optimizer", name_of(t.optimizer)}, {"recompute", name_of(t.recompute)},
                     {"attention", name_of(t.attention)}, {"dropout", t.dropout}, {"train_tokens", t.train_tokens}};
    put(training, "seq_len", t.seq_len);
    put(training, "global_batch", t.global_batch);
    if (t.recompute_modules != 0) training["recompute_modules"] = recompute_module_names(t.recompute_modules);
    put_name(training, "param_dtype", t.param_dtype);
    put_name(training, "grad_dtype", t.grad_dtype);
    put(training, "master_weights", t.master_weights);
    put(training, "grad_clip", t.grad_clip);
    // Written where it applies (an MLM head) or was given: 0 read back must stay 0 under xla's 15% default.
    if (t.mlm_predictions && (*t.mlm_predictions > 0 || (m.arch == Arch::Encoder && m.head == Head::Lm)))
        training["mlm_predictions"] = *t.mlm_predictions;
    if (t.fp8 != Fp8Recipe::None) training["fp8"] = name_of(t.fp8);
    if (moe) {
        training["expert_imbalance"] = t.expert_imbalance;
        put(training, "capacity_factor", t.capacity_factor);
        training["router_z_loss"] = t.router_z_loss;
    }

    const ParallelSpec& p = s.parallel;
    json parallel = {{"dp", p.dp}, {"tp", p.tp}, {"pp", p.pp}, {"vpp", p.vpp}, {"sp", p.sp}, {"cp", p.cp},
                     {"ulysses", p.ulysses}, {"zero", p.zero}, {"distributed_optimizer", p.distributed_optimizer},
                     {"offload_optimizer", name_of(p.offload_optimizer)},
                     {"offload_params", name_of(p.offload_params)}, {"schedule", name_of(p.schedule)}};
    put(parallel, "world_size", p.world_size);
    put(parallel, "overlap_grad_reduce", p.overlap_grad_reduce);
    if (p.overlap_param_gather) parallel["overlap_param_gather"] = true;
    if (p.tp_comm_overlap) parallel["tp_comm_overlap"] = true;
    put(parallel, "first_stage_layers", p.first_stage_layers);
    put(parallel, "last_stage_layers", p.last_stage_layers);
    if (!p.stage_layers.empty()) parallel["stage_layers"] = p.stage_layers;
    if (p.embedding_as_layer) parallel["embedding_as_layer"] = true;
    if (p.loss_as_layer) parallel["loss_as_layer"] = true;
    if (moe || p.ep > 1) {
        parallel["ep"] = p.ep;
        put(parallel, "etp", p.etp);
        parallel["overlap_moe_comm"] = p.overlap_moe_comm;
        parallel["moe_dispatcher"] = name_of(p.moe_dispatcher);
    }

    const HardwareSpec& h = s.hardware;
    json peaks = json::object();
    // Every entry, zeros included: a zero read back must not let the preset's value return.
    for (const auto& [key, member] : kPeaks) peaks[key] = h.*member;
    json hardware = {{"preset", h.preset}, {"name", h.name}, {"kind", name_of(h.kind)}, {"gpus_per_node", h.gpus_per_node},
                     {"sm_count", h.sm_count}, {"peak_tflops", peaks}};
    if (h.kind == DeviceKind::Tpu || h.matrix_unit > 0) hardware["matrix_unit"] = h.matrix_unit;
    hardware["nvlink_domain"] = nvlink_domain_of(h);  // always: a preset's larger domain must not return on reading
    for (const auto& f : kHardwareNumbers) hardware[f.key] = h.*f.member;
    const ImplementationSpec& im = s.implementation;
    json implementation = {{"allocator", name_of(im.allocator)}};
    put_name(implementation, "model_code", im.model_code);
    put_name(implementation, "optimizer_impl", im.optimizer_impl);
    put(implementation, "tf32", im.tf32);
    put(implementation, "cudnn_tf32", im.cudnn_tf32);
    put_name(implementation, "rnn", im.rnn);
    put(implementation, "host_forward_us", im.host_forward_us);
    put(implementation, "host_backward_us", im.host_backward_us);
    put(implementation, "fragmentation", im.fragmentation);
    return json{{"version", 1},          {"framework", name_of(s.framework)}, {"model", model},
                {"training", training},  {"parallel", parallel},               {"hardware", hardware},
                {"implementation", implementation}};
}

}  // namespace shardcalc
