#include "comm/stage_rules.h"

#include <algorithm>
#include <cmath>

#include "graph/blocks.h"

namespace shardcalc {

// DeepSpeed-Ulysses: the all-to-alls around attention.
void StageRules::ulysses_parallel() const {
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
            b.expose(b.add(Dim::Ulysses, CollectiveKind::AllToAll, x.forward, bytes, layers * mb * fwd_passes, g), layers,
                     layers * (fwd_passes - 1), true);
            b.expose(b.add(Dim::Ulysses, CollectiveKind::AllToAll, x.backward, bytes, layers * mb, g), 0, layers, true);
        }
    }
}

// Context (ring) parallelism: the k/v exchanges hidden behind attention.
void StageRules::context_parallel() const {
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
}

}  // namespace shardcalc
