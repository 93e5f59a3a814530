#pragma once
// PyTorch's CUDA caching allocator as seen from outside: what it reserves beyond what is
// allocated (fragmentation), and the verdict a plan gets against the device's capacity given
// how much fragmentation real runs show.
#include <initializer_list>
#include <string>

#include "core/term.h"
#include "core/units.h"
#include "scenario/resolve.h"

namespace shardcalc {

// Reserved minus allocated at the peak, as a fraction of the allocated peak: the typical (the reserved line) and the
// worst (the verdict's margin). The median and largest measured on real runs, or the user's own measurement
// (implementation.fragmentation) for both.
struct Fragmentation {
    double typical = 0, worst = 0;
    bool calibrated = false;  // from implementation.fragmentation
};
Fragmentation fragmentation_of(const ImplementationFields& im);

enum class Verdict { Fits, Tight, DoesNotFit };
// The verdicts' keys and words, indexed by Verdict (core/term.h).
inline constexpr Term kVerdicts[] = {{"fits", "Fits"}, {"tight", "Tight"}, {"does_not_fit", "Does not fit"}};
inline const char* verdict_name(Verdict v) { return kVerdicts[static_cast<size_t>(v)].key; }

// Which margin decided a verdict: the caching allocator's cases (memory_verdict) and XLA's (memory/xla_program.cpp).
enum class VerdictReason { Exceeds, Expandable, Fragmentation, LargestRequest, Fits, XlaExceeds, XlaFits };

// The verdict as data: the engine decides it, and its words are made only where they are shown
// (memory/verdict_reason.cpp), so that a plan search deciding hundreds of thousands builds no text.
struct MemoryVerdict {
    Verdict verdict = Verdict::Fits;
    double margin = 0;        // capacity minus the memory the verdict assumes (worst fragmentation); may be < 0
    VerdictReason reason = VerdictReason::Fits;
    double amounts[5] = {};   // the reason's amounts in bytes, in the order its words name them
    double fragmentation_worst = 0;     // the worst fragmentation the words name, a fraction of the peak
    bool fragmentation_calibrated = false;  // it is the user's (implementation.fragmentation)
    const char* reserve_name = "";      // XLA: the device's reserve outside the program, as its words name it
    bool rematerialized = false;        // XLA: saved tensors are recomputed in backward
};
constexpr char kAmount = '\x01';

// The reason in words with one kAmount mark where each of its amounts (MemoryVerdict::amounts, in order) goes.
std::string reason_words(const MemoryVerdict& v);
// The reason with its amounts in GiB, as the report's "reason" gives it, or in the reader's unit.
std::string reason_text(const MemoryVerdict& v, ByteUnit unit = ByteUnit::GiB);

// `allocated_peak`, `outside_allocator` (CUDA context, library handles) and `largest_request` (the largest single
// tensor of the step, StageMemory::largest_request) in bytes. The caching allocator must find the largest request as
// one contiguous block; with expandable segments it maps pages instead (docs/memory.md "Caching allocator").
MemoryVerdict memory_verdict(double allocated_peak, double outside_allocator, double capacity, double largest_request,
                             Allocator allocator, const Fragmentation& fragmentation);

// The segment the caching allocator asks the device for to serve one request of `bytes` when no cached block holds it
// (c10/cuda/CUDACachingAllocator.cpp get_allocation_size): the small pool's 2 MiB buffer up to 1 MiB, a 20 MiB buffer
// below 10 MiB, else the request rounded up to 2 MiB. Its out-of-memory error's "Tried to allocate" is this size.
double allocation_size(double bytes);

}  // namespace shardcalc
