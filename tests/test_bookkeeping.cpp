// What a plan's estimate and the search keep and skip (docs/performance.md "What keeps a plan's numbers fast").
#include <algorithm>
#include <string>
#include <vector>

#include "comm/stage_rules.h"
#include "core/small_vector.h"
#include "graph/build.h"
#include "helpers.h"
#include "report/estimate.h"

using namespace shardcalc;

TEST_CASE("SmallVector keeps its first N values in place and all of them past N") {
    SmallVector<int, 2> v;
    CHECK(v.empty());
    v.push_back(1);
    v.push_back(2);
    CHECK(v.size() == 2);
    const int* in_place = v.data();
    v.push_back(3);  // past N: every value moves to the heap, in order
    CHECK(v.data() != in_place);
    CHECK(v.size() == 3);
    CHECK(std::vector<int>(v.begin(), v.end()) == std::vector<int>{1, 2, 3});
    CHECK(v.front() == 1);
    CHECK(v.back() == 3);

    SmallVector<int, 2> copy = v;  // a copy owns its values
    copy[0] = 9;
    CHECK(v[0] == 1);
    CHECK(!(copy == v));
    copy[0] = 1;
    CHECK(copy == v);

    v.clear();  // back in place, and it fills again from the start
    CHECK(v.empty());
    v.emplace_back(7);
    CHECK(v.data() == in_place);
    CHECK(v.to_vector() == std::vector<int>{7});
    CHECK(SmallVector<int, 2>::of(std::vector<int>{4, 5, 6}).to_vector() == std::vector<int>{4, 5, 6});
}

TEST_CASE("the richest plan's collectives stay within the reserve the stages build them in") {
    // Every dimension a Megatron plan can add collectives for at once: tensor with sequence parallelism, context,
    // expert with its own tensor group, pipeline (tied embeddings), data with the distributed optimizer, full
    // recompute repeating the forward's; the most a stage adds must stay within Builder::kMaxEntries, past which the
    // references the rules hold would move (comm/communication.cpp refuses that).
    const Report r = test::report(R"({"framework":"megatron","model":{"preset":"mixtral-8x7b"},
      "training":{"seq_len":8192,"global_batch":64,"recompute":"full"},
      "parallel":{"tp":2,"sp":true,"cp":2,"ep":2,"etp":2,"pp":2,"dp":4,"distributed_optimizer":true}})");
    size_t most = 0;
    for (const StageComm& s : r.perf.comm) most = std::max(most, s.entries.size());
    CHECK(most >= 20);  // the plan does reach the many-collective case it is here for
    CHECK(most <= Builder::kMaxEntries);
}

TEST_CASE("the search's resolve gives the plan resolve() gives, without building its notes") {
    // GPT-2's 50,257-row vocabulary is padded (a note for nearly every plan of a search, which shows none).
    const Scenario s = test::scenario(R"({"model":{"preset":"gpt2"},"training":{"global_batch":16},"parallel":{"tp":2}})");
    const Config full = resolve(s);
    Config checked;
    REQUIRE(resolve_checked(s, checked).empty());
    auto padding_noted = [](const Config& c) {
        return std::any_of(c.notes.begin(), c.notes.end(), [](const std::string& n) { return n.rfind("vocabulary padded", 0) == 0; });
    };
    CHECK(padding_noted(full));
    CHECK(!padding_noted(checked));
    CHECK(checked.notes.size() < full.notes.size());
    CHECK(checked.d.vocab_padded == full.d.vocab_padded);
    CHECK(checked.d.microbatches == full.d.microbatches);
    const ModelGraph g = build_graph(full);
    CHECK(estimate(checked, g, Detail::Numbers).perf.step_seconds == estimate(full, g, Detail::Numbers).perf.step_seconds);
    // A plan that breaks a rule gets the same problems either way.
    Scenario broken = s;
    broken.parallel.tp = 5;  // divides neither the 12 heads nor the hidden size
    Config c;
    const std::vector<Problem> problems = resolve_checked(broken, c);
    REQUIRE(!problems.empty());
    CHECK(test::error_of(R"({"model":{"preset":"gpt2"},"training":{"global_batch":16},"parallel":{"tp":5}})")["path"] ==
          problems.front().path);
}
