#include "plan/local_shape.h"

#include "scenario/dimension.h"

namespace shardcalc {

LocalDims local_dims(SavedSplit split, int64_t width, double seq, const Config& c) {
    const ResolvedParallel& p = c.s.parallel;
    const double b = static_cast<double>(c.s.training.micro_batch);
    const double w = static_cast<double>(width);
    const double seq_split = static_cast<double>(p.cp * p.ulysses);
    const double tp = static_cast<double>(p.tp);
    const auto routed = [&] { return tokens_per_device(c, false) * routed_tokens_factor(c, true); };
    switch (split) {
        case SavedSplit::Sequence: return {{b, seq / (seq_split * (p.sp ? tp : 1)), w}, 3};
        case SavedSplit::Tensor: return {{b, seq / seq_split, w / tp}, 3};
        case SavedSplit::Scores: return {{b, w / (tp * static_cast<double>(p.ulysses)), seq / static_cast<double>(p.cp), seq}, 4};
        case SavedSplit::Routed: return {{routed(), w}, 2};
        case SavedSplit::Expert: return {{routed(), w / static_cast<double>(p.etp)}, 2};
        case SavedSplit::Weight: return {{w / tp}, 1};
    }
    return {};
}

double local_elements(SavedSplit split, int64_t width, double seq, const Config& c) {
    double n = 1;
    for (const double d : local_dims(split, width, seq, c)) n *= d;
    return n;
}

}  // namespace shardcalc
