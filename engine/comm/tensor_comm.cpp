#include "comm/stage_rules.h"

#include <algorithm>
#include <cmath>

#include "graph/blocks.h"

namespace shardcalc {

// Tensor parallelism (Megatron): the per-layer all-reduces, or all-gathers and reduce-scatters with sequence
// parallelism, optionally hidden behind their GEMMs (parallel.tp_comm_overlap); the end stages' vocab-parallel ones.
void StageRules::tensor_parallel() const {
    if (p.tp > 1) {
        // Megatron tensor parallelism: two collectives per layer forward and two backward, each over
        // the layer's [s, b, h] activation (Narayanan et al. 2021 sec. 3.3; Korthikanti et al. 2022
        // sec. 4.2.2: sequence parallelism swaps each all-reduce for an all-gather + reduce-scatter).
        const Group g = group_of(Dim::Tp, p.tp, c);
        const double bytes = tokens * m.hidden * a;
        // A collective exposed in the forward (`forward`) or the backward pass, `calls_per_mb` times per microbatch.
        auto exposed = [&](CommEntry& e, bool forward, double calls_per_mb) {
            b.expose(e, forward ? calls_per_mb : 0, forward ? 0 : calls_per_mb, true);
        };
        // Forward collectives of a layer: the first pass lengthens the forward, the recompute pass the backward.
        auto forward_layer = [&](CommEntry& e) { b.expose(e, 2 * layers, tp_again, true); };
        if (!p.sp) {
            forward_layer(b.add(Dim::Tp, CollectiveKind::AllReduce, "attention and MLP outputs (forward)", bytes,
                                (2 * layers + tp_again) * mb, g));
            exposed(b.add(Dim::Tp, CollectiveKind::AllReduce, "attention and MLP input gradients (backward)", bytes,
                          2 * layers * mb, g),
                    false, 2 * layers);
            if (st.has_pre)
                exposed(b.add(Dim::Tp, CollectiveKind::AllReduce, "vocab-parallel embedding output", bytes, mb, g),
                        true, 1);
            if (st.has_post && m.head == Head::Lm)
                exposed(b.add(Dim::Tp, CollectiveKind::AllReduce, "output-layer input gradient", bytes * c.d.mlm_share, mb, g),
                        false, 1);
        } else {
            // Sequence parallelism: each all-reduce is an all-gather and a reduce-scatter (Korthikanti sec. 4.2.2).
            CommEntry& gather_in = b.add(Dim::Tp, CollectiveKind::AllGather, "sequence-parallel inputs of attention and MLP (forward)",
                                         bytes, (2 * layers + tp_again) * mb, g);
            CommEntry& scatter_out = b.add(Dim::Tp, CollectiveKind::ReduceScatter, "attention and MLP outputs (forward)", bytes,
                                           (2 * layers + tp_again) * mb, g);
            CommEntry& gather_grad = b.add(Dim::Tp, CollectiveKind::AllGather, "output gradients (backward)", bytes, 2 * layers * mb, g);
            CommEntry& scatter_grad = b.add(Dim::Tp, CollectiveKind::ReduceScatter, "input gradients (backward)", bytes, 2 * layers * mb, g);
            if (p.tp_comm_overlap) {
                // Transformer Engine's userbuffers (--tp-comm-overlap) split each of a layer's sequence-parallel
                // collectives into tp chunks pipelined with the GEMM beside it (transformer_engine/pytorch/module/base.py
                // initialize_ub; its ring-exchange and pipelined overlaps): the GEMM's first or last chunk has nothing to
                // hide behind, so a collective of time t beside a GEMM of time G leaves max(0, t - G (tp - 1) / tp) exposed.
                const double hide = static_cast<double>(p.tp - 1) / static_cast<double>(p.tp);
                // Per microbatch, the exposed seconds of the layers' collectives of time `t`, the i-th of a layer beside
                // its i-th GEMM of `side` (column- or row-parallel; none: fully exposed), the first two of each layer.
                auto beside = [&](double t, bool column, bool dgrad) {
                    double out = 0;
                    for (const TpLayerGemms& l : sc.tp_layers) {
                        const std::vector<TpGemm>& side = column ? l.column : l.row;
                        for (size_t i = 0; i < 2; ++i) {
                            const double gemm = i < side.size() ? (dgrad ? side[i].dgrad : side[i].fwd) : 0;
                            out += static_cast<double>(l.count) * std::max(0.0, t - gemm * hide);
                        }
                    }
                    return out;
                };
                // Forward collectives: the all-gather feeds a column-parallel GEMM, the reduce-scatter follows a
                // row-parallel one; a recompute pass repeats them (their share in proportion, `tp_again`).
                auto forward_overlapped = [&](CommEntry& e, bool column) {
                    const double per_mb = beside(e.seconds_each, column, false);
                    const double share = layers > 0 && e.seconds_each > 0 ? per_mb / (2 * layers * e.seconds_each) : 0;
                    b.out.fwd_exposed += per_mb;
                    b.out.bwd_exposed += tp_again * e.seconds_each * share;
                    b.out.fwd_calls += 2 * layers;
                    b.out.bwd_calls += tp_again;
                    e.overlapped = true;
                    e.exposed_seconds = mb * (per_mb + tp_again * e.seconds_each * share);
                };
                // Backward: the output gradient's all-gather feeds a row-parallel data-gradient GEMM, the input
                // gradient's reduce-scatter follows a column-parallel one.
                auto backward_overlapped = [&](CommEntry& e, bool column) {
                    const double per_mb = beside(e.seconds_each, column, true);
                    b.out.bwd_exposed += per_mb;
                    b.out.bwd_calls += 2 * layers;
                    e.overlapped = true;
                    e.exposed_seconds = mb * per_mb;
                };
                forward_overlapped(gather_in, true);
                forward_overlapped(scatter_out, false);
                backward_overlapped(gather_grad, false);
                backward_overlapped(scatter_grad, true);
            } else {
                forward_layer(gather_in);
                forward_layer(scatter_out);
                exposed(gather_grad, false, 2 * layers);
                exposed(scatter_grad, false, 2 * layers);
            }
        }
        if (p.sp) {
            // The saved sequence shard is gathered again for the weight gradient, overlapped with the
            // data-gradient GEMM (Korthikanti et al. 2022, sec. 4.2.2).
            CommEntry& regather = b.add(Dim::Tp, CollectiveKind::AllGather, "saved inputs re-gathered for weight gradients",
                                        bytes, 2 * layers * mb, g);
            regather.overlapped = true;
            if (st.has_pre)
                exposed(b.add(Dim::Tp, CollectiveKind::ReduceScatter, "vocab-parallel embedding output", bytes, mb, g),
                        true, 1);
            if (st.has_post && m.head == Head::Lm)
                exposed(b.add(Dim::Tp, CollectiveKind::AllGather, "final-norm output into the output layer", bytes * c.d.mlm_share, mb, g),
                        true, 1);
        }
        // max, sum of exponentials, target logit: one fp32 each per token (an MLM head: its gathered positions)
        if (st.has_post && m.head == Head::Lm)
            exposed(b.add(Dim::Tp, CollectiveKind::AllReduce, "vocab-parallel cross-entropy statistics", tokens * 4 * c.d.mlm_share, 3 * mb, g),
                    true, 3);
    }
}

}  // namespace shardcalc
