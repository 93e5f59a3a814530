// Microbatches in flight under Megatron's schedules (megatron/core/pipeline_parallel/schedules.py).
#include "helpers.h"
#include "plan/plan.h"

using namespace shardcalc;

TEST_CASE("1F1B: rank r keeps pp - r microbatches, at most the number of microbatches") {
    for (int r = 0; r < 4; ++r) CHECK(inflight_per_chunk(4, 1, r, 16)[0] == 4 - r);
    CHECK(inflight_per_chunk(8, 1, 0, 3)[0] == 3);
    CHECK(inflight_per_chunk(1, 1, 0, 64)[0] == 1);
}

TEST_CASE("interleaved 1F1B: warmup (p-r-1)*2 + (v-1)*p plus one, spread over chunks") {
    // p = 4, v = 2, rank 0: 6 + 4 + 1 = 11 forwards alive: chunk 0 runs mb 0-3 and 8-11 -> 4 + 3, chunk 1 mb 4-7 -> 4.
    const auto c0 = inflight_per_chunk(4, 2, 0, 16);
    CHECK(c0[0] == 7);
    CHECK(c0[1] == 4);
    // last rank: (v-1)*p + 1 = 5: chunk 0 x4, chunk 1 x1
    const auto c3 = inflight_per_chunk(4, 2, 3, 16);
    CHECK(c3[0] == 4);
    CHECK(c3[1] == 1);
    // microbatches == pp: Megatron runs every forward first
    const auto all = inflight_per_chunk(4, 2, 0, 4);
    CHECK(all[0] + all[1] == 8);
}

TEST_CASE("each pipeline stage is reported with its own numbers") {
    const Report r = test::report(R"({"framework":"megatron","model":{"preset":"llama-2-70b"},
      "training":{"seq_len":4096,"global_batch":64,"recompute":"selective"},
      "parallel":{"tp":8,"pp":4,"sp":true,"dp":2}})");
    REQUIRE(r.stages.size() == 4);
    CHECK(r.stages[0].activations > r.stages[1].activations);
    CHECK(r.stages[1].activations > r.stages[2].activations);
    CHECK(test::phase(r.stages[3], "forward_end").other.logits > 0);  // fp32 logits only on the last stage
    CHECK(test::phase(r.stages[0], "forward_end").other.logits == 0);
    CHECK(r.stages[3].timeline.size() == r.stages[0].timeline.size() + 1);  // the loss backward moment
    CHECK(r.stages[0].layers == 20);
    // untied: the embedding lives on stage 0, the output layer on stage 3
    CHECK(r.stages[0].params == doctest::Approx(r.stages[3].params).epsilon(0.001));
}

TEST_CASE("tied embeddings: the last stage keeps its own copy when pp > 1") {
    const auto j = [](int pp) {
        return std::string(R"({"framework":"megatron","model":{"preset":"gpt2-xl"},"training":{"seq_len":1024,"global_batch":8},
          "parallel":{"pp":)") + std::to_string(pp) + "}}";
    };
    const Report one = test::report(j(1));
    const Report two = test::report(j(2));
    const double vocab_rows = 50304.0 * 1600;
    CHECK(two.stages[0].params + two.stages[1].params == doctest::Approx(one.stages[0].params + vocab_rows));
    CHECK(one.parameters.total == two.parameters.total);
}
