// A memory verdict's reason in words, made where it is shown (the report, a search's rejected plan), not where the
// verdict is decided: the words name the margin that decided it (memory/allocator.h VerdictReason) and its amounts.
#include <string>

#include "core/decimal.h"
#include "memory/allocator.h"
#include "memory/xla_program.h"

namespace shardcalc {
namespace {

std::string fragmentation_words(const MemoryVerdict& v) {
    const std::string percent = std::to_string(static_cast<int>(v.fragmentation_worst * 100 + 0.5)) + "% of the peak";
    return v.fragmentation_calibrated ? "the calibrated fragmentation (" + percent + ", implementation.fragmentation)"
                                      : "the worst measured fragmentation (" + percent + ")";
}

}  // namespace

std::string reason_words(const MemoryVerdict& v) {
    switch (v.reason) {
        case VerdictReason::Exceeds:
            return "the allocated peak plus the CUDA context (\x01) exceeds the device (\x01) even with no fragmentation";
        case VerdictReason::Expandable:
            return "fits: expandable segments return cached pages before an allocation fails, so the allocated peak "
                   "and the CUDA context decide, with \x01 to spare";
        case VerdictReason::Fragmentation:
            return "fits only if the caching allocator fragments less than " + fragmentation_words(v) +
                   ", \x01 in all; expect allocator retries or an out-of-memory error";
        case VerdictReason::LargestRequest:
            return "the largest single request (\x01) needs one contiguous block: if its block of the last step was split "
                   "by smaller ones, the caching allocator needs \x01 in all, more than the device; "
                   "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (implementation.allocator) avoids it";
        case VerdictReason::Fits:
            return "fits with " + fragmentation_words(v) + " and \x01 to spare";
        case VerdictReason::XlaExceeds:
        case VerdictReason::XlaFits:
            return xla_reason_words(v);
    }
    return "";
}

std::string reason_text(const MemoryVerdict& v, ByteUnit unit) {
    std::string text;
    const double* amount = v.amounts;
    for (const char c : reason_words(v)) {
        if (c == kAmount) text += unit_text(*amount++, unit);
        else text += c;
    }
    return text;
}

}  // namespace shardcalc
