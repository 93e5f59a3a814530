#pragma once
// What a plan search is asked: the question, the device counts, which frameworks and parallel
// dimensions may be used, the constraints a user sets, and how plans are ranked. Plain data; io/
// reads it from the scenario's "search" object (docs/search.md).
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "scenario/scenario.h"

namespace shardcalc {

enum class Question {
    BestPlan,       // every valid plan, ranked
    MaxMicroBatch,  // the largest micro-batch that fits the scenario's own plan
    MinDevices,     // the fewest devices (of search.devices) on which some plan fits
    MaxSeqLen,      // the longest sequence that fits the scenario's own plan
};
enum class RankBy { StepTime, CostPerToken, Headroom };
// The choices a search may vary; dp is always what the device count leaves.
enum class SearchDim { Tp, Pp, Vpp, Sp, Cp, Ulysses, Ep, Zero, MicroBatch, Recompute, Offload };

struct SearchSpec {
    Question question = Question::BestPlan;
    std::vector<int64_t> devices;         // ascending; empty: the scenario's own world size
    std::vector<Framework> frameworks;    // empty: the scenario's framework
    std::set<SearchDim> dims;             // empty: all but offload
    bool tp_within_node = true;           // tensor parallelism never leaves an NVLink domain (one node, or an NVL72 rack)
    double memory_margin = 0;             // fraction of capacity kept free beyond the verdict's own margin
    RankBy rank_by = RankBy::StepTime;
    int64_t top = 10;                     // plans listed
    int64_t max_micro_batch = 64;
    std::optional<int64_t> global_batch;         // samples per step, instead of training.global_batch
    std::optional<int64_t> global_batch_tokens;  // or in tokens (a multiple of the sequence length)
    // Plans share their layers' figures (plan/layer_memo.h); off only to check that sharing changes no figure (not a
    // JSON field).
    bool share_layer_costs = true;
    // Time every plan that fits, even those that can be neither listed nor on the Pareto front (search/search_state.h
    // needs_time); on only to check that leaving them untimed changes no answer (not a JSON field).
    bool time_every_plan = false;
};

}  // namespace shardcalc
