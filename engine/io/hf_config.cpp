#include "io/hf_config.h"

#include <cctype>
#include <iterator>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/api.h"
#include "io/json_text.h"
#include "io/scenario_json.h"
#include "scenario/resolve.h"

namespace shardcalc {
namespace {

using nlohmann::json;

// ---- Words for messages ------------------------------------------------------------------------

constexpr size_t kShown = 60;  // characters of a key or value shown in a message

// `text` cut to kShown characters (code points, so a UTF-8 sequence is never split), "…" marking the cut.
std::string shorten(const std::string& text) {
    size_t chars = 0, cut = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;  // inside a character
        if (chars == kShown - 1) cut = i;
        if (++chars > kShown) return text.substr(0, cut) + "…";
    }
    return text;
}

// A config value as JSON text, shortened; a user's bytes that are not UTF-8 are replaced, never thrown.
std::string quote(const json& value) { return shorten(value.dump(-1, ' ', false, json::error_handler_t::replace)); }

// The RFC 6901 pointer of a top-level key: problems name the key the way every engine error names a field.
std::string pointer(const std::string& key) { return "/" + pointer_token(key); }

// The top-level key a pointer starts with ("/rope_scaling/factor" -> "rope_scaling").
std::string top_key(const std::string& path) {
    std::string key;
    for (size_t i = 1; i < path.size() && path[i] != '/'; ++i) {
        if (path[i] == '~' && i + 1 < path.size()) key += path[++i] == '1' ? '/' : '~';
        else key += path[i];
    }
    return key;
}

// A model type compared without case, "_" or "-": "gpt_neox" and "GPTNeoX" (from GPTNeoXForCausalLM) are one.
std::string normalized(const std::string& type) {
    std::string out;
    for (char ch : type)
        if (ch != '_' && ch != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return out;
}

const json* find(const json& config, const char* key) {
    const auto it = config.find(key);
    return it == config.end() || it->is_null() ? nullptr : &*it;
}

// ---- What one import gathers -------------------------------------------------------------------

struct Import {
    json model = json::object();
    std::map<std::string, std::string> source;  // model field -> the config key it was read from
    std::vector<std::string> unknown;           // "key", or "key=value" for a value no rule understands
    std::vector<std::string> notes;             // where the engine counts something differently, and how much
    Problems problems;                          // what stops the import

    void set(const char* field, json value, const std::string& key) {
        model[field] = std::move(value);
        source[field] = key;
    }
    void refuse(const std::string& key, std::string why) { problems.add(pointer(key), std::move(why)); }
    void not_understood(const std::string& key, const json& value) {
        unknown.push_back(shorten(key) + "=" + quote(value));
    }
};

// How a family reads one key. With `field`, the value goes to that model field as written, and the scenario's
// own reader then checks its type and range (check_model), so a config cannot bring a value a scenario could
// not. Otherwise `read` decides.
using Read = void (*)(const std::string& key, const json& value, Import& in);
struct Rule {
    const char* key;
    const char* field;
    Read read;
};

// A key the family's finish() reads together with others; here it only counts as understood.
void later(const std::string&, const json&, Import&) {}

// ---- Activations: the spelling decides the kernels (model.hidden_act), the family decides the MLP ---------

const char* const kSpellings[] = {"gelu", "gelu_new", "gelu_pytorch_tanh", "relu", "silu"};

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// A GELU variant the engine has no spelling for runs as the engine's GELU: same weights and activations.
void spell_gelu(const std::string& key, const std::string& act, Import& in) {
    for (const char* known : kSpellings)
        if (act == known) return in.set("hidden_act", act, key);
    in.set("hidden_act", "gelu", key);
    in.notes.push_back(key + " " + shorten(act) + " is counted as gelu (same weights and saved activations; the engine "
                       "spells gelu, gelu_new and gelu_pytorch_tanh).");
}

// The activation of a gated MLP (Llama, Mistral, Gemma): SiLU gates make SwiGLU, GELU gates GeGLU.
void read_gated_act(const std::string& key, const json& value, Import& in) {
    if (!value.is_string()) return in.not_understood(key, value);
    const std::string act = value.get<std::string>();
    if (act == "silu" || act == "swish") {
        in.set("mlp", "swiglu", key);
        in.set("hidden_act", "silu", key);
    } else if (starts_with(act, "gelu")) {
        in.set("mlp", "geglu", key);
        spell_gelu(key, act, in);
    } else {
        in.not_understood(key, value);  // a gated ReLU or another gate: the family's own stays, and is named
    }
}

// The activation of a plain two-matrix MLP (GPT-2, BERT, ALBERT).
void read_plain_act(const std::string& key, const json& value, Import& in) {
    if (!value.is_string()) return in.not_understood(key, value);
    const std::string act = value.get<std::string>();
    if (act == "relu") {
        in.set("mlp", "relu", key);
        in.set("hidden_act", "relu", key);
    } else if (starts_with(act, "gelu")) {
        in.set("mlp", "gelu", key);
        spell_gelu(key, act, in);
    } else {
        in.not_understood(key, value);
    }
}

// ---- Keys with one meaning that the engine models or refuses --------------------------------------------

bool must_be_boolean(const std::string& key, const json& value, Import& in) {
    if (value.is_boolean()) return true;
    in.refuse(key, "must be true or false, got " + quote(value));
    return false;
}

// BERT position_embedding_type: relative kinds add distance embeddings to every layer.
void read_absolute(const std::string& key, const json& value, Import& in) {
    if (value != "absolute")
        in.refuse(key, quote(value) + ": relative position embeddings (a distance table in every layer) are not "
                       "modelled; only \"absolute\" is read");
}

// BERT is_decoder: a BERT with a causal mask, which the engine's encoder (attending both ways) is not.
void read_not_decoder(const std::string& key, const json& value, Import& in) {
    if (must_be_boolean(key, value, in) && value.get<bool>())
        in.refuse(key, "BERT as a causal decoder is not modelled: the engine's encoder attends both ways");
}

// ALBERT num_hidden_groups / inner_group_num: the engine shares one layer's weights across all layers.
void read_one_group(const std::string& key, const json& value, Import& in) {
    if (value != 1)
        in.refuse(key, quote(value) + ": ALBERT then keeps several sets of shared layer weights; the engine shares one "
                       "set across all layers (model.shared_layers), so only 1 is read");
}

// ---- Families: one table each -------------------------------------------------------------------------

struct Family {
    const char* id;
    json fixed;                // what every model of the family is, whatever the config says
    std::vector<Rule> rules;   // the keys it reads
    void (*finish)(const json& config, Import& in);  // decisions over several keys; may be null
};

// Keys spelled the same by Llama, Mistral, Gemma, BERT and ALBERT configs.
std::vector<Rule> common(std::vector<Rule> more) {
    std::vector<Rule> rules = {
        {"num_hidden_layers", "layers", nullptr},
        {"hidden_size", "hidden", nullptr},
        {"num_attention_heads", "heads", nullptr},
        {"intermediate_size", "ffn_hidden", nullptr},
        {"vocab_size", "vocab", nullptr},
        {"max_position_embeddings", "max_positions", nullptr},
        {"tie_word_embeddings", "tied_embeddings", nullptr},
    };
    rules.insert(rules.end(), more.begin(), more.end());
    return rules;
}

// Attention biases without MLP biases (Llama attention_bias alone biases q, k, v and o; Gemma, whose MLP never
// has one): the engine biases every linear layer, none, or (model.qkv_bias) q, k and v alone, so any reading
// counts another model.
constexpr const char* kPartialBias =
    "true without MLP biases: the engine biases every linear layer, none, or the q/k/v projections alone "
    "(model.qkv_bias), not q, k, v and o, so it would count a different model";
constexpr const char* kPartialMlpBias =
    "true without attention biases: the engine biases every linear layer, none, or the q/k/v projections alone, "
    "so it would count a different model";

// A sliding window changes which keys a query sees, not the weights or what a layer keeps for backward.
void note_sliding_window(const json& config, Import& in) {
    const json* window = find(config, "sliding_window");
    const json* use = find(config, "use_sliding_window");
    if (window && !window->is_number()) return in.not_understood("sliding_window", *window);
    if (!window || (use && *use == false)) return;
    in.notes.push_back("sliding_window " + quote(*window) +
                       ": attention is counted over the whole sequence, as without a window; exact up to seq_len " +
                       quote(*window) + ", beyond it attention time is overstated (weights and memory are the same).");
}

// Llama's attention_bias biases q, k, v and o; mlp_bias the MLP's three matrices. Both or neither can be read.
void finish_llama(const json& config, Import& in) {
    const json* attention = find(config, "attention_bias");
    const json* mlp = find(config, "mlp_bias");
    const bool a = attention && must_be_boolean("attention_bias", *attention, in) && attention->get<bool>();
    const bool m = mlp && must_be_boolean("mlp_bias", *mlp, in) && mlp->get<bool>();
    if (a != m) in.refuse(a ? "attention_bias" : "mlp_bias", a ? kPartialBias : kPartialMlpBias);
    else if (a) in.set("bias", true, "attention_bias");
    note_sliding_window(config, in);
}

// Qwen2 biases q, k and v and nothing else (transformers modeling_qwen2.py); its sliding window is a note.
void finish_qwen2(const json& config, Import& in) { note_sliding_window(config, in); }

// Gemma never biases its MLP; attention_bias alone is the partial case.
void finish_gemma(const json& config, Import& in) {
    if (const json* attention = find(config, "attention_bias"))
        if (must_be_boolean("attention_bias", *attention, in) && attention->get<bool>())
            in.refuse("attention_bias", kPartialBias);
}

// GPT2Config: n_inner null means 4 * n_embd.
void finish_gpt2(const json& config, Import& in) {
    const json* embd = find(config, "n_embd");
    if (!find(config, "n_inner") && embd && embd->is_number_integer() && *embd > 0 && *embd < (int64_t{1} << 40))
        in.set("ffn_hidden", 4 * embd->get<int64_t>(), "n_embd");
}

const std::vector<Family>& families() {
    static const std::vector<Family> all = [] {
        // LlamaConfig / MistralConfig: gated MLP, RoPE, RMSNorm, no biases by default, untied.
        const Family llama{"llama",
                           {{"arch", "decoder"}, {"mlp", "swiglu"}, {"hidden_act", "silu"},
                            {"position_embedding", "rope"}, {"norm", "rmsnorm"}, {"bias", false},
                            {"tied_embeddings", false}},
                           common({{"num_key_value_heads", "kv_heads", nullptr},
                                   {"head_dim", "head_dim", nullptr},
                                   {"hidden_act", nullptr, read_gated_act},
                                   {"attention_bias", nullptr, later},
                                   {"mlp_bias", nullptr, later},
                                   {"sliding_window", nullptr, later},
                                   {"use_sliding_window", nullptr, later},
                                   {"max_window_layers", nullptr, later}}),
                           finish_llama};
        // Qwen2Config (Qwen2, Qwen2.5): Llama's layout with biases on the q/k/v projections alone.
        const Family qwen2{"qwen2",
                           {{"arch", "decoder"}, {"mlp", "swiglu"}, {"hidden_act", "silu"},
                            {"position_embedding", "rope"}, {"norm", "rmsnorm"}, {"bias", false}, {"qkv_bias", true},
                            {"tied_embeddings", false}},
                           common({{"num_key_value_heads", "kv_heads", nullptr},
                                   {"hidden_act", nullptr, read_gated_act},
                                   {"sliding_window", nullptr, later},
                                   {"use_sliding_window", nullptr, later},
                                   {"max_window_layers", nullptr, later}}),
                           finish_qwen2};
        // GemmaConfig: Llama's layout with GeGLU (gelu_pytorch_tanh), tied embeddings and head_dim given (256).
        // Its RMSNorm scales by (1 + weight) and the embeddings by sqrt(hidden): the same weights. Gemma's code
        // reads hidden_activation and ignores hidden_act (transformers PR #29402: published configs say
        // "gelu", the model runs the tanh approximation).
        const Family gemma{"gemma",
                           {{"arch", "decoder"}, {"mlp", "geglu"}, {"hidden_act", "gelu_pytorch_tanh"},
                            {"position_embedding", "rope"}, {"norm", "rmsnorm"}, {"bias", false},
                            {"tied_embeddings", true}},
                           common({{"num_key_value_heads", "kv_heads", nullptr},
                                   {"head_dim", "head_dim", nullptr},
                                   {"hidden_activation", nullptr, read_gated_act},
                                   {"hidden_act", nullptr, later},
                                   {"attention_bias", nullptr, later}}),
                           finish_gemma};
        // GPT2Config: learned positions, LayerNorm, biases, tied head, one c_attn projection (fused QKV),
        // activation_function gelu_new unless it says otherwise.
        const Family gpt2{"gpt2",
                          {{"arch", "decoder"}, {"mlp", "gelu"}, {"hidden_act", "gelu_new"},
                           {"position_embedding", "learned"}, {"norm", "layernorm"}, {"bias", true},
                           {"tied_embeddings", true}, {"fused_qkv", true}},
                          {{"n_layer", "layers", nullptr},
                           {"n_embd", "hidden", nullptr},
                           {"n_head", "heads", nullptr},
                           {"n_inner", "ffn_hidden", nullptr},
                           {"vocab_size", "vocab", nullptr},
                           {"n_positions", "max_positions", nullptr},
                           {"tie_word_embeddings", "tied_embeddings", nullptr},
                           {"activation_function", nullptr, read_plain_act}},
                          finish_gpt2};
        // BertConfig: an encoder with learned absolute positions, token types, LayerNorm and biases; the engine's
        // encoder defaults add the embedding norm and the pooler, as BERT's pretraining model has them.
        const std::vector<Rule> bert_rules = common({{"type_vocab_size", "type_vocab", nullptr},
                                                     {"hidden_act", nullptr, read_plain_act},
                                                     {"position_embedding_type", nullptr, read_absolute},
                                                     {"is_decoder", nullptr, read_not_decoder}});
        const json bert_fixed = {{"arch", "encoder"},         {"mlp", "gelu"},       {"hidden_act", "gelu"},
                                 {"position_embedding", "learned"}, {"norm", "layernorm"}, {"bias", true},
                                 {"tied_embeddings", true}};
        const Family bert{"bert", bert_fixed, bert_rules, nullptr};
        // RoBERTa is BERT trained by masked LM alone: no next-sentence task, so no pooler (RobertaForMaskedLM).
        json roberta_fixed = bert_fixed;
        roberta_fixed["pooler"] = false;
        const Family roberta{"roberta", roberta_fixed, bert_rules, nullptr};
        // AlbertConfig: BERT with a factorized embedding and one layer's weights shared by every layer.
        json albert_fixed = bert_fixed;
        albert_fixed["hidden_act"] = "gelu_new";
        albert_fixed["shared_layers"] = true;
        std::vector<Rule> albert_rules = bert_rules;
        albert_rules.push_back({"embedding_size", "embedding_dim", nullptr});
        albert_rules.push_back({"num_hidden_groups", nullptr, read_one_group});
        albert_rules.push_back({"inner_group_num", nullptr, read_one_group});
        const Family albert{"albert", albert_fixed, albert_rules, nullptr};
        return std::vector<Family>{llama, qwen2, gemma, gpt2, bert, roberta, albert};
    }();
    return all;
}

const Family& family(const char* id) {
    for (const Family& f : families())
        if (std::string(f.id) == id) return f;
    throw std::logic_error(std::string("no family ") + id);
}

// model_type -> the family that reads it, and the name a message gives the model.
struct ModelType {
    const char* type;
    const char* label;
    const char* family;
};
const ModelType kModelTypes[] = {
    {"llama", "Llama", "llama"}, {"mistral", "Mistral", "llama"}, {"qwen2", "Qwen2", "qwen2"}, {"gemma", "Gemma", "gemma"},
    {"gpt2", "GPT-2", "gpt2"},   {"bert", "BERT", "bert"},        {"roberta", "RoBERTa", "roberta"},
    {"albert", "ALBERT", "albert"},
};

// Families people will bring that the engine cannot represent exactly, and why. (A Mixture-of-Experts
// config is refused earlier, at its expert count.)
constexpr const char* kEncoderDecoder =
    "an encoder-decoder model (T5, BART): the engine builds one stack of layers, a decoder or an encoder, so the "
    "second stack and its cross-attention would be missing";
constexpr const char* kMoeFamily = "a Mixture-of-Experts family: MoE is not modelled yet";
const std::pair<const char*, const char*> kRefusedTypes[] = {
    {"falcon", "the importer has no table for Falcon's layouts: parallel_attn runs attention and the MLP side by "
               "side, new_decoder_architecture gives each its own norm and grouped K/V heads, multi_query one K/V "
               "head; read as a Llama-style model, Falcon-7B counted 11.2B parameters instead of 6.9B"},
    {"gptj", "GPT-J's blocks are not modelled: attention and the MLP read the same layer norm's output and their "
             "outputs are added (a parallel residual); the engine models sequential blocks"},
    {"gpt_neox", "GPT-NeoX's blocks (Pythia) are not modelled: a parallel residual unless use_parallel_residual is "
                 "false, partial rotary embeddings and a biased, fused QKV projection"},
    {"qwen3", "Qwen3 normalizes queries and keys in every layer (QK-norm: q_norm, k_norm), which the engine does "
              "not model"},
    {"gemma2", "Gemma 2 layers have four norms (before and after attention and the MLP), soft-capped attention "
               "logits and alternate sliding-window layers; the engine models two norms per layer"},
    {"gemma3", "Gemma 3 layers have four norms and QK-norm, and alternate sliding-window layers; the engine models "
               "two norms per layer and no QK-norm"},
    {"gemma3_text", "Gemma 3 layers have four norms and QK-norm, and alternate sliding-window layers; the engine "
                    "models two norms per layer and no QK-norm"},
    {"t5", kEncoderDecoder},
    {"mt5", kEncoderDecoder},
    {"bart", kEncoderDecoder},
    {"mixtral", kMoeFamily},
    {"qwen2_moe", kMoeFamily},
    {"qwen3_moe", kMoeFamily},
    {"deepseek_v2", kMoeFamily},
    {"deepseek_v3", kMoeFamily},
    {"gpt_oss", kMoeFamily},
};

std::string supported_types() {
    std::string out;
    const size_t n = std::size(kModelTypes);
    for (size_t i = 0; i < n; ++i)
        out += (i == 0 ? "" : i + 1 == n ? " and " : ", ") + std::string(kModelTypes[i].type);
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

// The config's model type: model_type as transformers' AutoConfig reads it, else the first architecture's
// class name. A family it cannot read is refused at the key that named it.
const ModelType& model_type(const json& config, Import& in) {
    std::string type, key = "model_type";
    if (const json* given = find(config, "model_type")) {
        if (given->is_string()) type = given->get<std::string>();
        else in.not_understood("model_type", *given);
    }
    if (type.empty())
        if (const json* classes = find(config, "architectures"))
            if (classes->is_array() && !classes->empty() && (*classes)[0].is_string()) {
                type = type_of_architecture((*classes)[0].get<std::string>());
                key = "architectures";
            }
    if (type.empty())
        throw InputError(pointer("model_type"), "missing: a config names its family (model_type, or architectures), "
                                                "which decides how every other key reads");
    for (const ModelType& t : kModelTypes)
        if (normalized(type) == normalized(t.type)) return t;
    for (const auto& [refused, why] : kRefusedTypes)
        if (normalized(type) == normalized(refused)) throw InputError(pointer(key), shorten(type) + ": " + why);
    throw InputError(pointer(key), "unknown model type \"" + shorten(type) + "\": the importer reads " +
                                       supported_types() +
                                       " configs; for another family give the model's fields (docs/scenario.md 2.1)");
}

// ---- Refusals that hold in every family ------------------------------------------------------------------

// A Mixture-of-Experts model counted as dense would be its one expert's size (Mixtral 8x7B as a 7.24B model):
// any key counting experts above one stops the import. The counts are looked at first, so that the message
// names the number of experts rather than how many each token uses.
void refuse_experts(const json& config) {
    const char* const counts[] = {"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts"};
    // More than one expert, or a setting that cannot be read as a count (false and null say "none").
    auto many = [](const json& v) {
        return v.is_number() ? v.get<double>() > 1 : v.is_boolean() ? v.get<bool>() : !v.is_null();
    };
    auto refuse = [](const std::string& key, const json& v) {
        throw InputError(pointer(key), (v.is_number() ? quote(v) + " experts" : "an expert setting, " + quote(v)) +
                                           ": a Mixture-of-Experts model; MoE is not modelled yet (each layer's "
                                           "experts would be counted as one dense MLP)");
    };
    for (const char* key : counts)
        if (const auto it = config.find(key); it != config.end() && many(*it)) refuse(key, *it);
    for (auto it = config.begin(); it != config.end(); ++it) {
        std::string lower = normalized(it.key());
        if (lower.find("experts") != std::string::npos && many(it.value())) refuse(it.key(), it.value());
    }
}

bool experts_key(const std::string& key) { return normalized(key).find("experts") != std::string::npos; }

// Switches that make a block the engine does not build, in any family.
const std::pair<const char*, const char*> kRefusedSwitches[] = {
    {"is_encoder_decoder", kEncoderDecoder},
    {"add_cross_attention", "cross-attention layers (a decoder reading an encoder's output) are not modelled: their "
                            "weights and activations would be missing"},
    {"use_parallel_residual", "a parallel residual (GPT-NeoX, GPT-J: attention and the MLP read the same input and "
                              "their outputs are added) is not modelled; the engine's blocks are sequential"},
    {"parallel_attn", "attention and the MLP in parallel (Falcon: both read the same input, their outputs are "
                      "added) are not modelled; the engine's blocks are sequential"},
};

void refuse_switches(const json& config) {
    Problems problems;
    for (const auto& [key, why] : kRefusedSwitches)
        if (const json* v = find(config, key)) {
            if (!v->is_boolean()) problems.add(pointer(key), "must be true or false, got " + quote(*v));
            else if (v->get<bool>()) problems.add(pointer(key), std::string("true: ") + why);
        }
    // Heads pruned from some layers leave layers of different shapes.
    if (const json* pruned = find(config, "pruned_heads"); pruned && !(pruned->is_object() && pruned->empty()))
        problems.add(pointer("pruned_heads"),
                     "heads pruned from some layers are not modelled: every layer has the same shape");
    problems.raise();
}

bool switch_key(const std::string& key) {
    for (const auto& [k, why] : kRefusedSwitches)
        if (key == k) return true;
    return key == "pruned_heads";
}

// Keys with no effect on weights or memory: read by no family, named by none. Dtypes, dropout and
// recompute are the plan's own fields (training.*), not the checkpoint's.
const std::set<std::string>& ignored() {
    static const std::set<std::string> keys = {
        // what the file is and how it was saved
        "_name_or_path", "architectures", "model_type", "transformers_version", "torch_dtype", "dtype",
        "use_bfloat16", "tokenizer_class", "prefix",
        // token ids
        "bos_token_id", "eos_token_id", "pad_token_id", "sep_token_id", "cls_token_id", "unk_token_id",
        "mask_token_id", "decoder_start_token_id",
        // initialization and numerics: same shapes
        "initializer_range", "initializer_factor", "rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon",
        "rope_theta", "rope_scaling", "rope_parameters", "pretraining_tp", "scale_attn_weights",
        "scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn", "n_ctx",
        // dropout rates (training.dropout decides)
        "attention_dropout", "hidden_dropout", "hidden_dropout_prob", "attention_probs_dropout_prob",
        "classifier_dropout", "classifier_dropout_prob", "embd_pdrop", "attn_pdrop", "resid_pdrop",
        "summary_first_dropout",
        // fine-tuning heads and tasks, not the backbone
        "summary_type", "summary_use_proj", "summary_activation", "summary_proj_to_labels", "task_specific_params",
        "id2label", "label2id", "num_labels", "problem_type", "finetuning_task",
        // runtime switches
        "use_cache", "output_past", "gradient_checkpointing", "attn_implementation", "return_dict",
        "output_attentions", "output_hidden_states", "torchscript", "chunk_size_feed_forward",
        "tie_encoder_decoder",  // only with is_encoder_decoder, refused on its own
        // AlbertConfig keeps these from the original code; its layers do not read them.
        "down_scale_factor", "gap_size", "net_structure_type", "num_memory_blocks"};
    return keys;
}

// Numbers beyond double range were read as null: the key is refused by name, never left to a default
// (1e400 KV heads must not quietly become multi-head attention), unless nothing reads it.
void refuse_out_of_range(const std::vector<OutOfRangeNumber>& out_of_range) {
    Problems problems;
    for (const OutOfRangeNumber& n : out_of_range)
        if (!ignored().count(top_key(n.path)))
            problems.add(n.path, shorten(n.text) +
                                     " is not a finite number (beyond the range of a 64-bit float, about 1.8e308)");
    problems.raise();
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
            in.problems.add(pointer(it->second), p.message + " (read as model." + field + ")");
            continue;
        }
        const Rule* rule = nullptr;
        for (const Rule& r : f.rules)
            if (r.field && field == r.field) rule = &r;
        if (rule && !in.model.contains(field)) in.problems.add(pointer(rule->key), "missing: it gives model." + field);
        else in.problems.add("", "model." + field + ": " + p.message);
    }
}

json import(const json& config, const std::vector<OutOfRangeNumber>& out_of_range) {
    if (!config.is_object())
        throw InputError("", std::string("a config.json is one JSON object, got ") + config.type_name());
    refuse_out_of_range(out_of_range);
    refuse_experts(config);
    refuse_switches(config);
    Import in;
    const ModelType& type = model_type(config, in);
    const Family& f = family(type.family);
    in.model = f.fixed;
    for (auto it = config.begin(); it != config.end(); ++it) {
        const std::string& key = it.key();
        const Rule* rule = nullptr;
        for (const Rule& r : f.rules)
            if (key == r.key) rule = &r;
        if (rule) {
            if (it.value().is_null()) continue;  // not given: the family's default, as transformers reads it
            if (rule->field) in.set(rule->field, it.value(), key);
            else rule->read(key, it.value(), in);
        } else if (key == "quantization_config") {
            if (!it.value().is_null())
                in.notes.push_back("quantization_config: the checkpoint is stored quantized; memory here follows the "
                                   "plan's dtypes (training.dtype, param_dtype).");
        } else if (!ignored().count(key) && !switch_key(key) && !experts_key(key)) {
            in.unknown.push_back(shorten(key));
        }
    }
    if (f.finish) f.finish(config, in);
    in.problems.raise();  // what the rules refused, before the model is checked as a whole
    check_model(f, in);
    in.problems.raise();
    return {{"ok", true},         {"family", f.id},         {"label", type.label},
            {"model", in.model},  {"unknown", in.unknown},  {"notes", in.notes}};
}

}  // namespace

json import_hf_config(const json& config) { return import_hf_config(config, {}); }

json import_hf_config(const json& config, const std::vector<OutOfRangeNumber>& out_of_range) {
    try {
        return import(config, out_of_range);
    } catch (const InputError& e) {
        return error_value(e.problems());
    }
}

}  // namespace shardcalc
