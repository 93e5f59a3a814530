#pragma once
// PyTorch's CUDA caching allocator as seen from outside: what it reserves beyond what is
// allocated (fragmentation), and the verdict a plan gets against the device's capacity given
// how much fragmentation real runs show.
#include <string>
#include <vector>

#include "scenario/resolve.h"

namespace shardcalc {

// Reserved minus allocated at the peak, as the median fraction measured on real runs.
double fragmentation_bytes(double allocated_peak);

enum class Verdict { Fits, Tight, DoesNotFit };
const char* verdict_name(Verdict v);  // "fits" | "tight" | "does_not_fit"

// A piece of a verdict's reason: words, or an amount of memory (`is_amount`) that a reader's unit shows.
struct ReasonPart {
    std::string text;
    double bytes = 0;
    bool is_amount = false;
};
inline ReasonPart amount(double bytes) { return {"", bytes, true}; }

struct MemoryVerdict {
    Verdict verdict = Verdict::Fits;
    double margin = 0;        // capacity minus the memory the verdict assumes (worst fragmentation); may be < 0
    std::string reason;       // which margin decided, in words, its amounts in GiB (as the CLI prints them)
    std::vector<ReasonPart> reason_parts;  // the same words with the amounts in bytes (the page shows GiB or GB)
};

// Sets `reason` and `reason_parts` from the parts.
void set_reason(MemoryVerdict& v, std::vector<ReasonPart> parts);

// `allocated_peak` and `outside_allocator` (CUDA context, library handles) in bytes.
MemoryVerdict memory_verdict(double allocated_peak, double outside_allocator, double capacity);

// The fragmentation fractions, exposed for the report and the docs.
double fragmentation_median_fraction();
double fragmentation_worst_fraction();

}  // namespace shardcalc
