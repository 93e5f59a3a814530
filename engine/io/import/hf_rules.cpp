// The Hugging Face importer's building blocks: words for messages, what one import gathers, how a key is read (the
// rule readers: activations, switches that must be off), the key lists families share, biases and flags.
#include "io/import/hf_import.h"

#include <cctype>

namespace shardcalc::hf {

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

// A key the family's finish() reads together with others; here it only counts as understood.
void later(const std::string&, const json&, Import&) {}

// A key the family's code reads that changes no weight and nothing a layer keeps for backward (routing
// normalization, attention temperature): understood, and nothing to set.
void same_weights(const std::string&, const json&, Import&) {}

// ---- Activations: the spelling decides the kernels (model.hidden_act), the family decides the MLP ---------

const char* const kSpellings[] = {"gelu", "gelu_new", "gelu_pytorch_tanh", "relu", "silu"};

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// A GELU variant the engine has no spelling for runs as the engine's GELU: same weights and activations.
void spell_gelu(const std::string& key, const std::string& act, Import& in) {
    for (const char* known : kSpellings)
        if (act == known) return in.set("hidden_act", act, key);
    in.set("hidden_act", "gelu", key);
    in.notes.push_back(key + " " + shorten(act) + " is counted as gelu (same weights and saved activations; the engine "
                       "spells gelu, gelu_new and gelu_pytorch_tanh).");
}

}  // namespace

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

}  // namespace shardcalc::hf
