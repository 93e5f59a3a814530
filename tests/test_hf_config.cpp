// The Hugging Face config.json importer (io/import/hf_config.h): every family it reads gives the model's published
// parameter count, and every config it cannot represent exactly is refused at the key that says why.
// The configs are the published config.json files (values as on the Hugging Face Hub, keys in the files'
// order); counts are evaluated as test_parameters.cpp counts presets (pytorch, tp = 1: no vocabulary padding).
#include <stdexcept>
#include <string>

#include "helpers.h"
#include "io/import/hf_config.h"
#include "io/import/hf_import.h"

namespace {

using nlohmann::json;

json imported(const std::string& config) { return shardcalc::import_hf_config(json::parse(config)); }

// The imported model, or a failed check with the refusal.
json model_of(const std::string& config) {
    const json r = imported(config);
    REQUIRE_MESSAGE(r["ok"] == true, r.dump());
    return r["model"];
}

int64_t parameters(json model, const char* head = "lm") {
    model["head"] = head;
    const json s = {{"framework", "pytorch"}, {"model", model}, {"training", {{"seq_len", 128}}}};
    return static_cast<int64_t>(test::report(s.dump()).parameters.total);
}

// The one problem of a refused config.
json refusal(const std::string& config) {
    const json r = imported(config);
    REQUIRE_MESSAGE(r["ok"] == false, r.dump());
    CHECK(r["errors"].size() == 1);
    return r["error"];
}

bool says(const json& error, const char* words) {
    return error["message"].get<std::string>().find(words) != std::string::npos;
}

// ---- Published config.json files ----------------------------------------------------------------

// https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json
const char* kLlama31_8b = R"({
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 128000, "eos_token_id": 128001, "hidden_act": "silu", "hidden_size": 4096,
  "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 131072, "mlp_bias": false,
  "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
  "pretraining_tp": 1, "rms_norm_eps": 1e-05,
  "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                   "original_max_position_embeddings": 8192, "rope_type": "llama3"},
  "rope_theta": 500000.0, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "transformers_version": "4.43.0.dev0", "use_cache": true, "vocab_size": 128256})";

// https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json
const char* kMistral7b = R"({
  "architectures": ["MistralForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
  "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 32768,
  "model_type": "mistral", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
  "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "sliding_window": 4096, "tie_word_embeddings": false,
  "torch_dtype": "bfloat16", "transformers_version": "4.34.0.dev0", "use_cache": true, "vocab_size": 32000})";

// https://huggingface.co/openai-community/gpt2/blob/main/config.json
const char* kGpt2 = R"({
  "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1,
  "bos_token_id": 50256, "embd_pdrop": 0.1, "eos_token_id": 50256, "initializer_range": 0.02,
  "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12,
  "n_positions": 1024, "resid_pdrop": 0.1, "summary_activation": null, "summary_first_dropout": 0.1,
  "summary_proj_to_labels": true, "summary_type": "cls_index", "summary_use_proj": true,
  "task_specific_params": {"text-generation": {"do_sample": true, "max_length": 50}}, "vocab_size": 50257})";

// https://huggingface.co/google-bert/bert-base-uncased/blob/main/config.json
const char* kBertBase = R"({
  "architectures": ["BertForMaskedLM"], "attention_probs_dropout_prob": 0.1, "gradient_checkpointing": false,
  "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768, "initializer_range": 0.02,
  "intermediate_size": 3072, "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "model_type": "bert",
  "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 0, "position_embedding_type": "absolute",
  "transformers_version": "4.6.0.dev0", "type_vocab_size": 2, "use_cache": true, "vocab_size": 30522})";

// https://huggingface.co/FacebookAI/roberta-base/blob/main/config.json
const char* kRobertaBase = R"({
  "architectures": ["RobertaForMaskedLM"], "attention_probs_dropout_prob": 0.1, "bos_token_id": 0,
  "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768,
  "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-05, "max_position_embeddings": 514,
  "model_type": "roberta", "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 1,
  "type_vocab_size": 1, "vocab_size": 50265})";

// https://huggingface.co/albert/albert-base-v2/blob/main/config.json
const char* kAlbertBase = R"({
  "architectures": ["AlbertForMaskedLM"], "attention_probs_dropout_prob": 0, "bos_token_id": 2,
  "classifier_dropout_prob": 0.1, "down_scale_factor": 1, "embedding_size": 128, "eos_token_id": 3,
  "gap_size": 0, "hidden_act": "gelu_new", "hidden_dropout_prob": 0, "hidden_size": 768,
  "initializer_range": 0.02, "inner_group_num": 1, "intermediate_size": 3072, "layer_norm_eps": 1e-12,
  "max_position_embeddings": 512, "model_type": "albert", "net_structure_type": 0, "num_attention_heads": 12,
  "num_hidden_groups": 1, "num_hidden_layers": 12, "num_memory_blocks": 0, "pad_token_id": 0,
  "type_vocab_size": 2, "vocab_size": 30000})";

// https://huggingface.co/google/gemma-7b/blob/main/config.json (no tie_word_embeddings key: GemmaConfig's
// default, true; hidden_act "gelu", which Gemma's code ignores)
const char* kGemma7b = R"({
  "architectures": ["GemmaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0, "bos_token_id": 2,
  "eos_token_id": 1, "head_dim": 256, "hidden_act": "gelu", "hidden_size": 3072, "initializer_range": 0.02,
  "intermediate_size": 24576, "max_position_embeddings": 8192, "model_type": "gemma", "num_attention_heads": 16,
  "num_hidden_layers": 28, "num_key_value_heads": 16, "pad_token_id": 0, "rms_norm_eps": 1e-06,
  "rope_scaling": null, "rope_theta": 10000.0, "torch_dtype": "bfloat16", "transformers_version": "4.38.0.dev0",
  "use_cache": true, "vocab_size": 256000})";

// https://huggingface.co/mistralai/Mixtral-8x7B-v0.1/blob/main/config.json
const char* kMixtral = R"({
  "architectures": ["MixtralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1, "eos_token_id": 2,
  "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
  "max_position_embeddings": 32768, "model_type": "mixtral", "num_attention_heads": 32, "num_experts_per_tok": 2,
  "num_hidden_layers": 32, "num_key_value_heads": 8, "num_local_experts": 8, "output_router_logits": false,
  "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.02, "sliding_window": null,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.36.0.dev0",
  "use_cache": true, "vocab_size": 32000})";

// https://huggingface.co/Qwen/Qwen1.5-MoE-A2.7B/blob/main/config.json
const char* kQwen2Moe = R"({
  "architectures": ["Qwen2MoeForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
  "decoder_sparse_step": 1, "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 2048,
  "initializer_range": 0.02, "intermediate_size": 5632, "max_position_embeddings": 8192, "max_window_layers": 21,
  "model_type": "qwen2_moe", "moe_intermediate_size": 1408, "norm_topk_prob": false, "num_attention_heads": 16,
  "num_experts": 60, "num_experts_per_tok": 4, "num_hidden_layers": 24, "num_key_value_heads": 16,
  "output_router_logits": false, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001,
  "shared_expert_intermediate_size": 5632, "sliding_window": 32768, "tie_word_embeddings": false,
  "torch_dtype": "bfloat16", "transformers_version": "4.36.0.dev0", "use_cache": true,
  "use_sliding_window": false, "vocab_size": 151936})";

// https://huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json
const char* kQwen3Moe = R"({
  "architectures": ["Qwen3MoeForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
  "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 6144, "max_position_embeddings": 40960,
  "max_window_layers": 48, "mlp_only_layers": [], "model_type": "qwen3_moe", "moe_intermediate_size": 768,
  "norm_topk_prob": true, "num_attention_heads": 32, "num_experts": 128, "num_experts_per_tok": 8,
  "num_hidden_layers": 48, "num_key_value_heads": 4, "output_router_logits": false, "rms_norm_eps": 1e-06,
  "rope_scaling": null, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001, "sliding_window": null,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": true,
  "use_sliding_window": false, "vocab_size": 151936})";

// https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json (without auto_map and quantization_config)
const char* kDeepSeekV3 = R"({
  "architectures": ["DeepseekV3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 0, "eos_token_id": 1, "ep_size": 1, "first_k_dense_replace": 3, "hidden_act": "silu",
  "hidden_size": 7168, "initializer_range": 0.02, "intermediate_size": 18432, "kv_lora_rank": 512,
  "max_position_embeddings": 163840, "model_type": "deepseek_v3", "moe_intermediate_size": 2048,
  "moe_layer_freq": 1, "n_group": 8, "n_routed_experts": 256, "n_shared_experts": 1, "norm_topk_prob": true,
  "num_attention_heads": 128, "num_experts_per_tok": 8, "num_hidden_layers": 61, "num_key_value_heads": 128,
  "num_nextn_predict_layers": 1, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
  "rms_norm_eps": 1e-06, "rope_theta": 10000, "routed_scaling_factor": 2.5, "scoring_func": "sigmoid",
  "tie_word_embeddings": false, "topk_group": 4, "topk_method": "noaux_tc", "torch_dtype": "bfloat16",
  "transformers_version": "4.33.1", "use_cache": true, "v_head_dim": 128, "vocab_size": 129280})";

// https://huggingface.co/openai/gpt-oss-20b/blob/main/config.json (layer_types, rope_scaling and
// quantization_config left out: GptOssConfig's default layer_types is the file's, sliding on even layers)
const char* kGptOss20b = R"({
  "architectures": ["GptOssForCausalLM"], "attention_bias": true, "attention_dropout": 0.0, "eos_token_id": 200002,
  "experts_per_token": 4, "head_dim": 64, "hidden_act": "silu", "hidden_size": 2880, "initial_context_length": 4096,
  "initializer_range": 0.02, "intermediate_size": 2880, "max_position_embeddings": 131072, "model_type": "gpt_oss",
  "num_attention_heads": 64, "num_experts_per_tok": 4, "num_hidden_layers": 24, "num_key_value_heads": 8,
  "num_local_experts": 32, "output_router_logits": false, "pad_token_id": 199999, "rms_norm_eps": 1e-05,
  "rope_theta": 150000, "router_aux_loss_coef": 0.9, "sliding_window": 128, "swiglu_limit": 7.0,
  "tie_word_embeddings": false, "transformers_version": "4.55.0.dev0", "use_cache": true, "vocab_size": 201088})";

// DeepSeek-V2-Lite's config as a stored print of DeepSeek-V2-Lite-Chat's DeepseekV2Config shows it (transformers
// 5.7 wrote head_dim, mlp_bias, pad_token_id and rope_parameters into it), with q_lora_rank null.
const char* kDeepSeekV2Lite = R"({
  "architectures": ["DeepseekV2ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "auto_map": {"AutoConfig": "configuration_deepseek.DeepseekV2Config",
               "AutoModel": "modeling_deepseek.DeepseekV2Model",
               "AutoModelForCausalLM": "modeling_deepseek.DeepseekV2ForCausalLM"},
  "aux_loss_alpha": 0.001, "bos_token_id": 100000, "dtype": "bfloat16", "eos_token_id": 100001,
  "first_k_dense_replace": 1, "head_dim": 64, "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02,
  "intermediate_size": 10944, "kv_lora_rank": 512, "max_position_embeddings": 163840, "mlp_bias": false,
  "model_type": "deepseek_v2", "moe_intermediate_size": 1408, "moe_layer_freq": 1, "n_group": 1,
  "n_routed_experts": 64, "n_shared_experts": 2, "norm_topk_prob": false, "num_attention_heads": 16,
  "num_experts_per_tok": 6, "num_hidden_layers": 27, "num_key_value_heads": 16, "pad_token_id": null,
  "pretraining_tp": 1, "q_lora_rank": null, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "rms_norm_eps": 1e-06,
  "rope_parameters": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 0.707, "mscale_all_dim": 0.707,
                      "original_max_position_embeddings": 4096, "rope_theta": 10000, "rope_type": "yarn",
                      "type": "yarn"},
  "routed_scaling_factor": 1.0, "scoring_func": "softmax", "seq_aux": true, "tie_word_embeddings": false,
  "topk_group": 1, "topk_method": "greedy", "transformers_version": "5.7.0", "use_cache": true, "v_head_dim": 128,
  "vocab_size": 102400})";

