#include "io/hf_config.h"

#include <cctype>
#include <iterator>
#include <map>
#include <optional>
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
    // Where the family's keys sit: "" for most configs, "/text_config" for a Llama 4 or multimodal Gemma 3 config,
    // whose language model's fields are one level down (Llama4Config.text_config, Gemma3Config.text_config).
    // Problems and listed keys say the full place.
    std::string at;
    // The model type as the importer's table spells it ("mistral", "llama", ...): families that several types
    // share read a few keys by type (a Mistral config's sliding_window; a Llama config has none).
    std::string type;

    std::string path(const std::string& key) const { return at + pointer(key); }
    std::string name(const std::string& key) const { return (at.empty() ? "" : at.substr(1) + ".") + shorten(key); }
    // Two keys that transformers reads as one setting (an attribute_map alias, such as Qwen3-MoE's num_experts and
    // num_local_experts) must agree: neither silently wins.
    void set(const char* field, json value, const std::string& key) {
        if (const auto it = source.find(field); it != source.end() && it->second != key && model[field] != value) {
            refuse(key, quote(value) + " while " + it->second + " is " + quote(model[field]) +
                            ": transformers reads both as one setting (model." + field + ")");
            return;
        }
        model[field] = std::move(value);
        source[field] = key;
    }
    void refuse(const std::string& key, std::string why) { problems.add(path(key), std::move(why)); }
    void not_understood(const std::string& key, const json& value) { unknown.push_back(name(key) + "=" + quote(value)); }
};

// A config value as a count (an integer from 0 to 2^40), or nothing: a value that is not one is left to the
// scenario's own reader, which names it at its key (check_model).
std::optional<int64_t> count_of(const json& value) {
    constexpr int64_t kMax = int64_t{1} << 40;
    if (value.is_number_unsigned()) {
        const uint64_t n = value.get<uint64_t>();
        return n <= static_cast<uint64_t>(kMax) ? std::optional<int64_t>(static_cast<int64_t>(n)) : std::nullopt;
    }
    if (!value.is_number_integer()) return std::nullopt;
    const int64_t n = value.get<int64_t>();
    return n >= 0 && n <= kMax ? std::optional<int64_t>(n) : std::nullopt;
}

// A model field as read so far (from the config or the family's defaults), when it is a count.
std::optional<int64_t> field_count(const Import& in, const char* field) {
    const auto it = in.model.find(field);
    return it == in.model.end() ? std::nullopt : count_of(*it);
}

// The config key a model field came from, or `fallback` when the family's default gave it.
std::string key_of(const Import& in, const char* field, const char* fallback) {
    const auto it = in.source.find(field);
    return it == in.source.end() ? fallback : it->second;
}

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

// A key the family's code reads that changes no weight and nothing a layer keeps for backward (routing
// normalization, attention temperature): understood, and nothing to set.
void same_weights(const std::string&, const json&, Import&) {}

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

// Meta's Llama 4 configs write for_llm_compressor: false; transformers' Llama4TextConfig has no such field
// (configuration_llama4.py), so false, the value every published config has, is read as saying nothing, and
// any other value is listed as not understood.
void read_false(const std::string& key, const json& value, Import& in) {
    if (value != false) in.not_understood(key, value);
}

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

// Keys spelled the same by Llama, Mistral, Gemma, BERT and ALBERT configs. `intermediate`: the model field
// intermediate_size gives (Llama 4's is its experts' width).
std::vector<Rule> common(std::vector<Rule> more, const char* intermediate = "ffn_hidden") {
    std::vector<Rule> rules = {
        {"num_hidden_layers", "layers", nullptr},
        {"hidden_size", "hidden", nullptr},
        {"num_attention_heads", "heads", nullptr},
        {"intermediate_size", intermediate, nullptr},
        {"vocab_size", "vocab", nullptr},
        {"max_position_embeddings", "max_positions", nullptr},
        {"tie_word_embeddings", "tied_embeddings", nullptr},
    };
    rules.insert(rules.end(), more.begin(), more.end());
    return rules;
}

// Keys spelled the GPT-2 way (GPT2Config, GPTJConfig); activation_function is the hidden activation.
std::vector<Rule> gpt2_keys(std::vector<Rule> more) {
    std::vector<Rule> rules = {
        {"n_layer", "layers", nullptr},
        {"n_embd", "hidden", nullptr},
        {"n_head", "heads", nullptr},
        {"n_inner", "ffn_hidden", nullptr},
        {"vocab_size", "vocab", nullptr},
        {"n_positions", "max_positions", nullptr},
        {"tie_word_embeddings", "tied_embeddings", nullptr},
        {"activation_function", nullptr, read_plain_act},
    };
    rules.insert(rules.end(), more.begin(), more.end());
    return rules;
}

// A boolean key as transformers reads it: the file's value, else the config class's default; a value that is
// not true or false is refused at its key (and the default read).
bool flag(const json& config, const char* key, bool fallback, Import& in) {
    const json* v = find(config, key);
    return v && must_be_boolean(key, *v, in) ? v->get<bool>() : fallback;
}

// attention_bias biases q, k, v and o (model.bias); the MLP's own biases are `mlp` (model.mlp_bias, written where
// the two differ): Llama's mlp_bias; none in the MLPs and experts of Gemma, Qwen3 and Llama 4.
void read_biases(const json& config, bool mlp, Import& in) {
    const bool attention = flag(config, "attention_bias", false, in);
    if (attention) in.set("bias", true, "attention_bias");
    if (attention != mlp) in.set("mlp_bias", mlp, mlp ? "mlp_bias" : "attention_bias");
}

// ---- Sliding windows: model.sliding_window and model.global_every ------------------------------------------
// The engine's local layers attend to the last sliding_window tokens; with global_every = n the layers i with
// (i + 1) % n == 0 attend globally (the last of each run of n), with 0 every layer is local (engine/graph/build.cpp,
// is_local_layer). Each family's code says which of its layers attend through the window; that list is read as
// the engine's pattern when it is one, and refused at the key that made it otherwise.

// One flag per layer: true where the layer attends through the window.
using LocalLayers = std::vector<bool>;

// The layer count when it is one the scenario can hold (model.layers: 1 to 65536); otherwise nothing, and the
// count's own problem is named at its key.
std::optional<int64_t> layer_count(const Import& in) {
    const auto layers = field_count(in, "layers");
    return layers && *layers >= 1 && *layers <= 65536 ? layers : std::nullopt;
}

// transformers' layer_types (one "sliding_attention" or "full_attention" per layer: Qwen2Config, GptOssConfig,
// Gemma2Config, Gemma3TextConfig)
// as local flags, or nothing when the list is refused at its key.
std::optional<LocalLayers> read_layer_types(const json& kinds, int64_t layers, Import& in) {
    if (!kinds.is_array() || kinds.size() != static_cast<size_t>(layers)) {
        in.refuse("layer_types", "must list one attention kind per layer (" + std::to_string(layers) +
                                     " layers), got " + quote(kinds));
        return std::nullopt;
    }
    LocalLayers local;
    for (const json& kind : kinds) {
        if (kind != "sliding_attention" && kind != "full_attention") {
            in.refuse("layer_types", quote(kind) + ": only sliding_attention and full_attention layers are read");
            return std::nullopt;
        }
        local.push_back(kind == "sliding_attention");
    }
    return local;
}

// The window read from `window_key` on these local layers: model.sliding_window, and model.global_every where
// some layers are global. No local layer is no window. A placement the engine's pattern cannot hold is refused
// at `pattern_key`, the message starting with `what` (how the config placed them).
void place_window(const json& window, const std::string& window_key, const LocalLayers& local,
                  const std::string& pattern_key, const std::string& what, Import& in) {
    size_t first_global = local.size();
    bool any_local = false;
    for (size_t i = 0; i < local.size(); ++i) {
        if (local[i]) any_local = true;
        else if (first_global == local.size()) first_global = i;
    }
    if (!any_local) return;
    const size_t every = first_global == local.size() ? 0 : first_global + 1;  // 0: every layer local
    for (size_t i = 0; every > 0 && i < local.size(); ++i)
        if (local[i] != ((i + 1) % every != 0))
            return in.refuse(pattern_key,
                             (what.empty() ? "" : what + ": ") +
                                 "local (sliding-window) and global layers in an order the engine cannot place: it "
                                 "makes every layer local (model.global_every 0) or the layers i with (i + 1) % n == 0 "
                                 "global (model.global_every n); the first global layer here is layer " +
                                 std::to_string(first_global) + ", so n would be " + std::to_string(every) +
                                 ", but layer " + std::to_string(i) + " is " + (local[i] ? "local" : "global"));
    in.set("sliding_window", window, window_key);
    if (every > 0) in.set("global_every", static_cast<int64_t>(every), pattern_key);
}

