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
    // One replica of tp x pp GPUs (or of `ranks` data-parallel attention ranks of tp GPUs), each weight and KV cache
    // format; false when the model's heads or layers rule the size out (larger sizes are ruled out too).
    const auto replica = [&](int64_t tp, int64_t pp, int64_t ranks = 1) {
        Scenario sc = scenario;
        sc.parallel.tp = tp;
        sc.parallel.pp = pp;
        sc.parallel.dp = ranks;
        Config c;
        try {
            c = resolve(sc, Rules::ModelAndDevice);
        } catch (const InputError&) {
            ++out.invalid;
            return false;
        }
        const ModelGraph g = build_graph(c);
        for (const WeightFormat w : formats)
            for (const KvCacheDtype kv : caches) {
                ++out.tried;
                ServingSpec spec = s;
                spec.dp_attention = ranks > 1;
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
                ServingPlan plan{c, tp, pp, ranks, spec, serving_estimate(c, g, spec), false};
                out.plans.push_back(plan);
            }
        return true;
    };
    // Tensor parallelism inside the NVLink domain (or up to max_tp), powers of two as the heads split. The domain is the
    // resolved device's (a preset's).
    Scenario probe = scenario;
    probe.parallel.tp = probe.parallel.pp = probe.parallel.dp = 1;
    int64_t domain = 1, experts = 0;
    try {
        const Config one = resolve(probe, Rules::ModelAndDevice);
        domain = nvlink_domain_of(one.s.hardware);
        experts = one.s.model.experts;
    } catch (const InputError&) {
        ++out.invalid;
        return out;
    }
    const int64_t max_tp = q.max_tp > 0 ? q.max_tp : domain;
    int64_t widest = 0;
    for (int64_t tp = 1; tp <= max_tp && replica(tp, 1); tp *= 2) widest = tp;
    // Pipeline stages across NVLink domains at the widest tensor parallelism (vLLM's advice: tp within a node, pp
    // across nodes): up to max_pp, or, when it is not given, only where no replica within one domain holds a request.
    const int64_t max_pp = q.max_pp > 0 ? q.max_pp : out.plans.empty() ? kDefaultMaxPp : 1;
    for (int64_t pp = 2; widest > 0 && pp <= max_pp && replica(widest, pp); pp *= 2) {
    }
    // An MoE model: data-parallel attention ranks with the experts over all their GPUs, within the same GPUs a replica
    // may take (tp x ranks up to max_tp).
    if (experts > 0)
        for (int64_t tp = 1; tp * 2 <= max_tp; tp *= 2)
            for (int64_t ranks = 2; tp * ranks <= max_tp && experts % (tp * ranks) == 0; ranks *= 2)
                if (!replica(tp, 1, ranks)) break;
    // The time-memory trade of serving: a plan is on the latency-throughput front when no other plan gives a shorter
    // time per output token and more tokens per second per GPU at once.
    for (ServingPlan& p : out.plans) {
        p.pareto = std::none_of(out.plans.begin(), out.plans.end(), [&](const ServingPlan& o) {
            const double t = o.estimate.tpot_seconds, r = o.estimate.tokens_per_second_per_gpu;
            return t <= p.estimate.tpot_seconds && r >= p.estimate.tokens_per_second_per_gpu &&
                   (t < p.estimate.tpot_seconds || r > p.estimate.tokens_per_second_per_gpu);
        });
    }
    std::stable_sort(out.plans.begin(), out.plans.end(), [](const ServingPlan& a, const ServingPlan& b) {
        return a.estimate.tokens_per_second_per_gpu > b.estimate.tokens_per_second_per_gpu;
    });
    if (static_cast<int64_t>(out.plans.size()) > q.top) out.plans.resize(static_cast<size_t>(q.top));
    return out;
}

}  // namespace shardcalc
