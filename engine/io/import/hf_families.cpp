// The Hugging Face importer's table: each family the importer reads, the keys it reads and how, what every model of
// it is, and its finishing decisions.
#include "io/import/hf_import.h"

namespace shardcalc::hf {

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
                                     // GptOssExperts applies its own clamped SwiGLU, whatever hidden_act says:
                                     // swiglu_limit is its clamp (model.swiglu_limit, finish_gpt_oss),
                                     // swiglu_alpha its gain (1.702 in the code whatever the file says).
                                     {"hidden_act", nullptr, same_weights},
                                     {"swiglu_limit", nullptr, later},
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

}  // namespace shardcalc::hf
