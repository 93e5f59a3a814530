#pragma once
// The serving plan search: for a model, a device and a request shape, every tensor-parallel size (and pipeline stages
// across NVLink domains where needed), weight format and KV cache format a replica can take, each at the largest
// concurrency that fits its KV cache and meets the latency targets, ranked by output tokens per second per GPU (so by
// cost per token), with the latency-throughput front marked.
#include <cstdint>
#include <string>
#include <vector>

#include "serve/serving.h"

namespace shardcalc {

// Pipeline stages tried when none is asked for and no replica within one NVLink domain holds a request.
constexpr int64_t kDefaultMaxPp = 8;

struct ServingSearchSpec {
    int64_t max_tp = 0;                          // 0: the device's NVLink domain
    int64_t max_pp = 0;                          // 0: 1, or up to kDefaultMaxPp when one domain holds no replica
    std::vector<WeightFormat> weights;           // empty: the serving object's
    std::vector<KvCacheDtype> kv_cache_dtypes;   // empty: the serving object's
    double ttft_ms = 0, tpot_ms = 0;             // latency targets; 0: none
    int64_t top = 10;
};

struct ServingPlan {
    Config config;         // the replica as resolved: the scenario at this plan's tp and pp, one replica
    int64_t tp = 1, pp = 1;
    int64_t attention_ranks = 1;  // data-parallel attention ranks of tp GPUs (1: none)
    ServingSpec spec;      // the serving object with this plan's formats and chosen concurrency
    ServingEstimate estimate;
    bool pareto = false;   // on the front of time per output token against tokens per second per GPU
};

struct ServingSearchResult {
    std::vector<ServingPlan> plans;  // best first
    int64_t tried = 0;
    int64_t invalid = 0;         // a tp the heads do not allow, fp8 weights without fp8 tensor cores
    int64_t does_not_fit = 0;    // not even one request's KV cache fits
    int64_t misses_target = 0;   // fits, but one request alone misses a latency target
};

// `scenario`: the model and device (its parallel.tp is the search's to choose; one replica).
ServingSearchResult serving_search(const Scenario& scenario, const ServingSpec& s, const ServingSearchSpec& q);

}  // namespace shardcalc
