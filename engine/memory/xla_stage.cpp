#include "memory/xla_stage.h"

#include "core/units.h"

namespace shardcalc {

constexpr size_t kLargestAllocations = 10;  // the program allocations XLA's out-of-memory report lists

// The saved tensors in the device's layout, kept or rematerialized as memory/xla_program.h says, so that the program
// fits the device when it can.
XlaStage xla_stage_parts(const Config& c, const ModelGraph& g, const StagePlan& st, StageParts& p) {
    XlaStage x;
    x.saved = xla_saved(c, g, st);
    const XlaSaved& xs = x.saved;
    const StageParts given = p;
    auto with_share = [&](double f) {
        StageParts q = given;
        q.activations_all = q.activations_one = xs.all - f * (xs.all - xs.floor);  // pp = 1: one microbatch in flight
        // XLA's backward fusions write a gradient into the buffer of the one they read (buffer sharing), so a layer's
        // backward holds one gradient of its largest saved tensor, what full recompute rebuilds, and a rematerialized
        // tensor recomputed just before its use.
        q.layer_backward_temp = xs.layer_recompute + xs.largest_in_layer + (f > 0 ? xs.largest_rematerializable : 0);
        return q;
    };
    MemoryTimeline moments;
    x.share = rematerialized_share([&](double f) {
        step_timeline(with_share(f), st.has_post, moments);
        return peak_allocated(moments);
    },
                                   c.s.hardware.overhead_gib * kGiB, c.s.hardware.memory_gib * kGiB);
    p = with_share(x.share);
    return x;
}

XlaProgram xla_program(const Config& c, const XlaStage& stage, const StageMemory& m) {
    const XlaSaved& xs = stage.saved;
    XlaProgram x;
    x.reserved = m.other.overhead;
    // Weights and optimizer states are the step's entry parameters (updated in place); gradients are temporaries.
    x.arguments = m.weights + m.optimizer + (c.traits.grads_persist ? m.gradients : 0);
    x.program = m.allocated() - x.arguments;
    x.total = x.reserved + x.arguments + x.program;
    x.saved_all = xs.all;
    x.saved_floor = xs.floor;
    x.rematerialized_share = xs.all > xs.floor ? stage.share : 0;  // nothing to recompute when everything is a floor
    x.rematerialized = stage.share * (xs.all - xs.floor);
    for (const auto& b : xs.buffers) {
        if (x.largest.size() == kLargestAllocations) break;
        if (b.kept || stage.share < 1) x.largest.push_back(b);
    }
    return x;
}

}  // namespace shardcalc
