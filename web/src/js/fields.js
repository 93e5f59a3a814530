// The field catalogue: every scenario field the page knows, keyed by its dotted path
// ("parallel.tp"). Input fields appear in the form in this order; `more` ones sit in the
// collapsed "More" group. The engine's other fields have no input: they are accepted from links (any valid
// engine scenario) and passed through unchanged. Every field's type, an enum's spellings and a boolean's default
// are the engine's (js/schema.js, written from its schema by web/schema-module.mjs); docs/scenario.md §2 explains them.
import { SCHEMA } from './schema.js';

// path -> { type, choices, def } as the engine reads it.
const ENGINE = new Map(SCHEMA.map(([path, type, choices, def]) => [path, { type, choices, def }]));
// Spellings the engine reads but the page does not offer, and why: the activation dtype may not be fp8 (the engine's
// error points at training.fp8 instead, docs/scenario.md).
const NOT_OFFERED = { 'training.dtype': ['fp8'] };

// type: int | num | ints (a comma-separated list) | names | bool | enum | preset | string. `options` (an enum's, or a
// small integer range's with `choice`, from the engine) makes a select (an empty "default" option first unless
// `required`); `def` is the engine default a checkbox shows unset.
// `fw`: the default depends on the framework (the blank option says "framework default" and shows
// the engine's resolved value); a boolean with a framework default is a true/false select.
// `help` and `doc` (every input has both, from field-help.js): what the field changes and the values it
// takes, and the docs section that explains it ('memory.md#parameters'); form.js shows them behind a "?".
const int = (key, label, more) => ({ key, type: 'int', label, more });
const num = (key, label, more) => ({ key, type: 'num', label, more });
const bool = (key, label, more) => ({ key, type: 'bool', label, more });
const pick = (key, label, more, fw) => ({ key, type: 'enum', label, more, fw });
const fwBool = (key, label, more) => ({ key, type: 'bool', label, options: ['true', 'false'], more, fw: true });
// A model field the engine resolves from others (its menu shows the resolved value as the default), under "more".
const resolvedBool = (key, label) => ({ key, type: 'bool', label, options: ['true', 'false'], more: true });

export const FRAMEWORKS = ENGINE.get('framework').choices;

