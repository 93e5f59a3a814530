// Microbatches in flight under Megatron's schedules (megatron/core/pipeline_parallel/schedules.py).
#include "helpers.h"
#include "plan/plan.h"
#include "search/launch.h"

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

// Uneven pipelines (Megatron --decoder-first/last-pipeline-num-layers, transformer_block.py
// get_num_layers_to_build): the given stages hold their counts, the others share the rest evenly.
TEST_CASE("uneven pipeline: first and last stages hold their own layer counts, the rest share evenly") {
    const std::string base = R"({"framework":"megatron","model":{"preset":"llama-3.1-405b"},
      "training":{"seq_len":8192,"global_batch":2048,"recompute":"full"},"parallel":{"dp":64,"tp":8,"pp":16,"sp":true,
      "distributed_optimizer":true,)";
    // Meta's Llama 3 405B layout: 126 layers over 16 stages, one layer fewer on the first and the last.
    const Report r = test::report(base + R"("first_stage_layers":7,"last_stage_layers":7}})");
    REQUIRE(r.stages.size() == 16);
    CHECK(r.stages[0].layers == 7);
    CHECK(r.stages[15].layers == 7);
    for (int i = 1; i < 15; ++i) CHECK(r.stages[static_cast<size_t>(i)].layers == 8);
    // Weights follow the layers: stage 0's 7 layers plus the word embedding (128,256 rows padded to a multiple
    // of 128 * tp = 129,024, x 16,384, split by tp 8) against stage 1's 8 layers.
    const double embedding = 129024.0 * 16384 / 8;
    CHECK((r.stages[0].params - embedding) / 7 == doctest::Approx(r.stages[1].params / 8).epsilon(1e-9));
    CHECK(r.parameters.total == test::report(base + R"("pp":1,"first_stage_layers":null}})").parameters.total);
    // Only the first stage given: the other 15 share 126 - 6 = 120 layers, 8 each.
    const Report first = test::report(base + R"("first_stage_layers":6}})");
    CHECK(first.stages[0].layers == 6);
    CHECK(first.stages[15].layers == 8);
    // The launch command says so in Megatron's words.
    bool flag = false;
    for (const auto& cmd : launch_commands(test::config(base + R"("first_stage_layers":7,"last_stage_layers":7}})")))
        for (const auto& line : cmd.lines) flag = flag || line == "--decoder-first-pipeline-num-layers 7";
    CHECK(flag);
}

TEST_CASE("uneven pipeline: splits that cannot be made are errors naming the field and why") {
    const auto err = [](const char* parallel) {
        return test::error_of(std::string(R"({"model":{"preset":"llama-3.1-405b"},"training":{"global_batch":64},"parallel":)") +
                              parallel + "}");
    };
    CHECK(err(R"({"pp":16,"first_stage_layers":7})")["path"] == "/parallel/first_stage_layers");  // 119 over 15 stages
    CHECK(err(R"({"pp":16,"first_stage_layers":7})")["message"].get<std::string>().find("share the remaining 119") !=
          std::string::npos);
    CHECK(err(R"({"pp":1,"first_stage_layers":7})")["message"] == "an uneven split needs pp > 1");
    CHECK(err(R"({"pp":2,"first_stage_layers":60,"last_stage_layers":60})")["message"].get<std::string>().find("must equal") !=
          std::string::npos);
    CHECK(err(R"({"pp":16,"vpp":2,"first_stage_layers":7,"last_stage_layers":7})")["path"] == "/parallel/first_stage_layers");
    // Without an uneven split the even rule still names pp and now says how to split unevenly.
    CHECK(err(R"({"pp":16})")["message"].get<std::string>().find("first_stage_layers") != std::string::npos);
    // The echo carries the split, so a report reads back to the same scenario.
    const Report r = test::report(R"({"model":{"preset":"llama-3.1-405b"},"training":{"global_batch":64},
      "parallel":{"pp":16,"vpp":2,"first_stage_layers":6,"last_stage_layers":8}})");
    CHECK(r.stages[0].layers == 6);
    CHECK(r.stages[1].layers == 8);
    CHECK(r.stages[15].layers == 8);
    CHECK(r.config.s.parallel.first_stage_layers == 6);
}

namespace {

// The Megatron-LM launch line that gives the plan's pipeline layout ("" when there is none).
std::string layout_line(const Report& r) {
    for (const auto& cmd : launch_commands(r.config))
        for (const auto& line : cmd.lines)
            if (line.rfind("--pipeline-model-parallel-layout", 0) == 0) return line;
    return "";
}

}  // namespace

