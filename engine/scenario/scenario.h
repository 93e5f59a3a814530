#pragma once
// The three independent inputs of an estimate (model, training run, parallel plan) plus
// the hardware and the framework whose conventions fill in what the user left open.
// Plain data only: parsing lives in io/, defaults in scenario/resolve.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "scenario/adapter.h"
#include "device/hardware_spec.h"

namespace shardcalc {

enum class Arch { Decoder, Encoder, Lstm };
enum class Mlp { Gelu, Relu, Swiglu, Geglu };
enum class PositionEmbedding { Learned, Rope, Alibi, None };
enum class Norm { LayerNorm, RmsNorm };
enum class Head { Lm, None };
// AdamW8bit: bitsandbytes' 8-bit AdamW (bnb.optim.AdamW8bit, PagedAdamW8bit; Hugging Face Trainer optim
// adamw_bnb_8bit / paged_adamw_8bit): both moments in 8 bits, block-wise quantized, updated by one fused kernel.
enum class Optimizer { Adam, AdamW, Sgd, SgdMomentum, Lion, Adafactor, AdamW8bit };
enum class Recompute { None, Selective, Full };
// Megatron-Core's --recompute-modules under selective recompute (megatron/core/transformer/transformer_config.py
// recompute_modules), as bits: a saved tensor or op of the graph names the modules whose recompute drops or re-runs it.
enum class RecomputeModule : unsigned {
    CoreAttn = 1,       // the core attention (Korthikanti et al. 2022's selective recompute; Megatron's default)
    LayerNorm = 2,      // the norms Megatron-Core builds as modules, their output discarded and recomputed
    Mlp = 4,            // a dense layer's MLP, checkpointed whole
    MoeAct = 8,         // the routed experts' activation, its output discarded and recomputed
    Moe = 16,           // a MoE layer, checkpointed whole (its dispatch and combine run again)
    SharedExperts = 32,  // a MoE layer's shared experts, checkpointed whole
    MlaUpProj = 64       // multi-head latent attention's up projections: q, k and v discarded after the core, rebuilt
};
constexpr unsigned bit(RecomputeModule m) { return static_cast<unsigned>(m); }
enum class Attention { Flash, Eager };
// FP8 GEMMs in the transformer layers (Transformer Engine recipes; DeepSeek-V3 sec. 3.3): none; per-tensor
// scales from an amax history (delayed) or from the tensor itself (current); per-block scales, 1x128 for
// activations and 128x128 for weights (blockwise, DeepSeek-V3's fine-grained quantization).
enum class Fp8Recipe { None, Delayed, Current, Blockwise, Mx, Nvfp4 };
enum class Offload { None, Cpu, Nvme };
// Megatron-Core's token dispatchers (megatron/core/transformer/moe/token_dispatcher.py, --moe-token-dispatcher-type):
// flex is MoEFlexTokenDispatcher over DeepEP or HybridEP (--moe-flex-dispatcher-backend), a hierarchical all-to-all.
enum class MoeDispatcher { AllToAll, AllGather, Flex };
// Xla: a training step compiled whole by XLA (TensorFlow on TPU as Google's BERT and ALBERT run, JAX, PyTorch/XLA):
// the only framework on a TPU, which runs nothing else.
enum class Framework { Megatron, DeepSpeed, Fsdp, Pytorch, Xla };
enum class Schedule { OneFOneB, GPipe };  // interleaved 1F1B is OneFOneB with vpp > 1
// The activation function as the model code spells it (Hugging Face `hidden_act` /
// `activation_function`): the name decides which kernels run and what they save.
enum class HiddenAct { Gelu, GeluNew, GeluPytorchTanh, Relu, Silu };
// Whose model code runs the layers: Megatron-LM / Transformer Engine fused kernels, or the
// Hugging Face transformers modules executed op by op by eager PyTorch.
enum class ModelCode { Megatron, HuggingFace };
// torch.optim's three AdamW/SGD implementations (torch/optim/adamw.py): one fused kernel, multi-tensor
// `_foreach_` ops, or a Python loop over parameters.
enum class OptimizerImpl { Fused, Foreach, ForLoop };
// How an LSTM's layers run: cuDNN's fused RNN (torch.nn.LSTM on a GPU: the input GEMM over every time step at once,
// then per step the recurrent GEMM and one fused cell kernel, launched inside one framework op), or unrolled into
// per-time-step ops launched one by one (a Python loop over LSTMCell; DeepFlow's projection).
enum class RnnImpl { Cudnn, Unrolled };
// How transformers runs a MoE layer's experts (config._experts_implementation, integrations/moe.py): grouped_mm sorts
// the routed copies by expert and runs one grouped GEMM per projection; batched_mm gathers each copy's expert weights
// and runs one small matrix-vector product per copy (torch.bmm); eager loops over the experts in Python (the experts
// class's own forward).
enum class ExpertsImpl { GroupedMm, BatchedMm, Eager };
// torch.compile's mode for the model (torch/_inductor: the Triton kernels inductor generates, AOTAutograd's min-cut
// partition of what forward saves): none runs eager; inductor (torch.compile's default mode) launches the compiled kernels
// from inductor's wrapper; reduce_overhead and max_autotune replay them as CUDA graphs (max_autotune also autotunes the
// GEMMs).
enum class CompileMode { None, Inductor, ReduceOverhead, MaxAutotune };
inline bool cuda_graphs(CompileMode m) { return m == CompileMode::ReduceOverhead || m == CompileMode::MaxAutotune; }
// PyTorch's CUDA caching allocator: fixed segments, or PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.
enum class Allocator { Caching, ExpandableSegments };

// Given<T>: a field the user may leave out (std::optional), as the scenario is read. Filled<T>: the same field once
// resolve() has filled it (scenario/resolve.cpp and framework.cpp hold each field's default), so that nothing after
// resolve() can read it unset. Fields whose absence means something (world_size, capacity_factor: dropless, a dense
// model's experts_per_token, an LSTM's rnn) stay std::optional in both forms, in the *Fields structs.
template <class T>
using Given = std::optional<T>;
template <class T>
using Filled = T;

// Every defaulted field appears once more in the list of pairs under its struct (`pair_defaults`: given, and filled,
// const or not), which both conversions between the forms walk (scenario/resolve.cpp), so that neither can miss one.

template <template <class> class D>
struct ModelDefaults {
    D<int64_t> kv_heads;        // default: heads (multi-head attention)
    D<int64_t> head_dim;        // default: hidden / heads
    D<int64_t> ffn_hidden;      // default: 4 * hidden
    D<bool> qkv_bias;           // biases on the q/k/v projections alone (Qwen2); default: `bias`
    D<bool> mlp_bias;           // biases on the MLP's (and experts') linear layers (GPT-J); default: `bias`
    D<int64_t> embedding_dim;   // ALBERT factorized embedding; default hidden
    D<bool> embedding_norm;     // default: true for encoders
    D<int64_t> type_vocab;      // default: 2 for encoders, 0 for decoders
    D<bool> pooler;             // default: true for encoders
    D<HiddenAct> hidden_act;    // default: gelu, silu (swiglu) or relu from `mlp`
    D<bool> fused_qkv;          // one QKV projection in the checkpoint's layout; default no (presets say where)
};
template <class Resolved, class F>
void pair_defaults(ModelDefaults<Given>& a, Resolved& b, F f) {
    f(a.kv_heads, b.kv_heads), f(a.head_dim, b.head_dim), f(a.ffn_hidden, b.ffn_hidden), f(a.qkv_bias, b.qkv_bias);
    f(a.mlp_bias, b.mlp_bias), f(a.embedding_dim, b.embedding_dim), f(a.embedding_norm, b.embedding_norm);
    f(a.type_vocab, b.type_vocab), f(a.pooler, b.pooler), f(a.hidden_act, b.hidden_act), f(a.fused_qkv, b.fused_qkv);
}

struct ModelFields {
    std::string preset;  // informational once resolved
    Arch arch = Arch::Decoder;
    int64_t layers = 0;
    int64_t hidden = 0;
    int64_t heads = 0;
    Mlp mlp = Mlp::Gelu;
    int64_t vocab = 0;
    int64_t max_positions = 0;              // 0: no limit known
    PositionEmbedding position_embedding = PositionEmbedding::Learned;
    Norm norm = Norm::LayerNorm;
    bool bias = true;
    bool output_bias = false;               // a bias on the output layer, one per vocabulary entry (GPT-J's lm_head)
    bool tied_embeddings = true;
    bool shared_layers = false;             // ALBERT cross-layer sharing
    Head head = Head::Lm;
    bool qk_norm = false;                   // RMSNorm over each head's q and k (Qwen3, OLMo 2): 2 * head_dim weights
    // Mixture of experts (Shazeer et al. 2017; Fedus et al. 2022): 0 experts = a dense model. A MoE layer's MLP
    // is a router over `experts` expert MLPs of width expert_ffn_hidden, each token sent to experts_per_token of
    // them, plus shared experts every token passes through (DeepSeekMoE, Dai et al. 2024).
    int64_t experts = 0;
    // A MoE model's top-k (default 2, Mixtral's) and one expert's width (gate and up each; default ffn_hidden): filled
    // where there are experts, unset for a dense model.
    std::optional<int64_t> experts_per_token, expert_ffn_hidden;
    int64_t shared_experts = 0;                   // experts every token passes through
    // Their MLP's total width; default shared_experts * expert_ffn_hidden where there are shared experts, unset otherwise.
    std::optional<int64_t> shared_expert_ffn_hidden;
    int64_t first_dense_layers = 0;               // leading dense layers (DeepSeek first_k_dense_replace)
    int64_t moe_every = 1;                        // after those, every n-th layer is MoE (Llama 4 interleave step)
    bool router_bias = false;                     // a bias per expert on the router (DeepSeek-V3's e_score_correction_bias)
    bool shared_expert_gate = false;              // a [1, hidden] sigmoid gate on the shared experts' output (Qwen2-MoE)
    // Multi-head latent attention (DeepSeek-V2/V3, DeepSeek-AI 2024): on when kv_lora_rank > 0. Queries (through a
    // q_lora_rank latent, or directly when 0) and keys/values (through the kv_lora_rank latent) are projected up per
    // head; head_dim is then the part of q and k without rotary positions, qk_rope_head_dim the rotary part, and
    // v_head_dim the value head (default head_dim).
    int64_t q_lora_rank = 0, kv_lora_rank = 0, qk_rope_head_dim = 0;
    std::optional<int64_t> v_head_dim;  // filled under latent attention, unset otherwise
    // Multi-token prediction modules trained beside the model (DeepSeek-V3 sec. 2.2; Megatron --mtp-num-layers):
    // each a layer of the last layer's kind with two norms, a [h, 2h] projection and its own loss over the shared
    // output layer, on the last pipeline stage.
    int64_t mtp_layers = 0;
    // Sliding-window attention (Mistral, Gemma 2/3, gpt-oss): local layers attend to the last sliding_window
    // tokens; with global_every = n every n-th layer (the last of each run of n, transformers' layer_types) is
    // global instead, 0: every layer is local. Windowed FLOPs, same saved tensors (flash keeps none of the scores;
    // eager attention materialises the full masked score matrix).
    int64_t sliding_window = 0, global_every = 0;
    bool attention_sinks = false;  // a learned logit per head in the softmax (gpt-oss self_attn.sinks)
    // Gemma 2's soft-capped output logits, cap * tanh(logits / cap) (final_logit_softcapping); 0: none.
    double logit_softcap = 0;
    // gpt-oss's clamped SwiGLU in the routed experts (GptOssExperts: the gate clamped above at the limit, the up
    // projection to +-limit, (up + 1) * gate * sigmoid(1.702 * gate)); 0: the plain gated activation.
    double swiglu_limit = 0;
    // Gemma 2's soft-capped attention scores, cap * tanh(scores / cap) before the softmax (attn_logit_softcapping);
    // 0: none.
    double attention_softcap = 0;
    bool parallel_block = false;   // attention and MLP side by side on one norm (Falcon parallel_attn, GPT-J, PaLM)
    bool post_norms = false;       // a norm on the attention's and on the MLP's output too (Gemma 2/3 "sandwich" norms)
    bool parallel_norms = false;   // a parallel block's MLP reads the input through a norm of its own (GPT-NeoX, Pythia)
    // LSTM language models (arch lstm; Zaremba et al. 2014, DeepFlow's LSTM projection): `hidden` is the cell
    // width, `embedding_dim` the first layer's input; the top layer's output goes through a linear projection to
    // `projection` wide before the softmax (0: none); the four gates' GEMMs fused into one per time step, or one
    // per gate.
    int64_t projection = 0;
    // LSTMP (Sak et al. 2014; torch.nn.LSTM's proj_size): each layer projects its output h_t = W_hr (o * tanh(c_t)) to
    // proj_size wide, which the recurrence, the next layer and the head read instead (0: none; below `hidden`).
    int64_t proj_size = 0;
    bool fused_gates = true;
    // Bias vectors of each layer's gates (with `bias`): torch.nn.LSTM keeps two, b_ih and b_hh; DeepFlow's and
    // TensorFlow's cells one.
    int64_t gate_biases = 2;
};

template <template <class> class D>
struct TrainingDefaults {
    D<int64_t> seq_len;         // default: max_positions capped at 8192
    D<int64_t> global_batch;    // default: micro_batch * dp
    D<Dtype> param_dtype;       // weights resident on the device; default per framework
    D<Dtype> grad_dtype;        // default per framework
    D<bool> master_weights;     // an fp32 copy of 16-bit weights in the optimizer; default per framework
    // Clipping the gradient by its global norm before the update (Megatron --clip-grad, default 1.0; torch
    // clip_grad_norm_): two passes over the gradient. Default: on under Megatron, off elsewhere.
    D<bool> grad_clip;
    // BERT/ALBERT pre-training: the MLM head over this many gathered positions per sequence (Google's BERT and
    // ALBERT, run_pretraining.py max_predictions_per_seq: about 15% of the sequence), or over every position (0:
    // Hugging Face's BertForPreTraining and Megatron's BERT compute the logits for all tokens, the loss masked).
    // Default: Google's ~15% (ceil(0.15 seq_len)) under xla, every position elsewhere.
    D<int64_t> mlm_predictions;
};
template <class Resolved, class F>
void pair_defaults(TrainingDefaults<Given>& a, Resolved& b, F f) {
    f(a.seq_len, b.seq_len), f(a.global_batch, b.global_batch), f(a.param_dtype, b.param_dtype);
    f(a.grad_dtype, b.grad_dtype), f(a.master_weights, b.master_weights), f(a.grad_clip, b.grad_clip);
    f(a.mlm_predictions, b.mlm_predictions);
}

struct TrainingFields {
    int64_t micro_batch = 1;
    Dtype dtype = Dtype::Bf16;              // activations and matmul inputs
    Optimizer optimizer = Optimizer::AdamW;
    Recompute recompute = Recompute::None;
    unsigned recompute_modules = 0;  // bits of RecomputeModule under selective recompute; 0: Megatron's default, core_attn
    Attention attention = Attention::Flash;
    double dropout = 0.0;
    double train_tokens = 0;  // tokens to train for time-to-train and cost; 0: not reported
    // MoE routing as trained: the busiest expert-parallel rank's share of routed tokens relative to the mean
    // (1 = perfectly balanced), and Megatron's --moe-expert-capacity-factor, which drops tokens past that
    // multiple of the mean (unset: dropless). Peak memory and time are the busiest rank's.
    double expert_imbalance = 1;
    std::optional<double> capacity_factor;
    // The router's z-loss (ST-MoE, Zoph et al. 2022; Megatron --moe-z-loss-coeff > 0): logsumexp of the router
    // logits squared, whose backward needs the fp32 logits of every token.
    bool router_z_loss = false;
    Fp8Recipe fp8 = Fp8Recipe::None;
    // Megatron's --cpu-offloading --cpu-offloading-num-layers N (activations only, Transformer Engine's CPU offload
    // context): the saved tensors of the first N layers go to host memory after their forward and come back before
    // their backward, each copy spread over the layers until the next offloaded one. 0: none.
    int64_t activation_offload_layers = 0;
};

template <template <class> class D>
struct ParallelDefaults {
    D<int64_t> etp;                  // each expert's MLP split over etp ranks; default tp (Megatron)
    D<bool> overlap_grad_reduce;     // gradient reduction hidden behind backward; default per framework
};
template <class Resolved, class F>
void pair_defaults(ParallelDefaults<Given>& a, Resolved& b, F f) {
    f(a.etp, b.etp), f(a.overlap_grad_reduce, b.overlap_grad_reduce);
}

struct ParallelFields {
    int64_t dp = 1, tp = 1, pp = 1, vpp = 1, cp = 1, ulysses = 1;
    // Expert parallelism (Megatron MoE parallel folding, Liu et al. 2025): experts split over ep ranks, each
    // expert's MLP over etp ranks (default tp); the expert part's data parallelism is what remains of the
    // non-pipeline ranks, world / (pp * ep * etp). ep and etp do not multiply the world.
    int64_t ep = 1;
    // The token dispatcher's collectives hidden behind another microbatch's computation (Megatron-Core
    // --overlap-moe-expert-parallel-comm with its combined 1F1B schedule; DeepSeek-V3's DualPipe, sec. 3.2.1).
    bool overlap_moe_comm = false;
    MoeDispatcher moe_dispatcher = MoeDispatcher::AllToAll;
    bool sp = false;
    int zero = 0;
    bool distributed_optimizer = false;
    Offload offload_optimizer = Offload::None;
    Offload offload_params = Offload::None;
    std::optional<int64_t> world_size;      // when given, must equal dp*tp*pp*cp*ulysses
    Schedule schedule = Schedule::OneFOneB;
    // DeepSpeed's zero_optimization.reduce_bucket_size, in elements (its default 5e8): the size of the ZeRO
    // optimizer's contiguous gradient bucket. Set for framework deepspeed only.
    std::optional<int64_t> reduce_bucket_size;
    // Megatron's --overlap-param-gather: the distributed optimizer's all-gather of the updated parameters runs
    // bucket by bucket beside the next step's first forward pass instead of after the optimizer step.
    bool overlap_param_gather = false;
    // Megatron's --tp-comm-overlap (Transformer Engine's userbuffers): each sequence-parallel all-gather and
    // reduce-scatter of a layer runs in chunks beside the GEMM that consumes or produces it.
    bool tp_comm_overlap = false;
    // Uneven pipelines: the first / last stage's layer count, the other stages sharing the rest evenly
    // (Megatron --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers); unset = even.
    std::optional<int64_t> first_stage_layers, last_stage_layers;
    // Or every stage's count, in order (Megatron --pipeline-model-parallel-layout); empty: not given.
    std::vector<int64_t> stage_layers;
    // Megatron --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split: the embedding
    // (first stage) and the loss (last stage) each take one layer's place in an even split.
    bool embedding_as_layer = false, loss_as_layer = false;
};

template <template <class> class D>
struct ImplementationDefaults {
    D<ModelCode> model_code;
    D<OptimizerImpl> optimizer_impl;
    D<bool> tf32;               // fp32 matmuls on the TF32 tensor-core path (cuBLAS: allow_tf32)
    // Host time to issue one kernel in eager mode: forward runs the model's Python code per op, backward
    // autograd's C++ engine. A pass takes at least its kernel count times this, so small models come out
    // launch-bound as they are.
    D<double> host_forward_us, host_backward_us;
};
template <class Resolved, class F>
void pair_defaults(ImplementationDefaults<Given>& a, Resolved& b, F f) {
    f(a.model_code, b.model_code), f(a.optimizer_impl, b.optimizer_impl), f(a.tf32, b.tf32);
    f(a.host_forward_us, b.host_forward_us), f(a.host_backward_us, b.host_backward_us);
}

// How the training code runs on the device: decides saved tensors, temporaries and kernels. The defaulted fields take
// a per-framework default (scenario/framework.cpp); these are given as they are, or mean something unset.
struct ImplementationFields {
    // fp32 GEMMs inside cuDNN on the TF32 path (torch.backends.cudnn.allow_tf32); filled for an LSTM, unset otherwise.
    std::optional<bool> cudnn_tf32;
    std::optional<RnnImpl> rnn;             // arch lstm only: filled for an LSTM, unset otherwise
    std::optional<ExpertsImpl> experts;     // model_code huggingface with experts only: filled there, unset otherwise
    Allocator allocator = Allocator::Caching;
    CompileMode compile = CompileMode::None;
    // Host time to issue one kernel of a torch.compile'd pass (inductor's wrapper; 0 where CUDA graphs replay it);
    // filled under torch.compile, unset otherwise.
    std::optional<double> host_compiled_us;
    // The caching allocator's reserve beyond the allocated peak, as a fraction of it, measured on the user's own runs
    // (shardcalc reconcile's calibration); unset: the median and worst of the runs in validation/measured.
    std::optional<double> fragmentation;
    // Megatron's --moe-router-fusion: Transformer Engine's fused top-k and load-balancing-loss kernels in the router.
    bool moe_router_fusion = false;
    // Hugging Face model code whose causal-LM loss runs CrossEntropyLoss on the 16-bit logits as they are (Qwen 1's
    // modeling_qwen.py: `loss_fct(shift_logits.view(...), ...)`, no upcast), where transformers' own models upcast
    // them to fp32 first (ForCausalLMLoss `logits.float()`). Under autocast the loss runs in fp32 either way.
    bool loss_16bit = false;
};


// The modules a plan recomputes, as RecomputeModule bits: none without selective recompute (full recompute re-runs the
// whole layer), core attention where none are named.
inline unsigned recomputed_modules(const TrainingFields& t) {
    if (t.recompute != Recompute::Selective) return 0;
    return t.recompute_modules != 0 ? t.recompute_modules : bit(RecomputeModule::CoreAttn);
}


// Each object of the scenario: its fields given as they are, and its defaulted fields, optional as given (D = Given)
// or plain once resolved (D = Filled).
template <template <class> class D>
struct ModelSpecOf : ModelFields, ModelDefaults<D> {};
template <template <class> class D>
struct TrainingSpecOf : TrainingFields, TrainingDefaults<D> {};
template <template <class> class D>
struct ParallelSpecOf : ParallelFields, ParallelDefaults<D> {};
template <template <class> class D>
struct ImplementationSpecOf : ImplementationFields, ImplementationDefaults<D> {};

template <template <class> class D>
struct ScenarioOf {
    Framework framework = Framework::Megatron;
    ModelSpecOf<D> model;
    TrainingSpecOf<D> training;
    ParallelSpecOf<D> parallel;
    HardwareSpec hardware;
    ImplementationSpecOf<D> implementation;
    AdapterSpec adapter;  // method none: every parameter is trained
};

// The scenario as read (io/) and as the search varies it: defaulted fields may be unset.
using ModelSpec = ModelSpecOf<Given>;
using TrainingSpec = TrainingSpecOf<Given>;
using ParallelSpec = ParallelSpecOf<Given>;
using ImplementationSpec = ImplementationSpecOf<Given>;
using Scenario = ScenarioOf<Given>;
// The scenario once resolved (Config::s): every defaulted field filled.
using ResolvedModel = ModelSpecOf<Filled>;
using ResolvedTraining = TrainingSpecOf<Filled>;
using ResolvedParallel = ParallelSpecOf<Filled>;
using ResolvedImplementation = ImplementationSpecOf<Filled>;
using ResolvedScenario = ScenarioOf<Filled>;

}  // namespace shardcalc
