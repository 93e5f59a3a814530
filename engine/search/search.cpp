#include "search/search.h"

#include <algorithm>
#include <exception>

#include "search/search_state.h"

namespace shardcalc {

Searcher::~Searcher() = default;

Searcher::Searcher(Scenario base, SearchSpec spec, SearchPart part) : st_(std::make_unique<State>()) {
    State& s = *st_;
    if (part.count < 1 || part.index < 0 || part.index >= part.count)
        throw InputError("/search", "a search part is one of 1 or more: index " + std::to_string(part.index) + " of " +
                                        std::to_string(part.count));
    s.part = part;
    // The model's shape, once: the base with a plan of one device.
    Scenario one = base;
    one.parallel = ParallelSpec{};
    one.parallel.schedule = base.parallel.schedule;
    one.training.micro_batch = 1;
    one.training.global_batch.reset();
    s.shape = resolve(one);
    if (spec.global_batch && spec.global_batch_tokens)
        throw InputError("/search/global_batch_tokens", "give the global batch once: global_batch (samples) or global_batch_tokens");
    if (spec.global_batch) base.training.global_batch = *spec.global_batch;
    if (spec.global_batch_tokens) {
        const int64_t seq = s.shape.s.training.seq_len;
        if (*spec.global_batch_tokens % seq != 0)
            throw InputError("/search/global_batch_tokens", "must be a multiple of the sequence length (" +
                                                                std::to_string(seq) + "), got " +
                                                                std::to_string(*spec.global_batch_tokens));
        base.training.global_batch = *spec.global_batch_tokens / seq;
    }
    if (!base.training.global_batch)
        throw InputError("/training/global_batch",
                         "a search needs the global batch: give training.global_batch or search.global_batch (samples), or search.global_batch_tokens");
    if (spec.devices.empty()) spec.devices.push_back(world_size(base.parallel));
    s.base = std::move(base);
    s.spec = std::move(spec);
    s.r.question = s.spec.question;
    s.r.rank_by = s.spec.rank_by;
    s.r.devices = s.spec.devices;
    if (s.spec.question == Question::BestPlan) {
        for (int64_t d : s.spec.devices) s.enumerate(d);
        // The most devices first: their plans are the fastest, so the bound of State::needs_time leaves the plans of
        // fewer devices that can be neither listed nor on the front untimed.
        std::stable_sort(s.walk.begin(), s.walk.end(), [&](size_t a, size_t b) { return s.work[a].devices > s.work[b].devices; });
        // A part walks every `count`-th structure: neighbours in the walk are alike in size, so the parts take alike.
        std::vector<size_t> mine;
        for (size_t k = static_cast<size_t>(part.index); k < s.walk.size(); k += static_cast<size_t>(part.count))
            mine.push_back(s.walk[k]);
        s.walk = std::move(mine);
    } else if (part.index > 0) {
        s.finished = true;  // the other questions are walked whole, by the first part
        return;
    }
    if (s.spec.question == Question::MinDevices) s.enumerate(s.spec.devices.front());
}

bool Searcher::done() const { return st_->finished; }

double Searcher::progress() const {
    const State& s = *st_;
    if (s.finished) return 1;
    if (s.spec.question == Question::MinDevices)
        return (static_cast<double>(s.device_index) + (s.work.empty() ? 0 : static_cast<double>(s.next) / s.work.size())) /
               static_cast<double>(s.spec.devices.size());
    return s.walk.empty() ? 0 : static_cast<double>(s.next) / static_cast<double>(s.walk.size());
}

namespace {

// The largest value of `values` (ascending) for which `fits` holds, assuming it holds up to some value
// and fails after (memory grows with the micro-batch and the sequence).
template <class Fits>
std::optional<size_t> largest_fitting(size_t count, Fits&& fits) {
    if (count == 0 || !fits(0)) return std::nullopt;
    size_t lo = 0, hi = count;  // fits(lo), and every index >= hi is known not to fit
    while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (fits(mid)) lo = mid;
        else hi = mid;
    }
    return lo;
}

}  // namespace

