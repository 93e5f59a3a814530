// The Hugging Face importer: the decisions over several keys of the dense families (Llama, Gemma 1-3, Qwen 2-3, GPT-2,
// Falcon, Phi-3, GPT-NeoX), as their transformers modeling files build the model.
#include "io/import/hf_import.h"

namespace shardcalc::hf {

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

namespace {

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

// A soft-cap read into the model field `field`: the file's value, or the config class's default with a note.
void read_softcap(const json& config, const char* key, const json& fallback, const char* field, Import& in) {
    if (const auto words = softcap(config, key, fallback, in)) {
        const auto given = config.find(key);
        in.model[field] = given == config.end() ? fallback : *given;
        if (given == config.end()) in.notes.push_back(*words + ": the config class's default, read as model." + field);
    }
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
    read_softcap(config, "final_logit_softcapping", final_cap, "logit_softcap", in);
}

}  // namespace

// Gemma 2 (transformers modeling_gemma2.py, configuration_gemma2.py): Gemma's layout with four norms per layer
// (Gemma2DecoderLayer: input_layernorm, post_attention_layernorm on the attention's output,
// pre_feedforward_layernorm, post_feedforward_layernorm on the MLP's output: model.post_norms), soft-capped
// attention scores, and a window on every other layer.
void finish_gemma2(const json& config, Import& in) {
    finish_gemma_sandwich(config, json(30.0), in);
    // Gemma2Attention passes softcap=config.attn_logit_softcapping (Gemma2Config's default and Google's files:
    // 50.0) to the attention: `scores = cap * tanh(scores / cap)` before the softmax (model.attention_softcap).
    // No weights; where it is computed decides memory.
    read_softcap(config, "attn_logit_softcapping", json(50.0), "attention_softcap", in);
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

// Qwen3 (transformers modeling_qwen3.py): Llama's layout plus q_norm and k_norm, RMSNorms of head_dim weights
// over each head's queries and keys (model.qk_norm); attention_bias biases q, k, v and o, and the MLP never
// has one.
void read_qwen3_bias(const json& config, Import& in) { read_biases(config, false, in); }
// Its window as Qwen3Config places it (max_window_layers defaults to 28).
void finish_qwen3(const json& config, Import& in) {
    read_qwen3_bias(config, in);
    read_qwen_window(config, 28, false, in);
}

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

}  // namespace shardcalc::hf