// https://huggingface.co/tiiuae/falcon-7b/blob/main/config.json
const char* kFalcon7b = R"({
  "alibi": false, "apply_residual_connection_post_layernorm": false, "architectures": ["FalconForCausalLM"],
  "attention_dropout": 0.0, "bias": false, "bos_token_id": 11, "eos_token_id": 11, "hidden_dropout": 0.0,
  "hidden_size": 4544, "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "falcon",
  "multi_query": true, "new_decoder_architecture": false, "num_attention_heads": 71, "num_hidden_layers": 32,
  "parallel_attn": true, "torch_dtype": "bfloat16", "transformers_version": "4.27.4", "use_cache": true,
  "vocab_size": 65024})";

// https://huggingface.co/tiiuae/falcon-40b/blob/main/config.json (new_decoder_architecture: ln_attn and ln_mlp)
const char* kFalcon40b = R"({
  "alibi": false, "apply_residual_connection_post_layernorm": false, "architectures": ["FalconForCausalLM"],
  "attention_dropout": 0.0, "bias": false, "bos_token_id": 11, "eos_token_id": 11, "hidden_dropout": 0.0,
  "hidden_size": 8192, "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "falcon",
  "new_decoder_architecture": true, "num_attention_heads": 128, "num_hidden_layers": 60, "num_kv_heads": 8,
  "parallel_attn": true, "torch_dtype": "bfloat16", "transformers_version": "4.27.4", "use_cache": true,
  "vocab_size": 65024})";

// https://huggingface.co/tiiuae/falcon-rw-1b/blob/main/config.json (sequential blocks, ALiBi), abridged
const char* kFalconRw1b = R"({
  "alibi": true, "apply_residual_connection_post_layernorm": false, "architectures": ["FalconForCausalLM"],
  "bias": true, "hidden_size": 2048, "model_type": "falcon", "multi_query": false,
  "new_decoder_architecture": false, "num_attention_heads": 32, "num_hidden_layers": 24, "parallel_attn": false,
  "vocab_size": 50304})";

// https://huggingface.co/microsoft/Phi-3-mini-4k-instruct/blob/main/config.json (auto_map left out)
const char* kPhi3Mini4k = R"({
  "_name_or_path": "Phi-3-mini-4k-instruct", "architectures": ["Phi3ForCausalLM"], "attention_dropout": 0.0,
  "bos_token_id": 1, "embd_pdrop": 0.0, "eos_token_id": 32000, "hidden_act": "silu", "hidden_size": 3072,
  "initializer_range": 0.02, "intermediate_size": 8192, "max_position_embeddings": 4096, "model_type": "phi3",
  "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32,
  "original_max_position_embeddings": 4096, "pad_token_id": 32000, "resid_pdrop": 0.0, "rms_norm_eps": 1e-05,
  "rope_scaling": null, "rope_theta": 10000.0, "sliding_window": 2047, "tie_word_embeddings": false,
  "torch_dtype": "bfloat16", "transformers_version": "4.40.2", "use_cache": true, "attention_bias": false,
  "vocab_size": 32064})";

// https://huggingface.co/EleutherAI/gpt-j-6b/blob/main/config.json, abridged (no task_specific_params)
const char* kGptj6b = R"({
  "activation_function": "gelu_new", "architectures": ["GPTJForCausalLM"], "attn_pdrop": 0.0,
  "bos_token_id": 50256, "embd_pdrop": 0.0, "eos_token_id": 50256, "gradient_checkpointing": false,
  "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "gptj", "n_embd": 4096, "n_head": 16,
  "n_inner": null, "n_layer": 28, "n_positions": 2048, "resid_pdrop": 0.0, "rotary": true, "rotary_dim": 64,
  "scale_attn_weights": true, "tie_word_embeddings": false, "tokenizer_class": "GPT2Tokenizer",
  "transformers_version": "4.18.0.dev0", "use_cache": true, "vocab_size": 50400})";

// https://huggingface.co/EleutherAI/gpt-neox-20b/blob/main/config.json
const char* kNeox20b = R"({
  "architectures": ["GPTNeoXForCausalLM"], "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "gelu_fast",
  "hidden_size": 6144, "initializer_range": 0.02, "intermediate_size": 24576, "layer_norm_eps": 1e-05,
  "max_position_embeddings": 2048, "model_type": "gpt_neox", "num_attention_heads": 64, "num_hidden_layers": 44,
  "rotary_emb_base": 10000, "rotary_pct": 0.25, "tie_word_embeddings": false, "torch_dtype": "float16",
  "transformers_version": "4.24.0", "use_cache": true, "use_parallel_residual": true, "vocab_size": 50432})";

// https://huggingface.co/google-t5/t5-small/blob/main/config.json (no task_specific_params)
const char* kT5Small = R"({
  "architectures": ["T5ForConditionalGeneration"], "d_ff": 2048, "d_kv": 64, "d_model": 512,
  "decoder_start_token_id": 0, "dropout_rate": 0.1, "eos_token_id": 1, "initializer_factor": 1.0,
  "is_encoder_decoder": true, "layer_norm_epsilon": 1e-06, "model_type": "t5", "n_positions": 512,
  "num_heads": 8, "num_layers": 6, "output_past": true, "pad_token_id": 0, "relative_attention_num_buckets": 32,
  "vocab_size": 32128})";

// https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json
const char* kQwen25_7b = R"({
  "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
  "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02,
  "intermediate_size": 18944, "max_position_embeddings": 131072, "max_window_layers": 28, "model_type": "qwen2",
  "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06,
  "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "transformers_version": "4.43.1", "use_cache": true, "use_sliding_window": false, "vocab_size": 152064})";

// Qwen1.5-0.5B as transformers 5.0.0 writes it (a fine-tuned copy; the text a public training log printed as
// "Model config Qwen2Config {...}", which is to_json_string(), what save_pretrained writes): "dtype" for torch_dtype,
// "rope_parameters" for rope_theta and rope_scaling, and layer_types written out. The run's log counted 619,570,176
// trainable parameters, with the output layer untied because its checkpoint held both matrices.
const char* kQwen15_05bV5 = R"({
  "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "dtype": "float32",
  "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 1024, "initializer_range": 0.02,
  "intermediate_size": 2816,
  "layer_types": ["full_attention", "full_attention", "full_attention", "full_attention", "full_attention",
                  "full_attention", "full_attention", "full_attention", "full_attention", "full_attention",
                  "full_attention", "full_attention", "full_attention", "full_attention", "full_attention",
                  "full_attention", "full_attention", "full_attention", "full_attention", "full_attention",
                  "full_attention", "full_attention", "full_attention", "full_attention"],
  "max_position_embeddings": 32768, "max_window_layers": 21, "model_type": "qwen2", "num_attention_heads": 16,
  "num_hidden_layers": 24, "num_key_value_heads": 16, "pad_token_id": null, "rms_norm_eps": 1e-06,
  "rope_parameters": {"rope_theta": 1000000.0, "rope_type": "default"}, "sliding_window": null,
  "tie_word_embeddings": true, "transformers_version": "5.0.0", "use_cache": false, "use_sliding_window": false,
  "vocab_size": 151936})";

// https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json
const char* kQwen3_8b = R"({
  "architectures": ["Qwen3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096,
  "initializer_range": 0.02, "intermediate_size": 12288, "max_position_embeddings": 40960,
  "max_window_layers": 36, "model_type": "qwen3", "num_attention_heads": 32, "num_hidden_layers": 36,
  "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_scaling": null, "rope_theta": 1000000,
  "sliding_window": null, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "transformers_version": "4.51.0", "use_cache": true, "use_sliding_window": false, "vocab_size": 151936})";

// https://huggingface.co/google/gemma-2-9b/blob/main/config.json
const char* kGemma2_9b = R"({
  "architectures": ["Gemma2ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "attn_logit_softcapping": 50.0, "bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": 1,
  "final_logit_softcapping": 30.0, "head_dim": 256, "hidden_act": "gelu_pytorch_tanh",
  "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 3584, "initializer_range": 0.02,
  "intermediate_size": 14336, "max_position_embeddings": 8192, "model_type": "gemma2", "num_attention_heads": 16,
  "num_hidden_layers": 42, "num_key_value_heads": 8, "pad_token_id": 0, "query_pre_attn_scalar": 256,
  "rms_norm_eps": 1e-06, "rope_theta": 10000.0, "sliding_window": 4096, "torch_dtype": "float32",
  "transformers_version": "4.42.0.dev0", "use_cache": true, "vocab_size": 256000})";

// https://huggingface.co/google/gemma-3-27b-pt/blob/main/config.json: the multimodal Gemma3Config, whose
// text_config leaves out what Gemma3TextConfig defaults (vocab_size 262208, hidden_activation, the pattern of 6).
// As TensorRT-LLM's Gemma 3 test quotes it (GEMMA3_27B_MINI_CONFIG) with its 62 layers and 1024-token window
// restored, which a stored copy of the text config (GEMMA3_27B_TEXT) gives.
const char* kGemma3_27b = R"({
  "architectures": ["Gemma3ForConditionalGeneration"], "boi_token_index": 255999, "eoi_token_index": 256000,
  "eos_token_id": [1, 106], "image_token_index": 262144, "initializer_range": 0.02, "mm_tokens_per_image": 256,
  "model_type": "gemma3",
  "text_config": {
    "head_dim": 128, "hidden_size": 5376, "intermediate_size": 21504, "model_type": "gemma3_text",
    "num_attention_heads": 32, "num_hidden_layers": 62, "num_key_value_heads": 16, "query_pre_attn_scalar": 168,
    "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "sliding_window": 1024},
  "torch_dtype": "bfloat16", "transformers_version": "4.50.0.dev0",
  "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
                    "model_type": "siglip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 27,
                    "patch_size": 14, "vision_use_head": false}})";

// https://huggingface.co/google/gemma-3-1b-it/blob/main/config.json (a Gemma3TextConfig: Gemma3ForCausalLM), as
// TensorRT-LLM's Gemma 3 test quotes it (GEMMA3_1B_CONFIG) with its 26 layers and 512-token window restored
// (a stored copy of the 1B's values gives both).
const char* kGemma3_1b = R"({
  "architectures": ["Gemma3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "attn_logit_softcapping": null, "bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": [1, 106],
  "final_logit_softcapping": null, "head_dim": 256, "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 1152,
  "initializer_range": 0.02, "intermediate_size": 6912, "max_position_embeddings": 32768,
  "model_type": "gemma3_text", "num_attention_heads": 4, "num_hidden_layers": 26, "num_key_value_heads": 1,
  "pad_token_id": 0, "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000,
  "rope_scaling": null, "rope_theta": 1000000, "sliding_window": 512, "sliding_window_pattern": 6,
  "torch_dtype": "bfloat16", "transformers_version": "4.50.0.dev0", "use_cache": true, "vocab_size": 262144})";

// https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E/blob/main/config.json, without eos_token_id and with
// the vision_config abridged (from a stored print of the Llama4Config; moe_layers written out as 0..47, as in
// the text-only copy of the file quoted in a vLLM issue about Llama4ForCausalLM).
const char* kLlama4Scout = R"({
  "architectures": ["Llama4ForConditionalGeneration"], "boi_token_index": 200080, "eoi_token_index": 200081,
  "image_token_index": 200092, "model_type": "llama4",
  "text_config": {
    "attention_bias": false, "attention_chunk_size": 8192, "attention_dropout": 0.0, "attn_scale": 0.1,
    "attn_temperature_tuning": 4, "bos_token_id": 200000, "floor_scale": 8192, "for_llm_compressor": false,
    "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
    "interleave_moe_layer_step": 1, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
    "max_position_embeddings": 262144, "model_type": "llama4_text",
    "moe_layers": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
                   27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47],
    "no_rope_layers": [1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0,
                       1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0],
    "num_attention_heads": 40, "num_experts_per_tok": 1, "num_hidden_layers": 48, "num_key_value_heads": 8,
    "num_local_experts": 16, "output_router_logits": false, "pad_token_id": 200018, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "router_aux_loss_coef": 0.001, "router_jitter_noise": 0.0, "torch_dtype": "bfloat16",
    "use_cache": true, "use_qk_norm": true, "vocab_size": 202048},
  "tie_word_embeddings": false, "transformers_version": "4.51.0",
  "vision_config": {"hidden_act": "gelu", "hidden_size": 1408, "image_size": 336, "intermediate_size": 5632,
                    "model_type": "llama4_vision_model", "num_attention_heads": 16, "num_hidden_layers": 34,
                    "patch_size": 14, "vision_output_dim": 4096}})";

// A config with one key changed (the value as JSON text).
std::string with(const char* config, const char* key, const std::string& value) {
    json j = json::parse(config);
    j[key] = json::parse(value);
    return j.dump();
}

