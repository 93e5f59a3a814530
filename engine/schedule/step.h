#pragma once
// One training iteration: per-stage compute and exposed communication, the pipeline schedule,
// the optimizer step, and the totals (FLOPs, throughput, MFU/HFU).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "comm/communication.h"
#include "compute/optimizer_cost.h"
#include "compute/stage_cost.h"
#include "memory/memory.h"
#include "schedule/pipeline.h"

namespace shardcalc {


struct Performance {
    std::vector<StageCompute> compute;
    std::vector<StageComm> comm;
    std::vector<StageTime> stage_times;
    PipelineTime pipeline;
    double step_seconds = 0;
    std::vector<std::pair<std::string_view, double>> breakdown;  // named parts of the step (literals), they sum to it
    size_t comm_stage = 0;               // the stage whose communication is reported (the critical one)
    double model_flops = 0;              // per iteration, whole cluster, causal-aware attention
    double model_flops_full_attention = 0;
    double hardware_flops = 0;           // including recompute and flash's backward recompute
    std::vector<TimelineEvent> timeline; // empty when the schedule is too long to draw
    Kernel step_kernels;                 // the critical stage's kernels over one step (all microbatches)
};

// `with_timeline`: also simulate the schedule event by event for drawing (the plan search skips it). `memo`: the layer
// costs a search's plans share (compute/compute_memo.h), or none.
Performance performance(const Config& c, const ModelGraph& g, const Plan& plan, const std::vector<StageMemory>& mem,
                        bool with_timeline = true, ComputeMemo* memo = nullptr);

constexpr size_t kMaxTimelineEvents = 4096;

// The optimizer step of one stage's devices: clipping and the update over the parameters each device updates
// (its shard under ZeRO or the distributed optimizer).
OptimizerKernels stage_optimizer(const Config& c, const StageMemory& m);

}  // namespace shardcalc
