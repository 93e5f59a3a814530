#pragma once
// One pipeline stage's collectives, one rule per parallel dimension, each in its dimension's file (tensor_comm.cpp,
// sequence_comm.cpp, expert_comm.cpp, pipeline_comm.cpp, data_comm.cpp), and what they share: the stage's figures
// and the builder that times each collective and sums what is exposed. comm/dimension_rules.h lists the rules;
// comm/communication.cpp runs them.
#include <string_view>

#include "comm/communication.h"
#include "compute/stage_cost.h"

namespace shardcalc {

struct Builder {
    // The most entries the rules below add for one stage (tensor 8, Ulysses 4, context 2, expert 11, pipeline 3,
    // data 5): out.entries is reserved for them, so the references handed out stay valid while more are added.
    static constexpr size_t kMaxEntries = 40;

    const Config& c;
    StageComm out;

    // Adds an entry with its alpha-beta time; the rule decides what is exposed.
    CommEntry& add(Dim dim, CollectiveKind kind, std::string_view purpose, double bytes, double count, const Group& g);
    // Adds an entry timed by the rule itself (a hierarchical all-to-all).
    CommEntry& add(Dim dim, CollectiveKind kind, std::string_view purpose, double bytes, double count, const Group& g,
                   const CollectiveTime& t);

    // A collective nothing hides: `fwd_calls` and `bwd_calls` of its calls per microbatch lengthen the forward and
    // the backward pass; with `host_calls` each is also a call the host issues in that pass (schedule/step.cpp).
    void expose(CommEntry& e, double fwd_calls, double bwd_calls, bool host_calls) {
        out.fwd_exposed += fwd_calls * e.seconds_each;
        out.bwd_exposed += bwd_calls * e.seconds_each;
        if (host_calls) {
            out.fwd_calls += fwd_calls;
            out.bwd_calls += bwd_calls;
        }
        e.exposed_seconds = e.seconds();
    }
};

// A group of `size` ranks of dimension `d`, spaced as the rank order places them.
Group group_of(Dim d, int64_t size, const Config& c, int64_t stride_factor = 1);

// The stage as every rule sees it, and the rules (their rows: comm/dimension_rules.h).
struct StageRules {
    const Config& c;
    const StagePlan& st;
    const StageCompute& sc;
    const ResolvedParallel& p;
    const ResolvedTraining& t;
    const ResolvedModel& m;
    Builder& b;                // where the rules add their collectives
    double params = 0;         // parameters on one device of the stage, less the routed experts'
    double expert_params = 0;  // the routed experts' (after ep and etp)
    double param_bytes = 0;    // bytes per stored parameter, which a parameter all-gather moves
    double trained = 0;        // of `params`, those with gradients (all but an adapter's frozen base)
    double trained_bytes = 0;  // bytes per stored trained parameter (the updated ones the gather after the step moves)
    double mb = 0;             // microbatches per step
    double layers = 0;         // transformer layers of the stage
    double a = 0;              // bytes per activation element
    double tokens = 0;         // tokens per device in the tensor-parallel region
    bool full = false;         // full recompute: the forward collectives again inside backward
    double fwd_passes = 1;     // 2 under full recompute
    double tp_again = 0;       // tensor-parallel forward collectives a recompute pass repeats, per microbatch
    double ep_passes = 1;      // 2 where the MoE layers' forward runs again (full recompute, the `moe` module)

    void tensor_parallel() const;    // tensor_comm.cpp
    void ulysses_parallel() const;   // sequence_comm.cpp
    void context_parallel() const;   // sequence_comm.cpp
    void expert_parallel() const;    // expert_comm.cpp
    void pipeline_parallel() const;  // pipeline_comm.cpp
    // After the passes' own exposed time is known: the gradient reductions hide behind the backward it lengthens.
    void data_parallel() const;         // data_comm.cpp
    void zero3_parallel() const;        // data_comm.cpp
    void expert_data_parallel() const;  // data_comm.cpp
};

}  // namespace shardcalc