// A config with several keys changed, nested ones too (an RFC 7386 merge patch as JSON text).
std::string patched(const std::string& config, const char* patch) {
    json j = json::parse(config);
    j.merge_patch(json::parse(patch));
    return j.dump();
}

// The model as the engine resolves it (every default applied), without the preset's name: an imported model
// and a preset are the same model when these agree.
json resolved(json model) {
    const shardcalc::Config c = test::config(json{{"model", std::move(model)}}.dump());
    json m = shardcalc::scenario_to_json(c.s)["model"];
    m.erase("preset");
    return m;
}
json preset(const char* id) { return resolved({{"preset", id}}); }

}  // namespace

TEST_CASE("config.json: each family imports with its published parameter count") {
    SUBCASE("Llama 3.1 8B: 8,030,261,248 (the llama-3.1-8b preset's reference: Hub safetensors total)") {
        const json r = imported(kLlama31_8b);
        REQUIRE(r["ok"] == true);
        CHECK(r["family"] == "llama");
        CHECK(r["label"] == "Llama");
        CHECK(r["unknown"].empty());
        CHECK(r["notes"].empty());
        CHECK(r["model"]["kv_heads"] == 8);
        CHECK(r["model"]["mlp"] == "swiglu");
        CHECK(r["model"]["tied_embeddings"] == false);
        CHECK(parameters(r["model"]) == 8030261248);
    }
    SUBCASE("a config as transformers 5 writes it (dtype, rope_parameters, layer_types): Qwen1.5-0.5B") {
        const json r = imported(kQwen15_05bV5);
        REQUIRE(r["ok"] == true);
        CHECK(r["family"] == "qwen2");
        CHECK(r["unknown"].empty());  // every key of the new spelling read or known to change nothing
        CHECK(r["notes"].empty());
        CHECK_FALSE(r["model"].contains("sliding_window"));  // every layer full_attention
        CHECK(r["model"]["qkv_bias"] == true);
        CHECK(r["model"]["tied_embeddings"] == true);
        // 151,936 x 1,024 embedding + 24 x (3 x (1,024^2 + 1,024) + 1,024^2 + 3 x 1,024 x 2,816 + 2 x 1,024) + 1,024.
        CHECK(parameters(r["model"]) == 463987712);
        // With its own output layer, as the run trained it: the count its log printed.
        json untied = r["model"];
        untied["tied_embeddings"] = false;
        CHECK(parameters(untied) == 619570176);
    }
    SUBCASE("Mistral 7B v0.1: 7,241,732,096 (the mistral-7b preset's reference), its 4096-token window") {
        const json r = imported(kMistral7b);
        REQUIRE(r["ok"] == true);
        CHECK(r["label"] == "Mistral");
        CHECK(r["unknown"].empty());
        CHECK(r["notes"].empty());
        CHECK(r["model"]["sliding_window"] == 4096);  // every layer local: global_every stays 0
        CHECK_FALSE(r["model"].contains("global_every"));
        CHECK(parameters(r["model"]) == 7241732096);  // a window adds no weights
        CHECK(resolved(r["model"]) == preset("mistral-7b"));
    }
    SUBCASE("Falcon-7B: 6,921,720,704, the falcon-7b preset (parallel block, one K/V head, tied)") {
        const json r = imported(kFalcon7b);
        REQUIRE(r["ok"] == true);
        CHECK(r["family"] == "falcon");
        CHECK(r["label"] == "Falcon");
        CHECK(r["unknown"].empty());
        CHECK(r["notes"].empty());
        CHECK(r["model"]["parallel_block"] == true);
        CHECK(r["model"]["kv_heads"] == 1);
        CHECK(r["model"]["ffn_hidden"] == 18176);
        CHECK(parameters(r["model"]) == 6921720704);
        // The preset's fields, query_key_value fused as FalconAttention builds it.
        const json mine = resolved(r["model"]);
        CHECK(mine["fused_qkv"] == true);
        CHECK(mine == preset("falcon-7b"));
        // The newer file's spelling: n_layer/n_head renamed, num_kv_heads 71 (unused under multi_query), the MLP's
        // width and activation written out; the original one: n_layer, n_head.
        const json newer = model_of(patched(kFalcon7b, R"({"num_kv_heads": 71, "ffn_hidden_size": 18176,
                                                           "activation": "gelu", "max_position_embeddings": 2048})"));
        CHECK(resolved(newer) == resolved(r["model"]));
        json old = json::parse(kFalcon7b);
        old.erase("num_hidden_layers");
        old.erase("num_attention_heads");
        old["n_layer"] = 16;
        old["n_head"] = 71;
        CHECK(model_of(old.dump())["layers"] == 16);
    }
    SUBCASE("falcon-rw-1b: 1,311,625,216, serial layers, ALiBi, every linear layer biased") {
        // 24 x (2048 x 6144 + 6144 QKV, 2048^2 + 2048 dense, 2 x 2048 x 8192 + 8192 + 2048 MLP, 2 x 4096
        // LayerNorms) + 50304 x 2048 tied + 4096.
        const json m = model_of(kFalconRw1b);
        CHECK(m["parallel_block"] == false);
        CHECK(m["position_embedding"] == "alibi");
        CHECK(m["bias"] == true);
        CHECK_FALSE(m.contains("kv_heads"));  // 3 x hidden: a K and V per head
        CHECK(parameters(m) == 1311625216);
    }
    SUBCASE("GPT-J-6B: 6,050,882,784 from modeling_gptj.py's shapes (biased MLP and lm_head, parallel block)") {
        // 50400 x 4096 wte + 28 x (2 x 4096 ln_1 + 4 x 4096^2 unbiased q, k, v, out + 2 x 4096 x 16384 + 16384 +
        // 4096 fc_in, fc_out) + 2 x 4096 ln_f + 50400 x 4096 + 50400 lm_head. (The model card's 6,053,381,344 is
        // 2,498,560 more; the shapes above are the ones GPTJForCausalLM builds.)
        const json r = imported(kGptj6b);
        REQUIRE(r["ok"] == true);
        CHECK(r["family"] == "gptj");
        CHECK(r["label"] == "GPT-J");
        CHECK(r["model"]["parallel_block"] == true);
        CHECK(r["model"]["bias"] == false);
        CHECK(r["model"]["mlp_bias"] == true);
        CHECK(r["model"]["output_bias"] == true);
        CHECK(r["model"]["ffn_hidden"] == 16384);
        CHECK(parameters(r["model"]) == 6050882784);
    }
    SUBCASE("Falcon-40B: 41,303,293,952, two norms per layer (ln_attn, ln_mlp), 8 K/V heads, tied") {
        // 60 x ((128 + 2 x 8) x 64 x 8192 query_key_value + 8192^2 dense + 2 x 8192 x 32768 MLP + 2 x 2 x 8192
        // LayerNorms) + 65024 x 8192 tied + 2 x 8192 ln_f, modeling_falcon.py's shapes for this config.
        const json r = imported(kFalcon40b);
        REQUIRE(r["ok"] == true);
        CHECK(r["unknown"].empty());
        CHECK(r["model"]["parallel_block"] == true);
        CHECK(r["model"]["parallel_norms"] == true);
        CHECK(r["model"]["kv_heads"] == 8);
        CHECK(parameters(r["model"]) == 41303293952);
        // The same model with the default written out; one norm is 2 x 8192 weights fewer per layer.
        CHECK(resolved(model_of(patched(kFalcon40b, R"({"num_ln_in_parallel_attn": 2})"))) == resolved(r["model"]));
        CHECK(parameters(model_of(patched(kFalcon40b, R"({"num_ln_in_parallel_attn": 1})"))) ==
              41303293952 - 60 * 2 * 8192);
    }
    SUBCASE("Falcon with one norm in the new layout (num_ln_in_parallel_attn 1): grouped K/V heads") {
        const json m = model_of(patched(kFalcon7b, R"({"new_decoder_architecture": true, "num_ln_in_parallel_attn": 1,
                                                       "num_attention_heads": 32, "num_kv_heads": 8,
                                                       "hidden_size": 4096})"));
        CHECK(m["parallel_block"] == true);
        CHECK_FALSE(m.contains("parallel_norms"));
        CHECK(m["kv_heads"] == 8);
    }
    SUBCASE("Phi-3-mini-4k-instruct: 3,821,079,552, fused qkv_proj and gate_up_proj, a 2047-token window") {
        const json r = imported(kPhi3Mini4k);
        REQUIRE(r["ok"] == true);
        CHECK(r["family"] == "phi3");
        CHECK(r["unknown"].empty());
        CHECK(r["model"]["sliding_window"] == 2047);
        CHECK_FALSE(r["model"].contains("global_every"));
        CHECK(r["model"]["mlp"] == "swiglu");
        CHECK(r["model"]["fused_qkv"] == true);
        CHECK(parameters(r["model"]) == 3821079552);
        // A null window: full attention, the same weights.
        CHECK_FALSE(model_of(with(kPhi3Mini4k, "sliding_window", "null")).contains("sliding_window"));
    }
    SUBCASE("GPT-NeoX-20B with serial layers: 20,554,567,680, biased everywhere, untied") {
        // The count is the same as the published parallel model's (two norms per layer either way).
        const json r = imported(with(kNeox20b, "use_parallel_residual", "false"));
        REQUIRE(r["ok"] == true);
        CHECK(r["family"] == "gpt_neox");
        CHECK(r["unknown"].empty());
        CHECK(r["model"]["bias"] == true);
        CHECK(r["model"].value("parallel_block", false) == false);
        CHECK(parameters(r["model"]) == 20554567680);
    }
    SUBCASE("GPT-2: 124,439,808 (the gpt2 preset's reference), gelu_new, fused QKV, n_inner null = 4 * n_embd") {
        const json r = imported(kGpt2);
        REQUIRE(r["ok"] == true);
        CHECK(r["unknown"].empty());
        CHECK(r["model"]["hidden_act"] == "gelu_new");
        CHECK(r["model"]["fused_qkv"] == true);
        CHECK(r["model"]["ffn_hidden"] == 3072);
        CHECK(parameters(r["model"]) == 124439808);
        // GPT2Config's default activation is gelu_new too.
        json bare = json::parse(kGpt2);
        bare.erase("activation_function");
        CHECK(model_of(bare.dump())["hidden_act"] == "gelu_new");
    }
    SUBCASE("bert-base-uncased: 109,482,240 with the pooler (BertModel), 110,106,428 with the pretraining heads") {
        const json r = imported(kBertBase);
        REQUIRE(r["ok"] == true);
        CHECK(r["unknown"].empty());
        CHECK(r["model"]["type_vocab"] == 2);
        CHECK(parameters(r["model"], "none") == 109482240);  // the bert-base preset's reference
        CHECK(parameters(r["model"], "lm") == 110106428);    // BertForPreTraining (test_parameters.cpp)
    }
    SUBCASE("roberta-base: one token type, 514 positions, no pooler in RobertaForMaskedLM") {
        // RobertaModel (with its pooler): word 50265*768 + positions 514*768 + one token type 768 + LayerNorm
        // 1536 + 12 layers of 7,087,872 + pooler 590,592 = 124,645,632 (arithmetic from the config.json).
        json m = model_of(kRobertaBase);
        CHECK(m["type_vocab"] == 1);
        CHECK(m["pooler"] == false);
        // RobertaForMaskedLM: no pooler; the LM head's dense 590,592, LayerNorm 1,536 and decoder bias 50,265.
        CHECK(parameters(m, "lm") == 124645632 - 590592 + 590592 + 1536 + 50265);
        m["pooler"] = true;
        CHECK(parameters(m, "none") == 124645632);
    }
    SUBCASE("albert-base-v2: 11,683,584 (the albert-base preset's reference)") {
        const json r = imported(kAlbertBase);
        REQUIRE(r["ok"] == true);
        CHECK(r["unknown"].empty());
        CHECK(r["model"]["embedding_dim"] == 128);
        CHECK(r["model"]["shared_layers"] == true);
        CHECK(parameters(r["model"], "none") == 11683584);
    }
    SUBCASE("Gemma 7B: 8,537,680,896 with tied embeddings, head_dim 256 and GeGLU") {
        // 256000*3072 embedding (tied) + 28 * (4 * 3072*4096 attention + 3 * 3072*24576 MLP + 2 * 3072 norms)
        // + 3072 final norm = 8,537,680,896; the Gemma report's non-embedding count is 7,751,248,896, the same.
        const json r = imported(kGemma7b);
        REQUIRE(r["ok"] == true);
        CHECK(r["family"] == "gemma");
        CHECK(r["unknown"].empty());
        CHECK(r["model"]["tied_embeddings"] == true);
        CHECK(r["model"]["head_dim"] == 256);
        CHECK(r["model"]["mlp"] == "geglu");
        CHECK(r["model"]["hidden_act"] == "gelu_pytorch_tanh");
        CHECK(parameters(r["model"]) == 8537680896);
    }
    SUBCASE("Qwen3-8B: 8,190,735,360 with q_norm and k_norm (model.qk_norm), head_dim 128 from the config") {
        // Qwen3ForCausalLM from the config: 36 layers of (4096*4096 q + 2 * 4096*1024 k, v + 4096*4096 o
        // = 41,943,040 attention, 2 * 128 q/k norms, 3 * 4096*12288 = 150,994,944 MLP, 2 * 4096 norms)
        // = 36 * 192,946,432 = 6,946,071,552, + 2 * 151936*4096 = 1,244,659,712 embedding and untied head,
        // + 4096 final norm = 8,190,735,360. The Hub's safetensors index for Qwen/Qwen3-8B says total_size
        // 16,381,470,720 bytes in bf16, the same 8,190,735,360 (quoted in several stored sources); the model
        // card's 8.2B, 6.95B without embeddings.
        const json r = imported(kQwen3_8b);
        REQUIRE(r["ok"] == true);
        CHECK(r["family"] == "qwen3");
        CHECK(r["unknown"].empty());
        CHECK(r["notes"].empty());
        CHECK(r["model"]["qk_norm"] == true);
        CHECK(r["model"]["head_dim"] == 128);
        CHECK_FALSE(r["model"].contains("experts"));
        CHECK(parameters(r["model"]) == 8190735360);
        // Read as Llama, the 2 * 128 norm weights of each layer go missing.
        CHECK(parameters(model_of(with(kQwen3_8b, "model_type", R"("llama")"))) == 8190735360 - 36 * 256);
        // Qwen3's attention_bias biases q, k, v and o but never the MLP: 36 x (4096 + 2 x 1024 + 4096).
        const json biased = model_of(with(kQwen3_8b, "attention_bias", "true"));
        CHECK(biased["bias"] == true);
        CHECK(biased["mlp_bias"] == false);
        CHECK(parameters(biased) == 8190735360 + 36 * (4096 + 2 * 1024 + 4096));
    }
}

