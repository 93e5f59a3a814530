// The field catalogue: every scenario field the page knows, keyed by its dotted path
// ("parallel.tp"). Input fields appear in the form in this order; `more` ones sit in the
// collapsed "More" group. Extra fields have no input: they are accepted from links (any valid
// engine scenario) and passed through unchanged. Spellings and defaults: docs/scenario.md §2.

const DTYPES = ['fp32', 'fp16', 'bf16', 'fp8'];
const OFFLOAD = ['none', 'cpu', 'nvme'];

// type: int | num | bool | enum | preset | string. `options` makes a select (an empty
// "default" option first unless `required`); `def` is the engine default a checkbox shows unset.
// `fw`: the default depends on the framework (the blank option says "framework default" and shows
// the engine's resolved value); a boolean with a framework default is a true/false select.
// `help`: what the field changes (the input's and label's tooltip).
const int = (key, label, more) => ({ key, type: 'int', label, more });
const num = (key, label, more) => ({ key, type: 'num', label, more });
const bool = (key, label, def, more) => ({ key, type: 'bool', label, def, more });
const pick = (key, label, options, more, fw) => ({ key, type: 'enum', label, options, more, fw });
const fwBool = (key, label, more) => ({ key, type: 'bool', label, options: ['true', 'false'], more, fw: true });
const help = (spec, text) => ({ ...spec, help: text });