export const SECTIONS = [
  {
    id: 'model',
    legend: 'Model',
    fields: [
      { key: 'preset', type: 'preset', label: 'Model preset' },
      int('layers', 'Layers'),
      int('hidden', 'Hidden size'),
      int('heads', 'Attention heads'),
      int('kv_heads', 'KV heads'),
      int('ffn_hidden', 'FFN hidden'),
      int('vocab', 'Vocabulary'),
      pick('mlp', 'MLP'),
      int('experts', 'Experts (MoE)'),
      int('experts_per_token', 'Experts per token (top-k)'),
      pick('arch', 'Architecture', true),
      int('head_dim', 'Head dim', true),
      int('max_positions', 'Max positions', true),
      pick('position_embedding', 'Positions', true),
      pick('norm', 'Norm', true),
      int('embedding_dim', 'Embedding dim', true),
      bool('bias', 'Bias', true),
      resolvedBool('qkv_bias', 'Q/K/V bias'),
      resolvedBool('mlp_bias', 'MLP bias'),
      bool('output_bias', 'Output-layer bias', true),
      bool('tied_embeddings', 'Tied embeddings', true),
      bool('shared_layers', 'Shared layers', true),
      pick('hidden_act', 'Activation (hidden_act)', true),
      resolvedBool('fused_qkv', 'Fused QKV projection'),
      bool('qk_norm', 'QK-norm', true),
      int('expert_ffn_hidden', 'Expert FFN hidden', true),
      int('shared_experts', 'Shared experts', true),
      int('shared_expert_ffn_hidden', 'Shared-expert FFN hidden', true),
      int('first_dense_layers', 'First dense layers', true),
      int('moe_every', 'MoE every n-th layer', true),
      bool('router_bias', 'Router bias', true),
      bool('shared_expert_gate', 'Shared-expert gate', true),
      int('q_lora_rank', 'MLA query latent (q_lora_rank)', true),
      int('kv_lora_rank', 'MLA key/value latent (kv_lora_rank)', true),
      int('qk_rope_head_dim', 'MLA rotary head dim', true),
      int('v_head_dim', 'MLA value head dim', true),
      int('mtp_layers', 'Multi-token prediction layers', true),
      int('sliding_window', 'Sliding window (tokens)', true),
      int('global_every', 'Global attention every n-th layer', true),
      bool('attention_sinks', 'Attention sinks', true),
      num('swiglu_limit', 'Clamped SwiGLU limit (experts)', true),
      num('logit_softcap', 'Output logit soft-cap', true),
      num('attention_softcap', 'Attention score soft-cap', true),
      bool('parallel_block', 'Parallel attention and MLP', true),
      bool('parallel_norms', 'Parallel block: MLP norm of its own', true),
      bool('post_norms', 'Output norms (Gemma)', true),
      int('projection', 'Projection (LSTM)', true),
      int('proj_size', 'Recurrent projection (LSTMP)', true),
      bool('fused_gates', 'Fused gates (LSTM)', true),
      int('gate_biases', 'Gate biases (LSTM)', true),
    ],
  },
  {
    id: 'training',
    legend: 'Training',
    fields: [
      int('seq_len', 'Sequence length'),
      int('micro_batch', 'Micro batch'),
      int('global_batch', 'Global batch'),
      pick('dtype', 'Activation dtype'),
      pick('optimizer', 'Optimizer'),
      pick('recompute', 'Recompute'),
      { key: 'recompute_modules', type: 'names', label: 'Recompute modules (list)', more: true },
      pick('param_dtype', 'Param dtype', true, true),
      pick('grad_dtype', 'Grad dtype', true, true),
      { key: 'master_weights', type: 'bool', label: 'Master weights', options: ['true', 'false'], more: true, fw: true },
      pick('attention', 'Attention', true),
      num('dropout', 'Dropout', true),
      num('train_tokens', 'Train tokens'),
      pick('fp8', 'FP8 / FP4 GEMMs (recipe)', true),
      num('expert_imbalance', 'Expert load imbalance', true),
      num('capacity_factor', 'Expert capacity factor', true),
      bool('router_z_loss', 'Router z-loss', true),
      fwBool('grad_clip', 'Clip gradients', true),
      int('mlm_predictions', 'MLM positions per sequence', true),
    ],
  },
  {
    id: 'adapter',
    legend: 'Fine-tune',
    fields: [
      pick('method', 'Adapter (none: full fine-tune)'),
      int('rank', 'Adapter rank (r)'),
      { key: 'targets', type: 'names', label: 'Adapter targets (list)' },
      num('dropout', 'Adapter dropout', true),
      bool('double_quant', 'QLoRA double quantization', true),
      pick('quantization', 'QLoRA base', true),
      int('group_size', 'GPTQ group size', true),
      pick('dtype', 'Adapter dtype', true),
      bool('train_embeddings', 'Train the embedding and output layer too', true),
    ],
  },
  {
    id: 'parallel',
    legend: 'Parallelism',
    fields: [
      int('dp', 'Data parallel (dp)'),
      int('tp', 'Tensor parallel (tp)'),
      int('pp', 'Pipeline parallel (pp)'),
      { key: 'zero', type: 'int', label: 'ZeRO stage', choice: true },
      bool('sp', 'Sequence parallel (sp)'),
      bool('distributed_optimizer', 'Distributed optimizer'),
      int('ep', 'Expert parallel (ep)'),
      int('etp', 'Expert tensor parallel (etp)', true),
      bool('overlap_moe_comm', 'Overlap expert all-to-all', true),
      pick('moe_dispatcher', 'MoE token dispatcher', true),
      int('vpp', 'Virtual pipeline (vpp)', true),
      int('first_stage_layers', 'First stage layers', true),
      int('last_stage_layers', 'Last stage layers', true),
      { key: 'stage_layers', type: 'ints', label: 'Layers per stage (list)', more: true },
      bool('embedding_as_layer', 'Embedding counts as a layer', true),
      bool('loss_as_layer', 'Loss counts as a layer', true),
      int('cp', 'Context parallel (cp)', true),
      int('ulysses', 'Ulysses degree', true),
      pick('offload_optimizer', 'Offload optimizer', true),
      pick('offload_params', 'Offload params', true),
      pick('schedule', 'Pipeline schedule', true),
      { key: 'overlap_grad_reduce', type: 'bool', label: 'Overlap gradient reduction', options: ['true', 'false'], more: true, fw: true },
      int('reduce_bucket_size', 'DeepSpeed reduce bucket (elements)', true),
      bool('overlap_param_gather', 'Overlap parameter gather', true),
      bool('tp_comm_overlap', 'Overlap tensor-parallel communication', true),
    ],
  },
  {
    id: 'implementation',
    legend: 'Implementation',
    fields: [
      pick('model_code', 'Model code', false, true),
      pick('optimizer_impl', 'Optimizer implementation', false, true),
      fwBool('tf32', 'TF32 matmuls'),
      fwBool('cudnn_tf32', 'TF32 in cuDNN', true),
      pick('rnn', 'LSTM kernels', true, true),
      pick('experts', 'MoE experts (transformers)', true, true),
      pick('compile', 'torch.compile'),
      pick('allocator', 'Allocator'),
      num('host_forward_us', 'Host µs per kernel, forward', true),
      num('host_backward_us', 'Host µs per kernel, backward', true),
      num('host_compiled_us', 'Host µs per compiled kernel', true),
      num('fragmentation', 'Allocator fragmentation (fraction)', true),
      bool('loss_16bit', '16-bit loss', true),
    ],
  },
  {
    id: 'hardware',
    legend: 'Hardware',
    fields: [
      { key: 'preset', type: 'preset', label: 'Device' },
      num('memory_gib', 'Memory (GiB)'),
      int('gpus_per_node', 'GPUs per node'),
      int('nvlink_domain', 'NVLink domain (GPUs)', true),
      num('overhead_gib', 'Overhead (GiB)'),
      num('price_per_gpu_hour', 'Price per GPU-hour (USD)'),
      num('hbm_gbps', 'HBM (GB/s)', true),
      num('intra_node_gbps', 'Intra-node (GB/s)', true),
      num('inter_node_gbps', 'Inter-node (GB/s)', true),
      int('sm_count', 'SM count', true),
      int('matrix_unit', 'TPU matrix unit (MXU side)', true),
      num('matmul_efficiency', 'Matmul efficiency', true),
      num('matmul_efficiency_fp8', 'Matmul efficiency, fp8', true),
      num('attention_efficiency', 'Attention efficiency', true),
      num('hbm_efficiency', 'HBM efficiency', true),
      num('kernel_launch_us', 'Kernel launch (µs)', true),
      num('intra_node_latency_us', 'Intra-node latency (µs)', true),
      num('inter_node_latency_us', 'Inter-node latency (µs)', true),
      num('intra_node_efficiency', 'Intra-node efficiency', true),
      num('inter_node_efficiency', 'Inter-node efficiency', true),
    ],
  },
];