TEST_CASE("config.json: Mixture-of-Experts families import exactly, equal to their presets") {
    SUBCASE("Mixtral 8x7B: 46,702,792,704 (the Hub's safetensors total_size / 2), the mixtral-8x7b preset") {
        const json r = imported(kMixtral);
        REQUIRE(r["ok"] == true);
        CHECK(r["family"] == "mixtral");
        CHECK(r["label"] == "Mixtral");
        CHECK(r["unknown"].empty());  // the router's loss switches are ignored: no weights
        CHECK(r["notes"].empty());
        CHECK_FALSE(r["model"].contains("sliding_window"));  // sliding_window null: no window
        CHECK(r["model"]["experts"] == 8);
        CHECK(r["model"]["experts_per_token"] == 2);
        CHECK(r["model"]["expert_ffn_hidden"] == 14336);  // intermediate_size is one expert's width
        CHECK(parameters(r["model"]) == 46702792704);
        CHECK(resolved(r["model"]) == preset("mixtral-8x7b"));
        // Without the expert keys, MixtralConfig's defaults (8 experts, top-2), never the engine's dense default.
        json bare = json::parse(kMixtral);
        bare.erase("num_local_experts");
        bare.erase("num_experts_per_tok");
        CHECK(parameters(model_of(bare.dump())) == 46702792704);
        CHECK(refusal(with(kMixtral, "num_local_experts", "0"))["path"] == "/num_local_experts");
    }
    SUBCASE("Mixtral 8x22B: 140,620,634,112 from the config (Mistral's 141B), the mixtral-8x22b preset") {
        const json m = model_of(patched(kMixtral, R"({"hidden_size": 6144, "intermediate_size": 16384,
            "num_hidden_layers": 56, "num_attention_heads": 48, "max_position_embeddings": 65536})"));
        CHECK(parameters(m) == 140620634112);  // validation/moe_facts.md 1.2
        CHECK(resolved(m) == preset("mixtral-8x22b"));
    }
    SUBCASE("Qwen3-30B-A3B: 30,532,122,624 (the model card's 30.5B), the qwen3-30b-a3b preset") {
        const json r = imported(kQwen3Moe);
        REQUIRE(r["ok"] == true);
        CHECK(r["family"] == "qwen3_moe");
        CHECK(r["unknown"].empty());  // norm_topk_prob read: it renormalizes routing weights, no weights
        CHECK(r["notes"].empty());
        CHECK(r["model"]["qk_norm"] == true);
        CHECK(r["model"]["experts"] == 128);
        CHECK(r["model"]["experts_per_token"] == 8);
        CHECK(r["model"]["expert_ffn_hidden"] == 768);
        CHECK(r["model"]["moe_every"] == 1);  // decoder_sparse_step
        CHECK(parameters(r["model"]) == 30532122624);
        CHECK(resolved(r["model"]) == preset("qwen3-30b-a3b"));
    }
    SUBCASE("Qwen3-235B-A22B: 235,093,634,560 (the model card's 235B), the qwen3-235b-a22b preset") {
        // The 30B-A3B file with the 235B-A22B's architecture values (validation/moe_facts.md 1.5).
        const json m = model_of(patched(kQwen3Moe, R"({"hidden_size": 4096, "intermediate_size": 12288,
            "moe_intermediate_size": 1536, "num_hidden_layers": 94, "num_attention_heads": 64,
            "max_window_layers": 94})"));
        CHECK(parameters(m) == 235093634560);
        CHECK(resolved(m) == preset("qwen3-235b-a22b"));
    }
    SUBCASE("Qwen3-MoE: decoder_sparse_step is model.moe_every; no experts is a dense model") {
        // Qwen3MoeDecoderLayer: sparse iff (i + 1) % decoder_sparse_step == 0, the engine's pattern.
        const json every2 = model_of(with(kQwen3Moe, "decoder_sparse_step", "2"));
        CHECK(every2["moe_every"] == 2);
        // 24 dense layers of 3 * 2048*6144 instead of 24 MoE layers of router and 128 experts.
        CHECK(parameters(every2) == 30532122624 - 24 * (2048 * 128 + 128 * int64_t{3} * 2048 * 768 - 3 * 2048 * 6144));
        // `config.num_experts > 0` decides whether any layer is sparse.
        const json dense = model_of(with(kQwen3Moe, "num_experts", "0"));
        CHECK_FALSE(dense.contains("experts"));
        CHECK_FALSE(dense.contains("moe_every"));
        CHECK(dense["qk_norm"] == true);
    }
    SUBCASE("Qwen3-MoE as transformers 5 writes it: num_local_experts for num_experts; the two must agree") {
        // Qwen3MoeConfig's attribute_map (num_experts -> num_local_experts): a config saved by transformers 5
        // names the count num_local_experts. It was refused as "a layout the importer has no table for".
        json written = json::parse(kQwen3Moe);
        written["num_local_experts"] = written["num_experts"];
        written.erase("num_experts");
        const json r = imported(written.dump());
        REQUIRE(r["ok"] == true);
        CHECK(r["unknown"].empty());
        CHECK(resolved(r["model"]) == preset("qwen3-30b-a3b"));
        // Both keys, as one value: the same model; two values: refused at the second key, naming the first.
        written["num_experts"] = 128;
        CHECK(resolved(model_of(written.dump())) == preset("qwen3-30b-a3b"));
        written["num_experts"] = 64;
        const json both = refusal(written.dump());
        CHECK(both["path"] == "/num_local_experts");
        CHECK(says(both, "while num_experts is 64"));
    }
    SUBCASE("Llama 4 Scout: the text model of 107,769,861,120 from text_config, the llama-4-scout preset") {
        const json r = imported(kLlama4Scout);
        REQUIRE(r["ok"] == true);
        CHECK(r["family"] == "llama4");
        CHECK(r["label"] == "Llama 4");
        CHECK(r["unknown"].empty());
        const json& m = r["model"];
        CHECK(m["ffn_hidden"] == 16384);               // intermediate_size_mlp
        CHECK(m["expert_ffn_hidden"] == 8192);         // intermediate_size
        CHECK(m["shared_expert_ffn_hidden"] == 8192);  // the shared expert is a Llama4TextMLP of intermediate_size
        CHECK(m["shared_experts"] == 1);
        CHECK_FALSE(m.contains("qk_norm"));  // use_qk_norm is an L2 norm without weights
        CHECK_FALSE(m.contains("moe_every"));  // moe_layers 0..47: every layer
        CHECK(parameters(m) == 107769861120);
        CHECK(resolved(m) == preset("llama-4-scout"));
        // Notes: the weightless QK-norm, the chunked attention, the NoPE layers, the vision tower left out.
        const std::string notes = r["notes"].dump();
        CHECK(r["notes"].size() == 4);
        CHECK(notes.find("text_config.use_qk_norm true") != std::string::npos);
        CHECK(notes.find("text_config.attention_chunk_size 8192") != std::string::npos);
        CHECK(notes.find("12 layers use no rotary embedding") != std::string::npos);
        CHECK(notes.find("vision_config: the vision encoder and its projector are not imported") != std::string::npos);
        // Without moe_layers, interleave_moe_layer_step gives the same layers (Llama4TextConfig).
        json stepped = json::parse(kLlama4Scout);
        stepped["text_config"].erase("moe_layers");
        CHECK(resolved(model_of(stepped.dump())) == preset("llama-4-scout"));
        // The text model's own config (model_type llama4_text, Llama4ForCausalLM) reads the same.
        json text = json::parse(kLlama4Scout)["text_config"];
        text["architectures"] = {"Llama4ForCausalLM"};
        CHECK(resolved(model_of(text.dump())) == preset("llama-4-scout"));
    }
    SUBCASE("Llama 4 Maverick: 400,711,848,960, MoE on every second layer, the llama-4-maverick preset") {
        // Scout's text_config with Maverick's values (validation/moe_facts.md 1.9; TensorRT-LLM's copy of the
        // Maverick config: 128 experts, interleave_moe_layer_step 2, use_qk_norm false, 1048576 positions).
        json moe_layers = json::array();
        for (int i = 1; i < 48; i += 2) moe_layers.push_back(i);
        json config = json::parse(kLlama4Scout);
        config["text_config"].merge_patch({{"num_local_experts", 128}, {"interleave_moe_layer_step", 2},
                                           {"moe_layers", moe_layers}, {"use_qk_norm", false},
                                           {"max_position_embeddings", 1048576}});
        const json r = imported(config.dump());
        REQUIRE(r["ok"] == true);
        CHECK(r["model"]["moe_every"] == 2);  // layers 1, 3, ..., 47: (i + 1) % 2 == 0
        CHECK(r["notes"].dump().find("use_qk_norm") == std::string::npos);
        CHECK(parameters(r["model"]) == 400711848960);
        CHECK(resolved(r["model"]) == preset("llama-4-maverick"));
        config["text_config"].erase("moe_layers");
        CHECK(resolved(model_of(config.dump())) == preset("llama-4-maverick"));
    }
    SUBCASE("Llama 4: moe_layers after leading dense layers, or none") {
        // Layers 3..47 MoE: three dense layers first (model.first_dense_layers), as DeepSeek places them.
        json late = json::array();
        for (int i = 3; i < 48; ++i) late.push_back(i);
        json config = json::parse(kLlama4Scout);
        config["text_config"]["moe_layers"] = late;
        const json m = model_of(config.dump());
        CHECK(m["first_dense_layers"] == 3);
        CHECK_FALSE(m.contains("moe_every"));
        // Three Llama4TextMLP of 16384 in place of three MoE blocks.
        CHECK(parameters(m) ==
              107769861120 - 3 * (5120 * 16 + 16 * int64_t{3} * 5120 * 8192 + 3 * 5120 * 8192 - 3 * 5120 * 16384));
        // No MoE layer: a dense model of intermediate_size_mlp.
        config["text_config"]["moe_layers"] = json::array();
        const json dense = model_of(config.dump());
        CHECK_FALSE(dense.contains("experts"));
        CHECK(dense["ffn_hidden"] == 16384);
    }
}

