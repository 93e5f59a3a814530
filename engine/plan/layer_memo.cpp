#include "plan/layer_memo.h"

#include "scenario/dimension.h"

namespace shardcalc {

LayerKey layer_key(const Module& m, const Config& c, bool in_layer, int64_t microbatches) {
    const ResolvedParallel& p = c.s.parallel;
    const FrameworkTraits& t = c.traits;
    return {&m,
            in_layer,
            static_cast<int>(c.s.framework),
            static_cast<int>(t.grad_accumulation),
            t.fused_glu,
            t.autocast,
            t.hf_code,
            t.sdpa_math,
            t.xla,
            p.tp,
            p.cp,
            p.ulysses,
            p.ep,
            p.etp,
            p.sp,
            c.s.training.micro_batch,
            static_cast<int>(c.s.training.recompute),
            c.s.training.recompute_modules,
            microbatches,
            c.s.training.seq_len};
}

}  // namespace shardcalc
