// `shardcalc export` (io/api.h launch_scenario_text): the launch lines of the scenario's own plan, the same that
// `shardcalc search` lists for a ranked plan; and the per-kernel table numbering stages as pipeline ranks from 0,
// as `--stage` and `estimate` do.

#include "helpers.h"
#include "io/api.h"
#include "io/render/text_format.h"
#include "search/launch.h"

using nlohmann::json;
using shardcalc::launch_scenario_text;

namespace {

std::string example(const std::string& name) { return test::repo_file("examples/" + name); }

json launch(const std::string& text, const std::string& tool = "all") { return json::parse(launch_scenario_text(text, tool)); }

std::vector<std::string> lines_of(const json& answer, size_t command) {
    return answer["launch"][command]["lines"].get<std::vector<std::string>>();
}

bool has(const std::vector<std::string>& lines, const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
}

}  // namespace

TEST_CASE("export: the plan's own launch, by its framework's generator") {
    const json m = launch(example("llama-3.1-70b-h100.json"));
    REQUIRE(m["ok"] == true);
    CHECK(m["framework"] == "megatron");
    CHECK(m["generator"] == "megatron-lm");
    REQUIRE(m["launch"].size() == 2);
    CHECK(m["launch"][0]["tool"] == "torchrun");
    CHECK(lines_of(m, 0) == std::vector<std::string>{"torchrun --nnodes 32 --nproc-per-node 8 pretrain_gpt.py ..."});
    CHECK(m["launch"][1]["tool"] == "Megatron-LM arguments (pretrain_gpt.py)");
    for (const char* flag : {"--tensor-model-parallel-size 8", "--pipeline-model-parallel-size 4", "--sequence-parallel",
                             "--micro-batch-size 1", "--global-batch-size 512", "--seq-length 8192",
                             "--recompute-granularity selective", "--use-distributed-optimizer", "--bf16"})
        CHECK_MESSAGE(has(lines_of(m, 1), flag), flag);
    CHECK(launch(example("llama-3.1-70b-h100.json"), "megatron-lm") == m);

    // Megatron's model code under DeepSpeed is Megatron-DeepSpeed; transformers' runs through the Trainer.
    json mds = json::parse(example("llama-2-13b-deepspeed-offload.json"));
    mds["implementation"].erase("model_code");
    const json d = launch(mds.dump(), "megatron-deepspeed");
    REQUIRE(d["ok"] == true);
    CHECK(d["generator"] == "megatron-deepspeed");
    REQUIRE(d["launch"].size() == 3);  // torchrun, the arguments, ds_config.json
    CHECK(has(lines_of(d, 1), "--zero-stage 3"));
    CHECK(d["launch"][2]["tool"] == "DeepSpeed config (ds_config.json)");
    const json hd = launch(example("llama-2-13b-deepspeed-offload.json"));
    REQUIRE(hd["ok"] == true);
    CHECK(hd["generator"] == "hf-trainer");
    REQUIRE(hd["launch"].size() == 3);
    CHECK(has(lines_of(hd, 1), "--deepspeed ds_config.json"));
    CHECK(hd["launch"][2]["tool"] == "DeepSpeed config (ds_config.json)");

    const json f = launch(example("llama-3.1-8b-fsdp.json"), "hf-trainer");
    REQUIRE(f["ok"] == true);
    CHECK(f["framework"] == "fsdp");
    CHECK(has(lines_of(f, 1), "--fsdp \"full_shard auto_wrap\""));
    CHECK(launch(example("gpt2-pytorch-1gpu.json"))["generator"] == "hf-trainer");

    const json x = launch(R"({"framework":"xla","model":{"preset":"bert-base"},"hardware":{"preset":"tpu-v3"}})");
    REQUIRE_MESSAGE(x["ok"] == true, x.dump());
    CHECK(x["generator"] == "xla-mesh");

    // The lines are search/launch.cpp's, and the text is what `shardcalc search` prints for a plan.
    const shardcalc::Config c = test::config(example("llama-3.1-70b-h100.json"));
    const auto commands = shardcalc::launch_commands(c);
    REQUIRE(commands.size() == m["launch"].size());
    for (size_t i = 0; i < commands.size(); ++i) CHECK(lines_of(m, i) == commands[i].lines);
    CHECK(shardcalc::format_launch_text(m["launch"]).rfind("torchrun:\n  torchrun --nnodes 32", 0) == 0);
}