TEST_CASE("config.json: latent attention (DeepSeek) and gpt-oss import exactly, equal to their presets") {
    SUBCASE("DeepSeek-V3: 682,636,487,424 with its MTP module, 671,026,419,200 without, the deepseek-v3 preset") {
        const json r = imported(kDeepSeekV3);
        REQUIRE(r["ok"] == true);
        CHECK(r["family"] == "deepseek_v3");
        CHECK(r["label"] == "DeepSeek-V3");
        CHECK(r["unknown"].empty());  // routing keys (groups, scaling, score function, ep_size) have no weights
        const json& m = r["model"];
        CHECK(m["q_lora_rank"] == 1536);
        CHECK(m["kv_lora_rank"] == 512);
        CHECK(m["head_dim"] == 128);  // qk_nope_head_dim
        CHECK(m["qk_rope_head_dim"] == 64);
        CHECK(m["v_head_dim"] == 128);
        CHECK(m["experts"] == 256);
        CHECK(m["shared_experts"] == 1);
        CHECK(m["first_dense_layers"] == 3);
        CHECK(m["router_bias"] == true);  // topk_method noaux_tc: e_score_correction_bias
        // What transformers' DeepseekV3ForCausalLM builds: the main model, DeepSeek's "671B" (validation/moe_facts.md
        // 1.3), without the multi-token prediction module its config names (num_nextn_predict_layers 1).
        CHECK_FALSE(m.contains("mtp_layers"));
        CHECK(parameters(m) == 671026419200);
        // The note says how to add the module; with it the model is the deepseek-v3 preset, as DeepSeek trains it.
        REQUIRE(r["notes"].size() == 1);
        CHECK(r["notes"][0].get<std::string>().find("num_nextn_predict_layers 1") != std::string::npos);
        CHECK(r["notes"][0].get<std::string>().find("model.mtp_layers 1") != std::string::npos);
        json with_mtp = m;
        with_mtp["mtp_layers"] = 1;
        CHECK(parameters(with_mtp) == 682636487424);
        CHECK(resolved(with_mtp) == preset("deepseek-v3"));
        CHECK(refusal(with(kDeepSeekV3, "num_nextn_predict_layers", "\"one\""))["path"] == "/num_nextn_predict_layers");
        // Without the routing keys, DeepseekV3Config's defaults: the same model.
        json bare = json::parse(kDeepSeekV3);
        for (const char* key : {"n_routed_experts", "num_experts_per_tok", "moe_intermediate_size", "n_shared_experts",
                                "first_k_dense_replace", "topk_method", "q_lora_rank", "qk_rope_head_dim"})
            bare.erase(key);
        json bare_model = model_of(bare.dump());
        bare_model["mtp_layers"] = 1;
        CHECK(resolved(bare_model) == preset("deepseek-v3"));
    }
    SUBCASE("DeepSeek-V2-Lite: 15,706,484,224 with queries projected directly (q_lora_rank null)") {
        // 2 * 102400*2048 embedding and untied head; 27 layers of MLA (q_proj 3072*2048, kv_a_proj_with_mqa
        // 576*2048, kv_a_layernorm 512, kv_b_proj 4096*512, o_proj 2048*2048) and 2 norms = 13,767,168 each;
        // layer 0 dense (3 * 2048*10944); 26 MoE layers of 64 experts of 3 * 2048*1408, the [64, 2048] gate and
        // 2 shared experts as one MLP of 2816 = 571,080,704 each; the final norm. The safetensors of
        // DeepSeek-V2-Lite-Chat hold 15,706,484,224 (a stored tensor-by-tensor listing), the model card's 15.7B.
        const json r = imported(kDeepSeekV2Lite);
        REQUIRE(r["ok"] == true);
        CHECK(r["family"] == "deepseek_v2");
        CHECK(r["unknown"].empty());  // head_dim is the rotary width; auto_map names DeepSeek's own classes
        CHECK(r["notes"].empty());
        const json& m = r["model"];
        CHECK(m["q_lora_rank"] == 0);
        CHECK(m["first_dense_layers"] == 1);
        CHECK(m["shared_experts"] == 2);  // model.shared_expert_ffn_hidden: 2 * 1408, its default
        CHECK_FALSE(m.contains("router_bias"));  // greedy routing: DeepseekV2Moe's gate has no bias
        CHECK_FALSE(m.contains("mtp_layers"));
        CHECK(parameters(m) == 15706484224);
    }
    SUBCASE("DeepSeek-V2: 235,741,434,880 (the model card's 236B)") {
        // DeepSeek-V2's architecture values in the V2-Lite file: hidden 5120, 60 layers, 128 heads, q_lora_rank
        // 1536, 160 experts of 1536, dense width 12288, group-limited routing. Embedding and head 1,048,576,000,
        // 60 MLA layers with norms 8,954,265,600, layer 0's dense MLP 188,743,680, 59 MoE layers of
        // 3,822,878,720, the final norm 5,120: 235,741,434,880, as stored accounts of the checkpoint give it.
        const json m = model_of(patched(kDeepSeekV2Lite, R"({"hidden_size": 5120, "intermediate_size": 12288,
            "moe_intermediate_size": 1536, "n_routed_experts": 160, "num_attention_heads": 128,
            "num_key_value_heads": 128, "num_hidden_layers": 60, "q_lora_rank": 1536,
            "topk_method": "group_limited_greedy", "n_group": 8, "topk_group": 3, "routed_scaling_factor": 16.0})"));
        CHECK(parameters(m) == 235741434880);
    }
    SUBCASE("DeepSeek: null shared or routed experts, as DeepSeek's code reads None") {
        const json no_shared = model_of(with(kDeepSeekV2Lite, "n_shared_experts", "null"));
        CHECK(no_shared["shared_experts"] == 0);
        CHECK(parameters(no_shared) == 15706484224 - 26 * int64_t{3} * 2048 * 2816);
        const json dense = model_of(with(kDeepSeekV2Lite, "n_routed_experts", "null"));
        CHECK_FALSE(dense.contains("experts"));
        CHECK_FALSE(dense.contains("first_dense_layers"));
    }
    SUBCASE("gpt-oss-20b: 20,914,757,184, sinks, biases and the alternating window, the gpt-oss-20b preset") {
        const json r = imported(kGptOss20b);
        REQUIRE(r["ok"] == true);
        CHECK(r["family"] == "gpt_oss");
        CHECK(r["label"] == "gpt-oss");
        CHECK(r["unknown"].empty());  // initial_context_length changes no weights
        CHECK(r["notes"].empty());
        const json& m = r["model"];
        CHECK(m["swiglu_limit"] == 7.0);  // GptOssExperts' clamp (its time and saved tensors under transformers)
        CHECK(m["bias"] == true);
        CHECK(m["router_bias"] == true);
        CHECK(m["attention_sinks"] == true);
        CHECK(m["sliding_window"] == 128);
        CHECK(m["global_every"] == 2);  // GptOssConfig's default layer_types: sliding, full, sliding, ...
        CHECK(m["expert_ffn_hidden"] == 2880);
        CHECK(parameters(m) == 20914757184);
        CHECK(resolved(m) == preset("gpt-oss-20b"));
        // The published file's own layer_types read the same.
        json listed = json::parse(kGptOss20b);
        for (int i = 0; i < 24; ++i)
            listed["layer_types"].push_back(i % 2 == 0 ? "sliding_attention" : "full_attention");
        CHECK(resolved(model_of(listed.dump())) == preset("gpt-oss-20b"));
        // OpenAI's experts_per_token stands in for a missing num_experts_per_tok.
        json openai = json::parse(kGptOss20b);
        openai.erase("num_experts_per_tok");
        CHECK(model_of(openai.dump())["experts_per_token"] == 4);
        // GptOssConfig's default clamp where the file gives none; a clamp of 0 or a word is not understood.
        json bare = json::parse(kGptOss20b);
        bare.erase("swiglu_limit");
        CHECK(model_of(bare.dump())["swiglu_limit"] == 7.0);
        bare["swiglu_limit"] = "seven";
        CHECK(imported(bare.dump())["unknown"] == json::array({"swiglu_limit=\"seven\""}));
    }
    SUBCASE("gpt-oss-120b: 116,829,156,672, the gpt-oss-120b preset") {
        // https://huggingface.co/openai/gpt-oss-120b/blob/main/config.json: the 20b file with 36 layers and 128
        // experts (validation/moe_facts.md 1.7).
        json config = json::parse(patched(kGptOss20b, R"({"num_hidden_layers": 36, "num_local_experts": 128})"));
        for (int i = 0; i < 36; ++i)
            config["layer_types"].push_back(i % 2 == 0 ? "sliding_attention" : "full_attention");
        const json m = model_of(config.dump());
        CHECK(parameters(m) == 116829156672);
        CHECK(resolved(m) == preset("gpt-oss-120b"));
        // Without num_local_experts, GptOssConfig's default (128), never a dense model.
        json bare = json::parse(config.dump());
        bare.erase("num_local_experts");
        CHECK(parameters(model_of(bare.dump())) == 116829156672);
    }
}

