#pragma once
// Internal to the plan search (search/search.cpp): what a Searcher holds between steps, the plans still to walk
// and what the walk has found so far.
#include "search/search.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "core/decimal.h"
#include "core/error.h"
#include "core/units.h"
#include "compute/roofline.h"
#include "device/device.h"
#include "graph/build.h"
#include "report/estimate.h"
#include "search/search_memos.h"
#include "search/step_floor.h"
#include "scenario/dimension.h"
#include "scenario/names.h"

namespace shardcalc {

struct Searcher::State {
    static constexpr size_t kExamples = 5;           // rejected plans listed per reason
    static constexpr size_t kMaxStructures = 50000;  // plan structures one search may hold
    Scenario base;
    SearchSpec spec;
    SearchPart part;                    // which structures of the walk this searcher walks (search.h)
    int joined = 0;                     // other parts' findings joined into this one
    Config shape;                       // the base resolved once: the model's shape for the space
    std::map<GraphKey, ModelGraph> graphs;
    SearchMemos memos;                  // the layer figures the plans share (plan/layer_memo.h)
    struct Work {
        int64_t devices;
        Structure structure;
    };
    std::vector<Work> work;             // in the space's order: device counts ascending
    std::vector<size_t> walk;           // the order the structures are walked in (best_plan: most devices first)
    size_t next = 0;
    size_t device_index = 0;            // min_devices: the count being searched
    bool finished = false;
    SearchResult r;
    std::deque<PlanFigures> fitting;    // every plan that fits and was timed, numbers only
    // Plans that fit and could be neither listed nor on the Pareto front: left untimed, or another part's not kept.
    int64_t untimed = 0;

    // A fitting plan is timed only if it could be listed or reach the Pareto front (best_plan): no plan's step is
    // shorter than its floor (search/step_floor.h), from its one-device twin's figures, by framework, micro-batch and
    // recompute (zeros where the twin is not valid: no bound).
    std::map<std::tuple<Framework, int64_t, Recompute>, TwinFloor> twins;
    std::set<double> best_keys;         // the `top` smallest distinct ranking keys timed so far
    std::vector<std::pair<double, double>> front;  // timed plans' Pareto front: (step, peak bytes), step ascending

    const ModelGraph& graph_for(const Config& c) {
        const auto key = graph_key(c);
        auto it = graphs.find(key);
        if (it == graphs.end()) it = graphs.emplace(key, build_graph(c)).first;
        return it->second;
    }

    Scenario scenario_of(const PlanFigures& p) const {
        Scenario s = base;
        s.framework = p.framework;
        s.parallel = p.parallel;
        s.training.micro_batch = p.micro_batch;
        s.training.recompute = p.recompute;
        if (p.seq_len > 0) s.training.seq_len = p.seq_len;
        if (p.global_batch > 0) s.training.global_batch = p.global_batch;
        return s;
    }

    const TwinFloor& twin_of(const Config& plan) {
        const auto key = std::make_tuple(plan.s.framework, plan.s.training.micro_batch, plan.s.training.recompute);
        if (const auto it = twins.find(key); it != twins.end()) return it->second;
        TwinFloor floor;
        Config c;
        try {
            if (resolve_checked(one_device_twin(given_form(plan.s)), c).empty()) floor = twin_floor(c, graph_for(c));
        } catch (const InputError&) {
            floor = TwinFloor{};
        }
        return twins.emplace(key, floor).first->second;
    }

    // Why a plan was refused: the reason it was given, or for one refused on memory (which is worded only if it is
    // shown: most are not) the verdict's words, or the share of capacity the search keeps free.
    std::string reason_of(const PlanFigures& f) const {
        if (!f.reason.empty() || f.capacity <= 0) return f.reason;
        if (f.verdict.verdict != Verdict::Fits) return reason_text(f.verdict);
        return "fits, but with less than the " + decimal(100 * spec.memory_margin, 1) + "%" +
               " of capacity the search keeps free (" + decimal(f.verdict.margin / kGiB, 1) + " GiB spare)";
    }

    double rank_key(const PlanFigures& p) const {
        switch (spec.rank_by) {
            case RankBy::StepTime: return p.step_seconds;
            case RankBy::CostPerToken: return p.device_seconds_per_million_tokens;
            case RankBy::Headroom: return -p.verdict.margin;
        }
        return p.step_seconds;
    }

