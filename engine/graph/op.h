#pragma once
// The model graph: modules (the tree of the Megatron analysis tool's per-module table) holding
// ops. Each op declares its parameter tensors and the tensors it saves for backward, together
// with the dimension that each kind of parallelism splits. Memory is the sum over ops.
#include <cstdint>
#include <string>
#include <vector>

namespace shardcalc {

// How tensor parallelism splits a parameter (Megatron column/row-parallel linears,
// megatron/core/tensor_parallel/layers.py).
enum class ParamSplit {
    Replicated,  // norms, biases of row-parallel linears, position tables: full copy on every rank
    Sharded,     // split by tp: column-parallel weight and bias, row-parallel weight, vocab-parallel embedding
    Expert,      // a routed expert's weight: experts split by ep, each expert's width by etp (Megatron-Core MoE)
};

struct ParamTensor {
    std::string name;              // "w", "b"
    std::vector<int64_t> shape;    // full (unsharded) shape
    ParamSplit split = ParamSplit::Replicated;
    bool tied = false;             // shares storage with the word embedding (counted once)
    bool shared = false;           // another op's parameter used again (an MTP module's output layer): never counted
    bool frozen = false;           // not trained (the base model under an adapter): no gradient, no optimizer state
    bool quantized = false;        // frozen and stored in 4 bits with block scales (QLoRA's base weights)
    bool split_last = false;       // Sharded along its last dimension (a row-parallel linear's input), not its first
    bool base_copy = false;        // trained in the base's dtype beside the adapters (PEFT's modules_to_save copy)