// The window of a config class that lists layer_types and, when a config leaves them out, derives them from a
// period: the layers i with (i + 1) % period != 0 attend through the window, the others fully. GptOssConfig and
// Gemma2Config use 2 (sliding, full, sliding, ...), Gemma3TextConfig its sliding_window_pattern (6: five local
// layers, then a global one). sliding_window defaults to `default_window` and null leaves every layer full.
// Such a pattern is always one the engine can place (global_every = period, or 0 when period > layers); a
// listed layer_types is checked by place_window. `period_key` names the key that gave the period.
void read_periodic_window(const json& config, const json& default_window, int64_t period,
                          const std::string& period_key, Import& in) {
    const auto given = config.find("sliding_window");
    const json window = given == config.end() ? default_window : *given;
    const auto layers = layer_count(in);
    if (window.is_null() || !layers) return;
    if (const json* kinds = find(config, "layer_types")) {
        if (const auto local = read_layer_types(*kinds, *layers, in))
            place_window(window, "sliding_window", *local, "layer_types", "", in);
        return;
    }
    LocalLayers local;
    for (int64_t i = 0; i < *layers; ++i) local.push_back((i + 1) % period != 0);
    place_window(window, "sliding_window", local, period_key, "", in);
}

// Every layer local, as Mistral and Mixtral attend: model.sliding_window alone (model.global_every stays 0).
void window_everywhere(const json& window, const std::string& key, Import& in) {
    if (!window.is_null()) in.set("sliding_window", window, key);
}

// The Qwen families' window (Qwen2Config, Qwen3Config, Qwen2MoeConfig, Qwen3MoeConfig): sliding_window is set
// to None unless use_sliding_window is true, so only then is there a window; sliding_window defaults to 4096.
// Which layers use it: layer_types when the config lists them, else the config class's rule from
// max_window_layers, given by the family: `first_full` (default max_window_layers) with the layers from
// max_window_layers on local (configuration_qwen2.py / configuration_qwen3.py: "sliding_attention" if
// i >= max_window_layers), or, with `alternate`, Qwen2MoeConfig's own rule: the layers i with (i + 1) % 2 != 0
// and i < max_window_layers local (configuration_qwen2_moe.py).
void read_qwen_window(const json& config, int64_t first_full, bool alternate, Import& in) {
    const json* use = find(config, "use_sliding_window");
    if (!use || !must_be_boolean("use_sliding_window", *use, in) || !use->get<bool>()) return;
    const auto given = config.find("sliding_window");
    const json window = given == config.end() ? json(4096) : *given;
    const auto layers = layer_count(in);
    if (window.is_null() || !layers) return;
    if (const json* kinds = find(config, "layer_types")) {
        if (const auto local = read_layer_types(*kinds, *layers, in))
            place_window(window, "sliding_window", *local, "layer_types", "", in);
        return;
    }
    const json* listed = find(config, "max_window_layers");
    const auto max_window = listed ? count_of(*listed) : std::optional<int64_t>(first_full);
    if (!max_window) return in.refuse("max_window_layers", "must be a layer count, got " + quote(*listed));
    LocalLayers local;
    for (int64_t i = 0; i < *layers; ++i)
        local.push_back(alternate ? (i + 1) % 2 != 0 && i < *max_window : i >= *max_window);
    const std::string key = listed ? "max_window_layers" : "use_sliding_window";
    const std::string what = "max_window_layers " + std::to_string(*max_window) + (listed ? "" : " (the default)") +
                             (alternate ? ": every other layer below it attends through the window"
                                        : ": the layers from it on attend through the window, those before it fully");
    place_window(window, "sliding_window", local, key, what, in);
}

// A family whose MLP (or experts) is always biased and whose attention_bias defaults to true (GPT-NeoX, gpt-oss):
// false takes the biases of attention alone (model.bias false, model.mlp_bias true).
void read_attention_bias_beside_biased_mlp(const json& config, Import& in) {
    if (flag(config, "attention_bias", true, in)) return;
    in.set("bias", false, "attention_bias");
    in.set("mlp_bias", true, "attention_bias");
}

// Llama's attention_bias biases q, k, v and o; mlp_bias the MLP's three matrices.
void finish_llama(const json& config, Import& in) {
    read_biases(config, flag(config, "mlp_bias", false, in), in);
    if (in.type == "mistral") {
        // MistralConfig: sliding_window defaults to 4096 and null turns it off; MistralAttention passes it in every
        // layer (transformers configuration_mistral.py, modeling_mistral.py): every layer local.
        const auto given = config.find("sliding_window");
        window_everywhere(given == config.end() ? json(4096) : *given, "sliding_window", in);
    } else if (find(config, "sliding_window")) {
        in.unknown.push_back(in.name("sliding_window"));  // LlamaConfig has no window; LlamaAttention reads none
    }
}

// Qwen2 biases q, k and v and nothing else (transformers modeling_qwen2.py); its window as Qwen2Config places it.
void finish_qwen2(const json& config, Import& in) { read_qwen_window(config, 28, false, in); }

// Gemma never biases its MLP.
void finish_gemma(const json& config, Import& in) { read_biases(config, false, in); }

// A soft-cap as transformers reads it: the file's value, the config class's default when the file leaves the key
// out, and null for "no cap". With the words for a note: "key 30.0" or "key 30.0 (the default)".
std::optional<std::string> softcap(const json& config, const char* key, const json& fallback, Import& in) {
    const auto given = config.find(key);
    const json cap = given == config.end() ? fallback : *given;
    if (cap.is_null()) return std::nullopt;
    if (!cap.is_number()) {
        in.not_understood(key, cap);
        return std::nullopt;
    }
    return in.name(key) + " " + quote(cap) + (given == config.end() ? " (the default)" : "");
}

// What Gemma 2 and Gemma 3 read alike (transformers modeling_gemma2.py, modeling_gemma3.py, whose Gemma3Attention
// and Gemma3ForCausalLM build on Gemma 2's): Gemma's attention biases (attention_bias biases q, k, v and o, the
// MLP never has one), the causal switch and the soft-capped output logits, whose default is the config class's
// (Gemma2Config: 30.0; Gemma3TextConfig: None).
void finish_gemma_sandwich(const json& config, const json& final_cap, Import& in) {
    finish_gemma(config, in);
    // Gemma2Config and Gemma3TextConfig carry use_bidirectional_attention (EmbeddingGemma sets it): the attention's
    // `is_causal = not config.use_bidirectional_attention`, and Gemma3TextConfig then sets the window to
    // sliding_window // 2 + 1. Same weights, but not the causal decoder the engine builds.
    if (const json* both = find(config, "use_bidirectional_attention"))
        if (must_be_boolean("use_bidirectional_attention", *both, in) && both->get<bool>())
            in.refuse("use_bidirectional_attention",
                      "true: every token attends both ways (EmbeddingGemma); the engine's decoder attends causally, "
                      "with causal windows and a causal-LM loss, so it would count other attention work and loss");
    // Gemma2ForCausalLM (and Gemma3ForCausalLM, its subclass): `logits = cap * tanh(logits / cap)` when
    // final_logit_softcapping is not None (model.logit_softcap). No weights.
    if (const auto words = softcap(config, "final_logit_softcapping", final_cap, in)) {
        const auto given = config.find("final_logit_softcapping");
        in.model["logit_softcap"] = given == config.end() ? final_cap : *given;
        if (given == config.end()) in.notes.push_back(*words + ": the config class's default, read as model.logit_softcap");
    }
}

// Gemma 2 (transformers modeling_gemma2.py, configuration_gemma2.py): Gemma's layout with four norms per layer
// (Gemma2DecoderLayer: input_layernorm, post_attention_layernorm on the attention's output,
// pre_feedforward_layernorm, post_feedforward_layernorm on the MLP's output: model.post_norms), soft-capped
// attention scores, and a window on every other layer.
void finish_gemma2(const json& config, Import& in) {
    finish_gemma_sandwich(config, json(30.0), in);
    // Gemma2Attention passes softcap=config.attn_logit_softcapping (Gemma2Config's default and Google's files:
    // 50.0) to the attention: `scores = cap * tanh(scores / cap)` before the softmax. No weights; where it is
    // computed decides memory.
    if (const auto cap = softcap(config, "attn_logit_softcapping", json(50.0), in))
        in.notes.push_back(*cap + ": attention scores are soft-capped (cap * tanh(scores / cap)) before the softmax: "
                           "no weights. FlashAttention 2.6 and later caps inside its kernel (training.attention "
                           "flash); eager attention also keeps the tanh's output, a second score matrix per layer, "
                           "which the engine does not count; PyTorch's SDPA takes no cap.");
    // Gemma2Attention: sliding_window = config.sliding_window on the layers layer_types calls sliding_attention;
    // Gemma2Config defaults the window to 4096 and layer_types to `"sliding_attention" if bool((i + 1) % 2)`, as
    // the earlier modeling_gemma2.py wrote `config.sliding_window if not bool(layer_idx % 2) else None`: even
    // layers local, odd layers global (model.global_every 2).
    read_periodic_window(config, json(4096), 2, "sliding_window", in);
    // Google's Gemma 2 27B file also writes sliding_window_size, which Gemma2Config keeps as a stray attribute and
    // modeling_gemma2.py never reads: understood when it repeats the window, listed when it does not.
    if (const json* size = find(config, "sliding_window_size"))
        if (!in.model.contains("sliding_window") || in.model.at("sliding_window") != *size)
            in.not_understood("sliding_window_size", *size);
}