    // Whether a plan that fits (`f`, its memory known) must be timed: it could rank among the `top` (a step at its floor
    // would beat the `top`-th distinct key timed so far) or reach the Pareto front (no timed plan is faster than its
    // floor and at most as large). Ranked by headroom every fitting plan is timed (its key needs no time, but the
    // listing's equal-plan test does).
    bool needs_time(const PlanFigures& f, const Config& c) {
        if (spec.question != Question::BestPlan || spec.rank_by == RankBy::Headroom || spec.time_every_plan) return true;
        const double floor_step = step_floor(c, twin_of(c)), floor = floor_step * static_cast<double>(f.devices);
        if (!(floor > 0)) return true;
        // Device-seconds per million tokens: the floor (seconds x devices) over the step's tokens.
        const double floor_key = spec.rank_by == RankBy::StepTime ? floor_step : floor * 1e6 / static_cast<double>(c.d.tokens_per_step);
        if (best_keys.size() < static_cast<size_t>(std::max<int64_t>(spec.top, 1)) || floor_key <= *best_keys.rbegin())
            return true;
        // The front's points faster than the floor: the last of them is the smallest.
        const auto faster = std::lower_bound(front.begin(), front.end(), std::make_pair(floor_step, -HUGE_VAL));
        return faster == front.begin() || std::prev(faster)->second > f.peak_bytes;
    }

    // A timed plan joins the ranking keys and the front.
    void record_timed(const PlanFigures& f) {
        best_keys.insert(rank_key(f));
        if (best_keys.size() > static_cast<size_t>(std::max<int64_t>(spec.top, 1))) best_keys.erase(std::prev(best_keys.end()));
        const auto at = std::lower_bound(front.begin(), front.end(), std::make_pair(f.step_seconds, f.peak_bytes));
        if (at != front.begin() && std::prev(at)->second <= f.peak_bytes) return;  // a faster, smaller point exists
        auto end = at;
        while (end != front.end() && end->second >= f.peak_bytes) ++end;  // the points it beats
        front.insert(front.erase(at, end), {f.step_seconds, f.peak_bytes});
    }

    // A plan's place in the space's order names its structure: its structure's index, then its place in the structure's
    // walk (walk_structure). Sets the plan's framework, device count and parallel split from it.
    static int64_t order_of(size_t index) { return static_cast<int64_t>(index) << 16; }
    void restore_structure(PlanFigures& f) const {
        const int64_t index = f.walk_order >> 16;
        if (index < 0 || static_cast<size_t>(index) >= work.size())
            throw InputError("/search", "a search part's finding names no plan structure of this search");
        const Work& w = work[static_cast<size_t>(index)];
        f.framework = w.structure.framework;
        f.parallel = w.structure.parallel;
        f.devices = w.devices;
        // XLA's verdict names the device's reserve (memory/xla_program.cpp): the search's one device.
        if (f.verdict.reason == VerdictReason::XlaExceeds || f.verdict.reason == VerdictReason::XlaFits)
            f.verdict.reserve_name = device_of(shape.s.hardware).reserve_name();
    }

    // Memory (and, when it fits, time) of one plan. Returns whether it fits; records it either way.
    enum class Outcome { Fits, DoesNotFit, Invalid, FitsUntimed };
    Outcome evaluate(const Scenario& s, PlanFigures& f) {
        f.framework = s.framework;
        f.parallel = s.parallel;
        f.micro_batch = s.training.micro_batch;
        f.recompute = s.training.recompute;
        f.devices = world_size(s.parallel);
        Config c;
        try {
            if (const std::vector<Problem> broken = resolve_checked(s, c); !broken.empty()) {
                f.path = broken.front().path;
                f.reason = broken.front().message;
                return Outcome::Invalid;
            }
            f.seq_len = c.s.training.seq_len;
            f.global_batch = c.s.training.global_batch;
            const ModelGraph& g = graph_for(c);
            const Memos shared = spec.share_layer_costs ? Memos{&memos, &memos} : Memos{};
            Estimate e = estimate(std::move(c), g, Detail::Memory, shared);
            check_reportable(e);
            ++r.memory_evaluated;
            f.peak_bytes = e.peak().total();
            f.capacity = e.capacity;
            f.verdict = e.verdict;
            const bool fits = e.fits() && e.verdict.margin >= spec.memory_margin * e.capacity;
            if (!fits) return Outcome::DoesNotFit;  // its reason is worded if it is shown (reason_of)
            if (!needs_time(f, e.config)) return Outcome::FitsUntimed;
            add_time(e, g, false, shared);
            check_reportable(e);
            ++r.time_evaluated;
            const Metrics& m = e.metrics;
            f.timed = true;
            f.step_seconds = m.step_seconds;
            f.mfu = m.mfu;
            f.tokens_per_second = m.tokens_per_second;
            f.device_seconds_per_million_tokens = m.device_seconds_per_million_tokens;
            f.cost_per_million_tokens = m.cost_per_million_tokens;
            f.bubble_fraction = m.bubble_fraction;
            return Outcome::Fits;
        } catch (const InputError& e) {
            f.path = e.path();
            f.reason = e.message();
            return Outcome::Invalid;
        }
    }

