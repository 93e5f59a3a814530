#pragma once
// Per-device memory of every pipeline stage: the four classic lines plus the rest named
// separately (CE logits, communication buffers, cast copies, transient peak, overhead).
#include <vector>

#include "graph/op.h"
#include "plan/plan.h"
#include "scenario/resolve.h"

namespace shardcalc {

struct OtherBytes {
    double logits = 0;        // fp32 cross-entropy tensors on the last stage
    double comm_buffers = 0;  // DDP buckets, ZeRO reduce bucket, ZeRO-3/FSDP gathered parameters
    double cast_weights = 0;  // 16-bit compute copies of fp32 weights (autocast, FSDP mixed precision)
    double transient = 0;     // peak temporaries beyond the resident lines (backward or optimizer step)
    double overhead = 0;      // CUDA context, allocator reserve, framework (hardware.overhead_gib)
    double sum() const { return logits + comm_buffers + cast_weights + transient + overhead; }
};

struct StageMemory {
    int64_t rank = 0;
    int64_t layers = 0;
    std::vector<int64_t> inflight;  // per model chunk
    double params = 0;              // parameters on one device of this stage (after tp, before ZeRO)
    double weights = 0, gradients = 0, optimizer = 0, activations = 0;
    OtherBytes other;
    double host_cpu = 0, host_nvme = 0;
    double total() const { return weights + gradients + optimizer + activations + other.sum(); }
};

std::vector<StageMemory> stage_memory(const Config& c, const ModelGraph& g, const Plan& plan);

}  // namespace shardcalc