// Gemma 3's text model (transformers modeling_gemma3.py, configuration_gemma3.py): Gemma 2's four norms, plus
// Gemma3Attention's q_norm and k_norm, Gemma3RMSNorm(dim=head_dim) over each head's queries and keys
// (model.qk_norm, 2 * head_dim weights per layer). Gemma3Attention stores attn_logit_softcapping but passes no
// cap to the attention (Google's files say null). Which layers attend through the window: layer_types when
// listed, else Gemma3TextConfig's rule `"sliding_attention" if bool((i + 1) % sliding_window_pattern) else
// "full_attention"` with the pattern `kwargs.get("sliding_window_pattern", 6)` (the earlier modeling_gemma3.py:
// `is_sliding = bool((layer_idx + 1) % config.sliding_window_pattern)`): five local layers, then a global one,
// model.global_every 6.
void finish_gemma3(const json& config, Import& in) {
    finish_gemma_sandwich(config, json(), in);
    const bool listed = find(config, "layer_types") != nullptr;
    int64_t period = 6;
    if (const json* pattern = find(config, "sliding_window_pattern"); pattern && !listed) {
        const auto n = count_of(*pattern);
        if (!n || *n == 0)
            return in.refuse("sliding_window_pattern", "must be a layer count of at least 1 (the layers i with (i + 1) "
                                                       "% pattern == 0 attend globally), got " + quote(*pattern));
        period = *n;
    }
    read_periodic_window(config, json(4096), period, "sliding_window_pattern", in);
    // The pattern keys that did not place the layers are copies: sliding_window_pattern beside layer_types, and
    // _sliding_window_pattern, the attribute newer transformers write into the file beside layer_types, by which
    // it places no layer (Gemma3TextConfig reads kwargs.get("sliding_window_pattern", 6)). Each is understood when
    // it agrees with the layers as read, and listed when it does not.
    std::optional<int64_t> used = listed ? field_count(in, "global_every") : std::optional<int64_t>(period);
    for (const char* key : {"sliding_window_pattern", "_sliding_window_pattern"}) {
        if (std::string(key) == "sliding_window_pattern" && !listed) continue;  // it placed them
        if (const json* copy = find(config, key); copy && used && count_of(*copy) != used) in.not_understood(key, *copy);
    }
}

// ---- Mixture-of-Experts families ------------------------------------------------------------------------
// Each reads its experts into model.experts / experts_per_token / expert_ffn_hidden (and shared_experts,
// first_dense_layers, moe_every where the family has them). The routers of Mixtral, Qwen-MoE and Llama 4 have no
// bias and their experts none either; DeepSeek-V3's router has a bias per expert (model.router_bias) and
// gpt-oss biases its router and its experts (model.router_bias, model.bias): the transformers modeling files
// cited at each family. Keys the families' config classes default are their defaults here too (the family's
// fixed fields): the engine's own default for model.experts is 0, a dense model, so a Mixtral config without
// num_local_experts must not read as one.

// Qwen's code makes a layer sparse only `if config.num_experts > 0` (modeling_qwen2_moe.py,
// modeling_qwen3_moe.py), so a config with no experts is a dense model: the fields that describe experts go,
// and every layer is the dense MLP of intermediate_size.
void drop_experts(Import& in) {
    for (const char* field : {"experts", "experts_per_token", "expert_ffn_hidden", "shared_experts",
                              "shared_expert_ffn_hidden", "first_dense_layers", "moe_every", "router_bias"}) {
        in.model.erase(field);
        in.source.erase(field);
    }
}

// Mixtral and Llama 4 route every MoE layer's tokens among their experts; with none the code has nothing to
// route to, so 0 is refused rather than read as a dense model.
void require_experts(const char* fallback, const char* family, Import& in) {
    if (field_count(in, "experts") == 0)
        in.refuse(key_of(in, "experts", fallback),
                  std::string("0 experts: a ") + family + " MoE layer routes each token among its experts, so it needs "
                  "at least one");
}

// Qwen-MoE's mlp_only_layers makes the listed layers dense (Qwen2MoeDecoderLayer / Qwen3MoeDecoderLayer:
// `layer_idx not in config.mlp_only_layers`). The engine's dense layers are the first model.first_dense_layers
// and those between every model.moe_every-th, so only the published empty list is read.
void read_mlp_only_layers(const json& config, Import& in) {
    const json* listed = find(config, "mlp_only_layers");
    if (!listed || (listed->is_array() && listed->empty())) return;
    in.refuse("mlp_only_layers", quote(*listed) + ": dense layers chosen one by one are not modelled: the engine's "
                                                  "dense layers are the first model.first_dense_layers and those "
                                                  "between every model.moe_every-th; only [] is read");
}

// Mixtral (transformers modeling_mixtral.py): Mistral's attention (no biases, q/k/v/o bias=False) and in every
// layer a MixtralSparseMoeBlock: the router `gate` Linear(hidden, num_local_experts, bias=False) and
// num_local_experts SwiGLU experts (w1, w3 gate/up and w2 down, no biases) of intermediate_size each. So
// intermediate_size is one expert's width (model.expert_ffn_hidden) as well as model.ffn_hidden.
void finish_mixtral(const json& config, Import& in) {
    if (const json* width = find(config, "intermediate_size")) in.set("expert_ffn_hidden", *width, "intermediate_size");
    require_experts("num_local_experts", "Mixtral", in);
    // MixtralConfig: sliding_window defaults to None (published configs say null); when set, MixtralAttention
    // passes it in every layer, as Mistral's does (modeling_mixtral.py).
    if (const json* window = find(config, "sliding_window")) window_everywhere(*window, "sliding_window", in);
}

// Qwen3 (transformers modeling_qwen3.py): Llama's layout plus q_norm and k_norm, RMSNorms of head_dim weights
// over each head's queries and keys (model.qk_norm); attention_bias biases q, k, v and o, and the MLP never
// has one.
void read_qwen3_bias(const json& config, Import& in) { read_biases(config, false, in); }
// Its window as Qwen3Config places it (max_window_layers defaults to 28).
void finish_qwen3(const json& config, Import& in) {
    read_qwen3_bias(config, in);
    read_qwen_window(config, 28, false, in);
}

// Qwen3-MoE (transformers modeling_qwen3_moe.py): Qwen3's attention with q_norm/k_norm; layer i is a
// Qwen3MoeSparseMoeBlock iff `(i + 1) % decoder_sparse_step == 0` (and not in mlp_only_layers), which is the
// engine's model.moe_every with no leading dense layers; the block is the router `gate` Linear(hidden,
// num_experts, bias=False) and num_experts SwiGLU experts of moe_intermediate_size, no shared expert. Dense
// layers are a Qwen3MoeMLP of intermediate_size (model.ffn_hidden). norm_topk_prob renormalizes the top-k
// routing weights: no weights, nothing kept for backward that the engine counts. The window: Qwen3MoeAttention
// passes config.sliding_window in every layer (Qwen3MoeConfig has no max_window_layers), while the earlier
// Qwen3MoeConfig derived layer_types from max_window_layers as Qwen3Config does: a config that gives either is
// read by it, one that gives neither has every layer local (max_window_layers 0).
void finish_qwen3_moe(const json& config, Import& in) {
    read_qwen3_bias(config, in);
    read_qwen_window(config, 0, false, in);
    read_mlp_only_layers(config, in);
    if (field_count(in, "experts") == 0) drop_experts(in);
}

// Qwen2-MoE (transformers modeling_qwen2_moe.py): Qwen2's attention (biases on q, k and v, qkv_bias), and
// Qwen3-MoE's layer pattern and experts, plus in every sparse block one shared expert, a Qwen2MoeMLP of
// shared_expert_intermediate_size (model.shared_experts 1, shared_expert_ffn_hidden), whose output is scaled
// by sigmoid(shared_expert_gate(x)): a Linear(hidden, 1, bias=False) in every MoE layer (model.shared_expert_gate).
void finish_qwen2_moe(const json& config, Import& in) {
    read_qwen_window(config, 28, true, in);
    read_mlp_only_layers(config, in);
    if (field_count(in, "experts") == 0) return drop_experts(in);
    in.model["shared_expert_gate"] = true;
}

