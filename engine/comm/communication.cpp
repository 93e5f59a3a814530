#include "comm/communication.h"

#include <algorithm>
#include <cmath>
#include <deque>

#include "compute/op_cost.h"
#include "graph/blocks.h"

namespace shardcalc {
namespace {

struct Builder {
    const Config& c;
    StageComm out;
    // Entries are built in a deque so references handed out stay valid while more are added.
    std::deque<CommEntry> entries;

    // Adds an entry with its alpha-beta time; the caller decides what is exposed.
    CommEntry& add(Dim dim, CollectiveKind kind, std::string_view purpose, double bytes, double count, const Group& g) {
        CommEntry e;
        e.dimension = dim;
        e.kind = kind;
        e.purpose = purpose;
        e.bytes = bytes;
        e.count = count;
        e.group = g;
        const CollectiveTime t = collective_time(kind, bytes, g, c);
        e.seconds_each = t.seconds;
        e.algorithm = t.algorithm;
        entries.push_back(e);
        return entries.back();
    }
};

// A group of `size` ranks of dimension `d`, spaced as the rank order places them.
Group group_of(Dim d, int64_t size, const Config& c, int64_t stride_factor = 1) {
    return make_group(size, dimension(d).stride(c.s.parallel) * stride_factor, c);
}

// Data-parallel gradient sync of `params` over group `g` of dimension `dim`: an all-reduce, or a reduce-scatter where
// the optimizer is sharded (ZeRO-2 every microbatch, as it keeps only its partition) followed after the step by the
// all-gather of the updated parameters. With parallel.overlap_grad_reduce the reduction hides behind `backward`
// (Megatron --overlap-grad-reduce, DeepSpeed overlap_comm, DDP buckets); the rest is exposed.
// `param_bytes`: bytes per parameter as stored, which the all-gather moves. With parallel.overlap_param_gather
// (Megatron's --overlap-param-gather) the all-gather runs bucket by bucket beside the next step's first forward
// pass (`forward`: one microbatch's) and only its excess is exposed.
void gradient_sync(Builder& b, Dim dim, const Group& g, double params, double param_bytes, double backward,
                   double forward, const char* reduce_purpose, const char* gather_purpose) {
    const ParallelSpec& p = b.c.s.parallel;
    const TrainingSpec& t = b.c.s.training;
    const bool sharded = p.zero >= 1 || p.distributed_optimizer;
    const double reduce_count = p.zero == 2 ? static_cast<double>(b.c.d.microbatches) : 1;
    CommEntry& r = b.add(dim, sharded ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce, reduce_purpose,
                         params * bytes_of(*t.grad_dtype), reduce_count, g);
    r.overlapped = *p.overlap_grad_reduce;
    r.exposed_seconds = (r.overlapped ? std::max(0.0, r.seconds_each - backward) : r.seconds_each) * reduce_count;
    b.out.step_exposed += r.exposed_seconds;
    if (sharded) {
        CommEntry& ag = b.add(dim, CollectiveKind::AllGather, gather_purpose, params * param_bytes, 1, g);
        ag.overlapped = p.overlap_param_gather;
        ag.exposed_seconds = ag.overlapped ? std::max(0.0, ag.seconds() - forward) : ag.seconds();
        b.out.step_exposed += ag.exposed_seconds;
    }
}

}  // namespace

StageComm stage_communication(const Config& c, const StagePlan& st, const StageCompute& sc, double all_params,
                              double expert_params, double weight_bytes) {
    // Bytes per stored parameter, the same for the experts' (their fp8 share is the layers').
    const double param_bytes = all_params > 0 ? weight_bytes / all_params : bytes_of(*c.s.training.param_dtype);
    // The routed experts' gradients are reduced over the ranks holding the same experts (below); the rest over
    // the data-parallel replicas.
    const double params = all_params - expert_params;
    const ParallelSpec& p = c.s.parallel;
    const TrainingSpec& t = c.s.training;
    const ModelSpec& m = c.s.model;
    Builder b{c, {}, {}};
    const double mb = static_cast<double>(c.d.microbatches);
    const double layers = static_cast<double>(sc.layers);
    const double a = bytes_of(t.dtype);
    const double tokens = tokens_per_device(c, true);
    const bool full = t.recompute == Recompute::Full;
    // Full recompute repeats the forward collectives, inside the backward pass.
    const double fwd_passes = full ? 2 : 1;
    // Selective recompute repeats those of the modules it runs again (docs/model.md "Per-module recompute"): a dense
    // layer's MLP (its one tensor-parallel collective of the layer's two) and a whole MoE layer (its dispatch and combine).
    const unsigned modules = recomputed_modules(t);
    const double tp_again = full ? 2 * layers
                                 : (modules & bit(RecomputeModule::Mlp)) ? layers - static_cast<double>(sc.moe_layers) : 0;
    const double ep_passes = full || (modules & bit(RecomputeModule::Moe)) ? 2 : 1;

    if (p.tp > 1) {
        // Megatron tensor parallelism: two collectives per layer forward and two backward, each over
        // the layer's [s, b, h] activation (Narayanan et al. 2021 sec. 3.3; Korthikanti et al. 2022
        // sec. 4.2.2: sequence parallelism swaps each all-reduce for an all-gather + reduce-scatter).
        const Group g = group_of(Dim::Tp, p.tp, c);
        const double bytes = tokens * m.hidden * a;
        // A collective exposed in the forward (`forward`) or the backward pass, `calls_per_mb` times per microbatch.
        auto exposed = [&](CommEntry& e, bool forward, double calls_per_mb) {
            (forward ? b.out.fwd_exposed : b.out.bwd_exposed) += calls_per_mb * e.seconds_each;
            (forward ? b.out.fwd_calls : b.out.bwd_calls) += calls_per_mb;
            e.exposed_seconds = e.seconds();
        };
        // Forward collectives of a layer: the first pass lengthens the forward, the recompute pass the backward.
        auto forward_layer = [&](CommEntry& e) {
            b.out.fwd_exposed += 2 * layers * e.seconds_each;
            b.out.bwd_exposed += tp_again * e.seconds_each;
            b.out.fwd_calls += 2 * layers;
            b.out.bwd_calls += tp_again;
            e.exposed_seconds = e.seconds();
        };
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
        } else if (p.tp_comm_overlap) {
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
            forward_overlapped(b.add(Dim::Tp, CollectiveKind::AllGather, "sequence-parallel inputs of attention and MLP (forward)",
                                     bytes, (2 * layers + tp_again) * mb, g), true);
            forward_overlapped(b.add(Dim::Tp, CollectiveKind::ReduceScatter, "attention and MLP outputs (forward)", bytes,
                                     (2 * layers + tp_again) * mb, g), false);
            backward_overlapped(b.add(Dim::Tp, CollectiveKind::AllGather, "output gradients (backward)", bytes, 2 * layers * mb, g),
                                false);
            backward_overlapped(b.add(Dim::Tp, CollectiveKind::ReduceScatter, "input gradients (backward)", bytes, 2 * layers * mb, g),
                                true);
        } else {
            forward_layer(b.add(Dim::Tp, CollectiveKind::AllGather, "sequence-parallel inputs of attention and MLP (forward)",
                                bytes, (2 * layers + tp_again) * mb, g));
            forward_layer(b.add(Dim::Tp, CollectiveKind::ReduceScatter, "attention and MLP outputs (forward)", bytes,
                                (2 * layers + tp_again) * mb, g));
            exposed(b.add(Dim::Tp, CollectiveKind::AllGather, "output gradients (backward)", bytes, 2 * layers * mb, g),
                    false, 2 * layers);
            exposed(b.add(Dim::Tp, CollectiveKind::ReduceScatter, "input gradients (backward)", bytes, 2 * layers * mb, g),
                    false, 2 * layers);
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

    if (p.ulysses > 1) {
        // DeepSpeed-Ulysses (Jacobs et al. 2023, sec. 3.1): all-to-all of q, k, v before attention and
        // of its output after, and the same four backward (deepspeed/sequence/layer.py).
        const Group g = group_of(Dim::Ulysses, p.ulysses, c);
        const AttentionWidths w = attention_widths(m);
        const double qkv = tokens * static_cast<double>(w.q + w.k + w.v) / p.tp * a;
        const double o = tokens * static_cast<double>(m.heads * w.v_head) / p.tp * a;
        struct Exchange {
            const char* forward;
            const char* backward;
            double bytes;
        };
        for (const Exchange& x : {Exchange{"q, k, v (forward)", "q, k, v gradients (backward)", qkv},
                                  Exchange{"attention output (forward)", "attention output gradients (backward)", o}}) {
            const double bytes = x.bytes;
            CommEntry& f = b.add(Dim::Ulysses, CollectiveKind::AllToAll, x.forward, bytes, layers * mb * fwd_passes, g);
            f.exposed_seconds = f.seconds();
            b.out.fwd_exposed += layers * f.seconds_each;
            b.out.bwd_exposed += layers * (fwd_passes - 1) * f.seconds_each;
            CommEntry& bw = b.add(Dim::Ulysses, CollectiveKind::AllToAll, x.backward, bytes, layers * mb, g);
            bw.exposed_seconds = bw.seconds();
            b.out.bwd_exposed += layers * bw.seconds_each;
            b.out.fwd_calls += layers;
            b.out.bwd_calls += layers * fwd_passes;
        }
    }

    if (p.cp > 1) {
        // Ring attention (Liu et al. 2023; Megatron context parallelism): cp - 1 exchanges of the k/v
        // chunk per layer forward, k/v plus their gradients backward, overlapped with attention.
        const Group g = group_of(Dim::Cp, p.cp, c);
        const AttentionWidths w = attention_widths(m);
        const double kv = tokens * static_cast<double>(w.k + w.v) / p.tp * a;
        const double steps = static_cast<double>(p.cp - 1);
        CommEntry& f = b.add(Dim::Cp, CollectiveKind::SendRecv, "k/v chunks around the ring (forward)", kv,
                             steps * layers * mb * fwd_passes, g);
        CommEntry& bw = b.add(Dim::Cp, CollectiveKind::SendRecv, "k/v and their gradients around the ring (backward)",
                              2 * kv, steps * layers * mb, g);
        f.overlapped = bw.overlapped = true;
        const double f_mb = std::max(0.0, steps * layers * f.seconds_each - sc.attention_fwd);
        const double b_mb = std::max(0.0, steps * layers * bw.seconds_each - sc.attention_bwd);
        f.exposed_seconds = f_mb * mb * fwd_passes;
        bw.exposed_seconds = b_mb * mb;
        b.out.fwd_exposed += f_mb;
        b.out.bwd_exposed += b_mb + (fwd_passes - 1) * f_mb;
    }

    const int64_t etp = expert_tp(p);
    if ((p.ep > 1 || etp > 1) && sc.moe_layers > 0) {
        // Megatron-Core's alltoall token dispatcher (megatron/core/transformer/moe/token_dispatcher.py; GShard,
        // Lepikhin et al. 2020), per MoE layer: an all-to-all over ep sends each token's top-k copies, hidden wide,
        // to the ranks of their experts, then (etp > 1) an all-gather over the expert-tensor group; combine runs
        // the reverse (reduce-scatter in the fp32 of the routing probabilities, all-to-all back). Backward swaps
        // each for its transpose, same volumes. The busiest rank's rows (training.expert_imbalance).
        const double moe = static_cast<double>(sc.moe_layers);
        const double rows = tokens_per_device(c, false) * c.d.routed_busiest;  // after the ep exchange, before the etp gather
        // Per microbatch: the dispatcher's seconds in the forward and the backward pass. Exposed, or with
        // parallel.overlap_moe_comm hidden behind the other microbatch's compute of the same pass up to its length.
        struct Made {
            CommEntry* e;
            double in_fwd, in_bwd;  // its seconds per microbatch in each pass (full recompute repeats a forward one)
        };
        std::vector<Made> made;
        double fwd_each = 0, bwd_each = 0;
        auto both_passes = [&](const Group& g, CollectiveKind kind, const char* what, double bytes, bool forward) {
            CommEntry& e = b.add(Dim::Ep, kind, what, bytes, moe * mb * (forward ? ep_passes : 1), g);
            e.overlapped = p.overlap_moe_comm;
            const Made x{&e, forward ? moe * e.seconds_each : 0,
                         forward ? moe * (ep_passes - 1) * e.seconds_each : moe * e.seconds_each};
            fwd_each += x.in_fwd;
            bwd_each += x.in_bwd;
            made.push_back(x);
        };
        if (p.moe_dispatcher == MoeDispatcher::AllGather) {
            // Megatron-Core's allgather dispatcher (MoEAllGatherTokenDispatcher): every token of the expert-tensor x
            // expert-parallel group gathered on every rank of it (ranks adjacent: stride 1), each rank keeping those
            // its experts were chosen for; the combine scales by the probabilities, scatters back into the gathered
            // shape and reduce-scatters it. The fp32 routing probabilities are gathered too. Backward: transposes.
            const Group g = make_group(p.ep * etp, 1, c);
            const double gathered = allgather_dispatch_rows(c);
            both_passes(g, CollectiveKind::AllGather, "tokens of the expert group gathered (forward dispatch)", gathered * m.hidden * a, true);
            both_passes(g, CollectiveKind::AllGather, "routing probabilities gathered, fp32 (forward)",
                        gathered * static_cast<double>(m.experts) * 4, true);
            both_passes(g, CollectiveKind::ReduceScatter, "expert outputs reduce-scattered back (forward combine)", gathered * m.hidden * a, true);
            both_passes(g, CollectiveKind::AllGather, "output gradients gathered (backward)", gathered * m.hidden * a, false);
            both_passes(g, CollectiveKind::ReduceScatter, "token gradients reduce-scattered back (backward)", gathered * m.hidden * a, false);
            both_passes(g, CollectiveKind::ReduceScatter, "probability gradients reduce-scattered back, fp32 (backward)",
                        gathered * static_cast<double>(m.experts) * 4, false);
        } else if (p.ep > 1) {
            const Group g = group_of(Dim::Ep, p.ep, c);
            const double bytes = rows * m.hidden * a;
            both_passes(g, CollectiveKind::AllToAll, "tokens to their experts (forward dispatch)", bytes, true);
            both_passes(g, CollectiveKind::AllToAll, "expert outputs back (forward combine)", bytes, true);
            both_passes(g, CollectiveKind::AllToAll, "output gradients to the experts (backward)", bytes, false);
            both_passes(g, CollectiveKind::AllToAll, "input gradients back (backward)", bytes, false);
        }
        if (etp > 1 && p.sp && p.moe_dispatcher == MoeDispatcher::AllToAll) {
            const Group g = make_group(etp, 1, c);  // expert-tensor ranks are adjacent (stride 1)
            const double gathered = rows * static_cast<double>(etp) * m.hidden;
            both_passes(g, CollectiveKind::AllGather, "dispatched tokens over the expert-tensor group (forward)", gathered * a, true);
            both_passes(g, CollectiveKind::ReduceScatter, "expert outputs over the expert-tensor group, fp32 (forward)", gathered * 4, true);
            both_passes(g, CollectiveKind::ReduceScatter, "token gradients over the expert-tensor group (backward)", gathered * a, false);
            both_passes(g, CollectiveKind::AllGather, "output gradients over the expert-tensor group, fp32 (backward)", gathered * 4, false);
        }
        const double fwd_shown = p.overlap_moe_comm ? std::max(0.0, fwd_each - sc.cost.fwd.seconds) : fwd_each;
        const double bwd_shown =
            p.overlap_moe_comm ? std::max(0.0, bwd_each - sc.cost.bwd.seconds - sc.cost.recompute.seconds) : bwd_each;
        b.out.fwd_exposed += fwd_shown;
        b.out.bwd_exposed += bwd_shown;
        // Each entry's exposed share, in proportion to its time within each pass (per iteration).
        for (const Made& x : made)
            x.e->exposed_seconds = mb * ((fwd_each > 0 ? x.in_fwd * fwd_shown / fwd_each : 0) +
                                         (bwd_each > 0 ? x.in_bwd * bwd_shown / bwd_each : 0));
    }

    if (p.pp > 1) {
        // Pipeline p2p: each model chunk sends its output forward and its input gradient backward, per
        // microbatch; Megatron sends 1/tp of the tensor (scatter-gather optimisation, or the sp shard).
        const Group g = group_of(Dim::Pp, 2, c);
        const double bytes = tokens * m.hidden * a / p.tp;
        const double v = static_cast<double>(p.vpp);
        CommEntry& f = b.add(Dim::Pp, CollectiveKind::SendRecv, "activations to the next stage", bytes, v * mb, g);
        CommEntry& bw = b.add(Dim::Pp, CollectiveKind::SendRecv, "gradients to the previous stage", bytes, v * mb, g);
        f.exposed_seconds = f.seconds();
        bw.exposed_seconds = bw.seconds();
        b.out.fwd_exposed += v * f.seconds_each;
        b.out.bwd_exposed += v * bw.seconds_each;
        if (m.tied_embeddings && m.head == Head::Lm && (st.has_pre || st.has_post)) {
            // The two copies of tied word embeddings sum their gradients once per step.
            const Group pair = group_of(Dim::Pp, 2, c, p.pp - 1);
            const double emb = static_cast<double>(c.d.vocab_padded) / p.tp * *m.embedding_dim * bytes_of(*t.grad_dtype);
            CommEntry& e = b.add(Dim::Pp, CollectiveKind::AllReduce, "tied word-embedding gradients (first and last stage)",
                                 emb, 1, pair);
            e.exposed_seconds = e.seconds();
            b.out.step_exposed += e.seconds();
        }
    }

    // A microbatch's backward pass, which gradient reductions may hide behind, and its forward pass, which the
    // overlapped parameter all-gather may hide behind.
    const double backward = sc.cost.bwd.seconds + sc.cost.recompute.seconds + b.out.bwd_exposed;
    const double forward = sc.cost.fwd.seconds + b.out.fwd_exposed;
    const int64_t n = c.d.replica_degree;
    if (n > 1 || p.zero == 3) {
        const Group g = group_of(Dim::Dp, n, c);
        if (p.zero == 3) {
            // ZeRO-3 / FSDP FULL_SHARD gather each layer's parameters before its forward and again before
            // its backward, and reduce-scatter its gradients, every microbatch; prefetching overlaps them with
            // compute (Rajbhandari et al. 2020, sec. 5.3). FSDP gathers one flat parameter per unit (a layer).
            // DeepSpeed's stage-3 coordinator gathers each parameter tensor whole (each call its own ring: its
            // latency once per tensor), releases a module's parameters after its forward, so that full recompute
            // gathers them again inside backward before the backward's own gather, and reduce-scatters the
            // gradients in buckets of reduce_bucket_size elements (deepspeed/runtime/zero/partition_parameters.py,
            // stage3.py).
            const bool deepspeed = c.traits.buffers == BufferPolicy::DeepSpeedZero;
            const double units = std::max(1.0, layers);
            const double gathers = deepspeed ? std::max(units, sc.param_tensors) : units;
            const double backward_gathers = deepspeed && full ? 2 : 1;
            const double buckets = deepspeed ? std::max(1.0, std::ceil(params / kDeepSpeedReduceBucket)) : units;
            const double gather = params / gathers * bytes_of(t.dtype);
            CommEntry& f = b.add(Dim::Zero3, CollectiveKind::AllGather,
                                 deepspeed ? "parameters before forward (per tensor)" : "parameters before forward (per layer)",
                                 gather, gathers * mb, g);
            CommEntry& bw = b.add(Dim::Zero3, CollectiveKind::AllGather,
                                  deepspeed ? (full ? "parameters before recompute and before backward (per tensor)"
                                                    : "parameters before backward (per tensor)")
                                            : "parameters before backward (per layer)",
                                  gather, backward_gathers * gathers * mb, g);
            CommEntry& rs = b.add(Dim::Zero3, CollectiveKind::ReduceScatter,
                                  deepspeed ? "gradients (per reduce bucket)" : "gradients (per layer)",
                                  params / buckets * bytes_of(*t.grad_dtype), buckets * mb, g);
            f.overlapped = bw.overlapped = rs.overlapped = true;
            // Layer by layer, a gather can hide only behind the compute that runs while it is in flight: the part
            // fetched ahead of the layer that needs it. FSDP prefetches the next unit whole; DeepSpeed fetches up to
            // stage3_prefetch_bucket_size elements ahead (kDeepSpeedPrefetchBucket), a small share of a large
            // model's layer, so the rest of each gather waits in line. The gradients' reduce-scatter runs beside
            // the backward (overlap_comm, on for ZeRO-3).
            const double ahead = deepspeed ? std::min(1.0, kDeepSpeedPrefetchBucket / std::max(1.0, params / units)) : 1.0;
            const double fwd_gather = gathers / units * f.seconds_each;
            const double bwd_gather = gathers / units * backward_gathers * bw.seconds_each;
            const double reduce = buckets / units * rs.seconds_each;
            const double fwd_compute = sc.cost.fwd.seconds / units;
            const double bwd_compute = (sc.cost.bwd.seconds + sc.cost.recompute.seconds) / units;
            const double fwd_exposed = fwd_gather - std::min(ahead * fwd_gather, fwd_compute);
            const double bwd_exposed = bwd_gather + reduce - std::min(ahead * bwd_gather + reduce, bwd_compute);
            const double exposed_mb = units * (fwd_exposed + bwd_exposed);
            const double per_mb = units * (fwd_gather + bwd_gather + reduce);
            const double exposed = exposed_mb * mb;
            // Attribute the exposed part proportionally.
            for (CommEntry* e : {&f, &bw, &rs})
                e->exposed_seconds = per_mb > 0 ? exposed * e->seconds() / mb / per_mb : 0;
            b.out.step_exposed += exposed;
        } else {
            // Gradient reduction overlaps the backward pass that produces the gradients when
            // parallel.overlap_grad_reduce is on (Megatron --overlap-grad-reduce, DeepSpeed overlap_comm,
            // DDP buckets); otherwise it runs after backward. ZeRO-2 / SHARD_GRAD_OP reduce every
            // microbatch because they keep only their partition.
            gradient_sync(b, Dim::Dp, g, params, param_bytes, backward, forward, "gradients",
                          "updated parameters after the optimizer step");
        }
    }
    const int64_t n_experts = c.d.expert_replica_degree;
    if (expert_params > 0 && n_experts > 1) {
        // The routed experts' gradients: reduced over the ranks holding the same experts (Megatron's expert
        // data-parallel group), reduce-scattered where the optimizer is sharded, then the updated experts gathered.
        // Under ZeRO-3 the same per step (its per-layer gathers of expert weights are not modelled).
        gradient_sync(b, Dim::ExpertDp, group_of(Dim::ExpertDp, n_experts, c), expert_params, param_bytes, backward,
                      forward, "expert gradients",
                      "updated expert parameters after the optimizer step");
    }
    b.out.entries.assign(b.entries.begin(), b.entries.end());
    return b.out;
}

std::vector<DimensionTraffic> traffic_by_dimension(const StageComm& sc) {
    std::vector<DimensionTraffic> out;
    for (const Dimension& d : dimensions()) {
        DimensionTraffic t{d.id};
        bool used = false;
        for (const auto& e : sc.entries)
            if (e.dimension == d.id) {
                used = true;
                t.count += e.count;
                t.volume += e.volume();
                t.seconds += e.seconds();
                t.exposed_seconds += e.exposed_seconds;
            }
        if (used) out.push_back(t);
    }
    return out;
}

}  // namespace shardcalc
