#pragma once
// PyTorch's CUDA caching allocator as seen from outside: what it reserves beyond what is
// allocated (fragmentation), and the verdict a plan gets against the device's capacity given
// how much fragmentation real runs show.
#include <initializer_list>
#include <string>
#include <vector>

#include "core/term.h"
#include "scenario/resolve.h"

namespace shardcalc {

// Reserved minus allocated at the peak, as a fraction of the allocated peak: the typical (the reserved line) and the
// worst (the verdict's margin). The median and largest measured on real runs, or the user's own measurement
// (implementation.fragmentation) for both.
struct Fragmentation {
    double typical = 0, worst = 0;
    bool calibrated = false;  // from implementation.fragmentation
};
Fragmentation fragmentation_of(const ImplementationSpec& im);

enum class Verdict { Fits, Tight, DoesNotFit };
// The verdicts' keys and words, indexed by Verdict (core/term.h).
inline constexpr Term kVerdicts[] = {{"fits", "Fits"}, {"tight", "Tight"}, {"does_not_fit", "Does not fit"}};
inline const char* verdict_name(Verdict v) { return kVerdicts[static_cast<size_t>(v)].key; }

struct MemoryVerdict {
    Verdict verdict = Verdict::Fits;
    double margin = 0;        // capacity minus the memory the verdict assumes (worst fragmentation); may be < 0
    std::string reason;       // which margin decided, in words, its amounts in GiB (as the CLI prints them)
    // The same words with a kAmount mark where each of `reason_amounts` (bytes) goes: a reader's unit shows them.
    std::string reason_words;
    std::vector<double> reason_amounts;
};
constexpr char kAmount = '\x01';

// Sets the reason from `words` (one kAmount per amount) and the amounts in bytes.
void set_reason(MemoryVerdict& v, std::string words, std::initializer_list<double> amounts);

// `allocated_peak`, `outside_allocator` (CUDA context, library handles) and `largest_request` (the largest single
// tensor of the step, StageMemory::largest_request) in bytes. The caching allocator must find the largest request as
// one contiguous block; with expandable segments it maps pages instead (docs/memory.md "Caching allocator").
MemoryVerdict memory_verdict(double allocated_peak, double outside_allocator, double capacity, double largest_request,
                             Allocator allocator, const Fragmentation& fragmentation);

}  // namespace shardcalc