TEST_CASE("config.json: Gemma 2 and Gemma 3 import exactly: four norms, QK-norm and their windows") {
    SUBCASE("Gemma 2 9B: 9,241,705,984 with four norms per layer, every other layer local") {
        // Gemma2ForCausalLM from the config: 256000*3584 = 917,504,000 embedding (tied); 42 layers of (3584*4096 q
        // + 2 * 3584*2048 k, v + 4096*3584 o = 44,040,192 attention, 3 * 3584*14336 = 154,140,672 GeGLU MLP,
        // 4 * 3584 norms) = 42 * 198,195,200 = 8,324,198,400; the final norm 3584: 9,241,705,984, the Hub's
        // safetensors total for google/gemma-2-9b and Keras's gemma2_9b_en count (stored sources quote both).
        const json r = imported(kGemma2_9b);
        REQUIRE(r["ok"] == true);
        CHECK(r["family"] == "gemma2");
        CHECK(r["label"] == "Gemma 2");
        CHECK(r["unknown"].empty());  // hidden_act (not read), query_pre_attn_scalar, cache_implementation
        const json& m = r["model"];
        CHECK(m["post_norms"] == true);
        CHECK_FALSE(m.contains("qk_norm"));
        CHECK(m["head_dim"] == 256);
        CHECK(m["kv_heads"] == 8);
        CHECK(m["mlp"] == "geglu");
        CHECK(m["hidden_act"] == "gelu_pytorch_tanh");  // hidden_activation
        CHECK(m["tied_embeddings"] == true);            // Gemma2Config's default: the file gives none
        CHECK(m["sliding_window"] == 4096);
        CHECK(m["global_every"] == 2);  // layers 0, 2, 4, ... local; 1, 3, 5, ... global
        CHECK(parameters(m) == 9241705984);
        // The soft-caps change no weights: the output logits' is model.logit_softcap, the attention scores'
        // model.attention_softcap (their passes and the tanh's saved output counted).
        CHECK(m["logit_softcap"] == 30.0);
        CHECK(m["attention_softcap"] == 50.0);
        CHECK(r["notes"].empty());
        // Read as Gemma (GemmaDecoderLayer: two norms), each layer would lose its two output norms.
        CHECK(parameters(model_of(with(kGemma2_9b, "model_type", R"("gemma")"))) == 9241705984 - 42 * 2 * 3584);
        // The layer_types newer transformers write out place the same layers.
        json listed = json::parse(kGemma2_9b);
        for (int i = 0; i < 42; ++i)
            listed["layer_types"].push_back(i % 2 == 0 ? "sliding_attention" : "full_attention");
        CHECK(model_of(listed.dump()) == m);
        // Gemma2Config's window is 4096 when the file gives none; null leaves every layer global.
        json bare = json::parse(kGemma2_9b);
        bare.erase("sliding_window");
        CHECK(model_of(bare.dump()) == m);
        const json full = model_of(with(kGemma2_9b, "sliding_window", "null"));
        CHECK_FALSE(full.contains("sliding_window"));
        CHECK_FALSE(full.contains("global_every"));
    }
    SUBCASE("Gemma 2 27B: 27,227,128,320; Gemma2Config's defaults are Gemma 2 2B: 2,614,341,888") {
        // https://huggingface.co/google/gemma-2-27b/blob/main/config.json: the 9B file with the 27B's values, and
        // Google's sliding_window_size and _attn_implementation. 256000*4608 = 1,179,648,000 embedding; 46 layers
        // of (4608*4096 q + 2 * 4608*2048 k, v + 4096*4608 o = 56,623,104, 3 * 4608*36864 = 509,607,936 MLP,
        // 4 * 4608 norms) = 46 * 566,249,472 = 26,047,475,712; the final norm 4608: 27,227,128,320, Keras's
        // gemma2_27b_en count (stored sources quote it with the Hub's).
        const std::string big = patched(kGemma2_9b, R"({"hidden_size": 4608, "intermediate_size": 36864,
            "num_hidden_layers": 46, "num_attention_heads": 32, "num_key_value_heads": 16, "head_dim": 128,
            "query_pre_attn_scalar": 144, "sliding_window_size": 4096, "_attn_implementation": "eager"})");
        const json r = imported(big);
        REQUIRE(r["ok"] == true);
        CHECK(r["unknown"].empty());  // sliding_window_size repeats the window; _attn_implementation is runtime
        CHECK(parameters(r["model"]) == 27227128320);
        // modeling_gemma2.py never reads sliding_window_size: one that disagrees with the window is listed.
        const json other = imported(with(big.c_str(), "sliding_window_size", "2048"));
        REQUIRE(other["ok"] == true);
        CHECK(other["model"]["sliding_window"] == 4096);
        CHECK(other["unknown"] == json::array({"sliding_window_size=2048"}));
        // A key the file leaves out reads as Gemma2Config's default, as transformers reads it; the defaults are
        // Gemma 2 2B's architecture: 256000*2304 = 589,824,000 embedding, 26 layers of (2304*2048 q + 2 *
        // 2304*1024 k, v + 2048*2304 o = 14,155,776, 3 * 2304*9216 = 63,700,992 MLP, 4 * 2304 norms) = 26 *
        // 77,865,984 = 2,024,515,584, the final norm 2304: 2,614,341,888, google/gemma-2-2b's safetensors total.
        const json bare = imported(R"({"model_type": "gemma2"})");
        REQUIRE(bare["ok"] == true);
        const json& defaults = bare["model"];
        CHECK(defaults["sliding_window"] == 4096);
        CHECK(defaults["global_every"] == 2);
        CHECK(parameters(defaults) == 2614341888);
        // Gemma2Config's soft-caps (50.0, 30.0) apply too, and are noted as defaults; null turns one off.
        CHECK(defaults["logit_softcap"] == 30.0);
        CHECK(defaults["attention_softcap"] == 50.0);
        REQUIRE(bare["notes"].size() == 2);
        CHECK(bare["notes"][0].get<std::string>().rfind("final_logit_softcapping 30.0 (the default): ", 0) == 0);
        CHECK(bare["notes"][1].get<std::string>().rfind("attn_logit_softcapping 50.0 (the default): ", 0) == 0);
        CHECK_FALSE(imported(with(big.c_str(), "attn_logit_softcapping", "null"))["model"].contains("attention_softcap"));
        CHECK_FALSE(imported(with(big.c_str(), "final_logit_softcapping", "null"))["model"].contains("logit_softcap"));
    }
    SUBCASE("Gemma 3 27B: the text model of 27,009,346,304 from text_config, the gemma-3-27b preset") {
        const json r = imported(kGemma3_27b);
        REQUIRE(r["ok"] == true);
        CHECK(r["family"] == "gemma3");
        CHECK(r["label"] == "Gemma 3");
        CHECK(r["unknown"].empty());  // mm_tokens_per_image belongs to the vision side
        const json& m = r["model"];
        CHECK(m["vocab"] == 262208);  // Gemma3TextConfig's default: the file gives none
        CHECK(m["qk_norm"] == true);
        CHECK(m["post_norms"] == true);
        CHECK(m["sliding_window"] == 1024);
        CHECK(m["global_every"] == 6);  // the sliding_window_pattern default: layers 5, 11, ..., 59 global
        // 262208*5376 = 1,409,630,208 embedding (tied); 62 layers of (5376*4096 q + 2 * 5376*2048 k, v +
        // 4096*5376 o = 66,060,288, q_norm and k_norm 2 * 128, 3 * 5376*21504 = 346,816,512 MLP, 4 * 5376 norms)
        // = 62 * 412,898,560 = 25,599,710,720; the final norm 5376: 27,009,346,304 (the preset's reference).
        CHECK(parameters(m) == 27009346304);
        CHECK(resolved(m) == preset("gemma-3-27b"));
        REQUIRE(r["notes"].size() == 1);
        CHECK(r["notes"][0].get<std::string>().rfind("vision_config: the vision encoder and its projector are not "
                                                     "imported: the model is Gemma 3's language model alone", 0) == 0);
        // The text model's own config (Gemma3ForCausalLM, model_type gemma3_text) reads the same.
        json text = json::parse(kGemma3_27b)["text_config"];
        text["architectures"] = {"Gemma3ForCausalLM"};
        CHECK(resolved(model_of(text.dump())) == preset("gemma-3-27b"));
        // Newer exports list layer_types and write _sliding_window_pattern beside them: the same layers.
        json listed = json::parse(kGemma3_27b);
        for (int i = 0; i < 62; ++i)
            listed["text_config"]["layer_types"].push_back((i + 1) % 6 == 0 ? "full_attention" : "sliding_attention");
        listed["text_config"]["_sliding_window_pattern"] = 6;
        const json again = imported(listed.dump());
        REQUIRE(again["ok"] == true);
        CHECK(again["unknown"].empty());
        CHECK(resolved(again["model"]) == preset("gemma-3-27b"));
        // A copy of the pattern that disagrees with the listed layers is listed, under text_config.
        listed["text_config"]["_sliding_window_pattern"] = 4;
        CHECK(imported(listed.dump())["unknown"] == json::array({"text_config._sliding_window_pattern=4"}));
        // The vision tower's numbers are not read: one beyond double range there does not matter.
        std::string huge = json::parse(kGemma3_27b).dump();
        huge.replace(huge.find("\"mm_tokens_per_image\":256"), 25, "\"mm_tokens_per_image\":1e999");
        CHECK(json::parse(shardcalc::import_config_text(huge))["ok"] == true);
    }
    SUBCASE("Gemma 3 1B: 999,885,952, one KV head, sliding_window_pattern 6") {
        // 262144*1152 = 301,989,888 embedding (tied); 26 layers of (1152*1024 q + 2 * 1152*256 k, v + 1024*1152 o
        // = 2,949,120, q_norm and k_norm 2 * 256, 3 * 1152*6912 = 23,887,872 MLP, 4 * 1152 norms) = 26 *
        // 26,842,112 = 697,894,912; the final norm 1152: 999,885,952, the Hub's safetensors total for
        // google/gemma-3-1b-it and llama.cpp's n_params (stored sources quote both).
        const json r = imported(kGemma3_1b);
        REQUIRE(r["ok"] == true);
        CHECK(r["family"] == "gemma3");
        CHECK(r["unknown"].empty());  // rope_local_base_freq, query_pre_attn_scalar: no weights
        CHECK(r["notes"].empty());    // both soft-caps null
        const json& m = r["model"];
        CHECK(m["kv_heads"] == 1);
        CHECK(m["sliding_window"] == 512);
        CHECK(m["global_every"] == 6);
        CHECK(parameters(m) == 999885952);
        // The pattern places the global layers: every third; 1 makes every layer global (no window); a pattern
        // beyond the layer count leaves every layer local.
        CHECK(model_of(with(kGemma3_1b, "sliding_window_pattern", "3"))["global_every"] == 3);
        CHECK_FALSE(model_of(with(kGemma3_1b, "sliding_window_pattern", "1")).contains("sliding_window"));
        const json local = model_of(with(kGemma3_1b, "sliding_window_pattern", "100"));
        CHECK(local["sliding_window"] == 512);
        CHECK_FALSE(local.contains("global_every"));
        // Without it, Gemma3TextConfig's 6.
        json bare = json::parse(kGemma3_1b);
        bare.erase("sliding_window_pattern");
        CHECK(model_of(bare.dump()) == m);
        // Read as Gemma 2 (no q_norm, k_norm), each layer would lose its 2 * 256 norm weights.
        CHECK(parameters(model_of(with(kGemma3_1b, "model_type", R"("gemma2")"))) == 999885952 - 26 * 512);
    }
    SUBCASE("Gemma 2 and 3: what the engine cannot build is refused at its key") {
        // A pattern of 0 divides by zero in Gemma3TextConfig.
        const json zero = refusal(with(kGemma3_1b, "sliding_window_pattern", "0"));
        CHECK(zero["path"] == "/sliding_window_pattern");
        CHECK(says(zero, "at least 1"));
        // Global layers first, then five local ones: not the engine's pattern, named under text_config.
        json config = json::parse(kGemma3_27b);
        for (int i = 0; i < 62; ++i)
            config["text_config"]["layer_types"].push_back(i % 6 == 0 ? "full_attention" : "sliding_attention");
        const json first = refusal(config.dump());
        CHECK(first["path"] == "/text_config/layer_types");
        CHECK(says(first, "cannot place"));
        // EmbeddingGemma's bidirectional attention: the same weights, not a causal decoder.
        const json both = refusal(with(kGemma3_1b, "use_bidirectional_attention", "true"));
        CHECK(both["path"] == "/use_bidirectional_attention");
        CHECK(says(both, "attends causally"));
        CHECK(imported(with(kGemma3_1b, "use_bidirectional_attention", "false"))["ok"] == true);
        CHECK(refusal(with(kGemma2_9b, "use_bidirectional_attention", "true"))["path"] == "/use_bidirectional_attention");
        // attention_bias biases q, k, v and o, never the MLP, as in Gemma.
        CHECK(model_of(with(kGemma2_9b, "attention_bias", "true"))["mlp_bias"] == false);
        config = json::parse(kGemma3_27b);
        config["text_config"]["attention_bias"] = true;
        CHECK(model_of(config.dump())["mlp_bias"] == false);
        // The wrapper's tie_word_embeddings against the text model's, whose default (Gemma3TextConfig) is true.
        const json tied = refusal(with(kGemma3_27b, "tie_word_embeddings", "false"));
        CHECK(tied["path"] == "/tie_word_embeddings");
        CHECK(says(tied, "text_config.tie_word_embeddings is not given (true)"));
        CHECK(imported(with(kGemma3_27b, "tie_word_embeddings", "true"))["ok"] == true);
        // A Gemma3Config without its text model: Gemma3TextConfig's defaults are not guessed at.
        config = json::parse(kGemma3_27b);
        config.erase("text_config");
        CHECK(refusal(config.dump())["path"] == "/text_config");
    }
}

