// An adapter on the model graph (scenario/adapter.h): the base model frozen, a low-rank branch beside each targeted
// linear layer, as Hugging Face PEFT's LoRA layer runs it (peft/tuners/lora/layer.py Linear.forward: the base layer's
// result, then x cast to the adapter's dtype, lora_dropout, lora_A, lora_B, times the scaling, added to the result
// and cast back) and bitsandbytes' 4-bit linear (bitsandbytes/autograd/_functions.py MatMul4Bit: the weight
// dequantized to 16 bits for the forward GEMM and again for the data gradient; the input never saved).
#include "graph/adapter.h"

#include <algorithm>
#include <string>

#include "graph/blocks.h"
#include "scenario/adapter_rules.h"

namespace shardcalc {
namespace {

// The adapter targets a linear layer of a transformer layer answers to, by its name in the graph (graph/attention.cpp,
// graph/mlp.cpp); 0: not a target (multi-head latent attention's projections, routers, experts).
unsigned target_bits(const std::string& name) {
    using T = AdapterTarget;
    if (name == "query" || name == "linear_q_proj") return bit(T::Q);
    if (name == "query_key_value") return bit(T::Q) | bit(T::K) | bit(T::V);
    if (name == "key") return bit(T::K);
    if (name == "value") return bit(T::V);
    if (name == "dense") return bit(T::O);
    if (name == "gate_proj") return bit(T::Gate);
    if (name == "up_proj") return bit(T::Up);
    if (name == "dense_h_to_4h") return bit(T::Gate) | bit(T::Up);
    if (name == "dense_4h_to_h") return bit(T::Down);
    return 0;
}

// The frozen base: every parameter without gradient or optimizer state; each GEMM's backward the data gradient only,
// so autograd keeps no input for a weight gradient (PyTorch saves mm's input only when the weight requires grad:
// VariableType's should_compute_output guards); a parameter's own gradient work (bias reductions, AccumulateGrad)
// and the embedding's backward do not run.
void freeze(Module& m, bool embedding, bool quantize, const char* trained = nullptr) {
    for_each_op(m, [&](Op& op) {
        if (trained && op.name == trained) return;
        const bool gemm = has_matmul(op);
        for (ParamTensor& p : op.params) {
            p.frozen = true;
            p.quantized = quantize && gemm && p.shape.size() == 2;
        }
        if (gemm)
            op.saved.erase(std::remove_if(op.saved.begin(), op.saved.end(), [](const SavedTensor& t) { return t.name == "input"; }),
                           op.saved.end());
        for (Work& w : op.work) {
            if (w.kind == WorkKind::Matmul) w.frozen = true;
            if (w.param_grad_backward || embedding) {
                w.bwd_bytes = 0;
                w.bwd_kernels = 0;
            }
        }
    });
}

// Memory-bound passes over a whole weight (its elements, not the tokens), in `fwd_kernels` and `bwd_kernels` launches.
Work weight_pass(const ParamTensor& w, double fwd_bytes, int fwd_kernels, double bwd_bytes, int bwd_kernels) {
    Work d = elementwise(w.numel(), SavedSplit::Sequence, fwd_bytes, fwd_kernels, bwd_bytes, bwd_kernels);
    d.per_weight = true;
    d.sharded = false;
    return d;
}

// bitsandbytes dequantizes a 4-bit weight to 16 bits before each GEMM that reads it: forward, and backward for the
// data gradient (the packed weight and its block scales read, the 16-bit weight written: one kernel each).
Work dequantize(const BuildContext& b, const ParamTensor& w, double packed_bytes) {
    return weight_pass(w, packed_bytes + b.act_bytes, 1, packed_bytes + b.act_bytes, 1);
}

// auto_gptq's QuantLinear (qlinear_cuda_old.py forward) for more than 128 rows (kernel_switch_threshold; a training
// microbatch has thousands) unpacks its weight with torch ops before a plain fp16 torch.matmul: the int32 codes shifted
// into an int32 per weight (read 0.5, write 4 bytes), cast to int8 (4 + 1), masked in place (1 + 1), less the zeros
// (1 + 1) and times the fp16 scales (1 + 2): 16.5 bytes a weight in five kernels, and the zeros unpacked alike per group
// and column (shift, cast, mask, +1: 13.5 bytes in four). Forward only: the matmul's autograd keeps the fp16 weight it
// multiplied (no weight of its own needs a gradient), which the data gradient's GEMM reads in backward; under full
// recompute that is one layer's at a time.
Work gptq_dequantize(const ParamTensor& w, int64_t group_size) {
    return weight_pass(w, 16.5 + 13.5 / static_cast<double>(group_size), 9, 0, 0);
}

// The adapter beside a linear layer of weight [out, in]: A [r, in] and B [out, r] (DoRA: a magnitude per output).
Op adapter_op(const BuildContext& b, const Op& base, const AdapterSpec& a) {
    const int64_t out = base.params.front().shape[0], in = base.params.front().shape[1], r = a.rank;
    // PEFT casts x to the adapter's dtype (fp32 by default: get_peft_model's autocast_adapter_dtype): the branch runs
    // and keeps its tensors in that dtype, unless torch.autocast runs its GEMMs in 16 bits (each its own cast).
    const bool fp32 = !b.autocast && a.dtype == Dtype::Fp32;
    const double e = b.autocast ? b.act_bytes : adapter_bytes(a);
    const SavedKind kept = fp32 ? SavedKind::Fp32 : SavedKind::Activation;
    const bool cast = e != b.act_bytes;
    Op op{base.name + ".lora", {ParamTensor{"lora_A", {r, in}}, ParamTensor{"lora_B", {out, r}}}, {}};
    if (a.method == AdapterMethod::Dora) op.params.push_back(ParamTensor{"magnitude", {out}});
    // lora_A keeps its input (the cast copy of x, or the dropout's output with its mask), lora_B lora_A's output.
    op.saved.push_back({"adapter_input", kept, SavedSplit::Sequence, in});
    if (a.dropout > 0) op.saved.push_back({"adapter_dropout_mask", SavedKind::Mask, SavedSplit::Sequence, in});
    op.saved.push_back({"lora_A_output", kept, SavedSplit::Sequence, r});
    if (cast) op.work.push_back(elementwise(in, SavedSplit::Sequence, b.act_bytes + e, e + b.act_bytes));
    if (a.dropout > 0) op.work.push_back(elementwise(in, SavedSplit::Sequence, 2 * e + 1, 2 * e + 1));
    for (Work w : {matmul_work(in, r, false), matmul_work(r, out, false)}) {
        w.sharded = false;
        w.fp8 = false;
        w.fp32 = fp32;
        op.work.push_back(w);
    }
    // Times the scaling, added to the base result, cast back to its dtype: forward r e w e, r a+e w e, r e w a;
    // backward the cast's and the product's gradients (the sum passes it through).
    Work tail = elementwise(out, SavedSplit::Sequence, 2 * e + (b.act_bytes + 2 * e) + (cast ? e + b.act_bytes : 0),
                            (cast ? b.act_bytes + e : 0) + 2 * e);
    tail.fwd_kernels = cast ? 3 : 2;
    tail.bwd_kernels = cast ? 2 : 1;
    op.work.push_back(tail);
    if (a.method == AdapterMethod::Dora) {
        // DoRA's weight norm each forward (peft/tuners/lora/dora.py get_weight_norm, detached: no backward): B A
        // written [out, in], added to W (read a + e, write e), its norm per output read once.
        Work norm = elementwise(out * in, SavedSplit::Sequence, e + (b.act_bytes + 2 * e) + e, 0);
        norm.per_weight = true;
        norm.sharded = false;
        norm.fwd_kernels = 3;
        norm.bwd_kernels = 0;
        op.work.push_back(norm);
        // (m / ||W + s B A|| - 1) * base + m / ||.|| * s B A x: the base result and the branch's output kept for the
        // magnitude's gradient; three products and a sum each way.
        op.saved.push_back({"dora_base_result", SavedKind::Activation, SavedSplit::Sequence, out});
        op.saved.push_back({"dora_lora_result", kept, SavedSplit::Sequence, out});
        Work scale = elementwise(out, SavedSplit::Sequence, 3 * (b.act_bytes + e) + 2 * e, 3 * (b.act_bytes + e) + 2 * e);
        scale.fwd_kernels = 3;
        scale.bwd_kernels = 3;
        op.work.push_back(scale);
    }
    return op;
}

// Inserts an adapter after every targeted linear of a transformer layer, and the dequantization of each 4-bit weight
// (bitsandbytes' each way, or GPTQ's forward with the fp16 weight kept for backward).
void adapt_layer(const BuildContext& b, Module& m, const AdapterSpec& a, double packed_bytes) {
    std::vector<Op> ops;
    for (Op& op : m.ops) {
        if (packed_bytes > 0 && has_matmul(op) && op.params.front().quantized) {
            const ParamTensor& w = op.params.front();
            if (a.quantization == AdapterQuant::Gptq) {
                op.work.push_back(gptq_dequantize(w, a.group_size));
                op.saved.push_back({"dequantized_weight", SavedKind::Activation, SavedSplit::Weight, w.numel()});
            } else {
                op.work.push_back(dequantize(b, w, packed_bytes));
            }
        }
        ops.push_back(op);
        if (has_matmul(op) && (target_bits(op.name) & a.targets)) ops.push_back(adapter_op(b, op, a));
    }
    m.ops = std::move(ops);
    for (Module& child : m.children) adapt_layer(b, child, a, packed_bytes);
}

// PEFT's modules_to_save: the op trained whole, as a copy in the base's dtype beside the frozen original (its
// parameters once more, frozen: ModulesToSaveWrapper keeps original_module and a deep copy it trains).
void train_copy(Module& m, const char* name) {
    for_each_op(m, [&](Op& op) {
        if (op.name != name) return;
        const std::vector<ParamTensor> trained = op.params;
        for (ParamTensor& p : op.params) p.base_copy = true;
        for (ParamTensor p : trained) {
            p.name += " (original)";
            p.frozen = true;
            op.params.push_back(p);
        }
    });
}

}  // namespace

void apply_adapter(ModelGraph& g, const Config& c) {
    const AdapterSpec& a = c.s.adapter;
    const BuildContext b = build_context(c);
    const bool qlora = a.method == AdapterMethod::Qlora;
    // bitsandbytes quantizes the transformer layers' linear layers; the embeddings and the output layer stay in
    // 16 bits (transformers' BitsAndBytesConfig llm_int8_skip_modules: the output embeddings).
    const char* embedding = a.train_embeddings ? "word_embeddings" : nullptr;
    const char* output = a.train_embeddings ? "output_layer" : nullptr;
    freeze(g.pre, true, false, embedding);
    freeze(g.post, false, false, output);
    if (a.train_embeddings) {
        train_copy(g.pre, embedding);
        train_copy(g.post, output);
    }
    for (LayerGroup& grp : g.groups) {
        freeze(grp.layer, false, qlora);
        adapt_layer(b, grp.layer, a, qlora ? quantized_weight_bytes(a) : 0);
    }
}

}  // namespace shardcalc