// The scenario's sections (objects of fields), in the order a scenario is written.
export const SCENARIO_SECTIONS = SECTIONS.map((s) => s.id);

// An input's choices and default, as the engine reads the field.
function withEngine(path, spec) {
  const engine = ENGINE.get(path);
  if (!engine) return spec;  // a preset menu
  const out = { ...spec };
  if (spec.type === 'enum' || spec.choice) out.options = engine.choices.filter((c) => !NOT_OFFERED[path]?.includes(c));
  if (spec.type === 'bool' && !spec.options && engine.def !== undefined) out.def = engine.def;
  return out;
}

// path -> spec, in a stable order (the order links and scenarios are written in): the inputs, then the engine's
// fields without one (kept when they come in a link).
export const FIELDS = new Map([['framework', { type: 'enum', options: FRAMEWORKS, input: true, label: 'Framework' }]]);
for (const section of SECTIONS)
  for (const f of section.fields) {
    const path = `${section.id}.${f.key}`;
    FIELDS.set(path, withEngine(path, { ...f, section: section.id, input: true }));
  }
for (const [path, { type, choices }] of ENGINE)
  if (!FIELDS.has(path)) FIELDS.set(path, { type, ...(type === 'enum' && { options: choices }), section: path.split('.')[0] });

// Field help (field-help.js) is a chunk of its own (web/build.mjs), fetched when the reader first reaches
// the form or presses a "?" (form.js): the first result never waits for it (page budget: docs/performance.md).
// Resolves once every field's `help` and `doc` are in the catalogue.
let help = null;
export function loadHelp() {
  help ??= import('./field-help.js').then(({ HELP }) => {
    for (const [path, [text, doc]] of Object.entries(HELP)) if (FIELDS.has(path)) FIELDS.set(path, { ...FIELDS.get(path), help: text, doc });
  });
  return help;
}

// "7, 8, 8" -> [7, 8, 8]; text that is not such a list goes to the engine as written, whose error names the field.
export function listOfIntegers(text) {
  const parts = text.split(',').map((t) => t.trim());
  const numbers = parts.map((t) => (/^\d+$/.test(t) ? Number(t) : NaN));
  return numbers.every(Number.isSafeInteger) ? numbers : text;
}

// "layernorm, moe_act" -> ["layernorm", "moe_act"]; the engine checks the names (and names a bad one's place).
export function listOfNames(text) {
  const parts = text.split(',').map((t) => t.trim());
  return parts.every((t) => /^[a-z_0-9]+$/.test(t)) ? parts : text;
}

export const pointer = (path) => `/${path.replaceAll('.', '/')}`;
// The other way: a JSON pointer (RFC 6901, "~1" and "~0" unescaped) as a dotted path ("/parallel/tp" -> "parallel.tp").
export const dotted = (ptr) => ptr.slice(1).split('/').map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~')).join('.');
export const inputId = (path) => `f-${path.replaceAll('.', '-')}`;
// Model and hardware fields are overrides on top of a preset, except the ones no preset carries
// (the price is the user's, and survives a change of device).
export const PRESET_SECTIONS = ['model', 'hardware'];
const USER_ONLY = new Set(['hardware.price_per_gpu_hour']);
export const isOverride = (path) =>
  PRESET_SECTIONS.includes(path.split('.')[0]) && !path.endsWith('.preset') && !USER_ONLY.has(path);
