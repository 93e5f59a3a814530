#pragma once
// A real run's log set against the estimate of its scenario: per rank, the allocator figures the log reports beside
// the estimate of that rank's pipeline stage, the gap in the terms the log can tell apart, and the step time. Pure
// arithmetic on plain structs; io/import/run_log.cpp reads the log.
#include <string>
#include <vector>

#include "memory/out_of_memory.h"
#include "report/report.h"
#include "report/time_calibration.h"

namespace shardcalc {

// One rank's memory as a log reports it: PyTorch's caching-allocator counters (torch.cuda.memory_allocated,
// max_memory_allocated, memory_reserved, max_memory_reserved), in bytes.
struct MeasuredMemory {
    int64_t rank = 0;  // the global rank the line names; 0 where the log names none (rank 0 reports)
    double allocated = 0, max_allocated = 0, reserved = 0, max_reserved = 0;
    // torch.cuda.memory_summary's counters where the log has one: allocations that failed with an out-of-memory
    // error, and cudaMalloc calls retried after the cache was freed; -1: not known.
    int64_t ooms = -1, alloc_retries = -1;
    bool allocator = true;    // the allocator's figures above are known (false: nvidia-smi only)
    bool allocated_known = true;  // with them, the allocated ones (false: the reserved peak alone, as torchtitan prints)
    double device_used = -1;  // nvidia-smi's memory in use on the device (allocator, CUDA context, libraries); -1: not known
    bool has_oom = false;     // the rank's last out-of-memory error follows
    OutOfMemory oom;
};

// Megatron-LM's own estimate as it prints it (megatron/training/theoretical_memory_usage.py), in bytes: the most
// loaded stage's weights and optimizer states and its activations (Korthikanti's formula).
struct FrameworkEstimate {
    double weights_and_optimizer = 0, activations = 0, total = 0;
};

// What a log says about a run.
struct MeasuredRun {
    std::string source;                  // the format read, in words ("Megatron-LM")
    std::vector<MeasuredMemory> memory;  // the last report of each rank, by rank
    std::vector<double> step_seconds;    // the time per iteration of each report, in order
    // DeepSpeed's throughput timer instead: the whole job's samples per second of each report (CurrSamplesPerSec), in
    // order; a step is the plan's global batch over it.
    std::vector<double> samples_per_second;
    // Or torchtitan's tokens per second per device (its `tps`), each rank's reports after its first (which also holds
    // start-up and compilation; all of them where each rank reported once): a step is the plan's tokens per device
    // over it.
    std::vector<double> tokens_per_device_second;
    bool tps_first_dropped = false;
    bool has_framework_estimate = false;
    FrameworkEstimate framework_estimate;
};

struct RankReconciliation {
    int64_t rank = 0, stage = 0;
    double measured_peak_allocated = 0, estimated_peak_allocated = 0;
    // The caching allocator's reserve at the peak: max reserved - max allocated (measured); fragmentation (estimated).
    double measured_reserve = 0, estimated_reserve = 0;
    double measured_peak_reserved = 0, estimated_peak_reserved = 0;
    // Estimate minus log, in bytes (negative: the estimate is short).
    double peak_allocated_gap = 0, reserve_gap = 0, peak_reserved_gap = 0;
    int64_t ooms = -1, alloc_retries = -1;  // as MeasuredMemory
    bool allocator = true;                  // the three allocator terms above are known
    bool allocated_known = true;            // of them, the allocated peak and the reserve (else the reserved peak alone)
    // nvidia-smi's device memory in use against the stage's total (reserved + memory outside the allocator).
    bool has_device_used = false;
    double measured_device_used = 0, estimated_device_used = 0, device_used_gap = 0;
    // The rank's out-of-memory error beside the stage's estimate: what the rank needed when it failed (allocated +
    // request) against the estimated allocated peak, and the request against the stage's largest estimated request.
    bool has_oom = false;
    OomDiagnosis oom;
    double oom_needed_gap = 0;  // the estimated allocated peak less what the rank needed (oom.needed)
    double estimated_largest_request = 0;
};

struct Reconciliation {
    std::vector<RankReconciliation> ranks;
    bool timed = false;                 // the log has iteration times
    double measured_step_seconds = 0;   // median over the reports after the first (which includes start-up)
    int64_t step_reports = 0;           // how many reports that median is over
    bool step_first_dropped = false;    // the first report was left out (it also holds start-up); not when it is the only one
    double estimated_step_seconds = 0;
    double step_error = 0;              // (estimate - log) / log
    // The framework's own estimate beside ours for the same stage (the first pipeline stage, which Megatron's
    // theoretical memory describes): ours split the same way, weights + gradients + optimizer, and activations.
    bool has_framework_estimate = false;
    FrameworkEstimate framework_estimate, ours_same_split;
    // What the log implies for this cluster, as scenario fields: the caching allocator's reserve over the allocated
    // peak (implementation.fragmentation), the largest of the reporting ranks'.
    bool has_fragmentation = false;
    double implied_fragmentation = 0;
    // And the memory outside the allocator (hardware.overhead_gib, in GiB as that field): nvidia-smi's in use less the
    // allocator's reserved, where the log has both for a rank.
    bool has_overhead = false;
    double implied_overhead_gib = 0;
    // And from the step time, the bounding term's fields at which the estimate's step equals the log's
    // (report/time_calibration.h): the GEMM efficiency, or the host's time per launch.
    bool has_time_calibration = false;
    TimeCalibration time;
    // And the device's capacity as CUDA reports it (hardware.memory_gib, in GiB), from an out-of-memory error.
    bool has_capacity = false;
    double implied_memory_gib = 0;
    std::vector<std::string> findings;  // what the log shows beyond the figures (out-of-memory errors), in words
    std::vector<std::string> unknowns;  // what the log cannot tell, in words
};

// Throws InputError at "/log" when a rank in the log is outside the plan's devices.
Reconciliation reconcile(const Report& report, const MeasuredRun& run);

}  // namespace shardcalc
