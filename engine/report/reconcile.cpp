#include "report/reconcile.h"

#include <algorithm>
#include <cmath>

#include "core/decimal.h"
#include "core/error.h"
#include "core/median.h"
#include "core/units.h"
#include "memory/allocator.h"

namespace shardcalc {

namespace {

// An out-of-memory error beside its stage's estimate: why the request failed (memory/out_of_memory.h), what the rank
// needed against the estimate's peak and largest request, and the findings.
void failed_allocation(const MeasuredMemory& m, const StageMemory& s, const Report& report, RankReconciliation& r,
                       Reconciliation& out) {
    const auto size_text = allocator_size_text;
    r.has_oom = true;
    r.oom = diagnose(m.oom);
    const OutOfMemory& o = r.oom.oom;
    r.oom_needed_gap = r.estimated_peak_allocated - r.oom.needed;
    r.estimated_largest_request = s.largest_request;
    const std::string rank = "rank " + std::to_string(m.rank);
    out.findings.push_back(failure_words(rank, r.oom));
    // What the rank needed when it failed against the estimate of its stage: a plan the estimate passes that failed with
    // more than the estimate's peak is the estimate's error, said as such.
    const std::string verdict = std::string("\"") + verdict_name(report.verdict.verdict) + "\"";
    const std::string needed = rank + " needed at least " + size_text(r.oom.needed) + " (allocated + request) when it failed, ";
    if (r.oom.needed > r.estimated_peak_allocated)
        out.findings.push_back(needed + size_text(-r.oom_needed_gap) + " more than the estimate's allocated peak for stage " +
                               std::to_string(r.stage) + " (" + size_text(r.estimated_peak_allocated) + ")" +
                               (report.verdict.verdict == Verdict::DoesNotFit
                                    ? ""
                                    : ", which calls the plan " + verdict + ": the estimate is short for this run"));
    else
        out.findings.push_back(needed + "within the estimate's allocated peak for stage " + std::to_string(r.stage) + " (" +
                               size_text(r.estimated_peak_allocated) + ")" +
                               (report.verdict.verdict == Verdict::DoesNotFit
                                    ? ", which calls the plan " + verdict + " too"
                                    : ", which calls the plan " + verdict + ": the run failed on what the estimate's peak "
                                      "leaves out (the allocator's cache, other processes, the device's capacity), or the "
                                      "scenario is not the run's plan"));
    // The error gives the segment the allocator asked for, the request rounded as it rounds them, to its printed digits.
    const double largest = allocation_size(r.estimated_largest_request);
    if (size_text(o.request) == size_text(largest))
        out.findings.push_back(rank + "'s failed request (" + size_text(o.request) +
                               ") is the estimate's largest single request for its stage (" +
                               size_text(r.estimated_largest_request) + ", " + size_text(largest) +
                               " as the allocator rounds it)");
    else if (o.request > largest)
        out.findings.push_back(rank + "'s failed request (" + size_text(o.request) +
                               ") is larger than any single request the estimate makes for its stage (" +
                               size_text(r.estimated_largest_request) + ")");
    if (o.other_processes > 0)
        out.findings.push_back("other processes held " + size_text(o.other_processes) + " of rank " + std::to_string(m.rank) +
                               "'s device (the error names " + std::to_string(o.named_processes) +
                               " by PID): the device was shared, where the estimate assumes all of it");
    // The device's capacity as CUDA reports it; a different device than the scenario's is worth saying.
    const double scenario_capacity = report.capacity;
    if (std::abs(o.capacity - scenario_capacity) > 0.1 * scenario_capacity)
        out.findings.push_back("rank " + std::to_string(m.rank) + "'s device has " + size_text(o.capacity) +
                               " where the scenario's hardware has " + size_text(scenario_capacity) +
                               ": is the scenario the run's device?");
    out.has_capacity = true;
    out.implied_memory_gib = std::max(out.implied_memory_gib, o.capacity / kGiB);
    // The process's own device memory beyond PyTorch's reserve: the CUDA context and the libraries' buffers.
    if (const double reserved = o.allocated + o.cached; o.process_used > reserved) {
        out.has_overhead = true;
        out.implied_overhead_gib = std::max(out.implied_overhead_gib, (o.process_used - reserved) / kGiB);
    }
}

}  // namespace

Reconciliation reconcile(const Report& report, const MeasuredRun& run) {
    Reconciliation out;
    const Config& c = report.config;
    const int64_t world = c.d.world_size, pp = c.s.parallel.pp;
    for (const MeasuredMemory& m : run.memory) {
        if (m.rank < 0 || m.rank >= world)
            throw InputError("/log", "rank " + std::to_string(m.rank) + " is outside the plan's " + std::to_string(world) +
                                         " devices: is the scenario the run's plan?");
        RankReconciliation r;
        r.rank = m.rank;
        // Megatron's rank order puts the pipeline outermost (megatron/core/parallel_state.py, order
        // "tp-cp-ep-dp-pp"): ranks [s * world / pp, (s + 1) * world / pp) hold pipeline stage s.
        r.stage = m.rank / (world / pp);
        const StageMemory& s = report.stages[static_cast<size_t>(r.stage)];
        r.measured_peak_allocated = m.max_allocated;
        r.estimated_peak_allocated = s.allocated();
        r.measured_reserve = std::max(0.0, m.max_reserved - m.max_allocated);
        r.estimated_reserve = s.other.fragmentation;
        r.measured_peak_reserved = m.max_reserved;
        r.estimated_peak_reserved = s.reserved();
        r.peak_allocated_gap = r.estimated_peak_allocated - r.measured_peak_allocated;
        r.reserve_gap = r.estimated_reserve - r.measured_reserve;
        r.peak_reserved_gap = r.estimated_peak_reserved - r.measured_peak_reserved;
        r.ooms = m.ooms;
        r.alloc_retries = m.alloc_retries;
        r.allocator = m.allocator;
        r.allocated_known = m.allocated_known;
        if (m.device_used >= 0) {
            r.has_device_used = true;
            r.measured_device_used = m.device_used;
            r.estimated_device_used = s.total();
            r.device_used_gap = r.estimated_device_used - r.measured_device_used;
            // What the device holds beyond the allocator's reserve: the CUDA context, NCCL's and cuBLAS's buffers.
            if (m.allocator && m.device_used > m.reserved) {
                out.has_overhead = true;
                out.implied_overhead_gib = std::max(out.implied_overhead_gib, (m.device_used - m.reserved) / kGiB);
            }
        }
        // The allocator's own counters say whether the run fitted as it ran (c10/cuda/CUDACachingAllocator.cpp:
        // num_ooms counts failed allocations, num_alloc_retries the cudaMalloc calls retried after freeing the cache).
        const auto times = [](int64_t n) { return std::to_string(n) + (n == 1 ? " time" : " times"); };
        if (m.has_oom) failed_allocation(m, s, report, r, out);
        if (m.ooms > 0 && !m.has_oom)
            out.findings.push_back("rank " + std::to_string(m.rank) + " ran out of memory " + times(m.ooms) +
                                   ": the run did not fit as it ran, whatever its peak");
        if (m.alloc_retries > 0)
            out.findings.push_back("rank " + std::to_string(m.rank) + " freed the allocator's cache and retried cudaMalloc " +
                                   times(m.alloc_retries) + ": it ran at the edge of the device, slower");
        out.ranks.push_back(r);
    }
    std::sort(out.ranks.begin(), out.ranks.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
    for (const RankReconciliation& r : out.ranks)
        if (r.allocator && r.allocated_known && r.measured_peak_allocated > 0) {
            out.has_fragmentation = true;
            out.implied_fragmentation =
                std::max(out.implied_fragmentation, std::min(1.0, r.measured_reserve / r.measured_peak_allocated));
        }
    // Iteration times as the log gives them, or DeepSpeed's samples per second turned into them with the plan's batch.
    std::vector<double> steps = run.step_seconds;
    if (steps.empty())
        for (const double sps : run.samples_per_second) steps.push_back(static_cast<double>(c.s.training.global_batch) / sps);
    // torchtitan's reports come with each rank's first already left out.
    const bool from_tps = steps.empty() && !run.tokens_per_device_second.empty();
    if (from_tps)
        for (const double tps : run.tokens_per_device_second)
            steps.push_back(static_cast<double>(c.d.tokens_per_step) / static_cast<double>(c.d.world_size) / tps);
    if (!steps.empty()) {
        out.timed = true;
        // Each report averages the iterations since the one before; the first also holds start-up and warm-up.
        const bool drop = !from_tps && steps.size() > 1;
        std::vector<double> steady(steps.begin() + (drop ? 1 : 0), steps.end());
        out.measured_step_seconds = median(steady);
        out.step_reports = static_cast<int64_t>(steady.size());
        out.step_first_dropped = from_tps ? run.tps_first_dropped : drop;
        out.estimated_step_seconds = report.perf.step_seconds;
        out.step_error = (out.estimated_step_seconds - out.measured_step_seconds) / out.measured_step_seconds;
        out.has_time_calibration = true;
        out.time = implied_time_calibration(c, out.measured_step_seconds);
        if (const std::string f = time_calibration_finding(out.time, c, "the log's step"); !f.empty()) out.findings.push_back(f);
    }
    if (run.has_framework_estimate) {
        // Megatron's theoretical memory is that of the first pipeline stage (its embedding and first layers).
        const StageMemory& first = report.stages.front();
        out.has_framework_estimate = true;
        out.framework_estimate = run.framework_estimate;
        out.ours_same_split.weights_and_optimizer = first.weights + first.gradients + first.optimizer;
        out.ours_same_split.activations = first.activations;
        out.ours_same_split.total = out.ours_same_split.weights_and_optimizer + out.ours_same_split.activations;
    }
    const bool smi = std::any_of(out.ranks.begin(), out.ranks.end(), [](const auto& r) { return r.has_device_used; });
    if (!out.has_overhead)
        out.unknowns.push_back(smi ? "memory outside PyTorch's allocator apart from the total: nvidia-smi gives the device's "
                                     "memory in use; the allocator's reserved (Megatron-LM's memory line, memory_summary) "
                                     "beside it would tell it"
                                   : "memory outside PyTorch's allocator (the CUDA context, NCCL's and other libraries' "
                                     "buffers): the log reports the allocator only; nvidia-smi's figure for the process "
                                     "would tell it");
    if (!out.ranks.empty())
        out.unknowns.push_back("how the allocated peak splits into weights, gradients, optimizer states, activations and "
                               "temporaries: the log gives the total; a memory snapshot (torch.cuda.memory._snapshot) "
                               "would name each block");
    if (!out.ranks.empty() && static_cast<int64_t>(out.ranks.size()) < pp)
        out.unknowns.push_back("the pipeline stages no reported rank holds: their ranks did not print memory");
    if (out.ranks.empty()) out.unknowns.push_back("memory: the log has no memory line");
    if (!out.timed) out.unknowns.push_back("step time: the log has no iteration line");
    return out;
}

}  // namespace shardcalc