    // The examples kept are the first in the space's order, whatever order the walk takes.
    static bool space_order(const PlanFigures& a, const PlanFigures& b) { return a.walk_order < b.walk_order; }
    // The does-not-fit examples kept are the closest to fitting.
    static bool closest_to_fitting(const PlanFigures& a, const PlanFigures& b) {
        return a.verdict.margin != b.verdict.margin ? a.verdict.margin > b.verdict.margin : a.walk_order < b.walk_order;
    }
    // A plan that would rank past the examples kept is not copied (most rejected plans are).
    template <class Before>
    static void keep_example(Rejections& into, const PlanFigures& f, Before before) {
        auto& ex = into.examples;
        if (ex.size() >= kExamples && !before(f, ex.back())) return;
        ex.insert(std::upper_bound(ex.begin(), ex.end(), f, before), f);
        if (ex.size() > kExamples) ex.pop_back();
    }
    void reject(Rejections& into, const PlanFigures& f) {
        ++into.count;
        keep_example(into, f, space_order);
    }
    void reject_memory(const PlanFigures& f) {
        ++r.does_not_fit.count;
        keep_example(r.does_not_fit, f, closest_to_fitting);
    }
    // Another part's rejections joined into this one's: the examples kept are those one search would have kept.
    template <class Before>
    static void join_rejections(Rejections& into, const Rejections& other, Before before) {
        into.count += other.count;
        for (const PlanFigures& f : other.examples) keep_example(into, f, before);
    }

    // The fitting plans, ranked by pointer (a search can keep tens of thousands): the chosen figure, then fewer
    // devices, then less memory, then the space's order.
    std::vector<const PlanFigures*> ranked() const {
        std::vector<const PlanFigures*> all;
        all.reserve(fitting.size());
        for (const PlanFigures& f : fitting) all.push_back(&f);
        std::sort(all.begin(), all.end(), [&](const PlanFigures* pa, const PlanFigures* pb) {
            const PlanFigures &a = *pa, &b = *pb;
            if (rank_key(a) != rank_key(b)) return rank_key(a) < rank_key(b);
            if (a.devices != b.devices) return a.devices < b.devices;
            if (a.peak_bytes != b.peak_bytes) return a.peak_bytes < b.peak_bytes;
            // equal figures: the simpler plan (selective recompute is free under flash)
            if (a.recompute != b.recompute) return a.recompute < b.recompute;
            return a.walk_order < b.walk_order;
        });
        return all;
    }
    // The ranked plans' Pareto front of step time against memory per device (no other plan is both faster and
    // smaller): `order` gets their indices by step, then memory, then rank; the result marks the front.
    static std::vector<bool> pareto_front(const std::vector<const PlanFigures*>& all, std::vector<size_t>& order) {
        order.resize(all.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            if (all[a]->step_seconds != all[b]->step_seconds) return all[a]->step_seconds < all[b]->step_seconds;
            if (all[a]->peak_bytes != all[b]->peak_bytes) return all[a]->peak_bytes < all[b]->peak_bytes;
            return a < b;  // the ranking's order among equals
        });
        double smallest = INFINITY;
        std::vector<bool> pareto(all.size(), false);
        for (size_t i : order)
            if (all[i]->peak_bytes < smallest) {
                smallest = all[i]->peak_bytes;
                pareto[i] = true;
            }
        return pareto;
    }
    // A plan equal in every figure to one listed above it, differing only in recompute (selective recompute under
    // flash attention recomputes nothing), is the same plan: it is counted, not listed again.
    static bool same_plan(const PlanFigures& a, const PlanFigures& b) {
        const ParallelSpec &x = a.parallel, &y = b.parallel;
        return a.framework == b.framework && a.micro_batch == b.micro_batch && a.step_seconds == b.step_seconds &&
               a.peak_bytes == b.peak_bytes && x.dp == y.dp && x.tp == y.tp && x.pp == y.pp && x.vpp == y.vpp &&
               x.cp == y.cp && x.ulysses == y.ulysses && x.sp == y.sp && x.zero == y.zero &&
               x.distributed_optimizer == y.distributed_optimizer && x.offload_optimizer == y.offload_optimizer &&
               x.offload_params == y.offload_params;
    }

