// The containers a plan's estimate keeps its figures in (docs/performance.md "What keeps a plan's numbers fast").
#include <vector>

#include "comm/stage_rules.h"
#include "core/small_vector.h"
#include "helpers.h"

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
