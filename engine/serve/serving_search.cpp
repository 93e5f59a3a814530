#include "serve/serving_search.h"

#include <algorithm>

#include "core/error.h"
#include "graph/build.h"

namespace shardcalc {
namespace {

// Whether a plan at `concurrency` meets the latency targets.
bool meets(const ServingEstimate& e, const ServingSearchSpec& q) {
    return (q.ttft_ms <= 0 || e.prefill_seconds * 1e3 <= q.ttft_ms) && (q.tpot_ms <= 0 || e.tpot_seconds * 1e3 <= q.tpot_ms);
}

}  // namespace

ServingSearchResult serving_search(const Scenario& scenario, const ServingSpec& s, const ServingSearchSpec& q) {
    ServingSearchResult out;
    const std::vector<WeightFormat> formats = q.weights.empty() ? std::vector<WeightFormat>{s.weights} : q.weights;
    const std::vector<KvCacheDtype> caches = q.kv_cache_dtypes.empty() ? std::vector<KvCacheDtype>{s.kv_cache_dtype} : q.kv_cache_dtypes;
    // Tensor parallelism inside the NVLink domain (or up to max_tp), powers of two as the heads split.
    for (int64_t tp = 1;; tp *= 2) {
        Scenario sc = scenario;
        sc.parallel.tp = tp;
        sc.parallel.dp = 1;
        Config c;
        try {
            c = resolve(sc, Rules::ModelAndDevice);
        } catch (const InputError&) {
            ++out.invalid;
            break;
        }
        const int64_t limit = q.max_tp > 0 ? q.max_tp : nvlink_domain_of(c.s.hardware);
        if (tp > limit) break;
        const ModelGraph g = build_graph(c);
        for (const WeightFormat w : formats)
            for (const KvCacheDtype kv : caches) {
                ++out.tried;
                ServingSpec spec = s;
                spec.weights = w;
                spec.kv_cache_dtype = kv;
                spec.concurrency = 1;
                try {
                    validate_serving(c, spec);
                } catch (const InputError&) {
                    ++out.invalid;
                    continue;
                }
                ServingEstimate e = serving_estimate(c, g, spec);
                if (e.max_concurrency < 1) {
                    ++out.does_not_fit;
                    continue;
                }
                if (!meets(e, q)) {
                    ++out.misses_target;
                    continue;
                }
                // The largest concurrency that fits and meets the targets: the decode step grows with it.
                int64_t lo = 1, hi = e.max_concurrency;
                while (lo < hi) {
                    const int64_t mid = lo + (hi - lo + 1) / 2;
                    spec.concurrency = mid;
                    if (meets(serving_estimate(c, g, spec), q)) lo = mid;
                    else hi = mid - 1;
                }
                spec.concurrency = lo;
                ServingPlan plan{c, tp, spec, serving_estimate(c, g, spec), 0};
                if (c.s.hardware.price_per_gpu_hour > 0)
                    plan.cost_per_million_tokens = c.s.hardware.price_per_gpu_hour / 3600 / plan.estimate.tokens_per_second_per_gpu * 1e6;
                out.plans.push_back(plan);
            }
    }
    std::stable_sort(out.plans.begin(), out.plans.end(), [](const ServingPlan& a, const ServingPlan& b) {
        return a.estimate.tokens_per_second_per_gpu > b.estimate.tokens_per_second_per_gpu;
    });
    if (static_cast<int64_t>(out.plans.size()) > q.top) out.plans.resize(static_cast<size_t>(q.top));
    return out;
}

}  // namespace shardcalc
