#pragma once
// FLOPs and time of one op for one microbatch on one device, forward and backward, from the
// same op graph as memory.
#include "compute/roofline.h"
#include "graph/op.h"

namespace shardcalc {

struct OpCost {
    Kernel fwd, bwd;
    Kernel recompute;            // what the recompute policy re-runs in backward (layers only)
    double model_flops = 0;      // forward + backward matmul and attention FLOPs, causal-aware,
                                 // counted once across tensor-parallel replicas
    double model_flops_full_attention = 0;  // the same with attention counted over all s^2 pairs
    OpCost& operator+=(const OpCost& o) {
        fwd += o.fwd;
        bwd += o.bwd;
        recompute += o.recompute;
        model_flops += o.model_flops;
        model_flops_full_attention += o.model_flops_full_attention;
        return *this;
    }
    OpCost scaled(double k) const;
};

OpCost op_cost(const Op& op, const Config& c, bool in_layer);
OpCost module_cost(const Module& m, const Config& c, bool in_layer);

}  // namespace shardcalc