TEST_CASE("config.json: sliding windows where each family's code places them, or refused by name") {
    SUBCASE("Mistral and Mixtral: every layer local") {
        // MistralConfig's default window is 4096; null turns it off.
        json bare = json::parse(kMistral7b);
        bare.erase("sliding_window");
        CHECK(model_of(bare.dump())["sliding_window"] == 4096);
        CHECK_FALSE(model_of(with(kMistral7b, "sliding_window", "null")).contains("sliding_window"));
        const json mixtral = model_of(with(kMixtral, "sliding_window", "4096"));
        CHECK(mixtral["sliding_window"] == 4096);
        CHECK_FALSE(mixtral.contains("global_every"));
        CHECK(parameters(mixtral) == 46702792704);
        // A window that is not a token count is refused as the scenario refuses it.
        CHECK(refusal(with(kMistral7b, "sliding_window", R"("4k")"))["path"] == "/sliding_window");
    }
    SUBCASE("Llama: LlamaAttention has no window, so the key is listed, not read") {
        const json r = imported(with(kLlama31_8b, "sliding_window", "4096"));
        REQUIRE(r["ok"] == true);
        CHECK_FALSE(r["model"].contains("sliding_window"));
        CHECK(r["unknown"] == json::array({"sliding_window"}));
    }
    SUBCASE("Qwen: only with use_sliding_window, on the layers from max_window_layers on") {
        // Published configs say use_sliding_window false: no window, whatever sliding_window says.
        CHECK_FALSE(model_of(kQwen25_7b).contains("sliding_window"));
        const std::string on = patched(kQwen3_8b, R"({"use_sliding_window": true, "sliding_window": 4096})");
        // max_window_layers 36 of 36: every layer full, no window.
        CHECK_FALSE(model_of(on).contains("sliding_window"));
        // 0: every layer local.
        const json all = model_of(patched(on, R"({"max_window_layers": 0})"));
        CHECK(all["sliding_window"] == 4096);
        CHECK_FALSE(all.contains("global_every"));
        // 18: the first 18 layers full, the rest local, which the engine's pattern cannot place.
        const json half = refusal(patched(on, R"({"max_window_layers": 18})"));
        CHECK(half["path"] == "/max_window_layers");
        CHECK(says(half, "the first global layer here is layer 0"));
        CHECK(says(half, "layer 18 is local"));
        // layer_types, when listed, decide.
        json listed = json::parse(on);
        for (int i = 0; i < 36; ++i)
            listed["layer_types"].push_back(i % 3 == 2 ? "full_attention" : "sliding_attention");
        const json every3 = model_of(listed.dump());
        CHECK(every3["global_every"] == 3);
        CHECK(parameters(every3) == 8190735360);
        // Qwen3-MoE's attention windows every layer when nothing says otherwise.
        const json moe = model_of(patched(kQwen3Moe, R"({"use_sliding_window": true, "sliding_window": 4096,
            "max_window_layers": null})"));
        CHECK(moe["sliding_window"] == 4096);
        CHECK_FALSE(moe.contains("global_every"));
        CHECK(refusal(with(kQwen3_8b, "use_sliding_window", R"("yes")"))["path"] == "/use_sliding_window");
    }
    SUBCASE("layer_types the engine's pattern cannot express are refused at /layer_types") {
        // Global first, then alternating: layer 0 global makes every layer global, but layer 1 is local.
        json config = json::parse(kGptOss20b);
        for (int i = 0; i < 24; ++i)
            config["layer_types"].push_back(i % 2 == 0 ? "full_attention" : "sliding_attention");
        const json first = refusal(config.dump());
        CHECK(first["path"] == "/layer_types");
        CHECK(says(first, "cannot place"));
        CHECK(says(first, "layer 1 is local"));
        // Every third layer global, then two in a row.
        config["layer_types"] = json::array();
        for (int i = 0; i < 24; ++i)
            config["layer_types"].push_back(i % 3 == 2 || i == 22 ? "full_attention" : "sliding_attention");
        CHECK(refusal(config.dump())["path"] == "/layer_types");
        // A list of the wrong length, and a kind the importer does not read.
        config["layer_types"] = json::array({"sliding_attention"});
        CHECK(says(refusal(config.dump()), "one attention kind per layer (24 layers)"));
        config["layer_types"] = json::array();
        for (int i = 0; i < 24; ++i)
            config["layer_types"].push_back(i == 5 ? "chunked_attention" : "sliding_attention");
        CHECK(says(refusal(config.dump()), "\"chunked_attention\": only sliding_attention and full_attention"));
        // Every layer local is global_every 0; every layer full is no window at all.
        config["layer_types"] = json::array();
        for (int i = 0; i < 24; ++i) config["layer_types"].push_back("sliding_attention");
        const json local = model_of(config.dump());
        CHECK(local["sliding_window"] == 128);
        CHECK_FALSE(local.contains("global_every"));
        config["layer_types"] = json::array();
        for (int i = 0; i < 24; ++i) config["layer_types"].push_back("full_attention");
        CHECK_FALSE(model_of(config.dump()).contains("sliding_window"));
    }
}

TEST_CASE("config.json: Mixture-of-Experts layouts the engine does not build are refused with the reason") {
    SUBCASE("DeepSeek: layer patterns, biases and routers the engine does not build, at their keys") {
        // moe_layer_freq 2: DeepSeek's code makes only even layers MoE, transformers' every layer from
        // first_k_dense_replace on; the two disagree and the engine's pattern is neither, so refused by name.
        const json freq = refusal(with(kDeepSeekV3, "moe_layer_freq", "2"));
        CHECK(freq["path"] == "/moe_layer_freq");
        CHECK(says(freq, "i % moe_layer_freq == 0"));
        CHECK(says(freq, "only 1 is read"));
        // attention_bias biases q_a_proj, kv_a_proj_with_mqa and o_proj alone.
        const json biased = refusal(with(kDeepSeekV3, "attention_bias", "true"));
        CHECK(biased["path"] == "/attention_bias");
        CHECK(says(biased, "kv_a_proj_with_mqa"));
        CHECK(refusal(with(kDeepSeekV2Lite, "mlp_bias", "true"))["path"] == "/mlp_bias");
        // A routing whose router the importer does not know; V2's greedy routing in a V3 config, V3's in a V2 one.
        CHECK(refusal(with(kDeepSeekV3, "topk_method", R"("greedy")"))["path"] == "/topk_method");
        CHECK(refusal(with(kDeepSeekV2Lite, "topk_method", R"("noaux_tc")"))["path"] == "/topk_method");
        // No latent: DeepSeek's attention always has one.
        CHECK(refusal(with(kDeepSeekV3, "kv_lora_rank", "0"))["path"] == "/kv_lora_rank");
        CHECK(refusal(with(kDeepSeekV3, "n_routed_experts", "0"))["path"] == "/n_routed_experts");
        // MLA must have a K/V head per query head (the engine's rule, named at the config key).
        CHECK(refusal(with(kDeepSeekV3, "num_key_value_heads", "8"))["path"] == "/num_key_value_heads");
    }
    SUBCASE("a latent rank in a family read with q, k and v projections, at kv_lora_rank") {
        const json llama = refusal(with(kLlama31_8b, "kv_lora_rank", "512"));
        CHECK(llama["path"] == "/kv_lora_rank");
        CHECK(says(llama, "Multi-head Latent Attention"));
        CHECK(says(llama, "deepseek_v2 and deepseek_v3"));
        // A type the importer has no table for (Kimi K2 style configs name their own) is refused there too.
        CHECK(refusal(with(kDeepSeekV3, "model_type", R"("kimi_k2")"))["path"] == "/kv_lora_rank");
    }
    SUBCASE("gpt-oss: biases the engine cannot place, and two top-k keys that disagree") {
        // attention_bias false leaves the expert biases (model.mlp_bias): q, k, v and o lose theirs.
        const json unbiased = model_of(with(kGptOss20b, "attention_bias", "false"));
        CHECK(unbiased["bias"] == false);
        CHECK(unbiased["mlp_bias"] == true);
        CHECK(parameters(unbiased) < parameters(model_of(kGptOss20b)));
        const json top_k = refusal(with(kGptOss20b, "experts_per_token", "2"));
        CHECK(top_k["path"] == "/experts_per_token");
        CHECK(says(top_k, "num_experts_per_tok is 4"));
        CHECK(refusal(with(kGptOss20b, "num_local_experts", "0"))["path"] == "/num_local_experts");
    }
    SUBCASE("Qwen2-MoE: its shared expert and the expert's gate import exactly (model.shared_expert_gate)") {
        // Qwen1.5-MoE-A2.7B: 60 experts of 1408, 4 per token, one shared expert of 5632 with a [1, 2048] gate in each
        // of its 24 MoE layers: the Hub's 14,315,784,192 (tests/test_moe.cpp counts the same fields).
        const json qwen2 = model_of(kQwen2Moe);
        CHECK(qwen2["shared_expert_gate"] == true);
        CHECK(qwen2["shared_experts"] == 1);
        CHECK(parameters(qwen2, "lm") == 14315784192.0);
        // With no experts there is no sparse block and no gate: Qwen2 with q/k/v biases.
        const json dense = model_of(with(kQwen2Moe, "num_experts", "0"));
        CHECK(dense["qkv_bias"] == true);
        CHECK_FALSE(dense.contains("shared_experts"));
        CHECK_FALSE(dense.contains("shared_expert_gate"));
    }
    SUBCASE("Qwen-MoE dense layers listed one by one") {
        const json listed = refusal(with(kQwen3Moe, "mlp_only_layers", "[0, 47]"));
        CHECK(listed["path"] == "/mlp_only_layers");
        CHECK(says(listed, "only [] is read"));
        const json qwen2 = imported(with(kQwen2Moe, "mlp_only_layers", "[3]"));
        REQUIRE(qwen2["ok"] == false);
        CHECK(qwen2["errors"][0]["path"] == "/mlp_only_layers");
    }
    SUBCASE("Llama 4: MoE layers the engine cannot place, and keys under text_config named there") {
        json config = json::parse(kLlama4Scout);
        config["text_config"]["moe_layers"] = {0, 2, 5};
        const json uneven = refusal(config.dump());
        CHECK(uneven["path"] == "/text_config/moe_layers");
        CHECK(says(uneven, "every model.moe_every-th"));
        config["text_config"]["moe_layers"] = {1, 3, 5};  // stops before the last layer
        CHECK(refusal(config.dump())["path"] == "/text_config/moe_layers");
        config["text_config"]["moe_layers"] = {0, 48};  // no layer 48
        CHECK(refusal(config.dump())["path"] == "/text_config/moe_layers");
        config = json::parse(kLlama4Scout);
        config["text_config"]["hidden_size"] = 5120.5;
        const json half = refusal(config.dump());
        CHECK(half["path"] == "/text_config/hidden_size");
        CHECK(says(half, "model.hidden"));
        config = json::parse(kLlama4Scout);
        config["text_config"]["attention_bias"] = true;  // q, k, v and o, never the MLPs or experts
        CHECK(model_of(config.dump())["mlp_bias"] == false);
        config = json::parse(kLlama4Scout);
        config["tie_word_embeddings"] = true;  // the wrapper and the text model disagree
        CHECK(refusal(config.dump())["path"] == "/tie_word_embeddings");
        config = json::parse(kLlama4Scout);
        config.erase("text_config");  // Llama4Config's defaults are not guessed at
        CHECK(refusal(config.dump())["path"] == "/text_config");
    }
    SUBCASE("experts in a family without an expert table here are refused at their count") {
        // Read as dense, Mixtral 8x7B used to import as a 7.24B model (one expert's MLP per layer).
        const json olmoe = refusal(patched(kLlama31_8b, R"({"model_type": "olmoe", "num_experts": 64})"));
        CHECK(olmoe["path"] == "/num_experts");
        CHECK(says(olmoe, "64 experts"));
        CHECK(says(olmoe, "Mixture-of-Experts"));
        CHECK(refusal(with(kMixtral, "model_type", R"("llama")"))["path"] == "/num_local_experts");
        const json odd = refusal(with(kLlama31_8b, "routed_experts_count", "4"));
        CHECK(odd["path"] == "/routed_experts_count");
        CHECK(says(odd, "Mixture-of-Experts"));
        // One expert is a dense model.
        CHECK(imported(with(kLlama31_8b, "num_experts", "1"))["ok"] == true);
    }
}

