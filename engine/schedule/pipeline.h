#pragma once
// Pipeline schedules: GPipe (Huang et al. 2019), 1F1B (Narayanan et al. 2019, PipeDream-Flush)
// and interleaved 1F1B (Narayanan et al. 2021, sec. 2.2.2): the step's length from per-stage
// forward/backward times, and the per-stage timeline the page draws as a Gantt chart.
#include <cstdint>
#include <vector>

#include "scenario/scenario.h"

namespace shardcalc {

struct StageTime {
    double fwd = 0;  // one microbatch through all chunks of the stage, exposed per-microbatch comm included
    double bwd = 0;  // backward, recompute included
};

struct PipelineTime {
    double seconds = 0;        // first forward to last backward
    size_t critical_stage = 0; // the slowest stage, which sets the steady-state pace
    double bubble = 0;         // idle time of the critical stage
};

// Analytic: m * max(f + b) + (sum(f + b) - max(f + b)) / v; for equal stages the bubble is
// (p - 1)(f + b)/v (Narayanan et al. 2021, sec. 2.2). GPipe has the same bubble as 1F1B.
PipelineTime pipeline_time(const std::vector<StageTime>& stages, int64_t microbatches, int64_t vpp);

// The least a pipeline's step can be as a multiple of its work spread evenly over its stages: with the slowest
// stage's time max >= the mean, m * max + (p * mean - max) / v >= (m + (p - 1) / v) * mean, so 1 + (p - 1) / (m v).
// The plan search's floor (search/search_state.h) multiplies by it.
double pipeline_fill_factor(int64_t stages, int64_t microbatches, int64_t vpp);

struct TimelineEvent {
    int64_t stage = 0;
    bool forward = true;
    int64_t microbatch = 0;
    int64_t chunk = 0;
    double start = 0, end = 0;
};

// Event simulation of the schedule's op order on every rank with cross-stage dependencies and a
// p2p delay per hop; empty when it would exceed `max_events`.
std::vector<TimelineEvent> simulate_schedule(const std::vector<StageTime>& stages, int64_t microbatches, int64_t vpp,
                                             Schedule schedule, double p2p_seconds, size_t max_events);

}  // namespace shardcalc
