#pragma once
// Per-device memory of every pipeline stage as a timeline over one training step: what is
// allocated at each moment (start, end of forward, loss backward, layer backward, optimizer
// step), the peak as the largest of those moments, and the classic lines at that moment.
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "core/small_vector.h"
#include "graph/op.h"
#include "memory/memory_memo.h"
#include "memory/memory_terms.h"
#include "memory/xla_program.h"
#include "plan/plan.h"
#include "scenario/resolve.h"

namespace shardcalc {

struct OtherBytes {
    double logits = 0;         // loss tensors saved for backward (fp32 softmax / log-probabilities)
    double comm_buffers = 0;   // DDP buckets, ZeRO reduce bucket, ZeRO-3/FSDP gathered parameters
    double cast_weights = 0;   // compute copies of weights: 16-bit (autocast cache, FSDP mixed precision), fp8 (Transformer Engine)
    double transient = 0;      // temporaries of the moment (loss upcasts and gradients, a layer's backward, optimizer step)
    double workspace = 0;      // cuBLAS workspaces held by the allocator
    double fragmentation = 0;  // reserved by the caching allocator beyond what is allocated
    double overhead = 0;       // outside the allocator: CUDA context, library handles (hardware.overhead_gib)
    double allocated() const { return logits + comm_buffers + cast_weights + transient + workspace; }
    double sum() const { return allocated() + fragmentation + overhead; }
};

// The lines of device memory at one moment of the step.
struct MemoryLines {
    double weights = 0, gradients = 0, optimizer = 0, activations = 0;
    OtherBytes other;
    double allocated() const { return weights + gradients + optimizer + activations + other.allocated(); }
    double reserved() const { return allocated() + other.fragmentation; }
    double total() const { return reserved() + other.overhead; }  // device memory in use
};

// The lines in the order of kMemoryLines (memory/memory_terms.h): weights, gradients, optimizer, activations, then
// the allocated parts of other (logits, comm buffers, cast weights, transient, workspace).
inline constexpr size_t kMemoryLineCount = 9, kFirstOtherLine = 4;
inline double line_bytes(const MemoryLines& m, size_t i) {
    const double v[kMemoryLineCount] = {m.weights,           m.gradients,           m.optimizer,
                                        m.activations,       m.other.logits,        m.other.comm_buffers,
                                        m.other.cast_weights, m.other.transient,    m.other.workspace};
    return i < kMemoryLineCount ? v[i] : 0.0;
}
static_assert(std::size(kMemoryLines) == kMemoryLineCount, "one value per memory line");

// One moment of the step. Only allocated lines are filled (no fragmentation or overhead).
struct MemoryPhase {
    // Literals (no allocation for the thousands of plans a search evaluates):
    std::string_view name;  // "forward_end", ...
    std::string_view what;  // what happens then, in words
    MemoryLines lines;
};
// The moments of a step (memory.cpp step_timeline: five at most), held in place.
using MemoryTimeline = SmallVector<MemoryPhase, 5>;


struct StageMemory : MemoryLines {  // the lines at the peak moment, with fragmentation and overhead
    int64_t rank = 0;
    int64_t layers = 0;
    SmallVector<int64_t, 4> inflight;  // per model chunk
    double params = 0;              // parameters on one device of this stage (after tp, before ZeRO)
    double expert_params = 0;       // of which routed experts' (after ep and etp)
    double frozen_params = 0;       // of which frozen (the base under an adapter): no gradient to reduce
    // The trained tensors as a per-tensor optimizer loop sees them: matrices (two or more dimensions) and their
    // parameters, and vectors.
    double trained_matrices = 0, trained_matrix_params = 0, trained_vectors = 0;
    double host_cpu = 0, host_nvme = 0;
    // Activation offload (training.activation_offload_layers): the saved tensors of the offloaded layers, per
    // microbatch, that go to host memory and back over the host link (memory/memory.cpp).
    int64_t offloaded_layers = 0;
    double offloaded_activations = 0;
    // The largest single tensor the step asks the allocator for at once (bytes): the gradient of a layer's largest
    // saved tensor, the loss's largest temporary, DeepSpeed's flat fp32 gradient partition, a ZeRO-3 gathered
    // parameter or FSDP unit. The caching allocator needs it as one contiguous block (memory/allocator.h).
    double largest_request = 0;
    MemoryTimeline timeline;
    size_t peak_phase = 0;          // index into timeline
    bool compiled = false;          // an XLA program (framework xla): `xla` holds its report
    XlaProgram xla;
};

// `memo`: the layer figures the plans of one search share (memory/memory_memo.h), or none.
std::vector<StageMemory> stage_memory(const Config& c, const ModelGraph& g, const Plan& plan, MemoryMemo* memo = nullptr);

}  // namespace shardcalc