    // Walks one structure (the `index`-th of the space): recompute from the least memory up, micro-batch ascending.
    void walk_structure(size_t index) {
        const Work& w = work[index];
        // Each plan's place in the space's order: its structure's, then its place in the structure's walk.
        int64_t order = order_of(index);
        Scenario s = base;
        s.framework = w.structure.framework;
        s.parallel = w.structure.parallel;
        const int64_t global = *base.training.global_batch;
        const int64_t dp = s.parallel.dp;
        const std::vector<Recompute> rcs = recomputes(base, spec, s.framework);
        const std::vector<int64_t> mbs = global % dp == 0 ? micro_batches(base, spec, global / dp) : std::vector<int64_t>{};
        const int64_t total = static_cast<int64_t>(rcs.size() * mbs.size());
        r.candidates += std::max<int64_t>(total, 1);
        if (mbs.empty()) {
            PlanFigures f;
            f.framework = s.framework;
            f.parallel = s.parallel;
            f.devices = w.devices;
            f.walk_order = order;
            f.path = "/training/global_batch";
            f.reason = "the global batch (" + std::to_string(global) + ") does not divide over dp = " + std::to_string(dp);
            reject(r.invalid, f);
            return;
        }
        size_t limit = mbs.size();  // micro-batches at or past a failure fail with less recompute too
        int64_t done = 0;
        for (const Recompute rc : rcs) {
            s.training.recompute = rc;
            for (size_t i = 0; i < limit; ++i) {
                s.training.micro_batch = mbs[i];
                PlanFigures f;
                f.walk_order = ++order;
                ++done;
                const Outcome o = evaluate(s, f);
                if (o == Outcome::FitsUntimed) {
                    ++untimed;
                    continue;
                }
                if (o == Outcome::Fits) {
                    record_timed(f);
                    fitting.push_back(std::move(f));
                    continue;
                }
                if (o == Outcome::Invalid) {
                    reject(r.invalid, f);
                    continue;
                }
                const bool first = rc == rcs.front() && i == 0;
                reject_memory(f);
                limit = i;
                if (first) {  // the least-memory variant does not fit: nothing in this structure will
                    const int64_t left = total - done;
                    if (left > 0) {
                        f.reason = "not evaluated: its least-memory variant (micro_batch " + std::to_string(mbs[0]) +
                                   ", recompute " + name_of(rcs.front()) + ") already does not fit";
                        r.pruned.count += left - 1;
                        reject(r.pruned, f);
                    }
                    return;
                }
                break;
            }
        }
        const int64_t skipped = total - done;
        if (skipped > 0) {
            PlanFigures f;
            f.framework = s.framework;
            f.parallel = s.parallel;
            f.devices = w.devices;
            f.walk_order = order + 1;
            f.reason = "not evaluated: a smaller micro-batch or more recompute already did not fit";
            r.pruned.count += skipped - 1;
            reject(r.pruned, f);
        }
    }

    void enumerate(int64_t devices) {
        for (Structure& st : structures(base, shape, spec, devices, kMaxStructures - std::min(kMaxStructures, work.size()))) {
            walk.push_back(work.size());
            work.push_back(Work{devices, std::move(st)});
            ++r.structures;
        }
        // A bound on the work one search may take (a page must not hang, a worker must not run out of memory):
        // about a minute natively. The searches people run hold a few thousand structures.
        if (work.size() > kMaxStructures)
            throw InputError("/search", "the space holds more than " + std::to_string(kMaxStructures) +
                                            " plan structures (counted up to " + std::to_string(devices) +
                                            " devices); narrow search.devices, frameworks or dimensions");
    }
};

}  // namespace shardcalc
