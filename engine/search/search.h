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

// A search that runs in slices, so that a page can show progress and cancel between them.
class Searcher {
public:
    Searcher(Scenario base, SearchSpec spec);  // InputError for a scenario or spec that cannot be searched
    ~Searcher();
    bool done() const;
    double progress() const;                   // 0..1
    void step(int64_t budget);                 // evaluates at least one and about `budget` plans
    SearchResult result() const;               // the ranking so far (final once done)

private:
    struct State;
    std::unique_ptr<State> st_;
};

SearchResult search(const Scenario& base, const SearchSpec& spec);  // to the end

}  // namespace shardcalc
