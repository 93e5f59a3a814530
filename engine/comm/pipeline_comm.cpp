#include "comm/stage_rules.h"

#include <algorithm>
#include <cmath>

#include "graph/blocks.h"

namespace shardcalc {

// Pipeline parallelism: activations and gradients between stages, the tied embeddings' gradient sum.
void StageRules::pipeline_parallel() const {
    if (p.pp > 1) {
        // Pipeline p2p: each model chunk sends its output forward and its input gradient backward, per
        // microbatch; Megatron sends 1/tp of the tensor (scatter-gather optimisation, or the sp shard).
        const Group g = group_of(Dim::Pp, 2, c);
        const double bytes = tokens * m.hidden * a / p.tp;
        const double v = static_cast<double>(p.vpp);
        b.expose(b.add(Dim::Pp, CollectiveKind::SendRecv, "activations to the next stage", bytes, v * mb, g), v, 0, false);
        b.expose(b.add(Dim::Pp, CollectiveKind::SendRecv, "gradients to the previous stage", bytes, v * mb, g), 0, v, false);
        if (m.tied_embeddings && m.head == Head::Lm && (st.has_pre || st.has_post)) {
            // The two copies of tied word embeddings sum their gradients once per step.
            const Group pair = group_of(Dim::Pp, 2, c, p.pp - 1);
            const double emb = static_cast<double>(c.d.vocab_padded) / p.tp * m.embedding_dim * bytes_of(t.grad_dtype);
            CommEntry& e = b.add(Dim::Pp, CollectiveKind::AllReduce, "tied word-embedding gradients (first and last stage)",
                                 emb, 1, pair);
            e.exposed_seconds = e.seconds();
            b.out.step_exposed += e.seconds();
        }
    }
}

}  // namespace shardcalc
