// The closed-loop benchmark run of a vLLM replica (serve/closed_loop.h, docs/serving.md "A benchmark run, step by
// step"): its steps against the forward model they are made of, the scheduler's order, preemption, and its errors.
#include <cstdio>
#include <string>

#include "graph/build.h"
#include "helpers.h"
#include "io/api.h"
#include "io/answers.h"
#include "io/render/answer_text.h"
#include "io/contract/serving_json.h"
#include "scenario/resolve.h"
#include "serve/closed_loop.h"
#include "serve/serving_parts.h"

namespace {

using nlohmann::json;
using namespace shardcalc;

const std::string k8b = R"({"model":{"preset":"llama-3.1-8b"},"hardware":{"preset":"h100-sxm-80gb"},"serving":)";

json run(const std::string& serving) {
    const json r = json::parse(serve_scenario_text(k8b + serving + "}"));
    REQUIRE_MESSAGE(r["ok"] == true, r.dump());
    return r["serving"];
}

// Llama 3.1 8B on one H100, requests of `prompt` + `output` tokens from `concurrency` clients, `requests` of them.
struct Replica {
    Config c;
    ModelGraph g;
    ServingSpec s;
    Replica(int64_t prompt, int64_t output, int64_t concurrency, int64_t requests)
        : c(resolve(test::scenario(R"({"model":{"preset":"llama-3.1-8b"},"hardware":{"preset":"h100-sxm-80gb"}})"),
                    Rules::ModelAndDevice)),
          g(build_graph(c)) {
        s.prompt_tokens = prompt;
        s.output_tokens = output;
        s.concurrency = concurrency;
        s.benchmark_requests = requests;
    }
    ClosedLoopRun run(const ServedForward& f, double kv_room, double max_work = kMaxClosedLoopWork) const {
        return closed_loop(c, s, f, kv_room, max_work);
    }
};

}  // namespace

TEST_CASE("closed loop: one client's requests take a prefill step then a step per token, each the forward model's time") {
    const Replica r(1000, 20, 1, 3);
    const ServedForward f(r.c, r.g, r.s);
    const ClosedLoopRun b = r.run(f, 1e12);
    const LayerKinds kinds = layer_kinds(r.c.s.model);
    // The prompt in one step (1,000 tokens within the 8,192 budget), its last token through the output layer.
    const double prefill = f.seconds({1000, 1, attention_flops(r.c, kinds, 1000, 0, true), 0});
    CHECK(b.mean_ttft_seconds == doctest::Approx(prefill).epsilon(1e-12));
    CHECK(b.p99_ttft_seconds == doctest::Approx(prefill).epsilon(1e-12));
    // The first token comes with the prefill; 19 decode steps follow, the j-th over 1,000 + j - 1 cached tokens.
    double decode = 0;
    for (int j = 1; j < 20; ++j) {
        const double past = 1000 + j - 1;
        decode += f.seconds({1, 1, attention_flops(r.c, kinds, 1, past, true), request_kv(r.c, r.s, kinds, past, false)});
    }
    CHECK(b.median_tpot_seconds == doctest::Approx(decode / 19).epsilon(1e-12));
    CHECK(b.steps == 3 * 20);
    CHECK(b.duration_seconds == doctest::Approx(3 * (prefill + decode)).epsilon(1e-12));
    CHECK(b.output_tokens_per_second == doctest::Approx(60 / b.duration_seconds).epsilon(1e-12));
    CHECK(b.preemptions == 0);
}

TEST_CASE("closed loop: clients that start together wait for each other's prefills, a budget's worth a step") {
    // Eight prompts of 2,048 tokens at once, 4,096 tokens a step: two prompts a step, so the TTFTs are 1, 1, 2, 2, ... steps.
    const json b = run(R"({"prompt_tokens":2048,"output_tokens":8,"concurrency":8,"max_num_batched_tokens":4096,"benchmark_requests":8})")["benchmark"];
    const json one = run(R"({"prompt_tokens":2048,"output_tokens":8,"concurrency":1,"max_num_batched_tokens":4096,"benchmark_requests":1})")["benchmark"];
    CHECK(b["median_ttft_seconds"].get<double>() > 2 * one["mean_ttft_seconds"].get<double>());
    CHECK(b["p99_ttft_seconds"].get<double>() > 3.5 * one["mean_ttft_seconds"].get<double>());
    CHECK(b["requests"] == 8);
    // The same scenario, the same run: the lengths come from a fixed generator.
    const std::string varied = R"({"prompt_tokens":900,"max_prompt_tokens":1024,"output_tokens":90,"max_output_tokens":128,"concurrency":16,"benchmark_requests":64})";
    CHECK(run(varied)["benchmark"] == run(varied)["benchmark"]);
}