TEST_CASE("explicit stage layers and the embedding/loss counted as layers: the per-stage report and launch follow") {
    const std::string base = R"({"framework":"megatron","model":{"preset":"llama-3.1-405b"},
      "training":{"seq_len":8192,"global_batch":2048,"recompute":"full"},"parallel":{"dp":8,"tp":8,"pp":16,"sp":true,
      "distributed_optimizer":true,)";
    // Every stage's count, as Megatron's --pipeline-model-parallel-layout gives it.
    const Report r = test::report(base + R"("stage_layers":[6,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8]}})");
    CHECK(r.stages[0].layers == 6);
    for (int i = 1; i < 16; ++i) CHECK(r.stages[static_cast<size_t>(i)].layers == 8);
    const std::string layout = layout_line(r);
    CHECK(layout.find("\"Etttttt|tttttttt|") != std::string::npos);
    CHECK(layout.find("ttttttttL\"") != std::string::npos);
    // 126 layers + embedding + loss = 128 places over 16 stages: 7 on the first and last, 8 between.
    const Report acc = test::report(base + R"("embedding_as_layer":true,"loss_as_layer":true}})");
    CHECK(acc.stages[0].layers == 7);
    CHECK(acc.stages[15].layers == 7);
    CHECK(acc.stages[7].layers == 8);
    // With interleaving (Qwen3-235B-A22B's published layout, 94 layers + embedding + loss = 96 places over pp 8 x
    // vpp 4): 3 places per model chunk; the embedding's chunk (rank 0's first) and the loss's (rank 7's last) hold
    // 2 layers, so the first and last ranks hold 11, the others 12; the launch line names chunks per rank.
    const Report q = test::report(R"({"model":{"preset":"qwen3-235b-a22b"},"training":{"seq_len":4096,"global_batch":512},
        "parallel":{"dp":16,"tp":2,"sp":true,"pp":8,"vpp":4,"ep":32,"etp":1,"distributed_optimizer":true,
                    "embedding_as_layer":true,"loss_as_layer":true}})");
    CHECK(q.stages[0].layers == 11);
    CHECK(q.stages[7].layers == 11);
    for (int i = 1; i < 7; ++i) CHECK(q.stages[static_cast<size_t>(i)].layers == 12);
    bool per_rank = false, per_stage = false;
    for (const auto& cmd : launch_commands(q.config))
        for (const auto& line : cmd.lines) {
            per_rank = per_rank || line == "--num-virtual-stages-per-pipeline-rank 4";
            per_stage = per_stage || line.rfind("--num-layers-per-virtual-pipeline-stage", 0) == 0;
        }
    CHECK(per_rank);
    CHECK_FALSE(per_stage);
    // 126 layers + embedding + loss = 128 places over pp 16 x vpp 8 = 128 chunks (Megatron-Bridge's Llama 3.1 405B
    // on GB200): the embedding's chunk and the loss's hold no transformer layer, so ranks 0 and 15 hold 7, the
    // others 8, and the stage holding only the embedding in its first chunk still counts its weights.
    const Report e = test::report(base + R"("vpp":8,"embedding_as_layer":true,"loss_as_layer":true}})");
    CHECK(e.stages[0].layers == 7);
    CHECK(e.stages[15].layers == 7);
    for (int i = 1; i < 15; ++i) CHECK(e.stages[static_cast<size_t>(i)].layers == 8);
    CHECK(e.stages[0].params > e.stages[1].params * 7 / 8);  // 7 layers and the embedding against 8 layers
    // One count per model chunk (DeepSeek-V3's recipe layout for pp 8 x vpp 2: the embedding and 4 layers, 14 chunks of
    // 4, then 1 layer with the MTP module and the loss): rank 7 holds 4 + 1 layers, the launch line lists every chunk.
    std::string chunks = "[";
    for (int i = 0; i < 15; ++i) chunks += "4,";
    chunks += "1]";
    const Report ds = test::report(R"({"framework":"megatron","model":{"preset":"deepseek-v3"},"training":{"seq_len":4096,
        "global_batch":4096},"parallel":{"dp":32,"pp":8,"vpp":2,"ep":32,"distributed_optimizer":true,"stage_layers":)" +
                                   chunks + "}}");
    for (int i = 0; i < 7; ++i) CHECK(ds.stages[static_cast<size_t>(i)].layers == 8);
    CHECK(ds.stages[7].layers == 5);
    const std::string ds_layout = layout_line(ds);
    CHECK(ds_layout.find("\"Etttt|tttt|") != std::string::npos);
    CHECK(ds_layout.find("|tttt|tmL\"") != std::string::npos);
    // Errors name the field and say why.
    const auto err = [&](const char* parallel) {
        return test::error_of(R"({"model":{"preset":"llama-3.1-405b"},"training":{"global_batch":64},"parallel":)" +
                              std::string(parallel) + "}");
    };
    CHECK(err(R"({"pp":4,"stage_layers":[30,32,32,31]})")["message"].get<std::string>().find("add up to model.layers (126)") != std::string::npos);
    CHECK(err(R"({"pp":4,"stage_layers":[63,63]})")["path"] == "/parallel/stage_layers");
    // With vpp > 1 the count may be per model chunk; any other count names both.
    CHECK(err(R"({"pp":2,"vpp":2,"stage_layers":[63,63,0]})")["message"].get<std::string>().find("per model chunk (pp * vpp = 4)") !=
          std::string::npos);
    CHECK(err(R"({"pp":4,"stage_layers":[30,32,32,"x"]})")["path"] == "/parallel/stage_layers/3");
    CHECK(err(R"({"pp":4,"stage_layers":[31,32,32,31],"first_stage_layers":31})")["path"] == "/parallel/stage_layers");
    CHECK(err(R"({"pp":4,"embedding_as_layer":true})")["path"] == "/parallel/pp");  // 127 places over 4 stages
    CHECK(err(R"({"pp":1,"loss_as_layer":true})")["path"] == "/parallel/loss_as_layer");
    // 128 places over pp 4 x vpp 3 = 12 chunks do not divide.
    CHECK(err(R"({"pp":4,"vpp":3,"embedding_as_layer":true,"loss_as_layer":true})")["path"] == "/parallel/pp");
}
