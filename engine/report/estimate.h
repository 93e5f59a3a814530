#pragma once
// The numbers of one plan, without the tables and labels of the full report: memory per stage and
// its verdict, then (when it is asked for) the step time and the metrics. The plan search calls this
// for every candidate with a graph it built once per model; evaluate() adds the report's tables.
#include <tuple>
#include <utility>
#include <vector>

#include "graph/op.h"
#include "memory/allocator.h"
#include "memory/memory.h"
#include "plan/plan.h"
#include "report/metrics.h"
#include "scenario/resolve.h"
#include "schedule/step.h"

namespace shardcalc {

enum class Detail {
    Memory,  // memory per stage and the verdict only (a plan that does not fit needs no time model)
    Numbers, // plus step time, communication and metrics
    Full,    // plus the event-by-event pipeline timeline, for drawing
};

struct Estimate {
    Estimate() = default;
    explicit Estimate(const Config& c) : config(c) {}
    explicit Estimate(Config&& c) : config(std::move(c)) {}

    Config config;
    Plan plan;
    std::vector<StageMemory> stages;
    size_t peak_stage = 0;            // the most loaded stage
    double capacity = 0;              // bytes
    MemoryVerdict verdict;            // of the peak stage against the capacity, with the fragmentation margin
    bool timed = false;               // perf and metrics are filled (Detail::Numbers or Full)
    Performance perf;
    Metrics metrics;

    const StageMemory& peak() const { return stages[peak_stage]; }
    bool fits() const { return verdict.verdict == Verdict::Fits; }
    // Capacity less the peak device's total, each in whole bytes as the report gives them (negative: short by that).
    int64_t headroom_bytes() const;
    // Host memory of offload: the most loaded stage's per device, and per node (the plan's devices on one node).
    struct HostMemory {
        double cpu_per_device = 0, nvme_per_device = 0, cpu_per_node = 0;
    };
    HostMemory host_memory() const;
    // The caching allocator's measured fragmentation the verdict assumes, a fraction of the peak (typical and worst);
    // none where XLA's compiler places the buffers.
    Fragmentation fragmentation() const;
    // A training run is priced (time to train, GPU-hours, cost) where training.train_tokens is given and the plan
    // has a throughput.
    bool priced_run() const { return config.s.training.train_tokens > 0 && metrics.tokens_per_second > 0; }
    // What the device keeps outside the allocator, in words (device/device.h reserve_name).
    const char* reserve_name() const;
};

// `g` must be build_graph(c) or a graph built for a config with the same model, training and
// implementation and the same padded vocabulary (graph_key).
// The layer figures the plans of one search share (plan/layer_memo.h): their memory and their costs, or none.
struct Memos {
    MemoryMemo* memory = nullptr;
    ComputeMemo* compute = nullptr;
};
Estimate estimate(const Config& c, const ModelGraph& g, Detail detail, Memos memos = {});
// The same, the config moved into the estimate (the search's: a config is 1.5 KB, once copied into a by-value parameter
// and again into the estimate).
Estimate estimate(Config&& c, const ModelGraph& g, Detail detail, Memos memos = {});
// Completes a Detail::Memory estimate with the step time and metrics (`g` and `memos` as above).
void add_time(Estimate& e, const ModelGraph& g, bool with_timeline, Memos memos = {});

// What the graph depends on besides the model, training and implementation sections: the framework
// (its kernels and saved tensors), the vocabulary padded for tensor parallelism and, for an LSTM unrolled over its
// time steps, the sequence length (0 otherwise: a transformer's graph holds widths, not tokens). Plans of one
// scenario with equal keys share one graph; a search that varies the sequence (max_seq_len) builds one per length.
using GraphKey = std::tuple<int, int64_t, int64_t>;
GraphKey graph_key(const Config& c);

// Byte counts and money past 2^62 are input errors naming the field that drives them (never an
// overflowed negative number in a report).
void check_reportable(const Estimate& e);

}  // namespace shardcalc
