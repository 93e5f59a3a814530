// The language-model head's last ops: Gemma 2's soft-capped logits and the cross-entropy loss.
#include "graph/blocks.h"

#include "graph/compiled_kernels.h"
#include "graph/eager_kernels.h"

namespace shardcalc {

Op logit_softcap(const BuildContext& b) {
    // Gemma2ForCausalLM: `logits = logits / cap; logits = torch.tanh(logits); logits = logits * cap` over the
    // [tokens, vocab] logits in their dtype. tanh keeps its output for the backward (1 - y^2); the division and the
    // product by a number keep nothing. Forward three passes (read and write each), backward the product's, tanh's
    // (the output and the incoming gradient read) and the division's.
    const double a = b.act_bytes;
    Op op{"logit_softcap", {}, {{"tanh_output", SavedKind::Activation, SavedSplit::Tensor, b.vocab_padded}}};
    Work w = elementwise(b.vocab_padded, SavedSplit::Tensor, 6 * a, 7 * a);
    w.fwd_kernels = w.bwd_kernels = 3;
    op.work.push_back(w);
    return op;
}

Op cross_entropy(const BuildContext& b) {
    Op op{"cross_entropy", {}, {}, true};
    const int64_t v = b.vocab_padded;
    // Megatron's vocab-parallel cross entropy keeps one fp32 copy of the softmax, 4sbv/t
    // (megatron/core/tensor_parallel/cross_entropy.py; Korthikanti sec. 4.3). Hugging Face's causal-LM
    // loss upcasts the logits (logits.float() in ForCausalLMLoss) and log_softmax keeps its fp32 output:
    // one fp32 copy survives forward (validation/measured: gpt2 and llama inventories).
    // BERT's MLM loss (CrossEntropyLoss on the 16-bit scores, no explicit upcast) keeps log-probabilities
    // in the dtype log_softmax runs in (fp32 under autocast, else the scores' dtype) and, under autocast,
    // the 16-bit scores as well (validation/measured: bert-large inventory 2sbv + 4sbv with autocast, 2sbv
    // in pure bf16).
    // The loss is over the next token in a decoder and in an LSTM language model, over masked positions in an
    // encoder: its buffers follow the kind of loss, not the attention mask (an LSTM has none).
    const bool next_token = b.m.arch != Arch::Encoder;
    if (b.compiled) {
        // Compiled (partitioners.py), either loss keeps the 16-bit logits the output layer wrote (a matmul's output, never
        // recomputed) and the per-token log-sum-exp, and rebuilds the probabilities in backward from them; forward makes
        // no fp32 copy and backward writes one 16-bit logit gradient.
        op.saved.push_back({"logits", SavedKind::Activation, SavedSplit::Tensor, v});
        op.backward_temporaries.push_back({"logits_grad", SavedKind::Activation, SavedSplit::Tensor, v});
        op.work.push_back(compiled::cross_entropy(b));
        return op;
    }
    const bool mlm = b.hf_code && !next_token;
    // Model code that calls CrossEntropyLoss on the 16-bit logits (implementation.loss_16bit: Qwen 1's) keeps them
    // as BERT's MLM loss does: log_softmax's output and the gradients in the dtype it runs in (fp32 under autocast).
    const bool as_is = mlm || b.loss_16bit;
    op.saved.push_back({"log_probs", as_is ? SavedKind::Upcast : SavedKind::Fp32, SavedSplit::Tensor, v});
    if (mlm && b.autocast) op.saved.push_back({"logits", SavedKind::Activation, SavedSplit::Tensor, v});
    // Temporaries: in forward the output layer's logits in the training dtype, plus their fp32 upcast where
    // the loss makes one; in backward the gradients: Megatron writes the logit gradient in place into the
    // saved softmax and casts it down, Hugging Face's loss allocates nll_loss's and log_softmax's fp32
    // gradients (causal LM: two [tokens, vocab] fp32 buffers; BERT MLM: one) (validation/measured: the
    // forward and backward peaks above what forward saved).
    op.forward_temporaries.push_back({"logits", SavedKind::Activation, SavedSplit::Tensor, v});
    const bool causal_upcast = b.hf_code && next_token && b.act_bytes < 4 && !b.loss_16bit;
    if (causal_upcast) op.forward_temporaries.push_back({"logits_fp32", SavedKind::Fp32, SavedSplit::Tensor, v});
    // Qwen 1's loss shifts the logits by a contiguous copy (lm_logits[..., :-1, :].contiguous()), and its backward
    // writes that copy's gradient into a zeroed tensor of the logits' shape.
    const bool shift = b.loss_16bit && next_token;
    if (shift) op.forward_temporaries.push_back({"shift_logits", SavedKind::Activation, SavedSplit::Tensor, v});
    if (!b.hf_code) {
        op.backward_temporaries.push_back({"logits_grad", SavedKind::Activation, SavedSplit::Tensor, v});
    } else {
        // nll_loss's and log_softmax's gradients: fp32 after the upcast, else in the dtype the loss runs in.
        const SavedKind grad = b.loss_16bit ? SavedKind::Upcast : SavedKind::Fp32;
        op.backward_temporaries.push_back({"nll_grad", grad, SavedSplit::Tensor, v});
        if (next_token) op.backward_temporaries.push_back({"log_softmax_grad", grad, SavedSplit::Tensor, v});
        if (shift) op.backward_temporaries.push_back({"shift_logits_grad", SavedKind::Activation, SavedSplit::Tensor, v});
    }
    // Forward reads the 16-bit logits and makes two fp32 passes (max and exp-sum); backward reads the
    // fp32 softmax and writes the 16-bit logit gradient.
    if (b.hf_code) {
        op.work.push_back(eager::cross_entropy(b));
        return op;
    }
    op.work.push_back(elementwise(b.vocab_padded, SavedSplit::Tensor, b.act_bytes + 8, 4 + b.act_bytes));
    return op;
}

}  // namespace shardcalc
