#pragma once
// A stage as XLA compiles it (framework xla): its saved tensors in the device's layout, kept or rematerialized so that
// the program fits when it can, and the program XLA's out-of-memory report describes. The whole engine's (TPU plans
// only: the page's core answers them "whole engine", wasm/core_features.cpp).
#include "graph/build.h"
#include "memory/stage_parts.h"
#include "memory/xla_program.h"
#include "plan/plan.h"

namespace shardcalc {

struct XlaStage {
    XlaSaved saved;
    double share = 0;  // of the rematerializable bytes recomputed (memory/xla_program.h rematerialized_share)
};

// The stage's saved tensors as XLA keeps them, written into `p`.
XlaStage xla_stage_parts(const Config& c, const ModelGraph& g, const StagePlan& st, StageParts& p);
// The program of the stage whose memory is `m`.
XlaProgram xla_program(const Config& c, const XlaStage& x, const StageMemory& m);

}  // namespace shardcalc