// Llama 4's moe_layers (Llama4TextConfig: the indices of the MoE layers; without it, interleave_moe_layer_step
// gives range(step - 1, layers, step), i.e. layer i is MoE iff (i + 1) % step == 0, the engine's moe_every).
// A list is read when it is such a pattern after some leading dense layers: n-th MoE layers from
// first_dense_layers + moe_every - 1 to the last layer. An empty list makes every layer dense.
void place_llama4_moe_layers(const json& config, Import& in) {
    const json* listed = find(config, "moe_layers");
    if (!listed) {
        if (const json* step = find(config, "interleave_moe_layer_step"))
            in.set("moe_every", *step, "interleave_moe_layer_step");
        return;
    }
    const auto layers = field_count(in, "layers");
    if (!layers || *layers == 0) return;  // the layer count's own problem is named at its key
    const std::string wrong = "must list MoE layer indices from 0 to " + std::to_string(*layers - 1) +
                              " in increasing order, got " + quote(*listed);
    if (!listed->is_array()) return in.refuse("moe_layers", wrong);
    std::vector<int64_t> moe;
    for (const json& v : *listed) {
        const auto i = count_of(v);
        if (!i || *i >= *layers || (!moe.empty() && *i <= moe.back())) return in.refuse("moe_layers", wrong);
        moe.push_back(*i);
    }
    if (moe.empty()) return drop_experts(in);  // every layer a Llama4TextMLP of intermediate_size_mlp
    const int64_t every = moe.size() > 1 ? moe[1] - moe[0] : moe[0] + 1;
    const int64_t first = moe[0] - (every - 1);
    bool fits = first >= 0 && moe.back() + every >= *layers;  // nothing after the last listed one
    for (size_t k = 1; k < moe.size(); ++k) fits = fits && moe[k] - moe[k - 1] == every;
    if (!fits)
        return in.refuse("moe_layers", quote(*listed) + ": the engine's MoE layers are every model.moe_every-th "
                                                        "after the first model.first_dense_layers, to the last "
                                                        "layer; these are not");
    if (every > 1) in.set("moe_every", every, "moe_layers");
    if (first > 0) in.set("first_dense_layers", first, "moe_layers");
}

// Llama 4's text model (transformers modeling_llama4.py, Llama4TextConfig): Llama's attention (attention_bias
// biases q, k, v and o; the MLPs and experts never have one); a MoE layer is a Llama4TextMoe: the router
// Llama4Router = Linear(hidden, num_local_experts, bias=False), Llama4TextExperts (gate_up_proj [E, hidden,
// 2 * intermediate_size] and down_proj [E, intermediate_size, hidden], no biases) and one shared expert, a
// Llama4TextMLP of intermediate_size; a dense layer is a Llama4TextMLP of intermediate_size_mlp. So
// intermediate_size is the expert and the shared-expert width, intermediate_size_mlp model.ffn_hidden.
void finish_llama4(const json& config, Import& in) {
    read_biases(config, false, in);
    if (const json* width = find(config, "intermediate_size"))
        in.set("shared_expert_ffn_hidden", *width, "intermediate_size");
    place_llama4_moe_layers(config, in);
    if (in.model.contains("experts")) require_experts("num_local_experts", "Llama 4", in);
    // Llama4TextAttention: `if config.use_qk_norm and self.use_rope: self.qk_norm = Llama4TextL2Norm(...)`,
    // a norm with no weight, unlike Qwen3's q_norm/k_norm (model.qk_norm stays false).
    if (const json* qk = find(config, "use_qk_norm"))
        if (must_be_boolean("use_qk_norm", *qk, in) && qk->get<bool>())
            in.notes.push_back(in.name("use_qk_norm") + " true: Llama 4 scales q and k by their L2 norm, a norm "
                               "without weights (Llama4TextL2Norm), so there is nothing to count; its few "
                               "elementwise operations are not timed.");
    // The RoPE layers attend within chunks (create_chunked_causal_mask): which keys a query sees, not weights.
    if (const json* chunk = find(config, "attention_chunk_size")) {
        if (!chunk->is_number()) in.not_understood("attention_chunk_size", *chunk);
        else
            in.notes.push_back(in.name("attention_chunk_size") + " " + quote(*chunk) + ": the RoPE layers attend "
                               "within chunks of " + quote(*chunk) + " tokens; attention is counted over the whole "
                               "sequence, as without chunks: exact up to seq_len " + quote(*chunk) + ", beyond it "
                               "attention time is overstated (weights and memory are the same).");
    }
    // no_rope_layers: 0 marks a layer without rotary embeddings (NoPE); RoPE has no weights either way.
    if (const json* rope = find(config, "no_rope_layers"); rope && rope->is_array()) {
        int64_t nope = 0;
        for (const json& v : *rope) nope += v == 0 ? 1 : 0;
        if (nope > 0)
            in.notes.push_back(in.name("no_rope_layers") + ": " + std::to_string(nope) + " layers use no rotary "
                               "embedding (NoPE); rotary embeddings have no weights, so these layers count like the "
                               "others.");
    }
}

// gpt-oss (transformers modeling_gpt_oss.py, configuration_gpt_oss.py): every layer is a GptOssMLP, the router
// GptOssTopKRouter (weight [num_local_experts, hidden] and a bias [num_local_experts]: model.router_bias) and
// GptOssExperts (gate_up_proj [E, hidden, 2 * intermediate_size] with gate_up_proj_bias [E, 2 *
// intermediate_size], down_proj [E, intermediate_size, hidden] with down_proj_bias [E, hidden]); GptOssAttention
// biases q, k, v and o by attention_bias (default true) and keeps sinks, one logit per head
// (model.attention_sinks). The engine's model.bias is exactly these: the attention's four and both expert
// projections'. So intermediate_size is one expert's width (model.expert_ffn_hidden) and model.ffn_hidden.
void finish_gpt_oss(const json& config, Import& in) {
    // GptOssExperts keep gate_up_proj_bias and down_proj_bias whatever attention_bias says.
    read_attention_bias_beside_biased_mlp(config, in);
    if (const json* width = find(config, "intermediate_size")) in.set("expert_ffn_hidden", *width, "intermediate_size");
    // OpenAI's configs also write experts_per_token (their own code's name, which GptOssConfig does not read):
    // it stands in for num_experts_per_tok only when that is missing, and must not disagree with it.
    const json* top_k = find(config, "num_experts_per_tok");
    if (const json* openai = find(config, "experts_per_token")) {
        if (!top_k) in.set("experts_per_token", *openai, "experts_per_token");
        else if (*openai != *top_k)
            in.refuse("experts_per_token", quote(*openai) + " while num_experts_per_tok is " + quote(*top_k) +
                                               ": the two disagree about how many experts each token uses; give "
                                               "the same value in both");
    }
    require_experts("num_local_experts", "gpt-oss", in);
    // GptOssAttention: sliding_window = config.sliding_window on the layers layer_types calls sliding_attention;
    // GptOssConfig defaults the window to 128 and layer_types to sliding on even i, full on odd i: alternating,
    // sliding first, model.global_every 2. A null window leaves every layer full.
    read_periodic_window(config, json(128), 2, "sliding_window", in);
}