TEST_CASE("config.json: blocks the engine does not build are refused with the reason") {
    SUBCASE("Falcon: layers transformers cannot build") {
        // num_ln_in_parallel_attn is 1 (input_layernorm) or 2 (ln_attn, ln_mlp): any other count builds nothing.
        const json three = refusal(patched(kFalcon40b, R"({"num_ln_in_parallel_attn": 3})"));
        CHECK(three["path"] == "/num_ln_in_parallel_attn");
        CHECK(says(three, "ln_mlp"));
        CHECK(refusal(patched(kFalcon7b, R"({"new_decoder_architecture": true, "parallel_attn": false})"))["path"] ==
              "/parallel_attn");
        // Without multi_query the fused projection is 3 * hidden: a K/V head per head, whatever num_kv_heads says.
        const json kv = refusal(patched(kFalcon7b, R"({"multi_query": false, "num_kv_heads": 8})"));
        CHECK(kv["path"] == "/num_kv_heads");
        CHECK(says(kv, "3 x hidden_size"));
        CHECK(refusal(with(kFalcon7b, "bias", R"("yes")"))["path"] == "/bias");
    }
    SUBCASE("GPT-NeoX-20B as published: a parallel residual with two norms, 20,554,567,680") {
        const json r = imported(kNeox20b);
        REQUIRE(r["ok"] == true);
        CHECK(r["model"]["parallel_block"] == true);
        CHECK(r["model"]["parallel_norms"] == true);
        CHECK(parameters(r["model"]) == 20554567680);  // the same count as the serial layout: two norms either way
        // GPTNeoXConfig's default is the parallel residual.
        json bare = json::parse(kNeox20b);
        bare.erase("use_parallel_residual");
        CHECK(model_of(bare.dump())["parallel_norms"] == true);
        // The MLP is always biased: attention_bias false takes the biases of query_key_value and dense alone,
        // 44 x (3 x 6144 + 6144).
        const json partial = model_of(patched(kNeox20b, R"({"attention_bias": false})"));
        CHECK(partial["bias"] == false);
        CHECK(partial["mlp_bias"] == true);
        CHECK(parameters(partial) == 20554567680 - 44 * 4 * 6144);
        // The switches in a family whose layers are sequential.
        CHECK(refusal(with(kLlama31_8b, "use_parallel_residual", "true"))["path"] == "/use_parallel_residual");
        CHECK(refusal(with(kLlama31_8b, "parallel_attn", "true"))["path"] == "/parallel_attn");
    }
    SUBCASE("encoder-decoder: T5, and the switch anywhere") {
        const json t5 = refusal(kT5Small);
        CHECK(t5["path"] == "/is_encoder_decoder");
        CHECK(says(t5, "encoder-decoder"));
        json no_switch = json::parse(kT5Small);
        no_switch.erase("is_encoder_decoder");
        CHECK(refusal(no_switch.dump())["path"] == "/model_type");
        CHECK(refusal(with(kBertBase, "add_cross_attention", "true"))["path"] == "/add_cross_attention");
    }
    SUBCASE("Qwen2: biases on q, k and v only (model.qkv_bias), exact to the parameter") {
        // Qwen2ForCausalLM counts 7,615,616,512: 3584 * 152064 embedding and untied head, 28 layers of
        // 233,057,792 with 3584 + 2 * 512 q/k/v biases each, the final norm. Read as Llama (no biases) it is
        // 28 * 4,608 = 129,024 short; model.bias = true would add o and MLP biases too.
        const json r = imported(kQwen25_7b);
        REQUIRE(r["ok"] == true);
        CHECK(r["model"]["bias"] == false);
        CHECK(r["model"]["qkv_bias"] == true);
        CHECK(parameters(r["model"]) == 7615616512);
        json llama = json::parse(kQwen25_7b);
        llama["model_type"] = "llama";
        CHECK(parameters(model_of(llama.dump())) == 7615616512 - 28 * 4608);
    }
    SUBCASE("partial biases: attention's (model.bias) and the MLP's (model.mlp_bias) read apart") {
        // Llama 3.1 8B: q 4096, k and v 1024, o 4096 per layer; gate, up 14336 and down 4096.
        const int64_t plain = parameters(model_of(kLlama31_8b));
        const json attention = model_of(with(kLlama31_8b, "attention_bias", "true"));
        CHECK(attention["bias"] == true);
        CHECK(attention["mlp_bias"] == false);
        CHECK(parameters(attention) == plain + 32 * (4096 + 2 * 1024 + 4096));
        const json mlp = model_of(with(kLlama31_8b, "mlp_bias", "true"));
        CHECK(mlp["bias"] == false);
        CHECK(mlp["mlp_bias"] == true);
        CHECK(parameters(mlp) == plain + 32 * (2 * 14336 + 4096));
        // Both: every linear layer has a bias.
        const json both = model_of(with(with(kLlama31_8b, "attention_bias", "true").c_str(), "mlp_bias", "true"));
        CHECK(both["bias"] == true);
        CHECK_FALSE(both.contains("mlp_bias"));
        CHECK(parameters(both) == plain + 32 * (4096 + 2 * 1024 + 4096 + 2 * 14336 + 4096));
        CHECK(model_of(with(kGemma7b, "attention_bias", "true"))["mlp_bias"] == false);
        CHECK(refusal(with(kLlama31_8b, "mlp_bias", R"("yes")"))["path"] == "/mlp_bias");
    }
    SUBCASE("BERT and ALBERT variants the engine does not build") {
        const json relative = refusal(with(kBertBase, "position_embedding_type", R"("relative_key")"));
        CHECK(relative["path"] == "/position_embedding_type");
        CHECK(refusal(with(kBertBase, "is_decoder", "true"))["path"] == "/is_decoder");
        CHECK(refusal(with(kAlbertBase, "num_hidden_groups", "2"))["path"] == "/num_hidden_groups");
        CHECK(refusal(with(kAlbertBase, "inner_group_num", "2"))["path"] == "/inner_group_num");
        CHECK(refusal(with(kBertBase, "pruned_heads", R"({"0": [1, 2]})"))["path"] == "/pruned_heads");
    }
}

TEST_CASE("config.json: the family comes from model_type, else architectures; an unknown one is refused") {
    const json phi = refusal(with(kLlama31_8b, "model_type", R"("phi3small")"));
    CHECK(phi["path"] == "/model_type");
    CHECK(says(phi, "unknown model type \"phi3small\""));
    // No model_type: the class name says it (GPT2LMHeadModel -> gpt2).
    json gpt2 = json::parse(kGpt2);
    gpt2.erase("model_type");
    CHECK(imported(gpt2.dump())["label"] == "GPT-2");
    // Neither: nothing to read the keys by.
    gpt2.erase("architectures");
    CHECK(refusal(gpt2.dump())["path"] == "/model_type");
    // A model_type that is not a string is named, and the class name used.
    json odd = json::parse(kMistral7b);
    odd["model_type"] = {{"toString", 1}};
    const json r = imported(odd.dump());
    REQUIRE(r["ok"] == true);
    CHECK(r["label"] == "Mistral");
    CHECK(r["unknown"] == json::array({R"(model_type={"toString":1})"}));
}

TEST_CASE("config.json: values are checked as the scenario checks them, and refused at their key") {
    SUBCASE("huge, fractional, mistyped and missing sizes") {
        const json huge = refusal(with(kLlama31_8b, "num_hidden_layers", "1000000000000"));
        CHECK(huge["path"] == "/num_hidden_layers");
        CHECK(says(huge, "from 1 to 65536"));
        CHECK(says(huge, "model.layers"));
        CHECK(refusal(with(kLlama31_8b, "hidden_size", "4096.5"))["path"] == "/hidden_size");
        CHECK(refusal(with(kLlama31_8b, "vocab_size", R"("128256")"))["path"] == "/vocab_size");
        CHECK(refusal(with(kLlama31_8b, "tie_word_embeddings", R"("no")"))["path"] == "/tie_word_embeddings");
        json missing = json::parse(kLlama31_8b);
        missing.erase("num_hidden_layers");
        const json gone = refusal(missing.dump());
        CHECK(gone["path"] == "/num_hidden_layers");
        CHECK(says(gone, "missing"));
    }
    SUBCASE("shapes that do not fit together") {
        const json kv = refusal(with(kLlama31_8b, "num_key_value_heads", "5"));
        CHECK(kv["path"] == "/num_key_value_heads");
    }
    SUBCASE("numbers beyond double range are each named, never read as defaults") {
        const std::string text = json::parse(kMistral7b).dump();
        std::string bad = text;
        bad.replace(bad.find("\"num_key_value_heads\":8"), 23, "\"num_key_value_heads\":1e400");
        bad.replace(bad.find("\"hidden_size\":4096"), 18, "\"hidden_size\":-1e999");
        const json r = json::parse(shardcalc::import_config_text(bad));
        REQUIRE(r["ok"] == false);
        REQUIRE(r["errors"].size() == 2);
        CHECK(r["errors"][0]["path"] == "/hidden_size");
        CHECK(r["errors"][0]["message"].get<std::string>().rfind("-1e999 is not a finite number", 0) == 0);
        CHECK(r["errors"][1]["path"] == "/num_key_value_heads");
        CHECK(r["errors"][1]["message"].get<std::string>().rfind("1e400 is not a finite number", 0) == 0);
        // Under a key nothing reads, the number does not matter.
        std::string ignored = text;
        ignored.replace(ignored.find("\"rope_theta\":10000.0"), 20, "\"rope_theta\":1e999");
        CHECK(json::parse(shardcalc::import_config_text(ignored))["ok"] == true);
        // In a Llama 4 config the text model's keys are named under text_config; the vision tower is not read.
        const std::string llama4 = json::parse(kLlama4Scout).dump();
        std::string layers = llama4;
        layers.replace(layers.find("\"num_hidden_layers\":48"), 22, "\"num_hidden_layers\":1e999");
        const json named = json::parse(shardcalc::import_config_text(layers));
        REQUIRE(named["ok"] == false);
        CHECK(named["error"]["path"] == "/text_config/num_hidden_layers");
        std::string vision = llama4;
        vision.replace(vision.find("\"num_hidden_layers\":34"), 22, "\"num_hidden_layers\":1e999");
        CHECK(json::parse(shardcalc::import_config_text(vision))["ok"] == true);
    }
}

TEST_CASE("config.json: keys no rule reads are listed, never dropped silently") {
    json j = json::parse(kMistral7b);
    j["some_new_knob"] = 3;
    j["hidden_act"] = {{"toString", 1}};
    j["__proto__"] = {{"num_hidden_layers", 1}};
    j["constructor"] = {{"prototype", {{"polluted", "yes"}}}};
    j[std::string(80, 'k')] = 1;
    const json r = imported(j.dump());
    REQUIRE(r["ok"] == true);
    CHECK(r["model"]["layers"] == 32);                      // __proto__.num_hidden_layers is data
    CHECK(r["model"]["mlp"] == "swiglu");                   // the family's own activation, hidden_act named below
    const std::string listed = r["unknown"].dump();
    CHECK(listed.find("some_new_knob") != std::string::npos);
    CHECK(listed.find(R"(hidden_act={\"toString\":1})") != std::string::npos);
    CHECK(listed.find("__proto__") != std::string::npos);
    CHECK(listed.find("constructor") != std::string::npos);
    CHECK(listed.find(std::string(59, 'k') + "…") != std::string::npos);  // long keys shortened
    CHECK(parameters(r["model"]) == 7241732096);
}

TEST_CASE("config.json: the text API answers like the other API calls") {
    const json ok = json::parse(shardcalc::import_config_text(kGemma7b));
    REQUIRE(ok["ok"] == true);
    // The model is a scenario's model as it is.
    const json report = json::parse(shardcalc::evaluate_scenario_text(json{{"model", ok["model"]}}.dump()));
    CHECK(report["ok"] == true);
    const json invalid = json::parse(shardcalc::import_config_text("{\"model_type\": "));
    CHECK(invalid["ok"] == false);
    CHECK(invalid["error"]["message"].get<std::string>().rfind("invalid JSON", 0) == 0);
    const json list = json::parse(shardcalc::import_config_text("[1, 2]"));
    CHECK(list["ok"] == false);
    CHECK(list["error"]["path"] == "");
}

TEST_CASE("config.json: hostile text is an error value, never an exception or an internal error") {
    std::string many = R"({"model_type": "llama")";
    for (int i = 0; i < 20; ++i) many += ",\"k" + std::to_string(i) + "\": 1e400";
    many += "}";
    const std::string texts[] = {"", "{", std::string("{\"model_type\": \"llama\"}\0x", 25), "{\"\xff\": 1}",
                                 std::string(100000, '[') + std::string(100000, ']'), "null", "\"llama\"",
                                 R"({"model_type": "llama", "a/b~c": 1e400})", many};
    for (const std::string& text : texts) {
        CAPTURE(text.substr(0, 40));
        const json r = json::parse(shardcalc::import_config_text(text));
        REQUIRE(r["ok"] == false);
        CHECK(r["error"]["message"].get<std::string>().find("internal error") == std::string::npos);
    }
    // A key with "/" or "~" is named by its JSON pointer.
    CHECK(json::parse(shardcalc::import_config_text(texts[7]))["error"]["path"] == "/a~1b~0c");
    // Up to 16 numbers beyond range are named together; the 17th ends the read where it is.
    const json r = json::parse(shardcalc::import_config_text(many));
    CHECK(r["errors"].size() == 1);
    CHECK(r["error"]["path"] == "/k16");
}

// The families are data (engine/io/import/hf_families.json): the model types name families, a family's keys come
// from key sets and earlier families, and `fixed_from` starts from another family's fixed fields.
TEST_CASE("the importer's families are read from its data file, every key with a field or a reader") {
    namespace hf = shardcalc::hf;
    for (const hf::ModelType& t : hf::model_types()) CHECK(std::string(hf::family(t.family).id) == t.family);
    CHECK(hf::model_types().front().type == std::string("llama"));
    for (const hf::Family& f : hf::families())
        for (const hf::Rule& r : f.rules) {
            CAPTURE(std::string(f.id) + ": " + r.key);
            CHECK((r.field != nullptr) != (r.read != nullptr));
        }
    const hf::Family &bert = hf::family("bert"), &roberta = hf::family("roberta");
    CHECK(roberta.fixed["pooler"] == false);
    CHECK(roberta.fixed["arch"] == "encoder");
    CHECK(roberta.rules.size() == bert.rules.size());
    // The common key set sends intermediate_size where the family says: Llama 4's is the experts' width.
    auto field_of = [](const hf::Family& f, const std::string& key) {
        for (const hf::Rule& r : f.rules)
            if (key == r.key && r.field) return std::string(r.field);
        return std::string();
    };
    CHECK(field_of(hf::family("llama"), "intermediate_size") == "ffn_hidden");
    CHECK(field_of(hf::family("llama4"), "intermediate_size") == "expert_ffn_hidden");
    CHECK(field_of(hf::family("qwen3_moe"), "moe_intermediate_size") == "expert_ffn_hidden");  // Qwen3's keys + qwen_moe's
    CHECK_THROWS_AS(hf::family("t5"), std::logic_error);
}