TEST_CASE("closed loop: a KV cache too small for every running request preempts the newest, which recomputes later") {
    const Replica r(512, 512, 8, 16);
    const ServedForward f(r.c, r.g, r.s);
    const double one = request_kv(r.c, r.s, layer_kinds(r.c.s.model), 1024, true);
    // Room for about three whole requests: eight admitted on their prompts, then their growth evicts the newest.
    const ClosedLoopRun small = r.run(f, 3.2 * one), room = r.run(f, 100 * one);
    CHECK(room.preemptions == 0);
    CHECK(small.preemptions > 0);
    CHECK(small.duration_seconds > room.duration_seconds);
    CHECK(small.output_tokens_per_second < room.output_tokens_per_second);
}

TEST_CASE("closed loop: what it does not simulate is refused with the field's path") {
    const auto error = [](const std::string& text) {
        const json r = json::parse(serve_scenario_text(text));
        REQUIRE(r["ok"] == false);
        return r["error"];
    };
    const std::string model = R"({"model":{"preset":"llama-3.1-8b"},"hardware":{"preset":"h100-sxm-80gb"},)";
    CHECK(error(model + R"("parallel":{"pp":2},"serving":{"benchmark_requests":8}})")["path"] == "/serving/benchmark_requests");
    CHECK(error(model + R"("serving":{"benchmark_requests":8,"shared_prefix_tokens":64}})")["path"] == "/serving/benchmark_requests");
    CHECK(error(model + R"("serving":{"benchmark_requests":8,"search":{}}})")["path"] == "/serving/benchmark_requests");
    // Its work is bounded: requests x the longest output.
    const json big = error(model + R"("serving":{"output_tokens":100000,"prompt_tokens":1000,"benchmark_requests":1000}})");
    CHECK(big["path"] == "/serving/benchmark_requests");
    CHECK(big["message"].get<std::string>().find("at most") != std::string::npos);
    // Absent, no run; a request longer than the KV cache holds: no run, and why.
    CHECK_FALSE(run(R"({"concurrency":4})").contains("benchmark"));
    const json skipped = run(R"({"prompt_tokens":100000,"output_tokens":100,"benchmark_requests":2,"gpu_memory_utilization":0.3})");
    CHECK(skipped["benchmark"].contains("skipped"));
}

TEST_CASE("closed loop: a run whose steps would not end in about a second stops unfinished, and the answer says so") {
    const Replica r(1000, 100, 4, 8);
    const ServedForward f(r.c, r.g, r.s);
    // 8 requests of 1 + 100 steps, 4 at a time: about 200 steps of 4 running requests.
    CHECK(r.run(f, 1e12, 1e6).finished);
    const ClosedLoopRun cut = r.run(f, 1e12, 100);
    CHECK_FALSE(cut.finished);
    CHECK(cut.steps < 100);
    const ServingEstimate e = serving_estimate(r.c, r.g, r.s);
    const json out = serving_to_json(r.c, r.s, e, {}, &cut);
    CHECK(out["benchmark"]["skipped"].get<std::string>().find("steps x running requests") != std::string::npos);
}

TEST_CASE("closed loop: the text answer shows the run's figures, or why it did not run") {
    const std::string scenario = k8b + R"({"prompt_tokens":900,"max_prompt_tokens":1024,"output_tokens":100,"concurrency":8,"benchmark_requests":24}})";
    const std::string text = format_serving(serving_answer(scenario));
    const json b = json::parse(serve_scenario_text(scenario))["serving"]["benchmark"];
    CHECK(text.find("Benchmark run (24 requests, 8 at once, simulated step by step)") != std::string::npos);
    char mean[64];
    std::snprintf(mean, sizeof mean, "%.2f ms", 1e3 * b["mean_ttft_seconds"].get<double>());
    CHECK(text.find(mean) != std::string::npos);
    const std::string skipped =
        format_serving(serving_answer(k8b + R"({"prompt_tokens":100000,"output_tokens":100,"benchmark_requests":2,"gpu_memory_utilization":0.3}})"));
    CHECK(skipped.find("Benchmark run: not run: vLLM would not start") != std::string::npos);
}