// DeepSeek-V2 and V3 (transformers modeling_deepseek_v2.py, modeling_deepseek_v3.py; DeepSeek's own
// modeling_deepseek.py on the Hub): Multi-head Latent Attention. Queries go through q_a_proj [q_lora_rank,
// hidden], q_a_layernorm and q_b_proj [heads * (qk_nope_head_dim + qk_rope_head_dim), q_lora_rank], or one q_proj
// when q_lora_rank is null (DeepSeek-V2-Lite: model.q_lora_rank 0); keys and values through kv_a_proj_with_mqa
// [kv_lora_rank + qk_rope_head_dim, hidden], kv_a_layernorm and kv_b_proj [heads * (qk_nope_head_dim +
// v_head_dim), kv_lora_rank]; o_proj [hidden, heads * v_head_dim]. That is the engine's MLA with head_dim =
// qk_nope_head_dim. The MLP of layer i is DeepseekV2Moe / DeepseekV3MoE from first_k_dense_replace on (a router
// `gate` [n_routed_experts, hidden], n_routed_experts SwiGLU experts of moe_intermediate_size and a shared
// DeepseekMLP of n_shared_experts * moe_intermediate_size: model.shared_expert_ffn_hidden's default), and a
// DeepseekMLP of intermediate_size before it. DeepSeek-V3's router adds e_score_correction_bias [n_routed_experts]
// for its noaux_tc routing (model.router_bias; DeepSeek's code makes it a parameter, transformers'
// DeepseekV3TopkRouter a buffer); DeepSeek-V2's gate has no bias (topk_method greedy or group_limited_greedy).
void finish_deepseek(const json& config, bool v3, Import& in) {
    // attention_bias biases q_a_proj, kv_a_proj_with_mqa and o_proj (not q_b_proj, kv_b_proj nor the MLPs).
    if (const json* attention = find(config, "attention_bias"))
        if (must_be_boolean("attention_bias", *attention, in) && attention->get<bool>())
            in.refuse("attention_bias", "true biases q_a_proj, kv_a_proj_with_mqa and o_proj alone; the engine biases "
                                        "every linear layer or none, so it would count a different model");
    // DeepseekV2Config is a LlamaConfig: mlp_bias biases the dense and shared MLPs, never the routed experts
    // (DeepseekV3MLP has bias=False whatever the config says).
    if (const json* mlp = find(config, "mlp_bias"); mlp && !v3)
        if (must_be_boolean("mlp_bias", *mlp, in) && mlp->get<bool>())
            in.refuse("mlp_bias", "true biases the dense and shared-expert MLPs but not the routed experts; the "
                                  "engine biases every linear layer or none, so it would count a different model");
    // q_lora_rank null: queries projected directly (`if self.q_lora_rank is None: self.q_proj = ...`).
    if (const auto rank = config.find("q_lora_rank"); rank != config.end() && rank->is_null())
        in.set("q_lora_rank", 0, "q_lora_rank");
    if (field_count(in, "kv_lora_rank") == 0)
        in.refuse(key_of(in, "kv_lora_rank", "kv_lora_rank"),
                  "0: DeepSeek's attention always reads keys and values through the latent (kv_a_proj_with_mqa, "
                  "kv_b_proj), so it needs a rank of at least 1");
    // DeepSeek's modeling_deepseek.py makes layer i MoE iff `i >= first_k_dense_replace and i % moe_layer_freq
    // == 0`; transformers' DeepseekV2/V3DecoderLayer checks only `layer_idx >= config.first_k_dense_replace`. The
    // engine's rule, (i - first_dense_layers + 1) % moe_every == 0 from first_dense_layers on, is both only for 1.
    if (const json* freq = find(config, "moe_layer_freq"); freq && *freq != 1)
        in.refuse("moe_layer_freq", quote(*freq) + ": DeepSeek's code then makes only the layers i with i % "
                                    "moe_layer_freq == 0 MoE while transformers' makes every layer from "
                                    "first_k_dense_replace on MoE; the two build different models, so only 1 is read");
    // n_shared_experts null: no shared expert (`if config.n_shared_experts is not None`, modeling_deepseek.py and
    // DeepseekV2Moe); n_routed_experts null: every layer a dense DeepseekMLP (modeling_deepseek.py).
    if (const auto shared = config.find("n_shared_experts"); shared != config.end() && shared->is_null())
        in.set("shared_experts", 0, "n_shared_experts");
    if (const auto routed = config.find("n_routed_experts"); routed != config.end() && routed->is_null())
        drop_experts(in);
    else
        require_experts("n_routed_experts", v3 ? "DeepSeek-V3" : "DeepSeek-V2", in);
    // The routing decides whether the router keeps a bias per expert.
    if (const json* method = find(config, "topk_method")) {
        const bool known = v3 ? *method == "noaux_tc" : *method == "greedy" || *method == "group_limited_greedy";
        if (!known)
            in.refuse("topk_method", quote(*method) + std::string(": the importer reads DeepSeek-") +
                                         (v3 ? "V3's noaux_tc routing (sigmoid scores and the router's "
                                               "e_score_correction_bias, model.router_bias)"
                                             : "V2's greedy and group_limited_greedy routing (a router without bias)") +
                                         "; another method may keep a different router");
    }
}

// DeepSeek-V3's num_nextn_predict_layers: its multi-token prediction modules, which transformers'
// DeepseekV3ForCausalLM does not build (modeling_deepseek_v3.py builds num_hidden_layers layers and skips the
// checkpoint's layers from there on). The import builds what the model class builds, and says how to add them.
void read_nextn(const std::string& key, const json& value, Import& in) {
    const auto n = count_of(value);
    if (!n) return in.refuse(key, quote(value) + ": a count of multi-token prediction modules is expected");
    if (*n > 0)
        in.notes.push_back(key + " " + std::to_string(*n) + ": DeepSeek's multi-token prediction module, which "
                           "transformers' DeepseekV3ForCausalLM does not build, is not imported; add model.mtp_layers " +
                           std::to_string(*n) + " to count and train it as DeepSeek does.");
}
void finish_deepseek_v2(const json& config, Import& in) { finish_deepseek(config, false, in); }
void finish_deepseek_v3(const json& config, Import& in) { finish_deepseek(config, true, in); }

// GPT2Config: n_inner null means 4 * n_embd.
void finish_gpt2(const json& config, Import& in) {
    const json* embd = find(config, "n_embd");
    if (!find(config, "n_inner") && embd && embd->is_number_integer() && *embd > 0 && *embd < (int64_t{1} << 40))
        in.set("ffn_hidden", 4 * embd->get<int64_t>(), "n_embd");
}

// Falcon (transformers modeling_falcon.py, configuration_falcon.py). FalconAttention fuses q, k and v into one
// query_key_value (model.fused_qkv) of (heads + 2 * num_kv_heads) * head_dim outputs under
// new_decoder_architecture, hidden_size + 2 * head_dim under multi_query (one K/V head) and 3 * hidden_size
// otherwise (a K and V per head); dense, dense_h_to_4h and dense_4h_to_h, like query_key_value, carry a bias
// iff config.bias: every linear layer or none, as model.bias counts them (the lm_head never has one). The MLP is
// dense_h_to_4h [ffn_hidden_size, hidden] and dense_4h_to_h with get_activation(config.activation). Norms are
// LayerNorms with bias; FalconModel adds ln_f and no position table (rotary unless alibi; ALiBi has no weights).
// FalconDecoderLayer: without new_decoder_architecture, parallel_attn true builds one input_layernorm whose
// output both attention and the MLP read, their outputs joining the residual in one add (model.parallel_block),
// and parallel_attn false builds input_layernorm before attention and post_attention_layernorm before the MLP,
// the engine's serial pre-norm layer. With new_decoder_architecture, num_ln_in_parallel_attn (default 2) gives
// ln_attn and ln_mlp, one norm per branch (model.parallel_norms), or 1 the single input_layernorm.
void finish_falcon(const json& config, Import& in) {
    const bool new_arch = flag(config, "new_decoder_architecture", false, in);
    const bool parallel = flag(config, "parallel_attn", true, in);
    const bool multi_query = flag(config, "multi_query", true, in);
    in.set("parallel_block", parallel, "parallel_attn");
    if (flag(config, "bias", false, in)) in.set("bias", true, "bias");
    if (flag(config, "alibi", false, in)) in.set("position_embedding", "alibi", "alibi");
    const json* norms = find(config, "num_ln_in_parallel_attn");
    // FalconConfig's attribute_map: n_head_kv is num_kv_heads (default: the heads).
    const char* kv_key = find(config, "num_kv_heads") ? "num_kv_heads" : "n_head_kv";
    const json* kv = find(config, kv_key);
    if (new_arch) {
        if (!parallel)
            return in.refuse("parallel_attn", "false with new_decoder_architecture true: FalconDecoderLayer then builds "
                                              "no layer it can run (its forward never sets the MLP's input), so "
                                              "there is no model to count");
        // Two (the default: Falcon-40B, Falcon-180B): ln_attn before attention and ln_mlp before the MLP, both
        // reading the layer input, the engine's parallel block with a norm per branch (model.parallel_norms).
        if (!norms || *norms == 2) in.set("parallel_norms", true, norms ? "num_ln_in_parallel_attn" : "new_decoder_architecture");
        else if (*norms != 1)
            return in.refuse("num_ln_in_parallel_attn", quote(*norms) + ": FalconDecoderLayer builds one LayerNorm "
                                                        "(input_layernorm) for 1 and two (ln_attn, ln_mlp) for 2");
        // (heads + 2 * num_kv_heads) * head_dim: grouped K/V heads, as the engine's fused projection counts them.
        if (kv) in.set("kv_heads", *kv, kv_key);
        return;
    }
    if (parallel && norms && *norms == 2)
        in.refuse("num_ln_in_parallel_attn", "2 without new_decoder_architecture: FalconDecoderLayer builds ln_attn "
                                             "and ln_mlp but its forward reads input_layernorm, which it does not "
                                             "build; there is no model to count");
    if (multi_query) {
        // self.num_kv_heads = config.num_kv_heads if (new_decoder_architecture or not multi_query) else 1: newer
        // files write num_kv_heads equal to the heads (tiiuae/falcon-7b: 71), which this layout never reads.
        in.set("kv_heads", 1, "multi_query");
    } else if (kv && *kv != field_count(in, "heads").value_or(-1)) {
        in.refuse(kv_key, quote(*kv) + " while multi_query and new_decoder_architecture are false: query_key_value "
                                       "is then 3 x hidden_size, a key and a value per head, and FalconAttention "
                                       "cannot split it into " + quote(*kv) + " K/V heads");
    }
}

// FalconConfig: ffn_hidden_size None means 4 * hidden_size (FalconMLP reads config.ffn_hidden_size).
void finish_falcon_ffn(const json& config, Import& in) {
    finish_falcon(config, in);
    if (!find(config, "ffn_hidden_size"))
        if (const auto h = field_count(in, "hidden"); h && *h > 0)
            in.set("ffn_hidden", 4 * *h, key_of(in, "hidden", "hidden_size"));
}

