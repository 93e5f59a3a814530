// The Hugging Face importer: the decisions over several keys of the mixture-of-experts families (Mixtral, Qwen-MoE,
// Llama 4, gpt-oss, DeepSeek-V2/V3), as their transformers modeling files build the model.
#include "io/import/hf_import.h"

namespace shardcalc::hf {

// ---- Mixture-of-Experts families ------------------------------------------------------------------------
// Each reads its experts into model.experts / experts_per_token / expert_ffn_hidden (and shared_experts,
// first_dense_layers, moe_every where the family has them). The routers of Mixtral, Qwen-MoE and Llama 4 have no
// bias and their experts none either; DeepSeek-V3's router has a bias per expert (model.router_bias) and
// gpt-oss biases its router and its experts (model.router_bias, model.bias): the transformers modeling files
// cited at each family. Keys the families' config classes default are their defaults here too (the family's
// fixed fields): the engine's own default for model.experts is 0, a dense model, so a Mixtral config without
// num_local_experts must not read as one.

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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
    // GptOssExperts clamps its SwiGLU at config.swiglu_limit (GptOssConfig's default 7.0): model.swiglu_limit.
    const json* limit = find(config, "swiglu_limit");
    const json value = limit ? *limit : json(7.0);
    if (value.is_number() && value.get<double>() > 0) in.model["swiglu_limit"] = value;
    else in.not_understood("swiglu_limit", value);
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

}  // namespace shardcalc::hf