TEST_CASE("export: Megatron-LM's overlap and fp8 flags follow the scenario") {
    const std::string base = R"({"framework":"megatron","model":{"preset":"llama-3.1-8b"},"hardware":{"preset":"h100-sxm-80gb"},)";
    const json plain = launch(base + R"("training":{"seq_len":4096},"parallel":{"dp":8}})", "megatron-lm");
    REQUIRE(plain["ok"] == true);
    for (const char* flag : {"--overlap-grad-reduce", "--overlap-param-gather", "--fp8-param-gather"})
        CHECK_FALSE(has(lines_of(plain, 1), flag));
    const json fp8 = launch(base + R"("training":{"seq_len":4096,"fp8":"current","param_dtype":"fp8"},
        "parallel":{"dp":8,"distributed_optimizer":true,"overlap_grad_reduce":true,"overlap_param_gather":true}})",
                            "megatron-lm");
    REQUIRE(fp8["ok"] == true);
    const auto lines = lines_of(fp8, 1);
    CHECK(has(lines, "--overlap-grad-reduce"));
    CHECK(has(lines, "--overlap-param-gather"));
    CHECK(has(lines, "--fp8-format hybrid --fp8-recipe tensorwise"));
    CHECK(has(lines, "--fp8-param-gather"));
    // A MoE model's fused router (implementation.moe_router_fusion) and overlapped exchanges.
    const std::string moe = R"({"framework":"megatron","model":{"preset":"mixtral-8x7b"},"hardware":{"preset":"h100-sxm-80gb"},
        "training":{"seq_len":4096,"global_batch":64},"parallel":{"dp":8,"ep":8,"overlap_moe_comm":true})";
    const json fused = launch(moe + R"(,"implementation":{"moe_router_fusion":true}})", "megatron-lm");
    REQUIRE(fused["ok"] == true);
    CHECK(has(lines_of(fused, 1), "--moe-router-fusion"));
    CHECK(has(lines_of(fused, 1), "--overlap-moe-expert-parallel-comm"));
    CHECK_FALSE(has(lines_of(launch(moe + "}", "megatron-lm"), 1), "--moe-router-fusion"));
}

TEST_CASE("export: a search row's scenario exports the launch the search lists for it") {
    const json s = json::parse(shardcalc::search_scenario_text(example("search/llama-3.1-8b-fewest-gpus.json")));
    REQUIRE(s["ok"] == true);
    int compared = 0;
    for (const json& plan : s["search"]["plans"]) {
        if (!plan.contains("launch")) continue;
        const json e = launch(plan["scenario"].dump());
        REQUIRE_MESSAGE(e["ok"] == true, e.dump());
        CHECK(e["launch"] == plan["launch"]);
        ++compared;
    }
    CHECK(compared > 0);
    // The search file itself: its "search" object is ignored, its own plan exported.
    CHECK(launch(example("search/llama-3.1-8b-fewest-gpus.json"))["ok"] == true);
}

TEST_CASE("export: errors name /framework, /tool or the scenario's field") {
    auto error = [](const json& answer) {
        REQUIRE(answer["ok"] == false);
        return answer["error"];
    };
    const std::string megatron = example("llama-3.1-70b-h100.json");
    json e = error(launch(megatron, "megatron-deepspeed"));
    CHECK(e["path"] == "/framework");
    CHECK(e["message"] == "megatron-deepspeed launches a deepspeed plan; this plan's framework is megatron, launched by "
                          "megatron-lm (--tool megatron-lm or all)");
    e = error(launch(megatron, "hf-trainer"));
    CHECK(e["path"] == "/framework");
    CHECK(e["message"].get<std::string>().rfind("hf-trainer launches a fsdp or pytorch plan", 0) == 0);
    // No torchtitan generator: refused, never invented.
    e = error(launch(example("llama-3.1-8b-fsdp.json"), "torchtitan"));
    CHECK(e["path"] == "/framework");
    CHECK(e["message"].get<std::string>().rfind("no torchtitan launch generator", 0) == 0);
    e = error(launch(megatron, "deepspeed"));
    CHECK(e["path"] == "/tool");
    CHECK(error(launch(R"({"model":{"preset":"llama-2-7b"},"parallel":{"tp":3}})"))["path"] == "/parallel/tp");
    CHECK(error(launch(R"({"model":{"preset":"llama-2-7b"},"parallel":{"tp":2,"tp":4}})"))["path"] == "/parallel/tp");
    CHECK(error(launch("[]"))["path"] == "");
}

TEST_CASE("kernels: stages numbered from 0 in every format, as --stage and estimate number them") {
    const std::string text = example("llama-3.1-70b-h100.json");
    const json slowest = json::parse(shardcalc::kernels_scenario_text(text));
    REQUIRE(slowest["ok"] == true);
    CHECK(slowest["kernels"]["stage"] == 3);  // the last of pp 4 (the loss)
    CHECK(slowest["kernels"]["stages"] == 4);
    const auto text_of = [&](const std::string& scenario, const char* format, int64_t stage) {
        return json::parse(shardcalc::text_answer(scenario, {"kernels", format, "GiB", stage}))["text"].get<std::string>();
    };
    CHECK(text_of(text, "table", -1).rfind("Kernels of pipeline stage 3 (stages 0 to 3) on ", 0) == 0);
    CHECK(text_of(text, "markdown", -1).rfind("**Kernels of pipeline stage 3 (stages 0 to 3) on ", 0) == 0);
    const json first = json::parse(shardcalc::kernels_scenario_text(text, 0));
    CHECK(first["kernels"]["stage"] == 0);
    CHECK(text_of(text, "table", 0).rfind("Kernels of pipeline stage 0 (stages 0 to 3) on ", 0) == 0);
    CHECK(text_of(example("gpt2-pytorch-1gpu.json"), "table", 0).rfind("Kernels of pipeline stage 0 (the only stage) on ", 0) == 0);
    CHECK(json::parse(shardcalc::text_answer(text, {"kernels", "table", "GiB", 4}))["error"]["path"] == "/stage");
}
