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

// The kernels one Work runs for one microbatch, by pass: the rows of the per-kernel table (report/kernel_table.h)
// and, summed, an op's cost. A GEMM's backward is two kernels, the data gradient and the weight gradient.
enum class Pass { Forward, BackwardData, BackwardWeight };
struct GemmShape {
    double m = 0, k = 0, n = 0;  // 0: not a GEMM; one group's shape in a grouped GEMM
    GemmPrecision precision = GemmPrecision::Training;
    double groups = 1;  // problems of this shape it runs (a MoE layer's local experts)
};
struct PassKernel {
    Pass pass = Pass::Forward;
    const char* name = "";
    Kernel kernel;  // one run
    GemmShape gemm;
    double repeat = 1;  // runs per microbatch: a recurrent Work's time steps
    bool whole = false;  // runs once over every time step of a recurrent Work (cuDNN's weight gradient)
};
struct WorkKernels {
    PassKernel list[6];  // the most one Work runs: eager attention's two GEMMs forward, four backward
    int count = 0;
    double model_flops = 0, model_flops_full_attention = 0;  // as OpCost's
    void add(Pass pass, const char* name, const Kernel& k, GemmShape gemm = {}) { list[count++] = {pass, name, k, gemm, 1}; }
};
WorkKernels work_kernels(const Work& w, const Config& c);

// Whether the recompute policy re-runs the op's forward kernels in backward (ops of a layer only).
bool recomputed(const Op& op, const Config& c, bool in_layer);

// Each microbatch's parameter gradients carried into the accumulated ones outside the weight-gradient GEMMs
// (FrameworkTraits::grad_accumulation), averaged per microbatch: one memory-bound kernel per parameter tensor, an add
// (read both, write one) or a copy into the bucket. Tied and shared tensors are another op's. Part of the backward.
Kernel grad_accumulation(const Op& op, const Config& c);
// The microbatches per step that an op's kernels depend on, or 0 where they depend on none: autograd's accumulation
// adds on m - 1 of m microbatches (grad_accumulation) and an fp8 weight is quantized once per step (gemm_passes). A
// search's layer costs are shared between plans that differ in nothing else (search/search_memos.h).
int64_t cost_microbatches(const Config& c);

OpCost op_cost(const Op& op, const Config& c, bool in_layer);
OpCost module_cost(const Module& m, const Config& c, bool in_layer);

}  // namespace shardcalc
