// Maps a Hugging Face config.json onto the page's model fields (a Custom model). Families:
// LLaMA/Mistral-style (gated MLP, RoPE, RMSNorm), GPT-2, BERT and ALBERT. Keys that do not
// change memory are ignored; anything else is reported as not understood.
// The file is data from anywhere: every key is looked up in Maps and Sets (a key such as
// "__proto__", "constructor" or "hasOwnProperty" is just a key no family knows), every value is
// type-checked before use, and a number beyond double range (1e400) stops the import with an
// error naming it rather than becoming a silent default.
import { list, parseJson, quote } from './json.js';

// Known keys with no effect on the memory model.
const IGNORED = new Set(`_name_or_path architectures model_type transformers_version torch_dtype dtype use_cache
 initializer_range initializer_factor rms_norm_eps layer_norm_eps layer_norm_epsilon rope_theta rope_scaling
 attention_dropout hidden_dropout hidden_dropout_prob attention_probs_dropout_prob classifier_dropout
 classifier_dropout_prob embd_pdrop attn_pdrop resid_pdrop summary_type summary_use_proj summary_activation
 summary_proj_to_labels summary_first_dropout bos_token_id eos_token_id pad_token_id sep_token_id cls_token_id
 unk_token_id mask_token_id decoder_start_token_id pretraining_tp sliding_window max_window_layers
 use_sliding_window mlp_bias n_ctx scale_attn_weights scale_attn_by_inverse_layer_idx reorder_and_upcast_attn
 task_specific_params id2label label2id num_labels problem_type finetuning_task output_past gradient_checkpointing
 type_vocab_size attn_implementation tokenizer_class return_dict output_attentions output_hidden_states
 torchscript is_decoder is_encoder_decoder add_cross_attention tie_encoder_decoder chunk_size_feed_forward
 pruned_heads prefix use_bfloat16 quantization_config down_scale_factor gap_size net_structure_type
 num_memory_blocks`.split(/\s+/));

const gelu = (v) => typeof v === 'string' && /^gelu/.test(v);

// Per family: config key -> model field, or a function(value, out) returning false when not understood.
const COMMON = {
  num_hidden_layers: 'layers',
  hidden_size: 'hidden',
  num_attention_heads: 'heads',
  intermediate_size: 'ffn_hidden',
  vocab_size: 'vocab',
  max_position_embeddings: 'max_positions',
  tie_word_embeddings: 'tied_embeddings',
};

// The activation as the model code spells it (model.hidden_act), when the engine knows the spelling.
const HIDDEN_ACT = { gelu: 'gelu', gelu_new: 'gelu_new', gelu_pytorch_tanh: 'gelu_pytorch_tanh', relu: 'relu', silu: 'silu', swish: 'silu' };
const spell = (v, out) => {
  if (typeof v === 'string' && Object.hasOwn(HIDDEN_ACT, v)) out.hidden_act = HIDDEN_ACT[v];
  return true;
};

const encoderAct = (v, out) => (gelu(v) || v === 'relu') && (out.mlp = gelu(v) ? 'gelu' : 'relu') && spell(v, out);

