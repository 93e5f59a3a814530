#pragma once
// What XLA keeps for backward in the program it compiles for one device, and what it recomputes instead
// (framework xla; docs/devices.md "XLA's program on a TPU", validation/xla_tpu_facts.md).
//
// XLA assigns every buffer at compile time. Its rematerialization pass (hlo_rematerialization.cc) runs only when
// the live set exceeds the memory left for the program, and then recomputes saved tensors from operands still
// live, until the program fits or nothing more can go. Two kinds of tensor can never go: an RNG's output (an rng
// instruction has a side effect, so it is never recomputed; dropout keeps its uniforms) and a tensor whose only
// source is as large and already dead (the attention probabilities: recomputing them would revive the scores).
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "graph/op.h"
#include "memory/allocator.h"
#include "plan/plan.h"
#include "device/device.h"
#include "scenario/resolve.h"

namespace shardcalc {

// One buffer of the program, as XLA's largest-allocation list prints it.
struct XlaBuffer {
    std::string module;  // where the model creates it ("layer/self_attention/core_attention")
    std::string tensor;  // what it is ("dropout_mask": the RNG's uniforms under XLA)
    std::vector<int64_t> shape;
    Dtype dtype = Dtype::Fp32;
    ArrayLayout layout;  // padded and unpadded bytes, XLA's layout text on a TPU
    int64_t count = 0;   // identical buffers (one per layer)
    bool kept = false;   // cannot be rematerialized (an RNG's output or the attention probabilities)
};

// The saved tensors of one stage and microbatch, in the device's layout.
struct XlaSaved {
    double all = 0;        // every saved tensor kept
    double floor = 0;      // only those XLA cannot rematerialize
    double largest_rematerializable = 0;  // recomputed just before its backward use
    double largest_in_layer = 0;  // a layer's largest saved tensor: its gradient is a layer backward's temporary
    double layer_recompute = 0;   // under full recompute: the saved tensors a layer rebuilds in its backward
    std::vector<XlaBuffer> buffers;       // every distinct saved buffer, largest first
};

XlaSaved xla_saved(const Config& c, const ModelGraph& g, const StagePlan& st);

// The program as XLA's out-of-memory report describes it, with what the rematerialization pass had to do.
struct XlaProgram {
    double reserved = 0;        // held by the TPU runtime (hardware.overhead_gib)
    double arguments = 0;       // entry parameters: weights and optimizer states (and gradients a framework keeps)
    double program = 0;         // HLO temporaries at the program's peak
    double total = 0;           // reserved + arguments + program: XLA's "Total hbm usage"
    double saved_all = 0;       // saved tensors with nothing rematerialized
    double saved_floor = 0;     // saved tensors XLA cannot rematerialize
    double rematerialized = 0;  // saved bytes recomputed in backward to fit the device (0: everything kept)
    double rematerialized_share = 0;  // of the rematerializable bytes
    std::vector<XlaBuffer> largest;   // the largest program allocations, with their count
};

// The share of `all - floor` XLA removes so that `allocated(share)` plus the reserve fits `capacity` (0 if
// everything fits, 1 if even the floor does not: then the program is its floor and the plan does not fit).
// `allocated` is the stage's allocated peak with that share rematerialized (increasing as the share falls).
template <class F>
double rematerialized_share(F allocated, double reserve, double capacity) {
    if (allocated(0.0) + reserve <= capacity) return 0;
    if (allocated(1.0) + reserve >= capacity) return 1;
    double lo = 0, hi = 1;  // allocated(lo) too large, allocated(hi) fits
    for (int i = 0; i < 40; ++i) {
        const double mid = (lo + hi) / 2;
        (allocated(mid) + reserve > capacity ? lo : hi) = mid;
    }
    return hi;
}

// XLA's verdict: the compiler knows every buffer, so a plan fits exactly when reserve, arguments and program do.
MemoryVerdict xla_verdict(const XlaProgram& x, double capacity, const char* reserve_name);
// Its words, with a kAmount mark for each amount (memory/verdict_reason.cpp).
std::string xla_reason_words(const MemoryVerdict& v);

}  // namespace shardcalc