void Searcher::step(int64_t budget) {
    State& s = *st_;
    if (s.finished) return;
    SearchResult& r = s.r;
    switch (s.spec.question) {
        case Question::BestPlan:
        case Question::MinDevices: {
            const int64_t target = r.candidates + std::max<int64_t>(budget, 1);
            while (s.next < s.walk.size() && r.candidates < target) s.walk_structure(s.walk[s.next++]);
            if (s.next < s.walk.size()) return;
            if (s.spec.question == Question::MinDevices) {
                r.answer_field = "devices";
                if (!s.fitting.empty()) {
                    r.answer = s.spec.devices[s.device_index];
                } else if (s.device_index + 1 < s.spec.devices.size()) {
                    ++s.device_index;
                    s.work.clear();
                    s.walk.clear();
                    s.next = 0;
                    s.enumerate(s.spec.devices[s.device_index]);
                    return;
                } else {
                    r.answer_reason = "no plan fits on any of the device counts searched (up to " +
                                      std::to_string(s.spec.devices.back()) + ")";
                }
            }
            break;
        }
        case Question::MaxMicroBatch:
        case Question::MaxSeqLen: {
            const bool mb = s.spec.question == Question::MaxMicroBatch;
            r.answer_field = mb ? "micro_batch" : "seq_len";
            const int64_t dp = s.base.parallel.dp;
            const int64_t global = *s.base.training.global_batch;
            std::vector<int64_t> values;
            if (mb) {
                for (int64_t v = 1; v <= std::min<int64_t>(global / std::max<int64_t>(dp, 1), 65536); ++v)
                    if (global % (v * dp) == 0) values.push_back(v);
            } else {
                // Powers of two from 128 that the plan's sequence splits divide (validated below).
                for (int64_t v = 128; v <= (int64_t{1} << 26); v *= 2) values.push_back(v);
            }
            // Values the plan cannot run at all (a split that does not divide, a learned position table) are dropped.
            std::vector<int64_t> valid;
            std::vector<PlanFigures> figures;
            for (int64_t v : values) {
                Scenario sc = s.base;
                if (mb) sc.training.micro_batch = v;
                else sc.training.seq_len = v;
                try {
                    resolve(sc);
                    valid.push_back(v);
                } catch (const InputError&) {
                }
            }
            figures.resize(valid.size());
            std::vector<int> outcome(valid.size(), -1);
            auto fits = [&](size_t i) {
                if (outcome[i] < 0) {
                    Scenario sc = s.base;
                    if (mb) sc.training.micro_batch = valid[i];
                    else sc.training.seq_len = valid[i];
                    ++r.candidates;
                    outcome[i] = static_cast<int>(s.evaluate(sc, figures[i]));
                }
                return outcome[i] == static_cast<int>(State::Outcome::Fits);
            };
            const auto best = largest_fitting(valid.size(), fits);
            if (best) {
                r.answer = valid[*best];
                r.answer_plan = figures[*best];
                s.fitting.push_back(figures[*best]);
                if (*best + 1 < valid.size()) {
                    fits(*best + 1);
                    r.next_up = figures[*best + 1];
                }
            } else if (!valid.empty()) {
                fits(0);
                r.next_up = figures[0];
                r.answer_reason = "even " + std::string(mb ? "micro_batch " : "seq_len ") + std::to_string(valid[0]) +
                                  " does not fit this plan: " + s.reason_of(figures[0]);
            } else {
                r.answer_reason = mb ? "no micro-batch divides the global batch over dp" : "no sequence length this plan can split";
            }
            break;
        }
    }
    s.finished = true;
}

SearchResult Searcher::result() const {
    const State& s = *st_;
    SearchResult r = s.r;
    r.fitting = static_cast<int64_t>(s.fitting.size()) + s.untimed;
    r.parts = s.spec.question == Question::BestPlan ? 1 + s.joined : 1;
    const std::vector<const PlanFigures*> all = s.ranked();
    std::vector<size_t> order;
    const std::vector<bool> pareto = State::pareto_front(all, order);
    // Reasons, scenarios and launch commands for what is listed.
    auto finish = [&](PlanFigures& p) {
        p.scenario = std::make_shared<const Scenario>(s.scenario_of(p));
        if (p.timed) p.launch = launch_commands(resolve(*p.scenario));
    };
    const size_t top = static_cast<size_t>(std::max<int64_t>(s.spec.top, 1));
    for (size_t i = 0; i < all.size() && r.plans.size() < top; ++i) {
        if (std::any_of(r.plans.begin(), r.plans.end(), [&](const PlanFigures& q) { return State::same_plan(q, *all[i]); })) {
            ++r.equivalent;
            continue;
        }
        PlanFigures p = *all[i];
        p.pareto = pareto[i];
        const PlanFigures& best = *all[0];
        if (i == 0) {
            // In the reader's words: the ranking's name (step_time) is the search spec's, not theirs.
            p.reason = s.spec.rank_by == RankBy::StepTime       ? "the fastest step"
                       : s.spec.rank_by == RankBy::CostPerToken ? "the least device time per token"
                                                                : "the most memory headroom";
        } else {
            switch (s.spec.rank_by) {
                case RankBy::StepTime:
                    p.reason = decimal(100 * (p.step_seconds / best.step_seconds - 1), 1) + "% slower than #1";
                    break;
                case RankBy::CostPerToken:
                    p.reason = decimal(100 * (p.device_seconds_per_million_tokens / best.device_seconds_per_million_tokens - 1), 1) +
                               "% more device time per token than #1";
                    break;
                case RankBy::Headroom:
                    p.reason = decimal((best.verdict.margin - p.verdict.margin) / kGiB, 1) + " GiB less headroom than #1";
                    break;
            }
            if (p.pareto) p.reason += "; on the time-memory Pareto front";
        }
        finish(p);
        r.plans.push_back(std::move(p));
    }
    for (size_t i : order)
        if (pareto[i]) {
            PlanFigures p = *all[i];
            p.pareto = true;
            p.reason = "no plan is both faster and smaller per device";
            finish(p);
            r.pareto.push_back(std::move(p));
        }
    for (auto* group : {&r.does_not_fit, &r.invalid, &r.pruned})
        for (auto& p : group->examples) {
            p.reason = s.reason_of(p);
            p.scenario = std::make_shared<const Scenario>(s.scenario_of(p));
        }
    if (r.answer_plan) finish(*r.answer_plan);
    if (r.next_up) {
        r.next_up->reason = s.reason_of(*r.next_up);
        r.next_up->scenario = std::make_shared<const Scenario>(s.scenario_of(*r.next_up));
    }
    return r;
}

