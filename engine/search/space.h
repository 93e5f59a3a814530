#pragma once
// The plans a search walks. A structure fixes everything but the micro-batch and recompute; those
// two are walked inside it from the least memory up (recompute full -> selective -> none, the
// micro-batch ascending), so a plan that does not fit ends the walk of everything larger.
#include <cstdint>
#include <vector>

#include "scenario/resolve.h"
#include "search/search_spec.h"

namespace shardcalc {

struct Structure {
    Framework framework = Framework::Megatron;
    ParallelSpec parallel;   // dp * tp * pp * cp * ulysses = the device count (ep and etp fold into those ranks)
};

// The model shape the search needs (layers, heads, kv_heads, ffn_hidden, seq_len) comes from `shape`,
// the scenario resolved once. Only combinations the framework runs are produced (docs/search.md).
// Stops once it holds more than `limit` (the caller refuses such a space).
std::vector<Structure> structures(const Scenario& base, const Config& shape, const SearchSpec& spec, int64_t devices,
                                  size_t limit);

// Micro-batches that divide the samples one data-parallel rank takes per step, ascending.
std::vector<int64_t> micro_batches(const Scenario& base, const SearchSpec& spec, int64_t samples_per_rank);

// Recompute policies the framework offers, least activation memory first.
std::vector<Recompute> recomputes(const Scenario& base, const SearchSpec& spec, Framework f);

bool searched(const SearchSpec& spec, SearchDim d);

}  // namespace shardcalc
