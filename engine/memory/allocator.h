#pragma once
// PyTorch's CUDA caching allocator as seen from outside: what it reserves beyond what is
// allocated (fragmentation), and the verdict a plan gets against the device's capacity given
// how much fragmentation real runs show.
#include <string>

#include "scenario/resolve.h"

namespace shardcalc {

// Reserved minus allocated at the peak, as the median fraction measured on real runs.
double fragmentation_bytes(double allocated_peak);

enum class Verdict { Fits, Tight, DoesNotFit };
const char* verdict_name(Verdict v);  // "fits" | "tight" | "does_not_fit"

struct MemoryVerdict {
    Verdict verdict = Verdict::Fits;
    double margin = 0;        // capacity minus the memory the verdict assumes (worst fragmentation); may be < 0
    std::string reason;       // which margin decided, in words
};

// `allocated_peak` and `outside_allocator` (CUDA context, library handles) in bytes.
MemoryVerdict memory_verdict(double allocated_peak, double outside_allocator, double capacity);

// The fragmentation fractions, exposed for the report and the docs.
double fragmentation_median_fraction();
double fragmentation_worst_fraction();

}  // namespace shardcalc
