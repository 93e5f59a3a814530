#pragma once
// The per-kernel table (DeepFlow's LSTM projection's, for every model): each kernel one pipeline stage's devices run,
// with its pass, FLOPs, HBM and L2 traffic (GEMM tile reloads), intensity against the device's inflection
// point, bound and time, then the optimizer step's kernels. One instance per row; `count` instances per
// microbatch (layers x time steps), and the step's share over all microbatches. Summed over the rows, the
// forward, backward and recompute time is the stage's compute time in the step (the same op costs).
#include <string>
#include <vector>

#include "compute/op_cost.h"
#include "report/estimate.h"

namespace shardcalc {

enum class KernelPass { Forward, BackwardData, BackwardWeight, Recompute, Optimizer };

struct KernelRow {
    std::string module;   // the op's path in the module tree: "layer/self_attention/linear_qkv"
    std::string name;     // "gemm", "flash attention", "elementwise", "gradient clipping", "optimizer update"
    KernelPass pass = KernelPass::Forward;
    double count = 1;     // instances per microbatch (per step for the optimizer's kernels)
    double runs = 1;      // how often `count` instances run in one step: the microbatches, or 1
    GemmShape gemm;       // m, k, n of a GEMM (all 0 otherwise)
    GemmTraffic traffic;  // its reloads (1 for other kernels)
    Kernel kernel;        // one instance
    double intensity() const { return kernel.bytes > 0 ? kernel.flops / kernel.bytes : 0; }
    double step_seconds() const { return kernel.seconds * count * runs; }
};

constexpr int kKernelPasses = 5;

struct KernelTable {
    int64_t stage = 0;            // pipeline rank
    int64_t stages = 1;           // of the plan
    std::string device;           // hardware.name
    Dtype dtype = Dtype::Bf16;    // training.dtype
    double microbatches = 1;      // per step
    double inflection_point = 0;  // FLOP per HBM byte (compute/roofline.h)
    std::vector<KernelRow> rows;
    double pass_seconds[kKernelPasses] = {};  // the rows' step_seconds() summed by pass
    double seconds = 0;                       // all of them
};

// The table of pipeline rank `stage` (of e's plan), or of the stage whose kernels take longest when negative.
// Throws InputError naming /stage when there is no such rank.
KernelTable kernel_table(const Estimate& e, const ModelGraph& g, int64_t stage = -1);

// The table of a scenario: resolved, its graph built and its plan estimated, as evaluate() does.
KernelTable kernel_table(const Scenario& s, int64_t stage = -1);

const char* pass_name(KernelPass p);

}  // namespace shardcalc