// Phi-3 (transformers modeling_phi3.py): Phi3Attention's qkv_proj is q, k and v fused ([heads * head_dim + 2 *
// kv_heads * head_dim, hidden], model.fused_qkv) and Phi3MLP's gate_up_proj gate and up fused ([2 *
// intermediate_size, hidden]): the parameters of separate projections. Every Linear has bias=False, whatever
// attention_bias says; RMSNorms, SwiGLU (up * act(gate)), untied by default. The attention passes
// sliding_window=config.sliding_window (Phi3Config's default None) in every layer: every layer local.
void finish_phi3(const json& config, Import& in) {
    if (const json* window = find(config, "sliding_window")) window_everywhere(*window, "sliding_window", in);
}

// GPT-NeoX (transformers modeling_gpt_neox.py, configuration_gpt_neox.py): GPTNeoXAttention fuses
// query_key_value [3 * hidden, hidden] (model.fused_qkv) and dense, both biased iff attention_bias (default
// true); GPTNeoXMLP's dense_h_to_4h and dense_4h_to_h are always biased; embed_out has no bias and is untied by
// default; LayerNorms with bias; rotary embeddings on rotary_pct of each head (no weights). GPTNeoXLayer builds
// input_layernorm and post_attention_layernorm; with use_parallel_residual (default true) both read the layer
// input, x + attn(ln1(x)) + mlp(ln2(x)), and without it the MLP's norm reads the attention's residual sum: the
// engine's serial pre-norm layer, exact.
void finish_gpt_neox(const json& config, Import& in) {
    // use_parallel_residual (GPTNeoXConfig's default true; Pythia, GPT-NeoX-20B): attention and the MLP read the
    // layer input through their own LayerNorms, input_layernorm and post_attention_layernorm, and their outputs
    // join the residual once (modeling_gpt_neox.py GPTNeoXLayer): model.parallel_block with parallel_norms.
    if (flag(config, "use_parallel_residual", true, in)) {
        in.model["parallel_block"] = true;
        in.model["parallel_norms"] = true;
    }
    read_attention_bias_beside_biased_mlp(config, in);  // GPTNeoXMLP is always biased
}

