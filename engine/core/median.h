#pragma once
// The median of a run's repeated reports (step times, per-step metrics): the log readers' reconciliations set it
// against the estimate, as robust to one slow report (a checkpoint, a validation pass) as a run's own summary would be.
#include <algorithm>
#include <vector>

namespace shardcalc {

// v must not be empty.
inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace shardcalc
