#pragma once
// The least step a plan can take, from its one-device twin: the bound by which the plan search leaves the plans that
// cannot rank untimed (search/search_state.h), and an invariant every report keeps (tests/test_invariants.cpp `floor`).
#include "graph/op.h"
#include "scenario/resolve.h"

namespace shardcalc {

// The plan without parallelism: one device, the same framework, micro-batch, recompute and schedule.
Scenario one_device_twin(const Scenario& plan);

struct TwinFloor {
    double flops = 0;         // model FLOPs of a step over the fastest rate any kernel runs at: seconds x devices
    double host_forward = 0;  // the host's time issuing one microbatch's forward (compute/pass_time.h), seconds
};
// `twin` resolved from one_device_twin, `g` its graph. The twin's vocabulary is padded least (Megatron pads it to a
// multiple of 128 x tp), so no plan has fewer model FLOPs; its stages together launch no more than any plan's, a
// mixture of experts excepted (expert parallelism divides an eager experts loop's launches: host_forward 0).
TwinFloor twin_floor(const Config& twin, const ModelGraph& g);

// No step of `plan` is shorter: its twin's FLOPs over its devices, stretched by its pipeline's fill and drain
// (schedule/pipeline.h), or its stages' forward passes as the host issues them, m + (p - 1) / v times their mean on the
// critical path (each pass lasts at least its host time; the stages together launch at least the twin's).
double step_floor(const Config& plan, const TwinFloor& twin);

}  // namespace shardcalc
