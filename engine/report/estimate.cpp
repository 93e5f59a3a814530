#include "report/estimate.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "core/decimal.h"
#include "core/error.h"
#include "core/units.h"

namespace shardcalc {

GraphKey graph_key(const Config& c) {
    return {static_cast<int>(c.s.framework), c.d.vocab_padded, c.s.model.arch == Arch::Lstm ? c.s.training.seq_len : 0};
}

int64_t Estimate::headroom_bytes() const {
    return static_cast<int64_t>(std::llround(capacity)) - static_cast<int64_t>(std::llround(peak().total()));
}

Estimate::HostMemory Estimate::host_memory() const {
    HostMemory h;
    for (const auto& s : stages) {
        h.cpu_per_device = std::max(h.cpu_per_device, s.host_cpu);
        h.nvme_per_device = std::max(h.nvme_per_device, s.host_nvme);
    }
    h.cpu_per_node = h.cpu_per_device * static_cast<double>(std::min(config.s.hardware.gpus_per_node, config.d.world_size));
    return h;
}

Fragmentation Estimate::fragmentation() const {
    return peak().compiled ? Fragmentation{} : fragmentation_of(config.s.implementation);
}

const char* Estimate::reserve_name() const { return device_of(config.s.hardware).reserve_name(); }

namespace {

// The estimate of e.config.
void fill(Estimate& e, const ModelGraph& g, Detail detail, Memos memos) {
    const Config& cfg = e.config;
    e.plan = make_plan(cfg, g);
    e.stages = stage_memory(cfg, g, e.plan, memos.memory);
    for (size_t i = 1; i < e.stages.size(); ++i)
        if (e.stages[i].total() > e.stages[e.peak_stage].total()) e.peak_stage = i;
    e.capacity = cfg.s.hardware.memory_gib * kGiB;
    const StageMemory& peak = e.peak();
    e.verdict = peak.compiled ? xla_verdict(peak.xla, e.capacity, device_of(cfg.s.hardware).reserve_name())
                              : memory_verdict(peak.allocated(), peak.other.overhead, e.capacity, peak.largest_request,
                                               cfg.s.implementation.allocator, fragmentation_of(cfg.s.implementation));
    if (detail != Detail::Memory) add_time(e, g, detail == Detail::Full, memos);
}

}  // namespace

Estimate estimate(const Config& c, const ModelGraph& g, Detail detail, Memos memos) {
    Estimate e{c};
    fill(e, g, detail, memos);
    return e;
}

Estimate estimate(Config&& c, const ModelGraph& g, Detail detail, Memos memos) {
    Estimate e{std::move(c)};
    fill(e, g, detail, memos);
    return e;
}

void add_time(Estimate& e, const ModelGraph& g, bool with_timeline, Memos memos) {
    e.perf = performance(e.config, g, e.plan, e.stages, with_timeline, memos.compute);
    e.metrics = metrics_of(e.config, e.perf);
    e.timed = true;
}

// The report gives byte and element counts as 64-bit integers. A plan whose counts pass 2^62 (4.6 EB
// per device; no accelerator comes near) is an input error naming the part of the scenario that drives
// the count, never an overflowed negative number.
void check_reportable(const Estimate& e) {
    constexpr double kMax = 4611686018427387904.0;  // 2^62
    for (const auto& s : e.stages) {
        const double states = s.weights + s.gradients + s.optimizer + s.host_cpu + s.host_nvme;
        if (!(states <= kMax))
            throw InputError("/model", "weights, gradients and optimizer states of one device exceed 2^62 bytes (" +
                                           gib_text(states) + "); shardcalc reports up to 2^62");
        double largest = s.total();
        for (const auto& ph : s.timeline) largest = std::max(largest, ph.lines.allocated());
        // An XLA program also reports what it would save with nothing rematerialized, which can be the largest.
        if (s.compiled) largest = std::max(largest, s.xla.saved_all);
        if (!(largest <= kMax))
            throw InputError("/training/micro_batch", "one device would hold more than 2^62 bytes (" + gib_text(largest) +
                                                          ") of activations; shardcalc reports up to 2^62");
    }
    const Config& c = e.config;
    // Host memory per node is the per-device figure times the devices of a node.
    const double per_node = static_cast<double>(std::min(c.s.hardware.gpus_per_node, c.d.world_size));
    for (const auto& s : e.stages)
        if (!((s.host_cpu + s.host_nvme) * per_node <= kMax))
            throw InputError("/parallel/offload_optimizer", "offloaded states of one node exceed 2^62 bytes");
    if (!e.timed) return;
    // Time to train, in GPU-hours and money (integers in the text formats).
    if (!(e.metrics.run_gpu_hours <= kMax)) throw InputError("/training/train_tokens", "training would take more than 2^62 GPU-hours");
    if (!(e.metrics.run_cost <= kMax))
        throw InputError("/hardware/price_per_gpu_hour", "the training run would cost more than 2^62");
    // Traffic per step, per collective and summed per dimension (communication_summary).
    for (const auto& sc : e.perf.comm)
        for (const DimensionTraffic& t : traffic_by_dimension(sc))
            if (!(t.volume <= kMax))
                throw InputError("/training/global_batch", std::string("the ") + name_of_dim(t.dimension) +
                                                               " traffic per step exceeds 2^62 bytes; shardcalc reports up to 2^62");
}

}  // namespace shardcalc