export const FRAMEWORKS = ['megatron', 'deepspeed', 'fsdp', 'pytorch'];

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
      pick('mlp', 'MLP', ['gelu', 'relu', 'swiglu', 'geglu']),
      pick('arch', 'Architecture', ['decoder', 'encoder'], true),
      int('head_dim', 'Head dim', true),
      int('max_positions', 'Max positions', true),
      pick('position_embedding', 'Positions', ['learned', 'rope', 'alibi', 'none'], true),
      pick('norm', 'Norm', ['layernorm', 'rmsnorm'], true),
      int('embedding_dim', 'Embedding dim', true),
      bool('bias', 'Bias', true, true),
      bool('tied_embeddings', 'Tied embeddings', true, true),
      bool('shared_layers', 'Shared layers', false, true),
      help(pick('hidden_act', 'Activation (hidden_act)', ['gelu', 'gelu_new', 'gelu_pytorch_tanh', 'relu', 'silu'], true),
        'The activation as the model code spells it (Hugging Face hidden_act / activation_function); default from MLP. ' +
        'Under Hugging Face code gelu_new runs op by op (nine kernels, four saved tensors); the others are one fused kernel that saves its input.'),
      help(fwBool('fused_qkv', 'Fused QKV projection', true),
        'One QKV projection (GPT-2 c_attn, Bloom) instead of separate q/k/v: under autocast each separate projection casts the input again ' +
        '(more activation memory and kernels). Megatron model code always fuses.'),
    ],
  },
  {
    id: 'training',
    legend: 'Training',
    fields: [
      int('seq_len', 'Sequence length'),
      int('micro_batch', 'Micro batch'),
      int('global_batch', 'Global batch'),
      pick('dtype', 'Activation dtype', ['fp32', 'fp16', 'bf16']),
      pick('optimizer', 'Optimizer', ['adam', 'adamw', 'sgd', 'sgd_momentum', 'lion', 'adafactor']),
      pick('recompute', 'Recompute', ['none', 'selective', 'full']),
      pick('param_dtype', 'Param dtype', DTYPES, true, true),
      pick('grad_dtype', 'Grad dtype', DTYPES, true, true),
      { key: 'master_weights', type: 'bool', label: 'Master weights', options: ['true', 'false'], more: true, fw: true },
      pick('attention', 'Attention', ['flash', 'eager'], true),
      num('dropout', 'Dropout', true),
      num('train_tokens', 'Train tokens'),
    ],
  },
  {
    id: 'parallel',
    legend: 'Parallelism',
    fields: [
      int('dp', 'Data parallel (dp)'),
      int('tp', 'Tensor parallel (tp)'),
      int('pp', 'Pipeline parallel (pp)'),
      { key: 'zero', type: 'int', label: 'ZeRO stage', options: ['0', '1', '2', '3'] },
      bool('sp', 'Sequence parallel (sp)', false),
      bool('distributed_optimizer', 'Distributed optimizer', false),
      int('vpp', 'Virtual pipeline (vpp)', true),
      int('cp', 'Context parallel (cp)', true),
      int('ulysses', 'Ulysses degree', true),
      pick('offload_optimizer', 'Offload optimizer', OFFLOAD, true),
      pick('offload_params', 'Offload params', OFFLOAD, true),
      pick('schedule', 'Pipeline schedule', ['1f1b', 'gpipe'], true),
      { key: 'overlap_grad_reduce', type: 'bool', label: 'Overlap gradient reduction', options: ['true', 'false'], more: true, fw: true },
    ],
  },
  {
    id: 'implementation',
    legend: 'Implementation',
    fields: [
      help(pick('model_code', 'Model code', ['megatron', 'huggingface'], false, true),
        'huggingface: transformers modules run op by op by eager PyTorch (unfused norms, activations and loss, ' +
        'more saved tensors and kernel launches); megatron: fused kernels (fused QKV, GLU, cross entropy, vocabulary padded to 128).'),
      help(pick('optimizer_impl', 'Optimizer implementation', ['fused', 'foreach', 'for_loop'], false, true),
        'torch.optim implementation: fused (one kernel, no temporary), foreach (multi-tensor passes over whole lists: ' +
        'a temporary the size of one state at the optimizer step, more memory traffic), for_loop (one parameter at a time: ' +
        'its largest tensor as temporary). Changes the optimizer step’s memory and time.'),
      help(fwBool('tf32', 'TF32 matmuls'),
        'fp32 matmuls on the TF32 tensor cores (torch.backends.cuda.matmul.allow_tf32): changes the time of fp32 training only. ' +
        'Megatron turns it on, PyTorch leaves it off.'),
      help(pick('allocator', 'Allocator', ['caching', 'expandable_segments']),
        'PYTORCH_CUDA_ALLOC_CONF: recorded and noted; the fragmentation margins stay those measured with the caching allocator.'),
      help(num('host_forward_us', 'Host µs per kernel, forward', true),
        'Host time to launch one kernel in forward (Python module code), µs: a pass takes at least launches × this; ' +
        'the excess over device time is the forward host wait.'),
      help(num('host_backward_us', 'Host µs per kernel, backward', true),
        'Host time to launch one kernel in backward (autograd engine), µs: the excess over device time is the backward host wait.'),
    ],
  },
  {
    id: 'hardware',
    legend: 'Hardware',
    fields: [
      { key: 'preset', type: 'preset', label: 'Device' },
      num('memory_gib', 'Memory (GiB)'),
      int('gpus_per_node', 'GPUs per node'),
      num('overhead_gib', 'Overhead (GiB)'),
      num('price_per_gpu_hour', 'Price per GPU-hour'),
      num('hbm_gbps', 'HBM (GB/s)', true),
      num('intra_node_gbps', 'Intra-node (GB/s)', true),
      num('inter_node_gbps', 'Inter-node (GB/s)', true),
      int('sm_count', 'SM count', true),
      num('matmul_efficiency', 'Matmul efficiency', true),
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

// Engine fields without an input (kept when they come in a link).
const EXTRAS = [
  ['name', { type: 'string' }],
  ['model.embedding_norm', { type: 'bool' }],
  ['model.type_vocab', { type: 'int' }],
  ['model.pooler', { type: 'bool' }],
  ['model.head', { type: 'enum', options: ['lm', 'none'] }],
  ['parallel.world_size', { type: 'int' }],
  ['hardware.name', { type: 'string' }],
  ['hardware.l2_mib', { type: 'num' }],
  ['hardware.host_link_gbps', { type: 'num' }],
  ['hardware.host_memory_gbps', { type: 'num' }],
  ...['fp32', 'tf32', 'fp16', 'bf16', 'fp8', 'int8'].map((k) => [`hardware.peak_tflops.${k}`, { type: 'num' }]),
];

// path -> spec, in a stable order (the order links and scenarios are written in).
export const FIELDS = new Map([['framework', { type: 'enum', options: FRAMEWORKS, input: true, label: 'Framework' }]]);
for (const section of SECTIONS)
  for (const f of section.fields) FIELDS.set(`${section.id}.${f.key}`, { ...f, section: section.id, input: true });
for (const [path, spec] of EXTRAS) FIELDS.set(path, { ...spec, section: path.split('.')[0] });

export const pointer = (path) => `/${path.replaceAll('.', '/')}`;
export const inputId = (path) => `f-${path.replaceAll('.', '-')}`;
// Model and hardware fields are overrides on top of a preset, except the ones no preset carries
// (the price is the user's, and survives a change of device).
export const PRESET_SECTIONS = ['model', 'hardware'];
const USER_ONLY = new Set(['hardware.price_per_gpu_hour']);
export const isOverride = (path) =>
  PRESET_SECTIONS.includes(path.split('.')[0]) && !path.endsWith('.preset') && !USER_ONLY.has(path);
