#include "io/import/hf_config.h"
#include "io/import/hf_import.h"

#include <iterator>
#include <set>

namespace shardcalc::hf {

// The part of a Llama 4 or Gemma 3 config the import leaves out: the plan trains the language model.
constexpr const char* kVisionConfig = "vision_config";

// The keys of a wrapper that configure its vision side: vision_config, and Gemma3Config's mm_tokens_per_image (the
// tokens Gemma3MultiModalProjector pools each image's patches to; its weights, mm_input_projection_weight and
// mm_soft_emb_norm, sit between the vision tower and the language model).
bool vision_key(const std::string& key) { return key == kVisionConfig || key == "mm_tokens_per_image"; }

// Families people will bring that the engine cannot represent exactly, and why. (A Mixture-of-Experts config
// of a family without a table here is refused earlier, at its expert count.)
constexpr const char* kEncoderDecoder =
    "an encoder-decoder model (T5, BART): the engine builds one stack of layers, a decoder or an encoder, so the "
    "second stack and its cross-attention would be missing";
// A kv_lora_rank in a family read with q, k and v projected from the hidden state (DeepSeek's attention is read
// from deepseek_v2 and deepseek_v3 configs, finish_deepseek).
constexpr const char* kLatentAttention =
    "Multi-head Latent Attention (keys and values rebuilt from a kv_lora_rank latent, queries from a q_lora_rank "
    "one, with separate rotary dimensions) in a family the importer reads with q, k and v projected from the hidden "
    "state; it reads latent attention from deepseek_v2 and deepseek_v3 configs";
const std::pair<const char*, const char*> kRefusedTypes[] = {
    {"t5", kEncoderDecoder},
    {"mt5", kEncoderDecoder},
    {"bart", kEncoderDecoder},
};

std::string supported_types() {
    std::string out;
    const std::vector<ModelType>& types = model_types();
    const size_t n = types.size();
    for (size_t i = 0; i < n; ++i)
        out += (i == 0 ? "" : i + 1 == n ? " and " : ", ") + std::string(types[i].type);
    return out;
}

// The model type a class name stands for: "GPTNeoXForCausalLM" -> "GPTNeoX", "GPT2LMHeadModel" -> "GPT2".
std::string type_of_architecture(const std::string& name) {
    size_t cut = name.size();
    for (const char* suffix : {"For", "LMHead", "Model"}) {
        const size_t at = name.find(suffix);
        if (at != std::string::npos && at > 0 && at < cut) cut = at;
    }
    return name.substr(0, cut);
}

// What the config's family is: one the importer reads (`known`), one it refuses with a reason (`refused`), or
// neither. `name` as the config spells it, `key` the key that said it.
struct TypeMatch {
    const ModelType* known = nullptr;
    const char* refused = nullptr;
    std::string name, key;
};

// The config's model type: model_type as transformers' AutoConfig reads it, else the first architecture's
// class name.
TypeMatch model_type(const json& config, Import& in) {
    TypeMatch match;
    match.key = "model_type";
    if (const json* given = find(config, "model_type")) {
        if (given->is_string()) match.name = given->get<std::string>();
        else in.not_understood("model_type", *given);
    }
    if (match.name.empty())
        if (const json* classes = find(config, "architectures"))
            if (classes->is_array() && !classes->empty() && (*classes)[0].is_string()) {
                match.name = type_of_architecture((*classes)[0].get<std::string>());
                match.key = "architectures";
            }
    if (match.name.empty())
        throw InputError(pointer("model_type"), "missing: a config names its family (model_type, or architectures), "
                                                "which decides how every other key reads");
    for (const ModelType& t : model_types())
        if (normalized(match.name) == normalized(t.type)) match.known = &t;
    for (const auto& [refused, why] : kRefusedTypes)
        if (normalized(match.name) == normalized(refused)) match.refused = why;
    return match;
}

// Whether the family (if any) has a rule for the key.
bool reads(const Family* f, const std::string& key) {
    if (f)
        for (const Rule& r : f->rules)
            if (key == r.key) return true;
    return false;
}

// ---- Refusals that hold in every family ------------------------------------------------------------------

// A Mixture-of-Experts model counted as dense would be its one expert's size (Mixtral 8x7B as a 7.24B model):
// any key counting experts above one that the family does not read as experts stops the import (a family
// without an expert table here, such as OLMoE or Phi-MoE, or experts added to a Llama config). The counts are
// looked at first, so that the message names the number of experts rather than how many each token uses.
void refuse_experts(const json& config, const std::string& at, const Family* f) {
    const char* const counts[] = {"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts"};
    auto read_by_family = [f](const std::string& key) { return reads(f, key); };
    // More than one expert, or a setting that cannot be read as a count (false and null say "none").
    auto many = [](const json& v) {
        return v.is_number() ? v.get<double>() > 1 : v.is_boolean() ? v.get<bool>() : !v.is_null();
    };
    auto refuse = [&](const std::string& key, const json& v) {
        throw InputError(at + pointer(key),
                         (v.is_number() ? quote(v) + " experts" : "an expert setting, " + quote(v)) +
                             ": a Mixture-of-Experts layout the importer has no table for (it reads the experts of "
                             "mixtral, qwen3_moe, qwen2_moe, llama4, gpt_oss, deepseek_v2 and deepseek_v3 configs); "
                             "read as dense, each layer's experts would be counted as one MLP");
    };
    for (const char* key : counts)
        if (const auto it = config.find(key); it != config.end() && many(*it) && !read_by_family(key)) refuse(key, *it);
    for (auto it = config.begin(); it != config.end(); ++it) {
        std::string lower = normalized(it.key());
        if (lower.find("experts") != std::string::npos && many(it.value()) && !read_by_family(it.key()))
            refuse(it.key(), it.value());
    }
}

bool experts_key(const std::string& key) { return normalized(key).find("experts") != std::string::npos; }

// Switches that make a block the engine does not build, in any family.
const std::pair<const char*, const char*> kRefusedSwitches[] = {
    {"is_encoder_decoder", kEncoderDecoder},
    {"add_cross_attention", "cross-attention layers (a decoder reading an encoder's output) are not modelled: their "
                            "weights and activations would be missing"},
    // Read by the gpt_neox and falcon families (finish_gpt_neox, finish_falcon); elsewhere a layer the family's
    // code does not build.
    {"use_parallel_residual", "a parallel residual (attention and the MLP read the same input and their outputs "
                              "are added) in a family whose layers are sequential; the importer reads it in "
                              "gpt_neox configs"},
    {"parallel_attn", "attention and the MLP in parallel (both read the same input, their outputs are added) in a "
                      "family whose layers are sequential; the importer reads it in falcon configs"},
};

void refuse_switches(const json& config, const std::string& at, const Family* f) {
    Problems problems;
    for (const auto& [key, why] : kRefusedSwitches)
        if (const json* v = find(config, key); v && !reads(f, key)) {  // Falcon and GPT-NeoX read their own
            if (!v->is_boolean()) problems.add(at + pointer(key), "must be true or false, got " + quote(*v));
            else if (v->get<bool>()) problems.add(at + pointer(key), std::string("true: ") + why);
        }
    // Heads pruned from some layers leave layers of different shapes.
    if (const json* pruned = find(config, "pruned_heads"); pruned && !(pruned->is_object() && pruned->empty()))
        problems.add(at + pointer("pruned_heads"),
                     "heads pruned from some layers are not modelled: every layer has the same shape");
    // A latent rank for keys and values is Multi-head Latent Attention, whatever the model type says, unless the
    // family reads it.
    if (const json* rank = find(config, "kv_lora_rank"); rank && !reads(f, "kv_lora_rank"))
        problems.add(at + pointer("kv_lora_rank"), quote(*rank) + ": " + kLatentAttention);
    problems.raise();
}

bool switch_key(const std::string& key) {
    for (const auto& [k, why] : kRefusedSwitches)
        if (key == k) return true;
    return key == "pruned_heads" || key == "kv_lora_rank";
}

// Keys with no effect on weights or memory: read by no family, named by none. Dtypes, dropout and
// recompute are the plan's own fields (training.*), not the checkpoint's.
const std::set<std::string>& ignored() {
    static const std::set<std::string> keys = {
        // what the file is and how it was saved
        "_name_or_path", "architectures", "model_type", "transformers_version", "torch_dtype", "dtype",
        "use_bfloat16", "tokenizer_class", "prefix",
        "auto_map",  // the classes of a model's own code (DeepSeek's modeling_deepseek.py); model_type decides here
        // token ids (the image tokens of Llama 4 and Gemma 3 too)
        "bos_token_id", "eos_token_id", "pad_token_id", "sep_token_id", "cls_token_id", "unk_token_id",
        "mask_token_id", "decoder_start_token_id", "boi_token_index", "eoi_token_index", "image_token_index",
        // initialization and numerics: same shapes
        "initializer_range", "initializer_factor", "rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon",
        "rope_theta", "rope_scaling", "rope_parameters", "pretraining_tp", "scale_attn_weights",
        "scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn", "n_ctx",
        // dropout rates (training.dropout decides)
        "attention_dropout", "hidden_dropout", "hidden_dropout_prob", "attention_probs_dropout_prob",
        "classifier_dropout", "classifier_dropout_prob", "embd_pdrop", "attn_pdrop", "resid_pdrop",
        "summary_first_dropout",
        // the router's training signals: an auxiliary loss, its weight, noise on the logits (no weights)
        "output_router_logits", "router_aux_loss_coef", "router_jitter_noise",
        // fine-tuning heads and tasks, not the backbone
        "summary_type", "summary_use_proj", "summary_activation", "summary_proj_to_labels", "task_specific_params",
        "id2label", "label2id", "num_labels", "problem_type", "finetuning_task",
        // runtime switches
        "use_cache", "output_past", "gradient_checkpointing", "attn_implementation", "return_dict",
        "_attn_implementation",  // as older transformers saved it (Google's Gemma 2 27B file: "eager")
        "output_attentions", "output_hidden_states", "torchscript", "chunk_size_feed_forward",
        "tie_encoder_decoder",  // only with is_encoder_decoder, refused on its own
        // AlbertConfig keeps these from the original code; its layers do not read them.
        "down_scale_factor", "gap_size", "net_structure_type", "num_memory_blocks"};
    return keys;
}

// Whether a number at `path` can change the import. `at` is where the family's keys sit ("" or
// "/text_config"): there the key under it decides; in a wrapper, the vision tower is not imported.
bool read_at(const std::string& path, const std::string& at) {
    if (!at.empty()) {
        if (path.rfind(at + "/", 0) == 0) return !ignored().count(top_key(path.substr(at.size())));
        if (vision_key(top_key(path))) return false;
    }
    return !ignored().count(top_key(path));
}

// Numbers beyond double range were read as null: the key is refused by name, never left to a default
// (1e400 KV heads must not quietly become multi-head attention), unless nothing reads it.
void refuse_out_of_range(const std::vector<OutOfRangeNumber>& out_of_range, const std::string& at) {
    Problems problems;
    for (const OutOfRangeNumber& n : out_of_range)
        if (read_at(n.path, at))
            problems.add(n.path, shorten(n.text) +
                                     " is not a finite number (beyond the range of a 64-bit float, about 1.8e308)");
    problems.raise();
}

void note_quantized(Import& in) {
    in.notes.push_back("quantization_config: the checkpoint is stored quantized; memory here follows the plan's "
                       "dtypes (training.dtype, param_dtype).");
}

// The keys of a config that wraps the language model (Llama4Config, Gemma3Config): besides text_config, only
// tie_word_embeddings and quantization_config can concern it. The vision side (vision_config, Gemma 3's
// mm_tokens_per_image; Llama4ForConditionalGeneration's vision_model and multi_modal_projector,
// Gemma3ForConditionalGeneration's vision_tower and multi_modal_projector) is not imported: one note says so.
void read_wrapper(const json& config, const std::string& nested, const std::string& label, Import& in) {
    std::string vision;  // the vision key the note names: vision_config when given
    for (auto it = config.begin(); it != config.end(); ++it) {
        const std::string& key = it.key();
        if (key == nested || it.value().is_null() || ignored().count(key)) continue;
        if (vision_key(key)) {
            if (vision.empty() || key == kVisionConfig) vision = key;
        } else if (key == "quantization_config") {
            note_quantized(in);
        } else if (key == "tie_word_embeddings") {
            // A wrapper saying otherwise than the text model is not guessed at; the text model's own default is its
            // config class's (Llama4TextConfig: false; Gemma3TextConfig: true), as the family's fixed fields hold it.
            const json* inner = find(config.at(nested), "tie_word_embeddings");
            const json fallback = in.model.value("tied_embeddings", json(false));
            if (it.value() != (inner ? *inner : fallback))
                in.problems.add(pointer(key), quote(it.value()) + " while " + nested + ".tie_word_embeddings is " +
                                               (inner ? quote(*inner) : "not given (" + fallback.dump() + ")") +
                                               ": the two disagree about whether the output layer shares the "
                                               "embedding table; give the same value in both");
        } else {
            in.unknown.push_back(shorten(key));
        }
    }
    if (!vision.empty())
        in.notes.push_back(vision + ": the vision encoder and its projector are not imported: the model is " + label +
                           "'s language model alone, as a text-only training plan holds it (the published totals of "
                           "the whole checkpoint include them).");
}

// ---- The model, checked by the scenario's own rules ----------------------------------------------------

// The imported model read and validated as a scenario would be: a problem at a model field comes back at the
// config key it was read from (a huge layer count, KV heads that do not divide the heads, a missing size).
void check_model(const Family& f, Import& in) {
    std::vector<Problem> found;
    try {
        resolve(scenario_from_json(json{{"model", in.model}}));
    } catch (const InputError& e) {
        found = e.problems();
    }
    const std::string prefix = "/model/";
    for (const Problem& p : found) {
        if (p.path.rfind(prefix, 0) != 0) continue;  // the default plan's, not the model's
        const std::string field = p.path.substr(prefix.size());
        if (const auto it = in.source.find(field); it != in.source.end()) {
            in.problems.add(in.path(it->second), p.message + " (read as model." + field + ")");
            continue;
        }
        const Rule* rule = nullptr;
        for (const Rule& r : f.rules)
            if (r.field && field == r.field) rule = &r;
        if (rule && !in.model.contains(field)) in.problems.add(in.path(rule->key), "missing: it gives model." + field);
        else in.problems.add("", "model." + field + ": " + p.message);
    }
}

json import(const json& config, const std::vector<OutOfRangeNumber>& out_of_range) {
    if (!config.is_object())
        throw InputError("", std::string("a config.json is one JSON object, got ") + config.type_name());
    Import in;
    const TypeMatch type = model_type(config, in);
    // A wrapper's language model is read where it sits: a config that says model_type "llama4" or "gemma3" must
    // have it; one named only by its class (Llama4ForCausalLM, Gemma3ForCausalLM) may be the text model's own
    // config.
    const json* body = &config;
    if (type.known && type.known->nested && (type.key == "model_type" || config.contains(type.known->nested))) {
        const std::string nested = type.known->nested;
        in.at = pointer(nested);
        body = find(config, nested.c_str());
        if (!body)
            throw InputError(in.at, "missing: a " + std::string(type.known->label) + " config keeps the language "
                                    "model's keys in " + nested + " (transformers' defaults are not guessed at)");
        if (!body->is_object())
            throw InputError(in.at, std::string("must be an object (the language model's keys), got ") +
                                        body->type_name());
    }
    refuse_out_of_range(out_of_range, in.at);
    const Family* known = type.known ? &family(type.known->family) : nullptr;
    refuse_switches(*body, in.at, known);
    if (type.refused) throw InputError(pointer(type.key), shorten(type.name) + ": " + type.refused);
    refuse_experts(*body, in.at, known);
    if (!known)
        throw InputError(pointer(type.key), "unknown model type \"" + shorten(type.name) + "\": the importer reads " +
                                                supported_types() +
                                                " configs; for another family give the model's fields "
                                                "(docs/scenario.md 2.1)");
    const Family& f = *known;
    in.model = f.fixed;
    in.type = type.known->type;
    if (!in.at.empty()) read_wrapper(config, type.known->nested, type.known->label, in);
    for (auto it = body->begin(); it != body->end(); ++it) {
        const std::string& key = it.key();
        const Rule* rule = nullptr;
        for (const Rule& r : f.rules)
            if (key == r.key) rule = &r;
        if (rule) {
            if (it.value().is_null()) continue;  // not given: the family's default, as transformers reads it
            if (rule->field) in.set(rule->field, it.value(), key);
            else rule->read(key, it.value(), in);
        } else if (key == "quantization_config") {
            if (!it.value().is_null()) note_quantized(in);
        } else if (!ignored().count(key) && !switch_key(key) && !experts_key(key)) {
            in.unknown.push_back(in.name(key));
        }
    }
    if (f.finish) f.finish(*body, in);
    in.problems.raise();  // what the rules refused, before the model is checked as a whole
    check_model(f, in);
    in.problems.raise();
    return {{"ok", true},         {"family", f.id},         {"label", type.known->label},
            {"model", in.model},  {"unknown", in.unknown},  {"notes", in.notes}};
}

}  // namespace shardcalc::hf

namespace shardcalc {

using nlohmann::json;

json import_hf_config(const json& config) { return import_hf_config(config, {}); }

json import_hf_config(const json& config, const std::vector<OutOfRangeNumber>& out_of_range) {
    try {
        return hf::import(config, out_of_range);
    } catch (const InputError& e) {
        return error_value(e.problems());
    }
}

}  // namespace shardcalc