const FAMILIES = {
  llama: {
    label: 'LLaMA/Mistral-style',
    fixed: { arch: 'decoder', mlp: 'swiglu', position_embedding: 'rope', norm: 'rmsnorm', bias: false, tied_embeddings: false },
    keys: {
      ...COMMON,
      num_key_value_heads: 'kv_heads',
      head_dim: 'head_dim',
      attention_bias: 'bias',
      hidden_act: (v, out) => (v === 'silu' || v === 'swish' ? (out.mlp = 'swiglu') : gelu(v) && (out.mlp = 'geglu')) && spell(v, out),
    },
  },
  gpt2: {
    label: 'GPT-2',
    // GPT-2's attention is one c_attn projection.
    fixed: { arch: 'decoder', mlp: 'gelu', position_embedding: 'learned', norm: 'layernorm', bias: true, tied_embeddings: true, fused_qkv: true },
    keys: {
      n_layer: 'layers',
      n_embd: 'hidden',
      n_head: 'heads',
      n_inner: (v, out) => (v === null ? true : Number.isInteger(v) && (out.ffn_hidden = v)),
      vocab_size: 'vocab',
      n_positions: 'max_positions',
      tie_word_embeddings: 'tied_embeddings',
      activation_function: encoderAct,
    },
    finish: (cfg, out) => {
      if (cfg.get('n_inner') == null && Number.isInteger(cfg.get('n_embd'))) out.ffn_hidden = 4 * cfg.get('n_embd');
    },
  },
  bert: {
    label: 'BERT',
    fixed: { arch: 'encoder', mlp: 'gelu', position_embedding: 'learned', norm: 'layernorm', bias: true, tied_embeddings: true },
    keys: { ...COMMON, hidden_act: encoderAct, position_embedding_type: (v) => v === 'absolute' },
  },
};
FAMILIES.albert = {
  label: 'ALBERT',
  fixed: { ...FAMILIES.bert.fixed, shared_layers: true },
  keys: { ...FAMILIES.bert.keys, embedding_size: 'embedding_dim', num_hidden_groups: (v) => v === 1, inner_group_num: (v) => v === 1 },
};

// The rules as Maps: a key from the file is never looked up on an object (and its prototype).
for (const fam of Object.values(FAMILIES)) fam.keys = new Map(Object.entries(fam.keys));

// `cfg`: the file's top-level keys and values, as a Map.
function family(cfg) {
  const type = typeof cfg.get('model_type') === 'string' ? cfg.get('model_type').toLowerCase() : '';
  if (type === 'gpt2' || (!type && cfg.has('n_layer'))) return 'gpt2';
  if (type === 'albert' || (!type && cfg.has('embedding_size'))) return 'albert';
  if (['bert', 'roberta'].includes(type) || (!type && cfg.has('type_vocab_size'))) return 'bert';
  return 'llama';
}

const MAX_KEY = 60; // characters of a key or value shown in a message

// Returns {model: {field: value} (no prototype), label, unknown: [keys]} or {error}.
export function mapHfConfig(text) {
  let parsed;
  try {
    parsed = parseJson(text);
  } catch (err) {
    return { error: `Invalid JSON: ${err.message}` };
  }
  const root = parsed.value;
  if (root === null || typeof root !== 'object' || Array.isArray(root)) return { error: 'Expected a JSON object (the contents of config.json).' };
  const cfg = new Map(Object.entries(root));
  const fam = FAMILIES[family(cfg)];
  const out = Object.assign(Object.create(null), fam.fixed);
  const unknown = [];
  const invalid = [];
  const name = (key) => (key.length > MAX_KEY ? `${key.slice(0, MAX_KEY - 1)}…` : key);
  for (const [key, value] of cfg) {
    const rule = fam.keys.get(key);
    if (rule === undefined) {
      if (!IGNORED.has(key)) unknown.push(name(key));
    } else if (typeof value === 'number' && !Number.isFinite(value)) {
      invalid.push(`${name(key)}: ${parsed.nonFinite(root, key)} is not a finite number`);
    } else if (typeof rule === 'string') {
      const want = fam.fixed[rule] === undefined ? 'number' : typeof fam.fixed[rule];
      if (typeof value === want) out[rule] = value;
      else if (value !== null) unknown.push(`${name(key)}=${quote(value, MAX_KEY)}`);
    } else if (!rule(value, out)) unknown.push(`${name(key)}=${quote(value, MAX_KEY)}`);
  }
  // Nothing is applied rather than a model with that field left to a default (1e400 KV heads
  // must not quietly become multi-head attention).
  if (invalid.length) return { error: `Nothing imported: ${list(invalid)}.` };
  fam.finish?.(cfg, out);
  return { model: out, label: fam.label, unknown };
}