    int64_t numel() const {
        int64_t n = 1;
        for (int64_t d : shape) n *= d;
        return n;
    }
};

// Storage format of a saved tensor.
enum class SavedKind {
    Activation,  // the training dtype (2 bytes in bf16)
    Mask,        // dropout mask, 1 byte per element (torch bool mask)
    Fp32,        // kept in fp32 regardless of the training dtype (softmax statistics, CE logits)
    GemmInput,   // a GEMM's input kept for its weight gradient: in fp8 under an fp8 recipe (Transformer Engine
                 // saves the quantized input, with its scales), else the training dtype
    Upcast,      // fp32 under torch.autocast (residual stream, norm inputs, ops on autocast's fp32
                 // list such as pow), else the training dtype
    SharedGemmInput,  // a GEMM input another op already keeps in the training dtype (autograd saves one tensor
                      // once): only the fp8 copy an fp8 recipe keeps for the GEMM counts
};

// Which parallelism splits a saved tensor.
enum class SavedSplit {
    Sequence,  // [s, b, width] outside the tensor-parallel region: split by cp and ulysses, and by tp under sp
    Tensor,    // [s, b, width] inside the tensor-parallel region: split by tp, cp and ulysses
    Scores,    // [b, heads, s, s] attention scores: split by tp and ulysses (heads)
    Routed,    // [tokens * top-k, width] tokens dispatched to the experts (hidden wide): not split by etp
    Expert,    // [tokens * top-k, width] inside an expert's MLP: the width split by etp
    Weight,    // [width] a weight's elements, not per token (a frozen weight dequantized and kept for backward): split by tp
};

// Where a framework takes one of two kernel paths by the plan's shapes, the graph (built once per model) holds both and
// each plan takes one: Megatron's fused scale-mask-softmax or torch's op-by-op softmax (scenario/framework.h
// megatron_fused_softmax); transformers' SDPA with an explicit sliding-window mask where the window is shorter than
// the sequence (sdpa_window_mask). Everything else is on every plan's path.
// LocalExpertSort: Megatron's alltoall dispatcher sorting the exchanged rows by local expert (and back), which runs
// only where a rank holds more than one expert (graph/blocks.cpp on_path). AllToAllDispatch: the alltoall
// dispatcher's own preprocessing (parallel.moe_dispatcher alltoall).
enum class KernelPath : uint8_t { Always, FusedSoftmax, TorchSoftmax, SdpaWindowMask, LocalExpertSort, AllToAllDispatch };

struct SavedTensor {
    std::string name;
    SavedKind kind = SavedKind::Activation;
    SavedSplit split = SavedSplit::Sequence;
    int64_t width = 0;              // per token (Sequence/Tensor) or number of heads (Scores)
    unsigned dropped_by = 0;  // RecomputeModule bits whose selective recompute drops it (rebuilt in backward)
    bool gathered = false;  // in an MLM head over the gathered positions: Derived::mlm_share of the tokens
    KernelPath path = KernelPath::Always;
};

// What an op computes, for FLOPs and time. Matmul and attention FLOPs are the model FLOPs
// (the MFU convention of Chowdhery et al. 2022, app. B); elementwise work is timed by its
// memory traffic only.
enum class WorkKind { Matmul, Attention, Elementwise };

struct Work {
    WorkKind kind = WorkKind::Elementwise;
    // Matmul: each token's [in] vector times a weight [in, out]; `sharded`: tp splits the weight.
    int64_t in = 0, out = 0;
    bool sharded = true;
    bool split_in = false;  // row-parallel: tp splits the inner dimension instead of the output
    bool routed = false;    // an expert's GEMM: over the routed tokens, its width split by etp instead of tp
    bool fp8 = true;        // runs in fp8 under an fp8 recipe (not the output layer, routers or attention's core)
    bool fp32 = false;      // runs in fp32 whatever the training dtype (Hugging Face's grouped experts under autocast)
    // An expert GEMM PyTorch runs as one GEMM per local expert (torch._grouped_mm's fallback for dtypes its grouped
    // kernel does not take), where a grouped kernel runs them all in one launch.
    bool group_loop = false;
    // An expert GEMM Transformer Engine's GroupedLinear issues as one cuBLAS GEMM per local expert over four streams
    // (TE 2.10 common/gemm/cublaslt_gemm.cu multi_stream_cublas_gemm): a launch per group, timed as the grouped kernel.
    bool launch_per_group = false;
    // Issued from transformers' eager experts loop: every kernel a framework op from Python, and the loop synchronizes
    // the host with the device for every expert (torch.where's nonzero, the index test), so its forward kernels wait
    // for the host (Kernel::synced_seconds).
    bool expert_loop = false;
    // Issued after Megatron-Core's alltoall dispatcher waits for the tokens per expert on the host (token_dispatcher.py
    // token_dispatch: d2h_event.synchronize() before the exchange): its forward kernels wait for the host too.
    bool after_sync = false;
    // transformers' batched_mm experts: every routed row multiplies its own gathered copy of its expert's weight
    // (torch.bmm of [S, out, in] by [S, in, 1]): S matrix-vector products in one launch.
    bool per_row_weights = false;
    // Attention: query heads x head_dim, scores over the sequence; causal masking halves the work.
    int64_t heads = 0, head_dim = 0;
    int64_t v_head_dim = 0;  // the value heads' size where it differs (multi-head latent attention); 0: head_dim
    int64_t window = 0;      // sliding-window attention: each query sees the last `window` keys; 0: all
    bool causal = false, flash = true;
    // Elementwise: `width` elements per token (heads per score row for SavedSplit::Scores),
    // moving fwd_bytes / bwd_bytes of HBM traffic per element.
    int64_t width = 0;
    SavedSplit split = SavedSplit::Sequence;
    double fwd_bytes = 0, bwd_bytes = 0;
    // FLOPs per element, where a builder counts them (an LSTM cell's pointwise arithmetic, as DeepFlow counts it);
    // elsewhere 0: memory-bound work is timed by its traffic and left out of the FLOP counts.
    double fwd_flops = 0, bwd_flops = 0;
    // Kernel launches of the elementwise work (an unfused op chain launches one per op).
    int fwd_kernels = 1, bwd_kernels = 1;
    // Elementwise work over a weight (`width` elements, split by tp when `sharded`), once per microbatch
    // whatever the tokens: autocast's weight cast, the gradient's accumulation into .grad.
    bool per_weight = false;
    // A recurrent layer's work (LSTM): it runs once per time step, each time over that step's tokens (1/steps of
    // them), because each step needs the previous one's output. 0: once over all tokens.
    int64_t steps = 0;
    bool gathered = false;  // as SavedTensor::gathered
    KernelPath path = KernelPath::Always;
    // Runs inside cuDNN's RNN call (torch.nn.LSTM on a GPU): cuDNN launches its kernels (no framework dispatch each),
    // its fp32 GEMMs take cuDNN's TF32 switch, and a recurrent GEMM's weight gradient is one GEMM over every time step
    // (cudnnRNNBackwardWeights), where its forward and data gradient run per step.
    bool cudnn = false;
    // A GEMM whose weight is frozen (the base model under an adapter): backward computes the data gradient only
    // (autograd skips the weight's gradient and saves no input for it: graph/adapter.cpp).
    bool frozen = false;
    // Its backward pass only makes a parameter's gradient (a bias's reduction over the tokens, AccumulateGrad into an
    // fp32 .grad): it does not run where that parameter is frozen.
    bool param_grad_backward = false;
};

struct Op {
    Op(std::string n = "", std::vector<ParamTensor> p = {}, std::vector<SavedTensor> s = {}, bool loss = false,
       std::vector<Work> w = {})
        : name(std::move(n)), params(std::move(p)), saved(std::move(s)), is_loss(loss), work(std::move(w)) {}
    std::string name;
    std::vector<ParamTensor> params;
    std::vector<SavedTensor> saved;
    bool is_loss = false;  // its saved tensors are reported as the "logits" line, not activations
    std::vector<Work> work;
    // Tensors alive only while the op runs, on top of everything saved: in forward (e.g. the 16-bit
    // logits and their fp32 upcast) and in backward (the gradients it reads and writes). The memory
    // timeline places them at their moment in the step.
    std::vector<SavedTensor> forward_temporaries;
    std::vector<SavedTensor> backward_temporaries;
    unsigned rerun_by = 0;  // RecomputeModule bits whose selective recompute runs its forward again in backward
};

struct Module {
    std::string name;
    std::vector<Op> ops;
    std::vector<Module> children;
    // A MoE layer's routed or shared experts: the compute Megatron-Core's expert-parallel overlap schedules as the
    // layer's mlp node, apart from the attention node before it (comm/expert_comm.cpp).
    bool expert_compute = false;
};

// Calls f on every op of a module's subtree, a module's own ops before its children's (the order the graph runs
// them in): the one walk of the tree for whatever sums or tags its ops (a path-keyed table walks it itself).
template <class M, class F>
void for_each_op(M& m, F&& f) {
    for (auto& op : m.ops) f(op);
    for (auto& child : m.children) for_each_op(child, f);
}

// The sum of f(op) over a module's subtree, added as the tree nests (its own ops, then each child's subtotal), so
// that a floating-point total does not depend on how a caller walks it.
template <class T, class F>
T sum_over_ops(const Module& m, F&& f) {
    T total{};
    for (const auto& op : m.ops) total += f(op);
    for (const auto& child : m.children) total += sum_over_ops<T>(child, f);
    return total;
}

// A run of identical layers; pipeline stages cut through the concatenation of all groups.
struct LayerGroup {
    Module layer;
    int64_t count = 0;
    bool shared_weights = false;  // ALBERT: one set of weights serves every layer of the group
    bool moe = false;             // mixture-of-experts layers (their tokens cross the expert-parallel group)
};

struct ModelGraph {
    Module pre;                      // embeddings: first pipeline stage
    std::vector<LayerGroup> groups;  // one per kind of transformer layer (dense or MoE, local or global attention)
    std::vector<int64_t> layer_group;  // each layer's group, in execution order
    Module post;                     // final norm, heads and loss: last pipeline stage
    int64_t total_layers() const {
        int64_t n = 0;
        for (const auto& g : groups) n += g.count;
        return n;
    }
};

}  // namespace shardcalc
