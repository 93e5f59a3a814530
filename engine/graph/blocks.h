#pragma once
// Building blocks shared by the architecture builders. Saved-tensor lists follow
// Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer
// Models", sec. 4.1) generalised to GQA, gated MLPs, flash attention and head_dim*heads != hidden.
#include "graph/op.h"
#include "scenario/precision.h"
#include "scenario/resolve.h"

namespace shardcalc {

// What the builders need to know besides the model shape.
struct BuildContext {
    const ResolvedModel& m;
    Attention attention;
    bool dropout;          // dropout probability > 0: masks are saved
    bool fused_glu;
    int64_t vocab_padded;
    double act_bytes;   // bytes of one activation element in the training dtype
    double up_bytes;    // bytes of an element autocast keeps in fp32 (4 under autocast, else act_bytes)
    bool causal;        // decoder self-attention masks the future
    bool hf_code;       // Hugging Face modules in eager PyTorch (framework traits)
    // Megatron's module code in eager PyTorch (Megatron-LM, Megatron-DeepSpeed; not XLA, which fuses): its kernels are
    // counted one by one as its code launches them (norm backward, bias gradients, residual gradient sums, layouts).
    bool megatron_eager;
    bool autocast;      // torch.autocast: every consuming linear casts its fp32 input itself
    bool router_z_loss; // training.router_z_loss: the router keeps its fp32 logits too
    bool layer_scaled_softmax;  // Megatron-DeepSpeed's query-key layer scaling (scenario/framework.h)
    bool bf16;          // the training dtype is bf16 (torch._grouped_mm's grouped kernel takes no other)
    // Eager attention soft-caps its scores op by op (model.attention_softcap under training.attention eager; a
    // FlashAttention kernel caps inside itself and PyTorch's SDPA not at all).
    bool softcap_scores;
    bool batched_experts;  // transformers' batched_mm experts (implementation.experts)
    bool loop_experts;     // transformers' eager experts: a Python loop over the experts
    // torch.compile (implementation.compile) over transformers' modules: inductor's fused kernels
    // (graph/compiled_kernels.h) and AOTAutograd's partition of what forward saves.
    bool compiled;
    // One QKV projection: the checkpoint's own layout (model.fused_qkv: GPT-2, Bloom, Falcon), or Megatron's module
    // code, which always fuses them into one column-parallel linear.
    bool fused_qkv;
    // Megatron-Core's MoE layer (framework megatron): its router, token dispatcher and Transformer Engine's grouped
    // experts launched op by op as megatron/core/transformer/moe/ (core_v0.15) issues them.
    bool megatron_core;
    bool fused_router;  // implementation.moe_router_fusion
    bool loss_16bit;    // implementation.loss_16bit: the causal-LM loss on the 16-bit logits, not upcast
};

BuildContext build_context(const Config& c);

// Gemma 2's soft-capped output logits (model.logit_softcap): cap * tanh(logits / cap) as three ops.
Op logit_softcap(const BuildContext& b);

// Whether the plan takes this kernel path (KernelPath): the costs and saved bytes of the other are zero.
bool on_path(KernelPath path, const Config& c);

// transformers' SDPA attention over sliding-window layers whose window is shorter than the sequence: the model passes
// an explicit boolean mask [b, 1, s, s] (masking_utils.py sdpa_mask, built once per forward and shared by the
// layers), so torch's SDPA cannot take its FlashAttention backend (no attn_mask there) and runs the memory-efficient
// one, which computes every block of the scores (none skipped as masked).
bool sdpa_window_mask(const Config& c);

// Whether an op multiplies by a weight (a linear or expert GEMM): its first parameter is then a GEMM's weight.
bool has_matmul(const Op& op);

// Parameter tensors of a module and its children, each counted where it is stored (tied and shared ones are another
// op's): what ZeRO-3 gathers one by one.
double param_tensor_count(const Module& m);

// Elements of a parameter tensor one device holds: tp splits a sharded one, ep x etp an expert's.
double local_numel(const ParamTensor& p, const Config& c);

ParamTensor weight(int64_t out, int64_t in, ParamSplit split);
ParamTensor vector_param(const char* name, int64_t n, ParamSplit split);

// A linear layer [out, in]; `sharded` says whether tp splits the weight (column- or
// row-parallel), `bias_sharded` whether it splits the bias (column-parallel only).
enum class Parallel { None, Column, Row };  // Megatron linear kinds; None: replicated on every tp rank

// `save_input` is false for a second projection of an input another projection already saved
// (Hugging Face's separate q/k/v or gate/up outside autocast share one tensor).
Op linear(const std::string& name, int64_t out, int64_t in, bool bias, Parallel kind, SavedSplit input_split,
          int64_t input_width, bool save_input = true);

// An op kept in the training dtype under an fp8 recipe: the output layer, routers (DeepSeek-V3 sec. 3.3.1:
// embedding, output head, MoE gating, norms and attention stay in their original precision; Megatron's output
// layer is not a Transformer Engine module).
Op high_precision(Op op);
// A GEMM that runs in fp8: an fp8 recipe is on and its op was not kept in the training dtype.
inline bool runs_in_fp8(const Work& w, const Config& c) {
    return w.kind == WorkKind::Matmul && w.fp8 && c.s.training.fp8 != Fp8Recipe::None;
}
// A linear whose input pointwise ops make from tensors kept anyway (a norm's output from its input and statistics, an
// activation's from its input): torch.compile's partitioner rebuilds the input in backward instead of saving it
// (torch/_functorch/partitioners.py min_cut_rematerialization_partition: pointwise ops are recomputable, matmuls,
// attention and random ops are not). Unchanged in eager.
Op pointwise_fed(const BuildContext& b, Op op);
// A linear as Hugging Face runs it under eager PyTorch: autocast's cast of an fp32 input and the bias
// gradient's reduction as kernels of their own (unchanged for Megatron's fused kernels).
Op eager_linear(const BuildContext& b, Op op, bool fp32_input);

// Memory-bound work of `width` elements per token, with HBM bytes per element forward and backward.
Work elementwise(int64_t width, SavedSplit split, double fwd_bytes, double bwd_bytes);
// The same in `fwd_kernels` and `bwd_kernels` launches (an op chain eager PyTorch runs kernel by kernel; 0: fused into
// a neighbour's kernel, its bytes counted, no launch of its own).
Work elementwise(int64_t width, SavedSplit split, double fwd_bytes, int fwd_kernels, double bwd_bytes, int bwd_kernels);
// A GEMM [tokens, in] x [in, out]; `split_in`: a row-parallel one, its inner dimension split (else its output).
Work matmul_work(int64_t in, int64_t out, bool split_in);

Op norm(const BuildContext& b, const std::string& name, int64_t width);
Op dropout_add(const BuildContext& b, const std::string& name, int64_t width);
// Widths per token of q, k and v across all heads, and the q/k and v head sizes: standard and grouped-query
// attention, or multi-head latent attention (q and k heads with a rotary part, v heads of their own size).
struct AttentionWidths {
    int64_t q = 0, k = 0, v = 0, qk_head = 0, v_head = 0;
};
AttentionWidths attention_widths(const ResolvedModel& m);

// `local`: a sliding-window layer (model.sliding_window).
Module self_attention(const BuildContext& b, bool local = false);
// Marks every saved tensor of `m` (and its children) as dropped, and every op as run again, by the selective
// recompute of the RecomputeModule bits given.
void tag_recompute(Module& m, unsigned drops, unsigned reruns);

// A dense MLP of width f (ffn_hidden; a MoE layer's shared experts use their own width). `save_input` false:
// its input is a tensor another op already keeps (a parallel block's normalized input).
Module mlp(const BuildContext& b, int64_t f, const char* name = "mlp", bool save_input = true);
Module moe_mlp(const BuildContext& b);
Op cross_entropy(const BuildContext& b);

}  // namespace shardcalc
