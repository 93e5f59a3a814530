#pragma once
// The plan search (docs/search.md): every valid plan over the dimensions a user allows, on the given
// device counts, evaluated with one model graph per framework and padded vocabulary. Memory comes
// first; a plan that does not fit gets no time model, and walking micro-batch and recompute from the
// least memory up, a plan that does not fit ends the walk of everything larger. Plans that fit are
// ranked; the Pareto front of step time against memory per device is kept; every loser has a reason.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/workers.h"
#include "graph/op.h"
#include "memory/allocator.h"
#include "search/launch.h"
#include "search/search_spec.h"
#include "search/space.h"

namespace shardcalc {

// One evaluated plan, numbers only.
struct PlanFigures {
    Framework framework = Framework::Megatron;
    int64_t devices = 0;
    ParallelSpec parallel;
    int64_t micro_batch = 1;
    Recompute recompute = Recompute::None;
    int64_t seq_len = 0;
    int64_t global_batch = 0;       // samples per step
    double peak_bytes = 0;          // device memory in use on the most loaded stage
    double capacity = 0;
    MemoryVerdict verdict;
    bool timed = false;
    double step_seconds = 0, mfu = 0, tokens_per_second = 0, device_seconds_per_million_tokens = 0,
           cost_per_million_tokens = 0, bubble_fraction = 0;
    bool pareto = false;
    int64_t walk_order = 0;         // where the plan comes in the space's order (devices ascending): ties rank by it
    // Filled for the plans a result lists:
    std::string reason;             // why it ranks where it does, or why it was rejected
    std::string path;               // for an invalid plan: the field the engine named
    std::shared_ptr<const Scenario> scenario;  // the scenario that reproduces it (shardcalc estimate); listed plans only
    std::vector<LaunchCommand> launch;  // how to run it (search/launch.h)
};

struct Rejections {
    int64_t count = 0;
    std::vector<PlanFigures> examples;  // a few, with their reasons
};

struct SearchResult {
    Question question = Question::BestPlan;
    RankBy rank_by = RankBy::StepTime;
    std::vector<int64_t> devices;      // the counts searched
    int parts = 1;                     // the parts a best-plan search ran in, side by side (SearchPart)
    int64_t structures = 0;            // plans without micro-batch and recompute
    int64_t candidates = 0;            // every plan the space holds
    int64_t memory_evaluated = 0;      // plans whose memory was computed
    int64_t time_evaluated = 0;        // plans that fit and were timed
    int64_t fitting = 0;
    int64_t equivalent = 0;            // fitting plans left out of `plans`: the same figures as one listed
    std::vector<PlanFigures> plans;    // the best `top` distinct plans, ranked
    std::vector<PlanFigures> pareto;   // step time against memory per device, fastest first
    Rejections does_not_fit, invalid, pruned;
    // The one-question searches: the answer, its plan, and the next value up with why it fails.
    std::string answer_field;          // "micro_batch" | "devices" | "seq_len"; empty for best_plan
    std::optional<int64_t> answer;
    std::optional<PlanFigures> answer_plan;
    std::optional<PlanFigures> next_up;
    std::string answer_reason;         // when there is no answer: why
};

// One of `count` parts of a best-plan search, to run side by side with the others (threads, the page's workers): it
// walks the plan structures whose place in the walk is `index` modulo `count`. Joined (Searcher::join), the parts give
// the answer one search gives, every plan and figure the same; only counts.time_evaluated differs, as each part
// leaves untimed only what its own timed plans rule out (search_state.h needs_time). The other questions are walked
// whole by the first part (the others are done at once, with nothing found).
struct SearchPart {
    int index = 0;
    int count = 1;
};

// What a finished part found that the joined answer can need: its counts, its rejected examples, and the fitting plans
// that could be listed or on the Pareto front whatever the other parts find (every plan ranked at or before its own
// `top`-th distinct one, and its own front: a plan of the joined answer is always one of these).
struct SearchFindings {
    int64_t candidates = 0, memory_evaluated = 0, time_evaluated = 0;
    int64_t fitting_count = 0;  // every plan of the part that fits, timed or not, kept below or not
    Rejections does_not_fit, invalid, pruned;
    std::vector<PlanFigures> fitting;  // numbers only, each with its walk_order
};

// A search that runs in slices, so that a page can show progress and cancel between them.
class Searcher {
public:
    // InputError for a scenario or spec that cannot be searched, or a part that is not one of its count.
    Searcher(Scenario base, SearchSpec spec, SearchPart part = {});
    ~Searcher();
    bool done() const;
    double progress() const;                   // 0..1
    void step(int64_t budget);                 // evaluates at least one and about `budget` plans
    SearchResult result() const;               // the ranking so far (final once done)
    // A finished part's findings; joining those of every other part into a finished part makes its result the whole
    // search's. The findings must come from a part of the same scenario and search; each plan's framework, device
    // count and parallel split are read from the structure its walk_order names (so findings that crossed a process
    // need only the plan's own figures: io/contract/search_json.h). InputError for a walk_order that names none.
    SearchFindings findings() const;
    void join(SearchFindings other);

private:
    struct State;
    std::unique_ptr<State> st_;
};

SearchResult search(const Scenario& base, const SearchSpec& spec);  // to the end

// A best-plan search in one part per worker, run side by side by them and joined (another question, or one worker:
// search() above).
SearchResult search(const Scenario& base, const SearchSpec& spec, const Workers& workers);

}  // namespace shardcalc
