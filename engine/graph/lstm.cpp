// LSTM language models (Zaremba et al. 2014; DeepFlow's projection of one, docs/sources.md): word embeddings, stacked
// LSTM layers over the sequence's time steps (LSTMP's recurrent projection optional), an optional projection of the
// top layer's output, and the softmax over the vocabulary. Two implementations (implementation.rnn): cuDNN's fused
// RNN as torch.nn.LSTM runs it on a GPU (cudnn_layer), or the steps unrolled into ops of their own (lstm_layer:
// DeepFlow's projection, a Python loop over LSTMCell). Either way the recurrence runs a step's recurrent GEMM and
// cell over that step's tokens only (step t needs h_{t-1}).
#include "graph/blocks.h"
#include "graph/build.h"

namespace shardcalc {
namespace {

// What a layer outputs and its recurrence reads: the cell's h, or its LSTMP projection (model.proj_size).
int64_t output_width(const ModelFields& m) { return m.proj_size > 0 ? m.proj_size : m.hidden; }

// LSTMP's projection h_t = W_hr (o * tanh(c_t)) [d -> r], no bias (torch.nn.LSTM weight_hr_l{k}; cudnnRNN's projSize):
// per step, since the next step reads h_t; it keeps its input, o * tanh(c_t), for its weight gradient.
Op recurrent_projection(const ModelFields& m, int64_t steps) {
    Op proj = linear("recurrent_projection", m.proj_size, m.hidden, false, Parallel::None, SavedSplit::Sequence, m.hidden);
    proj.work.front().steps = steps;
    return proj;
}

// Dropout on the layer's output, the non-recurrent connection (Zaremba et al. 2014; nn.LSTM's dropout): a 1-byte mask
// kept. A framework op of its own under either implementation.
void add_dropout(const BuildContext& b, int64_t width, Module& layer) {
    if (!b.dropout) return;
    Op drop{"dropout", {}, {{"mask", SavedKind::Mask, SavedSplit::Sequence, width}}};
    drop.work.push_back(elementwise(width, SavedSplit::Sequence, 2 * b.act_bytes + 1, 2 * b.act_bytes + 1));
    layer.ops.push_back(drop);
}

// One LSTM layer unrolled, reading `in` features per token (the embedding for the first, the layer below for the rest):
// per step the gate GEMM, the cell's pointwise ops, and the weight gradient computed per step and accumulated.
// Backpropagation through time keeps, per token, the GEMM's input [x_t, h_{t-1}], the gates' activations and the cell
// state with its tanh.
Module lstm_layer(const BuildContext& b, const Config& c, int64_t in) {
    const ResolvedModel& m = c.s.model;
    const int64_t d = m.hidden, r = output_width(m), steps = c.s.training.seq_len;
    Module layer{"lstm", {}, {}};
    // The gates i, f, g, o from the step's input and the previous output: [x_t, h_{t-1}] x W [in + r, 4d] (+ b),
    // one GEMM for all four gates (cuDNN, DeepFlow's fused gates) or one per gate.
    Op gates = linear("gates", 4 * d, in + r, m.bias, Parallel::None, SavedSplit::Sequence, in + r);
    // torch.nn.LSTM adds a second bias, b_hh beside b_ih (its gates are x W_ih^T + b_ih + h W_hh^T + b_hh), inside the
    // same cell kernel: a parameter, no pass of its own.
    if (m.bias && m.gate_biases == 2) gates.params.push_back(vector_param("b_hh", 4 * d, ParamSplit::Replicated));
    const int gemms = m.fused_gates ? 1 : 4;
    gates.work.front().out = 4 * d / gemms;
    gates.work.front().steps = steps;
    for (int i = 1; i < gemms; ++i) gates.work.push_back(gates.work.front());
    // The weight gradient of each step is added into the accumulated one: autograd's AccumulateGrad reads both
    // and writes the sum (3 accesses per weight per step; DeepFlow's getCb counts the same 3, without the byte width).
    auto accumulate = [&](int64_t weights) {
        Work w = elementwise(weights, SavedSplit::Sequence, 0, 3 * bytes_of(c.s.training.grad_dtype));
        w.per_weight = true;
        w.sharded = false;
        w.steps = steps;
        w.bwd_flops = 1;
        return w;
    };
    gates.work.push_back(accumulate(4 * d * (in + r)));
    layer.ops.push_back(gates);

    // The cell: per gate element, the bias add (3 accesses), one of the four binary ops of c = f*c + i*g and
    // h = o*tanh(c) (4 over d: 3 accesses per gate element), and 5/4 of a unary op (sigmoid x3 and tanh x2 over d,
    // 2 accesses each) = 8.5 accesses per gate element, in 10 kernels (DeepFlow getCf counts the same 8.5, in 15).
    // Backward per cell unit: o's and tanh(c)'s gradients from dh (5), tanh' (3) plus the incoming dc (3), the four
    // products' gradients (12), three sigmoid' and one tanh' (12), the gate gradients written as one [4d] (8):
    // 43 accesses, 10.75 per gate element, in 14 kernels. FLOPs per gate element: forward 1 (bias) + 1 (binary op) +
    // 1.25 (a non-linearity each) = 3.25, as DeepFlow counts; backward 22 per cell unit (o's and tanh(c)'s gradients 2,
    // tanh' 3, the dc sum 1, the four gradients of c's products 4, three sigmoid' at 3, tanh' of g 3) = 5.5 per gate element.
    Op cell{"cell", {}, {}};
    cell.saved.push_back({"gate_activations", SavedKind::Activation, SavedSplit::Sequence, 4 * d});
    cell.saved.push_back({"cell_state", SavedKind::Activation, SavedSplit::Sequence, d});
    cell.saved.push_back({"tanh_cell_state", SavedKind::Activation, SavedSplit::Sequence, d});
    Work pointwise = elementwise(4 * d, SavedSplit::Sequence, 8.5 * b.act_bytes, 10.75 * b.act_bytes);
    pointwise.fwd_kernels = 10;
    pointwise.bwd_kernels = 14;
    pointwise.steps = steps;
    pointwise.fwd_flops = 3.25;
    pointwise.bwd_flops = 5.5;
    cell.work.push_back(pointwise);
    layer.ops.push_back(cell);
    if (m.proj_size > 0) {
        Op proj = recurrent_projection(m, steps);
        proj.work.push_back(accumulate(r * d));
        layer.ops.push_back(proj);
    }
    add_dropout(b, r, layer);
    return layer;
}

// One LSTM layer as cuDNN runs it (cudnnRNNForward / cudnnRNNBackwardData / cudnnRNNBackwardWeights, CUDNN_LSTM,
// the standard algorithm torch.nn.LSTM takes in fp32): the input's part of the four gates for every time step in one
// GEMM, x W_ih^T [in, 4d]; then per step the recurrent part h_{t-1} W_hh^T [d, 4d] and one fused kernel that adds the
// two parts and both biases, applies the gates and updates the cell. Backward per step in reverse: one fused kernel for
// the gate gradients and the recurrent GEMM's data gradient; then the input's data gradient and both weight gradients,
// each one GEMM over every step, and the bias gradient one reduction. Saved (cuDNN's reserve space and the tensors
// PyTorch keeps for its backward): the layer's input and output, the activated gates and the cell state per step.
Module cudnn_layer(const BuildContext& b, const Config& c, int64_t in) {
    const ResolvedModel& m = c.s.model;
    const int64_t d = m.hidden, r = output_width(m), steps = c.s.training.seq_len;
    Module layer{"lstm", {}, {}};
    Op input = linear("input_gates", 4 * d, in, m.bias, Parallel::None, SavedSplit::Sequence, in);
    Op recurrent = linear("recurrent_gates", 4 * d, r, false, Parallel::None, SavedSplit::Sequence, r);
    // torch.nn.LSTM's b_hh beside b_ih: added in the cell kernel; its gradient is b_ih's (the same reduction).
    if (m.bias && m.gate_biases == 2) recurrent.params.push_back(vector_param("b_hh", 4 * d, ParamSplit::Replicated));
    recurrent.saved.front().name = "output";  // h_{t-1} of every step: the layer's output, shifted by one
    recurrent.work.front().steps = steps;
    Op cell{"cell", {}, {}};
    cell.saved.push_back({"gate_activations", SavedKind::Activation, SavedSplit::Sequence, 4 * d});
    cell.saved.push_back({"cell_state", SavedKind::Activation, SavedSplit::Sequence, d});
    // Per cell unit forward: reads both gate parts (8) and c_{t-1}, writes h_t, c_t and the activated gates to the
    // reserve (6): 15 accesses, 3.75 per gate element. Backward: reads dh_t from above and from the recurrence, dc_t,
    // the gates, c_{t-1} and c_t (9), writes the gate gradients and dc_{t-1} (5): 3.5 per gate element. FLOPs as the
    // unrolled cell counts them (3.25 and 5.5 per gate element).
    Work pointwise = elementwise(4 * d, SavedSplit::Sequence, 3.75 * b.act_bytes, 3.5 * b.act_bytes);
    pointwise.steps = steps;
    pointwise.fwd_flops = 3.25;
    pointwise.bwd_flops = 5.5;
    cell.work.push_back(pointwise);
    // The bias gradient: the gate gradients of every step summed over the tokens, once.
    if (m.bias) cell.work.push_back(elementwise(4 * d, SavedSplit::Sequence, 0, b.act_bytes));
    layer.ops = {input, recurrent, cell};
    if (m.proj_size > 0) layer.ops.push_back(recurrent_projection(m, steps));
    for (Op& op : layer.ops)
        for (Work& w : op.work) w.cudnn = true;
    add_dropout(b, r, layer);
    return layer;
}

Module layer_of(const BuildContext& b, const Config& c, int64_t in) {
    return *c.s.implementation.rnn == RnnImpl::Cudnn ? cudnn_layer(b, c, in) : lstm_layer(b, c, in);
}

}  // namespace

ModelGraph build_lstm(const Config& c) {
    const BuildContext b = build_context(c);
    const ResolvedModel& m = c.s.model;
    const int64_t e = m.embedding_dim, r = output_width(m);
    ModelGraph g;
    g.pre = embedding_module(c);
    // The first layer reads the embedding, the others the layer below (r wide); where the two differ the first
    // layer is a group of its own.
    g.layer_group.assign(static_cast<size_t>(m.layers), 0);
    if (e != r) {
        g.groups.push_back(LayerGroup{layer_of(b, c, e), 1, false, false});
        if (m.layers > 1) g.groups.push_back(LayerGroup{layer_of(b, c, r), m.layers - 1, false, false});
        for (size_t i = 1; i < g.layer_group.size(); ++i) g.layer_group[i] = 1;
    } else {
        g.groups.push_back(LayerGroup{layer_of(b, c, r), m.layers, false, false});
    }

    g.post = Module{"head", {}, {}};
    int64_t width = r;
    if (m.projection > 0) {
        g.post.ops.push_back(linear("projection", m.projection, r, false, Parallel::None, SavedSplit::Sequence, r));
        width = m.projection;
    }
    if (m.head == Head::Lm) {
        Op out = linear("output_layer", c.d.vocab_padded, width, m.output_bias, Parallel::Column, SavedSplit::Sequence, width);
        out.params[0].tied = m.tied_embeddings;
        g.post.ops.push_back(out);
        g.post.ops.push_back(cross_entropy(b));
    }
    return g;
}

}  // namespace shardcalc
