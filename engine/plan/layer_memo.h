#pragma once
// Figures of a model module that the plans of one search share. A layer's kernels (compute/) and its saved tensors and
// parameters (memory/) depend on the graph module and on a few fields of the plan — the framework and its traits,
// tensor, sequence, context, Ulysses and expert parallelism, the micro-batch, the recompute choice, the sequence and,
// for some plans' kernels, the microbatches per step (the caller's `microbatches`, compute/op_cost.h
// cost_microbatches: 0 where they matter not) — and not on the rest (data parallelism, pipeline stages, ZeRO's
// sharding, offload): the plan search costs 381,925 layer groups of an MoE model over three device counts that hold
// 6,417 distinct ones (measured). Valid only for plans of one base scenario: the fields a search never varies (dtypes,
// the device, the implementation) are not in the key. tests/test_search.cpp checks a search with the memos against
// the same plans without them.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "graph/op.h"
#include "scenario/resolve.h"

namespace shardcalc {

using LayerKey = std::tuple<const Module*, bool, int, int, bool, bool, bool, bool, bool, int64_t, int64_t, int64_t, int64_t,
                            int64_t, bool, int64_t, int, unsigned, int64_t, int64_t>;
LayerKey layer_key(const Module& m, const Config& c, bool in_layer, int64_t microbatches);

// A key's hash, each field's mixed in turn: a search looks a key up for every layer group of every plan, and ordering
// keys of twenty fields (a std::map) cost it about a sixth of its time (measured with perf on an MoE search).
struct LayerKeyHash {
    size_t operator()(const LayerKey& k) const {
        return std::apply([](const auto&... v) {
            size_t h = 0;
            ((h ^= std::hash<std::decay_t<decltype(v)>>{}(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)), ...);
            return h;
        }, k);
    }
};

template <class V>
class LayerMemo {
public:
    // The module's figures under `c`, computed by `compute` the first time.
    template <class F>
    const V& get(const Module& m, const Config& c, bool in_layer, int64_t microbatches, F&& compute) {
        const LayerKey key = layer_key(m, c, in_layer, microbatches);
        auto it = figures_.find(key);
        if (it == figures_.end()) it = figures_.emplace(key, compute()).first;
        return it->second;
    }

private:
    std::unordered_map<LayerKey, V, LayerKeyHash> figures_;
};

// One plan's view of a module's figures: a plan asks about each of its few kinds of module many times (every chunk of
// every stage), and a memo lookup hashes the twenty fields of its key. The first `kKept` modules asked about are kept
// here: by reference to the search's memo entry where there is a memo (its entries stay where they are), else computed
// once and held here; past them each question is looked up or computed again. Nothing is zeroed up front (a search
// makes one of these for every plan it weighs).
template <class V>
class KeptFigures {
public:
    // The figures of (m, flag): `lookup()` returns the memo's entry (a reference) or nullptr where there is no memo,
    // `compute()` returns them by value.
    template <class Lookup, class Compute>
    const V& get(const Module& m, bool flag, Lookup&& lookup, Compute&& compute) {
        for (size_t i = 0; i < count_; ++i)
            if (modules_[i] == &m && flags_[i] == flag) return *kept_[i];
        const V* found = lookup();
        if (!found) {
            if (count_ == kKept) {
                if (!spare_) spare_ = std::make_unique<V>();
                return *spare_ = compute();
            }
            if (owned_.empty()) owned_.reserve(kKept);  // reserved whole: the kept pointers stay valid
            found = &owned_.emplace_back(compute());
        }
        if (count_ == kKept) return *found;
        modules_[count_] = &m;
        flags_[count_] = flag;
        kept_[count_++] = found;
        return *found;
    }

private:
    static constexpr size_t kKept = 8;
    std::array<const Module*, kKept> modules_;  // the first count_ of each are set
    std::array<bool, kKept> flags_;
    std::array<const V*, kKept> kept_;
    size_t count_ = 0;
    std::vector<V> owned_;       // computed here without a memo
    std::unique_ptr<V> spare_;   // a module past kKept, computed without a memo
};

}  // namespace shardcalc