const std::vector<Family>& families() {
    static const std::vector<Family> all = [] {
        // LlamaConfig / MistralConfig: gated MLP, RoPE, RMSNorm, no biases by default, untied.
        const json llama_fixed = {{"arch", "decoder"}, {"mlp", "swiglu"}, {"hidden_act", "silu"},
                                  {"position_embedding", "rope"}, {"norm", "rmsnorm"}, {"bias", false},
                                  {"tied_embeddings", false}};
        const Family llama{"llama",
                           llama_fixed,
                           common({{"num_key_value_heads", "kv_heads", nullptr},
                                   {"head_dim", "head_dim", nullptr},
                                   {"hidden_act", nullptr, read_gated_act},
                                   {"attention_bias", nullptr, later},
                                   {"mlp_bias", nullptr, later},
                                   {"sliding_window", nullptr, later}}),
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
                                   {"max_window_layers", nullptr, later},
                                   {"layer_types", nullptr, later}}),
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
        // Gemma2Config / Gemma3TextConfig: Gemma's layout, four norms per layer (model.post_norms) and windows
        // (finish_gemma2, finish_gemma3). Every key the config class defaults reads as that default, as
        // transformers builds the model from the file: Google's Gemma 3 files leave keys out at their defaults
        // (vocab_size in every multimodal one). Both MLPs read hidden_activation (Gemma2MLP, Gemma3MLP:
        // ACT2FN[config.hidden_activation]); hidden_act, which Gemma 2's files also write, is not read. The
        // embedding's sqrt(hidden) scale (a buffer, Gemma3TextScaledWordEmbedding) and the (1 + weight) RMSNorm
        // change no weight count.
        json gemma2_fixed = {{"arch", "decoder"}, {"mlp", "geglu"}, {"hidden_act", "gelu_pytorch_tanh"},
                             {"position_embedding", "rope"}, {"norm", "rmsnorm"}, {"bias", false},
                             {"tied_embeddings", true}, {"post_norms", true}};
        for (const auto& [field, value] : {std::pair<const char*, int64_t>{"vocab", 256000}, {"hidden", 2304},
                                           {"ffn_hidden", 9216}, {"layers", 26}, {"heads", 8}, {"kv_heads", 4},
                                           {"head_dim", 256}, {"max_positions", 8192}})
            gemma2_fixed[field] = value;
        const std::vector<Rule> gemma2_rules = common({{"num_key_value_heads", "kv_heads", nullptr},
                                                       {"head_dim", "head_dim", nullptr},
                                                       {"hidden_activation", nullptr, read_gated_act},
                                                       {"hidden_act", nullptr, later},
                                                       {"attention_bias", nullptr, later},
                                                       {"use_bidirectional_attention", nullptr, later},
                                                       {"final_logit_softcapping", nullptr, later},
                                                       {"sliding_window", nullptr, later},
                                                       {"layer_types", nullptr, later},
                                                       // The attention's scale (query_pre_attn_scalar ** -0.5)
                                                       // and the generation cache's kind: no weights.
                                                       {"query_pre_attn_scalar", nullptr, same_weights},
                                                       {"cache_implementation", nullptr, same_weights}});
        std::vector<Rule> gemma2_only = gemma2_rules;
        gemma2_only.push_back({"attn_logit_softcapping", nullptr, later});
        gemma2_only.push_back({"sliding_window_size", nullptr, later});
        const Family gemma2{"gemma2", gemma2_fixed, gemma2_only, finish_gemma2};
        // Gemma3TextConfig's defaults: vocabulary 262208, 131072 positions, q_norm/k_norm in every model.
        json gemma3_fixed = gemma2_fixed;
        gemma3_fixed["vocab"] = 262208;
        gemma3_fixed["max_positions"] = 131072;
        gemma3_fixed["qk_norm"] = true;
        std::vector<Rule> gemma3_rules = gemma2_rules;
        gemma3_rules.push_back({"sliding_window_pattern", nullptr, later});
        gemma3_rules.push_back({"_sliding_window_pattern", nullptr, later});
        // Stored by Gemma3Attention, passed to no attention (finish_gemma3); the local layers' RoPE base.
        gemma3_rules.push_back({"attn_logit_softcapping", nullptr, same_weights});
        gemma3_rules.push_back({"rope_local_base_freq", nullptr, same_weights});
        const Family gemma3{"gemma3", gemma3_fixed, gemma3_rules, finish_gemma3};
        // GPT2Config: learned positions, LayerNorm, biases, tied head, one c_attn projection (fused QKV),
        // activation_function gelu_new unless it says otherwise.
        const Family gpt2{"gpt2",
                          {{"arch", "decoder"}, {"mlp", "gelu"}, {"hidden_act", "gelu_new"},
                           {"position_embedding", "learned"}, {"norm", "layernorm"}, {"bias", true},
                           {"tied_embeddings", true}, {"fused_qkv", true}},
                          gpt2_keys({}),
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
        // Qwen3Config: Llama's layout with q_norm/k_norm (finish_qwen3); head_dim defaults to 128, not
        // hidden / heads.
        json qwen3_fixed = llama_fixed;
        qwen3_fixed["qk_norm"] = true;
        qwen3_fixed["head_dim"] = 128;
        const std::vector<Rule> qwen3_rules = common({{"num_key_value_heads", "kv_heads", nullptr},
                                                      {"head_dim", "head_dim", nullptr},
                                                      {"hidden_act", nullptr, read_gated_act},
                                                      {"attention_bias", nullptr, later},
                                                      {"sliding_window", nullptr, later},
                                                      {"use_sliding_window", nullptr, later},
                                                      {"max_window_layers", nullptr, later},
                                                      {"layer_types", nullptr, later}});
        const Family qwen3{"qwen3", qwen3_fixed, qwen3_rules, finish_qwen3};
        // MixtralConfig: Mistral's keys plus num_local_experts (default 8) and num_experts_per_tok (default 2);
        // every layer is MoE (finish_mixtral).
        json mixtral_fixed = llama_fixed;
        mixtral_fixed["experts"] = 8;
        mixtral_fixed["experts_per_token"] = 2;
        const Family mixtral{"mixtral",
                             mixtral_fixed,
                             common({{"num_key_value_heads", "kv_heads", nullptr},
                                     {"head_dim", "head_dim", nullptr},
                                     {"hidden_act", nullptr, read_gated_act},
                                     {"num_local_experts", "experts", nullptr},
                                     {"num_experts_per_tok", "experts_per_token", nullptr},
                                     {"sliding_window", nullptr, later}}),
                             finish_mixtral};
        // The keys Qwen2-MoE and Qwen3-MoE share (Qwen2MoeConfig, Qwen3MoeConfig): experts, their width, the
        // layer pattern and the routing's normalization.
        // transformers 5 writes the expert count as num_local_experts (Qwen3MoeConfig's attribute_map: num_experts
        // -> num_local_experts); earlier releases and Qwen's own files write num_experts. Either is read.
        const std::vector<Rule> qwen_moe_rules = {{"num_experts", "experts", nullptr},
                                                  {"num_local_experts", "experts", nullptr},
                                                  {"num_experts_per_tok", "experts_per_token", nullptr},
                                                  {"moe_intermediate_size", "expert_ffn_hidden", nullptr},
                                                  {"decoder_sparse_step", "moe_every", nullptr},
                                                  {"mlp_only_layers", nullptr, later},
                                                  {"norm_topk_prob", nullptr, same_weights}};
        // Qwen3MoeConfig: Qwen3's keys (its head_dim has no default of its own: hidden / heads) and the experts;
        // defaults 128 experts, 8 per token, 768 wide.
        json qwen3_moe_fixed = llama_fixed;
        qwen3_moe_fixed["qk_norm"] = true;
        qwen3_moe_fixed["experts"] = 128;
        qwen3_moe_fixed["experts_per_token"] = 8;
        qwen3_moe_fixed["expert_ffn_hidden"] = 768;
        std::vector<Rule> qwen3_moe_rules = qwen3_rules;
        qwen3_moe_rules.insert(qwen3_moe_rules.end(), qwen_moe_rules.begin(), qwen_moe_rules.end());
        const Family qwen3_moe{"qwen3_moe", qwen3_moe_fixed, qwen3_moe_rules, finish_qwen3_moe};
        // Qwen2MoeConfig: Qwen2's keys with qkv_bias (default true) and the experts plus one shared expert;
        // defaults 60 experts, 4 per token, 1408 wide, the shared one 5632 wide.
        json qwen2_moe_fixed = llama_fixed;
        qwen2_moe_fixed["qkv_bias"] = true;
        qwen2_moe_fixed["experts"] = 60;
        qwen2_moe_fixed["experts_per_token"] = 4;
        qwen2_moe_fixed["expert_ffn_hidden"] = 1408;
        qwen2_moe_fixed["shared_experts"] = 1;
        qwen2_moe_fixed["shared_expert_ffn_hidden"] = 5632;
        std::vector<Rule> qwen2_moe_rules = common({{"num_key_value_heads", "kv_heads", nullptr},
                                                    {"head_dim", "head_dim", nullptr},
                                                    {"hidden_act", nullptr, read_gated_act},
                                                    {"qkv_bias", "qkv_bias", nullptr},
                                                    {"shared_expert_intermediate_size", "shared_expert_ffn_hidden",
                                                     nullptr},
                                                    {"sliding_window", nullptr, later},
                                                    {"use_sliding_window", nullptr, later},
                                                    {"max_window_layers", nullptr, later},
                                                    {"layer_types", nullptr, later}});
        qwen2_moe_rules.insert(qwen2_moe_rules.end(), qwen_moe_rules.begin(), qwen_moe_rules.end());
        const Family qwen2_moe{"qwen2_moe", qwen2_moe_fixed, qwen2_moe_rules, finish_qwen2_moe};
        // Llama4TextConfig: its own size keys (intermediate_size is the experts' width, intermediate_size_mlp
        // the dense layers'), head_dim 128, 16 experts, 1 per token, one shared expert, all 8192 wide by default.
        json llama4_fixed = llama_fixed;
        llama4_fixed["head_dim"] = 128;
        llama4_fixed["experts"] = 16;
        llama4_fixed["experts_per_token"] = 1;
        llama4_fixed["expert_ffn_hidden"] = 8192;
        llama4_fixed["shared_experts"] = 1;
        llama4_fixed["shared_expert_ffn_hidden"] = 8192;
        const Family llama4{"llama4",
                            llama4_fixed,
                            common({{"num_key_value_heads", "kv_heads", nullptr},
                             {"head_dim", "head_dim", nullptr},
                             {"intermediate_size_mlp", "ffn_hidden", nullptr},
                             {"hidden_act", nullptr, read_gated_act},
                             {"attention_bias", nullptr, later},
                             {"num_local_experts", "experts", nullptr},
                             {"num_experts_per_tok", "experts_per_token", nullptr},
                             {"interleave_moe_layer_step", nullptr, later},
                             {"moe_layers", nullptr, later},
                             {"use_qk_norm", nullptr, later},
                             {"no_rope_layers", nullptr, later},
                             {"attention_chunk_size", nullptr, later},
                             // Which layers are chunked follows no_rope_layers (Llama4TextConfig.layer_types).
                             {"layer_types", nullptr, same_weights},
                             {"no_rope_layer_interval", nullptr, same_weights},
                             // Attention temperature on the NoPE layers: a scale on q, no weights.
                             {"attn_temperature_tuning", nullptr, same_weights},
                             {"floor_scale", nullptr, same_weights},
                             {"attn_scale", nullptr, same_weights},
                             {"for_llm_compressor", nullptr, read_false}},
                                   "expert_ffn_hidden"),
                            finish_llama4};
        // GptOssConfig: biases on attention and experts, a biased router and sinks in every model (finish_gpt_oss);
        // defaults 128 experts, 4 per token, head_dim 64.
        json gpt_oss_fixed = llama_fixed;
        gpt_oss_fixed["bias"] = true;
        gpt_oss_fixed["router_bias"] = true;
        gpt_oss_fixed["attention_sinks"] = true;
        gpt_oss_fixed["head_dim"] = 64;
        gpt_oss_fixed["experts"] = 128;
        gpt_oss_fixed["experts_per_token"] = 4;
        const Family gpt_oss{"gpt_oss",
                             gpt_oss_fixed,
                             common({{"num_key_value_heads", "kv_heads", nullptr},
                                     {"head_dim", "head_dim", nullptr},
                                     {"num_local_experts", "experts", nullptr},
                                     {"num_experts_per_tok", "experts_per_token", nullptr},
                                     {"experts_per_token", nullptr, later},
                                     {"attention_bias", nullptr, later},
                                     {"sliding_window", nullptr, later},
                                     {"layer_types", nullptr, later},
                                     // GptOssExperts applies its own clamped SwiGLU, whatever hidden_act says;
                                     // swiglu_limit / swiglu_alpha are its clamp and gain, no weights.
                                     {"hidden_act", nullptr, same_weights},
                                     {"swiglu_limit", nullptr, same_weights},
                                     {"swiglu_alpha", nullptr, same_weights},
                                     // OpenAI's name for the context before YaRN scaling (rope_scaling's
                                     // original_max_position_embeddings): no weights.
                                     {"initial_context_length", nullptr, same_weights}}),
                             finish_gpt_oss};
        // DeepseekV2Config / DeepseekV3Config (finish_deepseek): MLA sizes (head_dim is qk_nope_head_dim), the
        // experts and the dense layers before them.
        const std::vector<Rule> deepseek_rules = common({
            {"num_key_value_heads", "kv_heads", nullptr},
            {"hidden_act", nullptr, read_gated_act},
            {"q_lora_rank", "q_lora_rank", nullptr},
            {"kv_lora_rank", "kv_lora_rank", nullptr},
            {"qk_nope_head_dim", "head_dim", nullptr},
            {"qk_rope_head_dim", "qk_rope_head_dim", nullptr},
            {"v_head_dim", "v_head_dim", nullptr},
            // Both config classes set head_dim = qk_rope_head_dim, the rotary embedding's width: no weights.
            {"head_dim", nullptr, same_weights},
            {"n_routed_experts", "experts", nullptr},
            {"num_experts_per_tok", "experts_per_token", nullptr},
            {"moe_intermediate_size", "expert_ffn_hidden", nullptr},
            {"n_shared_experts", "shared_experts", nullptr},
            {"first_k_dense_replace", "first_dense_layers", nullptr},
            {"moe_layer_freq", nullptr, later},
            {"topk_method", nullptr, later},
            {"attention_bias", nullptr, later},
            // How tokens are routed and the routing's training signals (expert groups, score function, scaling,
            // renormalization, DeepSeek's auxiliary losses), expert parallelism of DeepSeek's inference code and
            // the rotary layout: no weights.
            {"n_group", nullptr, same_weights},
            {"topk_group", nullptr, same_weights},
            {"scoring_func", nullptr, same_weights},
            {"routed_scaling_factor", nullptr, same_weights},
            {"norm_topk_prob", nullptr, same_weights},
            {"aux_loss_alpha", nullptr, same_weights},
            {"seq_aux", nullptr, same_weights},
            {"ep_size", nullptr, same_weights},
            {"rope_interleave", nullptr, same_weights}});
        // DeepseekV2Config's defaults: 64 experts of 1407, 2 shared, every layer MoE; num_experts_per_tok None.
        json deepseek_v2_fixed = llama_fixed;
        for (const auto& [field, value] : {std::pair<const char*, int64_t>{"q_lora_rank", 1536}, {"kv_lora_rank", 512},
                                           {"qk_rope_head_dim", 64}, {"v_head_dim", 128}, {"head_dim", 128},
                                           {"experts", 64}, {"expert_ffn_hidden", 1407}, {"shared_experts", 2}})
            deepseek_v2_fixed[field] = value;
        std::vector<Rule> deepseek_v2_rules = deepseek_rules;
        deepseek_v2_rules.push_back({"mlp_bias", nullptr, later});
        const Family deepseek_v2{"deepseek_v2", deepseek_v2_fixed, deepseek_v2_rules, finish_deepseek_v2};
        // DeepseekV3Config's defaults: 256 experts of 2048, 8 per token, 1 shared, 3 dense layers first, the
        // noaux_tc router's bias. num_nextn_predict_layers (DeepSeek's config; transformers' has none) builds nothing.
        json deepseek_v3_fixed = deepseek_v2_fixed;
        for (const auto& [field, value] : {std::pair<const char*, int64_t>{"experts", 256}, {"experts_per_token", 8},
                                           {"expert_ffn_hidden", 2048}, {"shared_experts", 1},
                                           {"first_dense_layers", 3}})
            deepseek_v3_fixed[field] = value;
        deepseek_v3_fixed["router_bias"] = true;
        std::vector<Rule> deepseek_v3_rules = deepseek_rules;
        deepseek_v3_rules.push_back({"num_nextn_predict_layers", nullptr, read_nextn});
        const Family deepseek_v3{"deepseek_v3", deepseek_v3_fixed, deepseek_v3_rules, finish_deepseek_v3};
        // FalconConfig's defaults (Falcon-7B's sizes; rotary, no biases, tied, parallel_attn and multi_query)
        // and its attribute_map spellings n_layer, n_head and n_embed (finish_falcon, finish_falcon_ffn).
        json falcon_fixed = {{"arch", "decoder"}, {"mlp", "gelu"}, {"hidden_act", "gelu"},
                             {"position_embedding", "rope"}, {"norm", "layernorm"}, {"bias", false},
                             {"tied_embeddings", true}, {"fused_qkv", true}, {"parallel_block", true}};
        for (const auto& [field, value] : {std::pair<const char*, int64_t>{"vocab", 65024}, {"hidden", 4544},
                                           {"layers", 32}, {"heads", 71}, {"max_positions", 2048}})
            falcon_fixed[field] = value;
        const Family falcon{"falcon",
                            falcon_fixed,
                            // FalconConfig writes ffn_hidden_size, never intermediate_size; older files spell the
                            // sizes n_layer, n_embed, n_head.
                            common({{"n_layer", "layers", nullptr},
                             {"n_embed", "hidden", nullptr},
                             {"n_head", "heads", nullptr},
                             {"ffn_hidden_size", "ffn_hidden", nullptr},
                             {"activation", nullptr, read_plain_act},
                             {"num_kv_heads", nullptr, later},
                             {"n_head_kv", nullptr, later},
                             {"multi_query", nullptr, later},
                             {"parallel_attn", nullptr, later},
                             {"new_decoder_architecture", nullptr, later},
                             {"num_ln_in_parallel_attn", nullptr, later},
                             {"bias", nullptr, later},
                             {"alibi", nullptr, later},
                             // The original RW code took the residual after the norm when true; transformers'
                             // FalconDecoderLayer does not read it. Same weights; only false says nothing.
                             {"apply_residual_connection_post_layernorm", nullptr, read_false}}),
                            finish_falcon_ffn};
        // Phi3Config: Llama's layout with fused projections (finish_phi3); its rotary keys change no weight.
        json phi3_fixed = llama_fixed;
        phi3_fixed["fused_qkv"] = true;
        const Family phi3{"phi3",
                          phi3_fixed,
                          common({{"num_key_value_heads", "kv_heads", nullptr},
                                  {"head_dim", "head_dim", nullptr},
                                  {"hidden_act", nullptr, read_gated_act},
                                  {"sliding_window", nullptr, later},
                                  // Phi3Attention builds qkv_proj and o_proj with bias=False whatever it says.
                                  {"attention_bias", nullptr, same_weights},
                                  // Rotary embeddings on part of each head (Phi-4-mini 0.75) and LongRoPE's
                                  // original context (rope_scaling's switch point): no weights.
                                  {"partial_rotary_factor", nullptr, same_weights},
                                  {"original_max_position_embeddings", nullptr, same_weights}}),
                          finish_phi3};
        // GPTNeoXConfig's defaults (GPT-NeoX-20B's sizes; untied, biased attention, parallel residual).
        json neox_fixed = {{"arch", "decoder"}, {"mlp", "gelu"}, {"hidden_act", "gelu"},
                           {"position_embedding", "rope"}, {"norm", "layernorm"}, {"bias", true},
                           {"tied_embeddings", false}, {"fused_qkv", true}};
        for (const auto& [field, value] : {std::pair<const char*, int64_t>{"vocab", 50432}, {"hidden", 6144},
                                           {"layers", 44}, {"heads", 64}, {"ffn_hidden", 24576},
                                           {"max_positions", 2048}})
            neox_fixed[field] = value;
        const Family gpt_neox{"gpt_neox",
                              neox_fixed,
                              common({{"hidden_act", nullptr, read_plain_act},
                                      {"use_parallel_residual", nullptr, later},
                                      {"attention_bias", nullptr, later},
                                      // The rotary share of each head and its base: no weights.
                                      {"rotary_pct", nullptr, same_weights},
                                      {"partial_rotary_factor", nullptr, same_weights},
                                      {"rotary_emb_base", nullptr, same_weights}}),
                              finish_gpt_neox};
        // GPTJConfig's defaults (GPT-J-6B's sizes). GPTJForCausalLM (transformers modeling_gptj.py): q_proj, k_proj,
        // v_proj and out_proj without biases, GPTJMLP's fc_in and fc_out with them (model.mlp_bias), one ln_1 whose
        // output attention and the MLP both read, joined in one residual add (model.parallel_block), ln_f, an untied
        // lm_head with a bias of vocab_size (model.output_bias); rotary on rotary_dim of each head (no weights).
        json gptj_fixed = {{"arch", "decoder"}, {"mlp", "gelu"}, {"hidden_act", "gelu_new"},
                           {"position_embedding", "rope"}, {"norm", "layernorm"}, {"bias", false},
                           {"mlp_bias", true}, {"output_bias", true}, {"tied_embeddings", false},
                           {"parallel_block", true}};
        for (const auto& [field, value] : {std::pair<const char*, int64_t>{"vocab", 50400}, {"hidden", 4096},
                                           {"layers", 28}, {"heads", 16}, {"ffn_hidden", 16384},
                                           {"max_positions", 2048}})
            gptj_fixed[field] = value;
        const Family gptj{"gptj",
                          gptj_fixed,
                          gpt2_keys({{"rotary", nullptr, same_weights}, {"rotary_dim", nullptr, same_weights}}),
                          finish_gpt2};
        return std::vector<Family>{llama,     qwen2,     gemma,       gemma2,     gemma3,  gpt2,
                                   bert,      roberta,   albert,      qwen3,      mixtral, qwen3_moe,
                                   qwen2_moe, llama4,    gpt_oss,     deepseek_v2, deepseek_v3, falcon,
                                   phi3,      gpt_neox,  gptj};
    }();
    return all;
}

