// A memory verdict's reason in words, made where it is shown (the report, a search's rejected plan), not where the
// verdict is decided: the words name the margin that decided it (memory/allocator.h VerdictReason) and its amounts.
#include <string>
#include <vector>

#include "core/decimal.h"
#include "memory/allocator.h"

namespace shardcalc {
namespace {

std::string fragmentation_words(const MemoryVerdict& v) {
    const std::string percent = std::to_string(static_cast<int>(v.fragmentation_worst * 100 + 0.5)) + "% of the peak";
    return v.fragmentation_calibrated ? "the calibrated fragmentation (" + percent + ", implementation.fragmentation)"
                                      : "the worst measured fragmentation (" + percent + ")";
}

std::string xla_parts(const MemoryVerdict& v) {
    return std::string("XLA's program (\x01) with its arguments (\x01) and ") + v.reserve_name + " (\x01)";
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
            return xla_parts(v) + " need \x01, more than the device's \x01" +
                   (v.rematerialized ? " even with every rematerializable saved tensor recomputed" : "");
        case VerdictReason::XlaFits:
            return xla_parts(v) + " fit with \x01 to spare; XLA assigns every buffer when it compiles" +
                   (v.rematerialized ? ", after recomputing \x01 of saved tensors in backward" : "");
    }
    return "";
}

std::vector<double> reason_amounts(const MemoryVerdict& v) {
    size_t n = 0;
    for (const char c : reason_words(v)) n += c == kAmount;
    return std::vector<double>(v.amounts, v.amounts + n);
}

std::string reason_text(const MemoryVerdict& v) {
    std::string text;
    const double* amount = v.amounts;
    for (const char c : reason_words(v)) {
        if (c == kAmount) text += gib_text(*amount++);
        else text += c;
    }
    return text;
}

}  // namespace shardcalc
