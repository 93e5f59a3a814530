// Help for every input of the form, keyed by field path: [what the field changes and the values it
// takes, the docs section that explains it]. fields.js merges both into the catalogue as `help` and
// `doc`; form.js shows them behind a "?" next to the label, with a link to docs/<page>.html#<anchor>
// (web/build.mjs renders docs/*.md there, with GitHub's heading ids). Written from docs/model.md and
// docs/scenario.md; tests/web/docs-links.test.mjs checks that every input has help and that every
// anchor exists.
const M = 'model.md#';
const PARAMS = `${M}parameters`;
const ACTS = `${M}activations-saved-for-backward`;
const IMPL = `${M}framework-accurate-activations-the-implementation-profile`;
const PIPE = `${M}pipeline-microbatches-in-flight`;
const STATES = `${M}model-states`;
const ROOF = `${M}time-of-one-kernel-the-roofline`;
const COMM = `${M}communication-alpha-beta-per-collective`;
const MOE = `${M}mixture-of-experts-and-expert-parallelism`;
const MLA = `${M}latent-attention-and-multi-token-prediction`;
const VARIANTS = `${M}attention-and-layer-variants`;

export const HELP = {
  framework: ['The training stack: megatron, deepspeed, fsdp or pytorch (DDP with autocast). It sets the defaults of the dtypes, master weights and implementation, the communication buffers kept in memory, and which ZeRO and offload settings are allowed.', `${M}framework-profiles`],

  'model.preset': ['Loads a published model’s shape; every model field you change overrides it (marked “edited”). Custom: give layers, hidden size, heads and vocabulary yourself.', 'scenario.md#21-model'],
  'model.layers': ['Transformer layers: weights, gradients, optimizer states and saved activations grow in proportion. Each pipeline stage holds layers / pp of them.', PARAMS],
  'model.hidden': ['Hidden size h: a layer’s weights grow about as h², its saved activations as sequence × batch × h.', PARAMS],
  'model.heads': ['Attention (query) heads; the head dim defaults to hidden / heads. tp must divide it. Eager attention saves heads × seq² scores per sample.', ACTS],
  'model.kv_heads': ['Key/value heads (grouped-query attention when fewer than heads); must divide heads, and tp must divide it. Fewer shrink the QKV weights and the saved keys and values. Default: heads.', PARAMS],
  'model.ffn_hidden': ['FFN width f (for SwiGLU/GeGLU one of gate and up): the MLP weights are f × h and h × f (2f × h for the gate and up together) and its activations f wide. Default 4 × hidden; tp must divide it.', PARAMS],
  'model.vocab': ['Vocabulary rows: the word embedding and the output layer are vocab × hidden (one matrix when tied), and the loss keeps an fp32 copy of the logits on the last stage. Padded to a multiple of tp (128 × tp under Megatron with its own model code).', PARAMS],
  'model.mlp': ['gelu, relu, swiglu or geglu. The GLUs have a gate and an up projection (twice the input weight) and save wider activations.', ACTS],
  'model.experts': ['Routed experts per MoE layer (mixture of experts; 0 = a dense model). Their weights are counted in full; per token only experts per token of them run.', MOE],
  'model.experts_per_token': ['Top-k: the experts each token is sent to. Sets the active parameters, the FLOPs and the tokens each expert rank processes and exchanges. Default 2.', MOE],
  'model.expert_ffn_hidden': ['One expert’s MLP width (gate and up each for SwiGLU). Default: ffn_hidden. Fine-grained MoE (DeepSeek, Qwen3) uses many narrow experts.', MOE],
  'model.shared_experts': ['Experts every token passes through besides its routed ones (DeepSeekMoE, Llama 4, Qwen2-MoE): a dense MLP inside the MoE layer, split by tp.', MOE],
  'model.shared_expert_ffn_hidden': ['Total width of the shared experts’ MLP. Default: shared experts × expert FFN hidden.', MOE],
  'model.first_dense_layers': ['Leading layers with a dense MLP before the MoE layers start (DeepSeek-V3: 3). Dense layers use ffn_hidden.', MOE],
  'model.moe_every': ['After the first dense layers, every n-th layer is MoE and the others dense (Llama 4 Maverick: 2). Default 1: every layer.', MOE],
  'model.qk_norm': ['RMSNorm over each head’s query and key (Qwen3, OLMo 2): two head-dim weight vectors per layer and their saved inputs.', PARAMS],
  'model.shared_expert_gate': ['A sigmoid gate ([1, hidden] weight) on the shared experts’ output in each MoE layer (Qwen2-MoE).', MOE],
  'model.router_bias': ['A bias per expert on the router (DeepSeek-V3’s e_score_correction_bias): experts parameters more in each MoE layer.', MOE],
  'model.q_lora_rank': ['Multi-head latent attention (DeepSeek-V2/V3): the rank of the query latent; 0 projects queries directly. Only with kv_lora_rank.', MLA],
  'model.kv_lora_rank': ['Multi-head latent attention: the rank of the key/value latent (DeepSeek-V3: 512); above 0 turns MLA on. Head dim is then the non-rotary part of q and k.', MLA],
  'model.qk_rope_head_dim': ['MLA: the rotary part of each query and key head (DeepSeek-V3: 64), shared by all heads for keys.', MLA],
  'model.v_head_dim': ['MLA: the size of each value head (DeepSeek-V3: 128). Default: head dim.', MLA],
  'model.mtp_layers': ['Multi-token prediction modules (DeepSeek-V3: 1): each a layer of the last layer’s kind, a 2h→h projection and a second loss on the last stage.', MLA],
  'model.sliding_window': ['Local layers attend to the last n tokens only (Mistral 4096, Gemma 3 1024, gpt-oss 128): fewer attention FLOPs; flash keeps no scores either way. 0: full attention.', VARIANTS],
  'model.global_every': ['With a sliding window: every n-th layer attends globally (Gemma 3: 6, gpt-oss: 2). 0: every layer is local.', VARIANTS],
  'model.attention_sinks': ['A learned logit per head joins each softmax (gpt-oss): one parameter per head and layer.', VARIANTS],
  'model.post_norms': ['A norm on the attention’s and on the MLP’s output as well as before them (Gemma 2/3): four norms per layer, two more saved inputs.', VARIANTS],
  'model.parallel_norms': ['With a parallel block: the MLP reads the input through a norm of its own (GPT-NeoX, Pythia): one more norm per layer and the MLP’s saved input.', VARIANTS],
  'model.parallel_block': ['Attention and MLP side by side on one norm, their outputs added once (Falcon, GPT-J, PaLM): one norm and one saved input fewer per layer.', VARIANTS],
  'model.arch': ['decoder (causal attention: GPT, Llama) or encoder (BERT: bidirectional, with an embedding norm, token types and a pooler by default).', PARAMS],
  'model.head_dim': ['Size of one attention head; the QKV projection is (heads + 2 × kv heads) × head dim wide. Default hidden / heads; needed when heads does not divide hidden.', PARAMS],
  'model.max_positions': ['Rows of a learned position table (a replicated weight); with learned positions the sequence may not exceed it. Also the sequence-length default (capped at 8192). 0 = unknown.', PARAMS],
  'model.position_embedding': ['learned, rope, alibi or none. Only learned adds weights (a table of max positions rows) and limits the sequence length.', PARAMS],
  'model.norm': ['layernorm or rmsnorm (no bias). Under Hugging Face code RMSNorm runs op by op and saves both an fp32 and a normalized copy of its input.', IMPL],
  'model.embedding_dim': ['Factorized embedding size (ALBERT): the word embedding becomes vocab × this, plus a mapping to hidden. Default hidden; a decoder with tied embeddings needs hidden.', PARAMS],
  'model.mlp_bias': ['Biases on the MLP\'s linear layers and the experts\', whatever Bias says (GPT-J: unbiased attention, biased MLP). Default: the same as Bias.', PARAMS],
  'model.output_bias': ['A bias on the output layer, one per vocabulary entry (GPT-J\'s lm_head); its own even with tied embeddings.', PARAMS],
  'model.qkv_bias': ['Biases on the query, key and value projections alone, whatever Bias says (Qwen2 and Qwen2.5: q/k/v biased, nothing else). Default: the same as Bias.', PARAMS],
  'model.bias': ['Biases in the linear layers and LayerNorms (GPT-2 and BERT have them, Llama not): a few vectors per layer.', PARAMS],
  'model.tied_embeddings': ['The output layer reuses the word-embedding matrix (no new weights). With pp > 1 the last stage still keeps its own copy, with gradients and optimizer states.', PIPE],
  'model.shared_layers': ['All layers share one set of weights (ALBERT): each stage holds it once, with its gradients and optimizer states; activations are still saved per layer.', PARAMS],
  'model.hidden_act': ['The activation as the model code spells it (Hugging Face hidden_act); the default follows MLP. Under Hugging Face code gelu_new runs op by op and saves four tensors; gelu, gelu_pytorch_tanh and relu are one kernel that saves its input.', IMPL],
  'model.fused_qkv': ['One QKV projection (GPT-2, Bloom) instead of separate q, k, v: under autocast each separate projection casts the input again (more memory and kernels). Megatron model code always fuses.', IMPL],

  'training.seq_len': ['Tokens per sample: every saved activation grows with it, eager attention’s scores with its square. Default: max positions capped at 8192, else 2048.', ACTS],
  'training.micro_batch': ['Samples per microbatch on each data-parallel rank: saved activations grow in proportion; the step runs global batch / (micro batch × dp) microbatches.', ACTS],
  'training.global_batch': ['Samples per optimizer step, a multiple of micro batch × dp (the default). It sets the microbatches per step, so the step time, the pipeline bubble’s share and tokens per step.', `${M}the-step`],
  'training.dtype': ['Activations and matmul inputs: fp32, fp16 or bf16 (fp8 is not modelled). Saved tensors take 4 or 2 bytes per element, and it sets the peak the matmuls run at.', ACTS],
  'training.optimizer': ['fp32 states per parameter: Adam/AdamW 2, SGD 0, SGD with momentum 1, Lion 1, Adafactor rows + columns per matrix. The optimizer line is these plus the fp32 master copy, when kept.', STATES],
  'training.recompute': ['none; selective (drops the attention scores Megatron recomputes: no change with flash attention); full (each layer keeps only its input and runs its forward again in backward).', ACTS],
  'training.param_dtype': ['Weights resident on the device, 4 or 2 bytes per parameter (fp8 is rejected). Default: the activation dtype under Megatron and DeepSpeed, fp32 under FSDP and PyTorch.', STATES],
  'training.grad_dtype': ['Gradients, 4 or 2 bytes per parameter (fp8 is rejected). Default: fp32 under Megatron (main grads), the parameter dtype otherwise.', STATES],
  'training.master_weights': ['A separate fp32 copy of the weights in the optimizer, 4 bytes per parameter. Default: on with 16-bit weights, except under PyTorch (torch.optim keeps none); not allowed with fp32 weights.', STATES],
  'training.attention': ['flash saves q, k, v and an fp32 log-sum-exp and recomputes the scores in backward; eager saves the heads × seq² probabilities (and with dropout its mask and output). Context parallelism needs flash.', ACTS],
  'training.dropout': ['Dropout probability, from 0 up to (not including) 1. Above 0 every dropout keeps a 1-byte mask per element for backward.', ACTS],
  'training.train_tokens': ['Tokens the whole run trains on (0 to 10¹⁸): above 0 the results add the time to train, GPU-hours and, with a price, the cost. Memory does not change.', `${M}the-step`],
  'training.fp8': ['FP8 GEMMs in the layers (Transformer Engine delayed or current scaling; DeepSeek-V3 blockwise): GEMMs at the fp8 peak, their saved inputs 1 byte, fp8 weight copies 2 bytes per weight. Needs fp8 tensor cores and Megatron code.', `${M}fp8-training`],
  'training.expert_imbalance': ['The busiest expert rank’s share of routed tokens over the mean (1 = balanced). Its activations, GEMMs and all-to-all grow by it: memory and time are that rank’s.', MOE],
  'training.router_z_loss': ['Megatron --moe-z-loss-coeff > 0 (ST-MoE): the z-loss keeps every token’s router logits in fp32 for its backward, experts × 4 bytes per token in each MoE layer.', ACTS],
  'training.capacity_factor': ['Megatron --moe-expert-capacity-factor: tokens past this multiple of an expert’s mean share are dropped, which caps the imbalance. Empty: dropless.', MOE],

  'parallel.dp': ['Data-parallel replicas (integer ≥ 1): each holds a full copy of the weights, gradients and optimizer states unless ZeRO or the distributed optimizer shards it over dp × cp × ulysses. Adds the gradient reduction to the step.', STATES],
  'parallel.tp': ['Tensor parallelism: splits the layers’ weight matrices and the activations inside attention and the MLP by tp, with all-reduces (with sp: all-gathers and reduce-scatters) in every layer. Must divide heads, kv heads and FFN width.', ACTS],
  'parallel.pp': ['Pipeline stages: each holds layers / pp layers, but the first keeps the activations of up to pp microbatches in flight. Adds the pipeline bubble.', PIPE],
  'parallel.zero': ['ZeRO stage: 1 shards optimizer states, 2 also gradients, 3 also weights, over dp × cp × ulysses ranks. Megatron: 0 (use the distributed optimizer); FSDP: 0, 2, 3; PyTorch: 0, 1.', STATES],
  'parallel.sp': ['Megatron sequence parallelism (with tp > 1): also splits the activations outside the tensor-parallel region (norm inputs, dropout masks) by tp: per layer 34·sbh/t instead of sbh(10 + 24/t). tp must divide the sequence.', ACTS],
  'parallel.distributed_optimizer': ['Megatron’s distributed optimizer: shards the fp32 master copy and optimizer states over the data-parallel ranks (ZeRO-1): with bf16 and Adam, 18 bytes per parameter become 6 + 12/N. Megatron only.', STATES],
  'parallel.vpp': ['Virtual pipeline chunks per stage (interleaved 1F1B): the bubble shrinks by vpp; the first stage holds 1 + (pp − 1)/(pp × vpp) times the activations. Needs pp > 1 and pp × vpp dividing layers.', PIPE],
  'parallel.first_stage_layers': ['Uneven pipeline: the first stage holds this many layers (it also holds the embedding) and the stages that are not given share the rest evenly. Megatron --decoder-first-pipeline-num-layers; needs pp > 1.', PIPE],
  'parallel.stage_layers': ['Every pipeline stage’s layer count, comma-separated (7, 8, …, 7): one per stage, adding up to the layers (Megatron --pipeline-model-parallel-layout). Leave first/last stage layers empty.', PIPE],
  'parallel.embedding_as_layer': ['The embedding takes one layer’s place on the first stage of an even split (Megatron --account-for-embedding-in-pipeline-split): the first stage holds one layer fewer.', PIPE],
  'parallel.loss_as_layer': ['The loss takes one layer’s place on the last stage of an even split (Megatron --account-for-loss-in-pipeline-split): the last stage holds one layer fewer.', PIPE],
  'parallel.last_stage_layers': ['Uneven pipeline: the last stage holds this many layers (it also holds the head and loss), the others share the rest evenly; Llama 3 405B used 7 + 14 × 8 + 7. Megatron --decoder-last-pipeline-num-layers.', PIPE],
  'parallel.cp': ['Context (ring) parallelism: splits the sequence, and so the saved activations, by cp; key/value chunks pass around a ring behind attention. Needs flash attention and 2 × cp dividing the sequence.', ACTS],
  'parallel.ulysses': ['DeepSpeed-Ulysses degree: splits the sequence, and so the saved activations, by it, with all-to-alls in every layer. Must divide heads / tp, kv heads / tp and the sequence.', ACTS],
  'parallel.ep': ['Expert parallelism (MoE models): each rank holds experts / ep of every MoE layer’s experts and exchanges tokens with an all-to-all per layer. Must divide the experts; ep × etp must divide dp × tp × cp. Megatron and DeepSpeed.', MOE],
  'parallel.overlap_moe_comm': ['Hide the expert all-to-alls behind another microbatch’s compute (Megatron --overlap-moe-expert-parallel-comm, DeepSeek’s DualPipe): only what exceeds the pass’s compute stays exposed.', MOE],
  'parallel.etp': ['Expert tensor parallelism: each expert’s MLP split over etp ranks (Megatron --expert-tensor-parallel-size). Default: tp. The experts’ data parallelism is what remains: dp × tp × cp / (ep × etp).', MOE],
  'parallel.offload_optimizer': ['none, cpu or nvme: moves the optimizer states and master copy off the device; the host also holds the fp32 gradients and runs the step. Megatron: cpu with the distributed optimizer; DeepSpeed: ZeRO ≥ 1.', STATES],
  'parallel.offload_params': ['none, cpu or nvme: moves the weights off the device, ZeRO-3 only (DeepSpeed, or FSDP with the same setting as offload optimizer and no NVMe).', STATES],
  'parallel.schedule': ['1f1b (interleaved when vpp > 1): stage r keeps at most pp − r microbatches in flight. gpipe: all forwards first, every microbatch’s activations stay alive; vpp must be 1.', PIPE],
  'parallel.overlap_grad_reduce': ['Whether the gradient reduction hides behind the backward pass (only the excess is exposed) or runs after it. Default: off under Megatron, on under DeepSpeed ZeRO-3, FSDP and DDP.', COMM],

  'implementation.model_code': ['huggingface: transformers modules run op by op (unfused norms, activations and loss: more saved tensors and kernels); megatron: fused kernels (QKV, GLU, cross entropy).', IMPL],
  'implementation.optimizer_impl': ['fused (one kernel, no temporary), foreach (passes over whole tensor lists: a temporary the size of one state, more traffic) or for_loop (one parameter at a time). Changes the optimizer step’s memory and time.', `${M}memory-over-the-step-the-peak-is-a-moment`],
  'implementation.tf32': ['fp32 matmuls on the TF32 tensor cores (allow_tf32): changes the time of fp32 training only. Megatron turns it on, PyTorch leaves it off.', ROOF],
  'implementation.allocator': ['PYTORCH_CUDA_ALLOC_CONF: recorded and noted; the fragmentation margins stay those measured with the caching allocator.', `${M}caching-allocator-and-the-verdict`],
  'implementation.host_forward_us': ['Host time to launch one forward kernel (Python module code), µs: a pass takes at least launches × this; the excess over device time is the forward host wait.', `${M}step-time-for-real-implementations`],
  'implementation.host_backward_us': ['Host time to launch one backward kernel (autograd), µs; the excess over device time is the backward host wait.', `${M}step-time-for-real-implementations`],

  'hardware.preset': ['Loads a device’s memory, peak FLOP/s, bandwidths and efficiencies (each sourced in its preset); every field you change overrides it.', 'scenario.md#24-hardware'],
  'hardware.memory_gib': ['Allocatable memory per device, GiB (what cudaMemGetInfo reports: 79.18 for the H100 80GB). The verdict compares the peak, with fragmentation and overhead, against it.', `${M}caching-allocator-and-the-verdict`],
  'hardware.gpus_per_node': ['Devices per node: groups inside a node use NVLink, groups across nodes the network. Also sets the host memory an offload needs per node.', COMM],
  'hardware.overhead_gib': ['Device memory outside PyTorch’s allocator (CUDA context, library handles), added to every device: measured 0.77 GiB on the H100; other presets 1 GiB.', `${M}the-rest-named-separately-other_detail`],
  'hardware.price_per_gpu_hour': ['Price of one device-hour, any currency: with train tokens gives the cost of the run, and the cost per million tokens. Not part of a preset.', `${M}the-step`],
  'hardware.hbm_gbps': ['Memory bandwidth, GB/s: times the memory-bound kernels (norms, activations, softmax, the optimizer step) on the roofline.', ROOF],
  'hardware.intra_node_gbps': ['NVLink bandwidth per GPU, one direction, GB/s: collectives inside a node run at this × the intra-node efficiency.', COMM],
  'hardware.inter_node_gbps': ['Network bandwidth per GPU, one direction, GB/s: a group across nodes gets at most this × the inter-node efficiency × its members per node.', COMM],
  'hardware.sm_count': ['Streaming multiprocessors, for wave quantization: small GEMMs leave some idle and run below peak. 0: no quantization (TPUs).', ROOF],
  'hardware.matmul_efficiency': ['Fraction of peak a large GEMM reaches (0.001 to 1; H100 0.80): scales every matmul’s time.', ROOF],
  'hardware.attention_efficiency': ['Fraction of peak flash attention reaches (0.001 to 1; H100 0.5).', ROOF],
  'hardware.hbm_efficiency': ['Fraction of the memory bandwidth a streaming kernel reaches (0.001 to 1; 0.84).', ROOF],
  'hardware.kernel_launch_us': ['Device-side gap added to every kernel, µs (5): weighs on small models with many short kernels.', ROOF],
  'hardware.intra_node_latency_us': ['Latency of one collective step inside a node, µs (NCCL: 3.4 over NVLink); dominates small messages.', COMM],
  'hardware.inter_node_latency_us': ['Latency of one collective step across nodes, µs (NCCL: 14 over the network).', COMM],
  'hardware.intra_node_efficiency': ['Fraction of the NVLink bandwidth collectives reach during training (0.001 to 1; 0.6).', COMM],
  'hardware.inter_node_efficiency': ['Fraction of the network bandwidth collectives reach during training (0.001 to 1; 0.9).', COMM],
};
