#pragma once
// Every collective one device of a pipeline stage takes part in per iteration, per parallel
// dimension, as the Megatron analysis tool's "Cluster Communication Summary" (docs/sources.md),
// with its alpha-beta time and what of it compute hides.
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "comm/collective_time.h"
#include "core/small_vector.h"
#include "compute/stage_cost.h"
#include "scenario/dimension.h"

namespace shardcalc {

struct CommEntry {
    Dim dimension = Dim::Dp;  // scenario/dimension.h
    CollectiveKind kind = CollectiveKind::AllReduce;
    std::string_view purpose;  // a literal
    double bytes = 0;         // message per call, per device
    double count = 0;         // calls per iteration
    Group group;
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::None;
    double seconds_each = 0;
    bool overlapped = false;
    double exposed_seconds = 0;  // per iteration, not hidden behind compute
    double seconds() const { return seconds_each * count; }
    // Bytes this device moves per iteration: none in a group of one, where the collective is a no-op (its
    // message, `bytes`, is still the buffer the call would use).
    double volume() const { return group.size > 1 ? bytes * count : 0; }
};

struct StageComm {
    std::vector<CommEntry> entries;
    double fwd_exposed = 0;   // per microbatch, lengthens the stage's forward (tp, ulysses, cp, pp)
    double bwd_exposed = 0;   // per microbatch, lengthens the stage's backward
    // Per microbatch, the per-layer collectives the host issues in each pass (tp, ulysses): each is a call through
    // torch.distributed into NCCL, host work like a kernel launch's (schedule/step.cpp).
    double fwd_calls = 0, bwd_calls = 0;
    double step_exposed = 0;  // per iteration, after the pipeline drains (dp, zero3, tied embeddings)
};

// The Megatron analysis tool's "Cluster Communication Summary": one device's calls, volume and time per dimension.
struct DimensionTraffic {
    Dim dimension = Dim::Dp;
    double count = 0;           // calls per iteration
    double volume = 0;          // bytes per iteration
    double seconds = 0;
    double exposed_seconds = 0;
};
// In dimension order, only those used; held in place (a search checks every timed plan's traffic).
SmallVector<DimensionTraffic, std::size(kDimensions)> traffic_by_dimension(const StageComm& sc);

// `params`: parameters on one device of the stage (after tp, before ZeRO); `expert_params` the routed experts'
// share of them (after ep and etp); `weight_bytes`: the bytes those parameters take as stored (StageMemory's
// weights before any ZeRO-3 partition), which the parameter all-gather after the step moves (fp8 primary weights
// take 1 byte for the fp8 layers' weights, 2 for the rest); `frozen_params` the frozen share (no gradient).
StageComm stage_communication(const Config& c, const StagePlan& st, const StageCompute& sc, double params,
                              double expert_params, double weight_bytes, double frozen_params = 0);

}  // namespace shardcalc