SearchFindings Searcher::findings() const {
    const State& s = *st_;
    SearchFindings f;
    f.candidates = s.r.candidates;
    f.memory_evaluated = s.r.memory_evaluated;
    f.time_evaluated = s.r.time_evaluated;
    f.fitting_count = static_cast<int64_t>(s.fitting.size()) + s.untimed;
    f.does_not_fit = s.r.does_not_fit;
    f.invalid = s.r.invalid;
    f.pruned = s.r.pruned;
    // The joined listing's last plan ranks no lower than this part's `top`-th distinct one (every plan of the joined
    // answer ranked at or before it is one of this part's or another's kept here), and the joined front is made of
    // the parts' fronts.
    const std::vector<const PlanFigures*> all = s.ranked();
    std::vector<size_t> order;
    const std::vector<bool> pareto = State::pareto_front(all, order);
    const size_t top = static_cast<size_t>(std::max<int64_t>(s.spec.top, 1));
    std::vector<const PlanFigures*> listed;
    double last_key = INFINITY;
    for (size_t i = 0; i < all.size(); ++i) {
        const bool within = listed.size() < top || s.rank_key(*all[i]) <= last_key;
        if (within && std::none_of(listed.begin(), listed.end(), [&](const PlanFigures* q) { return State::same_plan(*q, *all[i]); })) {
            listed.push_back(all[i]);
            if (listed.size() == top) last_key = s.rank_key(*all[i]);
        }
        if (within || pareto[i]) f.fitting.push_back(*all[i]);
    }
    return f;
}

void Searcher::join(SearchFindings other) {
    State& s = *st_;
    if (!s.finished) throw InputError("/search", "a search part joins others once it is done");
    for (auto* group : {&other.does_not_fit, &other.invalid, &other.pruned})
        for (PlanFigures& f : group->examples) s.restore_structure(f);
    for (PlanFigures& f : other.fitting) s.restore_structure(f);
    s.r.candidates += other.candidates;
    s.r.memory_evaluated += other.memory_evaluated;
    s.r.time_evaluated += other.time_evaluated;
    s.untimed += other.fitting_count - static_cast<int64_t>(other.fitting.size());
    State::join_rejections(s.r.does_not_fit, other.does_not_fit, State::closest_to_fitting);
    State::join_rejections(s.r.invalid, other.invalid, State::space_order);
    State::join_rejections(s.r.pruned, other.pruned, State::space_order);
    for (PlanFigures& f : other.fitting) s.fitting.push_back(std::move(f));
    ++s.joined;
}

SearchResult search(const Scenario& base, const SearchSpec& spec) {
    Searcher s(base, spec);
    while (!s.done()) s.step(1 << 20);
    return s.result();
}

SearchResult search(const Scenario& base, const SearchSpec& spec, const Workers& workers) {
    const int parts = workers.count;
    if (parts <= 1 || spec.question != Question::BestPlan) return search(base, spec);
    std::vector<std::unique_ptr<Searcher>> searchers(static_cast<size_t>(parts));
    std::vector<std::exception_ptr> failures(static_cast<size_t>(parts));
    std::vector<std::function<void()>> tasks;
    for (size_t i = 0; i < searchers.size(); ++i)
        tasks.push_back([&, i] {
            try {
                searchers[i] = std::make_unique<Searcher>(base, spec, SearchPart{static_cast<int>(i), parts});
                while (!searchers[i]->done()) searchers[i]->step(1 << 20);
            } catch (...) {
                failures[i] = std::current_exception();
            }
        });
    if (workers.run) {
        workers.run(tasks);
    } else {
        for (const auto& t : tasks) t();
    }
    for (const auto& f : failures)
        if (f) std::rethrow_exception(f);
    for (size_t i = 1; i < searchers.size(); ++i) searchers[0]->join(searchers[i]->findings());
    return searchers[0]->result();
}

}  // namespace shardcalc