const Family& family(const char* id) {
    for (const Family& f : families())
        if (std::string(f.id) == id) return f;
    throw std::logic_error(std::string("no family ") + id);
}

// model_type -> the family that reads it, and the name a message gives the model. `nested`: the config key
// that holds the family's keys, for a config that wraps a language model with other parts (Llama4Config,
// Gemma3Config: text_config beside vision_config).
struct ModelType {
    const char* type;
    const char* label;
    const char* family;
    const char* nested = nullptr;
};
const ModelType kModelTypes[] = {
    {"llama", "Llama", "llama"},
    {"mistral", "Mistral", "llama"},
    {"qwen2", "Qwen2", "qwen2"},
    {"qwen3", "Qwen3", "qwen3"},
    {"gemma", "Gemma", "gemma"},
    {"gemma2", "Gemma 2", "gemma2"},
    {"gemma3", "Gemma 3", "gemma3", "text_config"},
    {"gemma3_text", "Gemma 3", "gemma3"},
    {"gpt2", "GPT-2", "gpt2"},
    {"bert", "BERT", "bert"},
    {"roberta", "RoBERTa", "roberta"},
    {"albert", "ALBERT", "albert"},
    {"mixtral", "Mixtral", "mixtral"},
    {"qwen3_moe", "Qwen3-MoE", "qwen3_moe"},
    {"qwen2_moe", "Qwen2-MoE", "qwen2_moe"},
    {"llama4", "Llama 4", "llama4", "text_config"},
    {"llama4_text", "Llama 4", "llama4"},
    {"gpt_oss", "gpt-oss", "gpt_oss"},
    {"deepseek_v2", "DeepSeek-V2", "deepseek_v2"},
    {"deepseek_v3", "DeepSeek-V3", "deepseek_v3"},
    {"falcon", "Falcon", "falcon"},
    {"phi3", "Phi-3", "phi3"},
    {"gpt_neox", "GPT-NeoX", "gpt_neox"},
    {"gptj", "GPT-J", "gptj"},
};

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
    for (const ModelType& t : kModelTypes)
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
