// A vLLM server's start-up log against the serving estimate (`shardcalc serve FILE LOG`, docs/serving.md "Compare with
// a vLLM log"): the reader on the formats vLLM printed, copied from public vLLM issues and pull requests (each named
// where it is used), and the reconciliation.
#include <string>

#include "core/units.h"
#include "helpers.h"
#include "io/api.h"
#include "io/import/vllm_log.h"

namespace {

using nlohmann::json;
using shardcalc::kGiB;

// vLLM 0.8's V0 worker, one of four workers (vllm-project/vllm#14447, a 24 GB GPU).
const char* const kV0 =
    "(VllmWorkerProcess pid=507) INFO 04-12 08:21:19 [worker.py:267] Memory profiling takes 17.59 seconds\n"
    "(VllmWorkerProcess pid=507) INFO 04-12 08:21:19 [worker.py:267] the current vLLM instance can use total_gpu_memory "
    "(23.58GiB) x gpu_memory_utilization (0.99) = 23.35GiB\n"
    "(VllmWorkerProcess pid=507) INFO 04-12 08:21:19 [worker.py:267] model weights take 21.21GiB; non_torch_memory takes "
    "0.20GiB; PyTorch activation peak memory takes 0.37GiB; the rest of the memory reserved for KV Cache is 1.57GiB.\n";

// vLLM 0.6.5's profiling table: Meta-Llama-3-8B on an 80 GB H100 at the defaults (vllm-project/vllm#10511).
const char* const kTable =
    "INFO 12-13 19:54:18 worker.py:243] Memory profiling results:\n"
    "INFO 12-13 19:54:18 worker.py:243] duration     0.75 seconds\n"
    "INFO 12-13 19:54:18 worker.py:243] total_gpu_memory     79.22GiB\n"
    "INFO 12-13 19:54:18 worker.py:243] gpu_memory_utilization       0.90\n"
    "INFO 12-13 19:54:18 worker.py:243] the current vLLM instance can use    71.29GiB\n"
    "INFO 12-13 19:54:18 worker.py:243] model weights take   14.96GiB\n"
    "INFO 12-13 19:54:18 worker.py:243] non_torch_memory     1.79GiB\n"
    "INFO 12-13 19:54:18 worker.py:243] PyTorch activation peak memory       1.26GiB\n"
    "INFO 12-13 19:54:18 worker.py:243] available_kv_cache_memory    53.29GiB\n";

// vLLM 0.10's V1 engine (vllm-project/vllm#20707): 922,496 tokens in 112.61 GiB, 131,072 bytes a token.
const char* const kV1 =
    "(EngineCore_0 pid=1399537) INFO 08-19 14:58:40 [gpu_worker.py:277] Available KV cache memory: 112.61 GiB\n"
    "(EngineCore_0 pid=1399537) INFO 08-19 14:58:40 [kv_cache_utils.py:849] GPU KV cache size: 922,496 tokens\n"
    "(EngineCore_0 pid=1399537) INFO 08-19 14:58:40 [kv_cache_utils.py:853] Maximum concurrency for 40,000 tokens per "
    "request: 23.06x\n";


json reconcile(const std::string& scenario, const std::string& log) {
    const json r = json::parse(shardcalc::serve_reconcile_text(scenario, log));
    REQUIRE_MESSAGE(r["ok"] == true, r.dump());
    return r["serving_reconciliation"];
}

const json* term(const json& r, const std::string& key) {
    for (const auto& t : r["terms"])
        if (t["key"] == key) return &t;
    return nullptr;
}

}  // namespace

TEST_CASE("vLLM log: each format's memory lines are read as GiB, token counts with their commas") {
    const shardcalc::MeasuredServing v0 = shardcalc::read_vllm_log(kV0);
    CHECK(v0.total_gpu_memory == doctest::Approx(23.58 * kGiB));
    CHECK(v0.gpu_memory_utilization == doctest::Approx(0.99));
    CHECK(v0.budget == doctest::Approx(23.35 * kGiB));
    CHECK(v0.weights == doctest::Approx(21.21 * kGiB));
    CHECK(v0.non_torch == doctest::Approx(0.20 * kGiB));
    CHECK(v0.activation_peak == doctest::Approx(0.37 * kGiB));
    CHECK(v0.kv_available == doctest::Approx(1.57 * kGiB));
    CHECK(v0.kv_tokens == -1);
    const shardcalc::MeasuredServing table = shardcalc::read_vllm_log(kTable);
    CHECK(table.total_gpu_memory == doctest::Approx(79.22 * kGiB));
    CHECK(table.gpu_memory_utilization == doctest::Approx(0.90));
    CHECK(table.budget == doctest::Approx(71.29 * kGiB));
    CHECK(table.weights == doctest::Approx(14.96 * kGiB));
    CHECK(table.non_torch == doctest::Approx(1.79 * kGiB));
    CHECK(table.activation_peak == doctest::Approx(1.26 * kGiB));
    CHECK(table.kv_available == doctest::Approx(53.29 * kGiB));
    const shardcalc::MeasuredServing v1 = shardcalc::read_vllm_log(kV1);
    CHECK(v1.kv_available == doctest::Approx(112.61 * kGiB));
    CHECK(v1.kv_tokens == 922496);
    CHECK(v1.concurrency_request_tokens == 40000);
    CHECK(v1.max_concurrency == doctest::Approx(23.06));
    CHECK(v1.weights == -1);
    // V1's weights line, in both of its wordings (vllm-project/vllm#25340, #12569: "GB" there is a GiB figure).
    CHECK(shardcalc::read_vllm_log("INFO 09-21 12:30:37 [gpu_model_runner.py:2581] Model loading took 2.2845 GiB and 74.270197 seconds\n")
              .weights == doctest::Approx(2.2845 * kGiB));
    CHECK(shardcalc::read_vllm_log("INFO 01-30 03:18:12 gpu_model_runner.py:848] Loading model weights took 67.7229 GB\n").weights ==
          doctest::Approx(67.7229 * kGiB));
    CHECK_THROWS_AS(shardcalc::read_vllm_log("INFO nothing vLLM prints about memory\n"), shardcalc::InputError);
}

// Llama 3.1 8B on an H100 against vLLM 0.6.5's table for Llama 3 8B (the same shapes): the weights agree; the
// profile's activations and the memory outside PyTorch are larger in the log than estimated, which the reconciliation
// names term by term; the log's non-PyTorch memory becomes the scenario's hardware.overhead_gib.
TEST_CASE("vLLM log against the estimate: the gap term by term, and what the log implies") {
    const std::string scenario = R"({"model":{"preset":"llama-3.1-8b"},"hardware":{"preset":"h100-sxm-80gb"},
        "serving":{"prompt_tokens":1024,"output_tokens":256,"max_num_batched_tokens":8192}})";
    const json r = reconcile(scenario, kTable);
    REQUIRE(term(r, "weights_bytes"));
    const json& w = *term(r, "weights_bytes");
    CHECK(std::abs(w["gap"].get<double>()) < 0.005 * w["log"].get<double>());
    for (const char* key : {"device_bytes", "budget_bytes", "activation_peak_bytes", "non_torch_bytes", "kv_available_bytes"}) {
        const json* t = term(r, key);
        REQUIRE_MESSAGE(t, key);
        CHECK((*t)["gap"].get<double>() == doctest::Approx((*t)["estimate"].get<double>() - (*t)["log"].get<double>()).epsilon(1e-9));
    }
    CHECK(r["calibration"]["hardware.overhead_gib"].get<double>() == doctest::Approx(1.79));
    // The same utilization: no finding about it; another: said, and given as the field to set.
    CHECK(r["findings"].empty());
    const json other = reconcile(R"({"model":{"preset":"llama-3.1-8b"},"serving":{"gpu_memory_utilization":0.8}})", kTable);
    CHECK(other["calibration"]["serving.gpu_memory_utilization"].get<double>() == doctest::Approx(0.9));
    CHECK(other["findings"].size() == 1);
}

// vLLM V1 prints the KV cache only: its bytes per token (112.61 GiB over 922,496 tokens) are Llama 3.1 8B's in bf16,
// 131,072, as the estimate's; the tokens and concurrency are compared at the estimate's KV memory.
TEST_CASE("vLLM V1's KV cache lines: bytes per token, tokens and concurrency; what the log cannot tell") {
    const json r = reconcile(R"({"model":{"preset":"llama-3.1-8b"},"hardware":{"preset":"h200-sxm-141gb"},"serving":{}})", kV1);
    CHECK(r["kv_bytes_per_token"]["log"].get<double>() == doctest::Approx(131072).epsilon(0.001));
    CHECK(r["kv_bytes_per_token"]["estimate"].get<double>() == 131072);
    REQUIRE(term(r, "kv_tokens"));
    REQUIRE(term(r, "max_concurrency"));
    CHECK((*term(r, "max_concurrency"))["estimate"].get<double>() ==
          doctest::Approx((*term(r, "kv_tokens"))["estimate"].get<double>() / 40000));
    CHECK_FALSE(r["unknowns"].empty());
    // A log that is not vLLM's, and a search object, are errors with their paths.
    const json bad = json::parse(shardcalc::serve_reconcile_text(R"({"model":{"preset":"llama-3.1-8b"}})", "hello\n"));
    CHECK(bad["error"]["path"] == "/log");
    const json search = json::parse(shardcalc::serve_reconcile_text(R"({"model":{"preset":"llama-3.1-8b"},"serving":{"search":{}}})", kV1));
    CHECK(search["error"]["path"] == "/serving/search");
    // A vLLM log says nothing of transformers' generate.
    const json generate = json::parse(shardcalc::serve_reconcile_text(
        R"({"framework":"pytorch","model":{"preset":"llama-3.1-8b"},"serving":{"engine":"transformers"}})", kV1));
    CHECK(generate["error"]["path"] == "/serving/engine");
}

// A worker's out-of-memory error (vllm-project/vllm#16712, tests/data/logs/vllm-oom-issue16712.log): Llama 4 Scout with
// tp 2 on two H100 NVL at gpu_memory_utilization 0.99, max_model_len 1000 and an fp8 KV cache, as its description sets.
TEST_CASE("vLLM log with a worker's out-of-memory error: its cause, what it needed against the budget, the device") {
    const std::string scenario = R"({"model":{"preset":"llama-4-scout"},"hardware":{"preset":"h100-sxm-80gb","memory_gib":93.02},
        "parallel":{"tp":2},"serving":{"prompt_tokens":500,"output_tokens":500,"max_prompt_tokens":500,"max_output_tokens":500,
        "gpu_memory_utilization":0.99,"kv_cache_dtype":"fp8"}})";
    const json r = reconcile(scenario, test::repo_file("tests/data/logs/vllm-oom-issue16712.log"));
    const json& o = r["out_of_memory"];
    CHECK(o["request"].get<double>() == doctest::Approx(1.25 * kGiB));
    CHECK(o["allocated"].get<double>() == doctest::Approx(90.63 * kGiB));
    // 1.25 GiB asked with 1.18 GiB free and 120.54 MiB cached: enough only together.
    CHECK(o["cause"] == "fragmentation");
    CHECK(o["needed"]["log"].get<double>() == doctest::Approx((90.63 + 1.25) * kGiB));
    CHECK(o["needed"]["budget"].get<double>() == doctest::Approx(0.99 * 93.02 * kGiB).epsilon(1e-3));
    CHECK(o["needed"]["gap"].get<double>() == doctest::Approx(o["needed"]["budget"].get<double>() - o["needed"]["log"].get<double>()));
    // The one process the error names by PID holds more than PyTorch's reserve: this one, seen from outside its
    // container, whose memory beyond the reserve is the memory outside PyTorch.
    CHECK(o["process_used"].get<double>() == doctest::Approx(91.82 * kGiB));
    CHECK(o["other_processes"] == 0);
    REQUIRE(term(r, "non_torch_bytes"));
    CHECK((*term(r, "non_torch_bytes"))["log"].get<double>() == doctest::Approx((91.82 - 90.63 - 120.54 / 1024) * kGiB));
    REQUIRE(term(r, "device_bytes"));
    CHECK((*term(r, "device_bytes"))["log"].get<double>() == doctest::Approx(93.02 * kGiB));
    REQUIRE(r["findings"].size() == 2);
    CHECK(r["findings"][0].get<std::string>().rfind("vLLM's worker on GPU 1 ran out of memory asking for 1.25 GiB", 0) == 0);
    CHECK(r["findings"][1].get<std::string>().find("within the budget the estimate gives vLLM") != std::string::npos);
    // An error alone is a log the reader knows; the error beside the start-up lines completes them.
    CHECK_NOTHROW(shardcalc::read_vllm_log(test::repo_file("tests/data/logs/vllm-oom-issue16712.log")));
    const shardcalc::MeasuredServing both = shardcalc::read_vllm_log(std::string(kV0) + test::repo_file("tests/data/logs/vllm-oom-issue16712.log"));
    CHECK(both.has_oom);
    CHECK(both.total_gpu_memory == doctest::Approx(23.58 * kGiB));  // the start-up line's, not replaced by the error's
}

// vLLM 0.21 and later reserve the CUDA graphs' estimated pool in the budget (gpustack/runner#251, vLLM 0.27.1; TP workers).
TEST_CASE("vLLM log: the CUDA graphs' reserve in the budget, kept as serving.cuda_graph_gib, and the run's utilization") {
    const std::string log = test::repo_file("tests/data/logs/vllm-graph-reserve-gpustack-pr251.log");
    const shardcalc::MeasuredServing m = shardcalc::read_vllm_log(log);
    CHECK(m.cuda_graphs_estimated == doctest::Approx(0.36 * kGiB));
    CHECK(m.graphs_in_budget == 1);
    CHECK(m.gpu_memory_utilization == doctest::Approx(0.82));  // "The current --gpu-memory-utilization=0.8200"
    CHECK(m.equivalent_utilization == doctest::Approx(0.8048));
    CHECK(m.kv_available == doctest::Approx(6.87 * kGiB));
    const std::string scenario = R"({"model":{"preset":"llama-3.1-8b"},"hardware":{"preset":"h100-sxm-80gb"},
        "serving":{"prompt_tokens":1024,"output_tokens":256,"gpu_memory_utilization":0.82}})";
    const json r = reconcile(scenario, log);
    REQUIRE(term(r, "cuda_graphs_reserved_bytes") != nullptr);
    // 0.36 GiB over 0.82 − 0.8048 of the device: about 23.7 GiB (a 24 GB card), not the scenario's 80 GB H100.
    CHECK(r["findings"].dump().find("the run's device holds about 23.") != std::string::npos);
    CHECK((*term(r, "cuda_graphs_reserved_bytes"))["estimate"] == 0);
    CHECK(r["calibration"]["serving.cuda_graph_gib"].get<double>() == doctest::Approx(0.36));
    CHECK_FALSE(r["calibration"].contains("serving.gpu_memory_utilization"));
    // Kept, the scenario reserves the same: the KV cache is 0.36 GiB smaller and nothing more is implied of the graphs.
    const std::string kept = R"({"model":{"preset":"llama-3.1-8b"},"hardware":{"preset":"h100-sxm-80gb"},
        "serving":{"prompt_tokens":1024,"output_tokens":256,"gpu_memory_utilization":0.82,"cuda_graph_gib":0.36}})";
    const json again = reconcile(kept, log);
    CHECK_FALSE(again["calibration"].contains("serving.cuda_graph_gib"));
    CHECK((*term(again, "kv_available_bytes"))["estimate"].get<double>() ==
          doctest::Approx((*term(r, "kv_available_bytes"))["estimate"].get<double>() - 0.36 * kGiB));
    // Where the profiling is off, the reserve is none.
    const json off = reconcile(kept, "INFO 07-05 08:55:49 [gpu_worker.py:498] CUDA graph memory profiling is disabled "
                                     "(VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0).\n");
    CHECK(off["calibration"]["serving.cuda_graph_gib"] == 0);
}

// A reserve larger than the budget (vllm-project/vllm#53013) and vLLM's refusal to start.
TEST_CASE("vLLM log: a CUDA-graph reserve that leaves no KV cache, and vLLM's refusal") {
    const std::string log = test::repo_file("tests/data/logs/vllm-graph-reserve-issue53013.log");
    const shardcalc::MeasuredServing m = shardcalc::read_vllm_log(log);
    CHECK(m.cuda_graphs_estimated == doctest::Approx(118.65 * kGiB));
    CHECK(m.no_kv_memory);
    const json r = reconcile(R"({"model":{"preset":"llama-3.1-8b"},"hardware":{"preset":"h100-sxm-80gb"}})", log);
    CHECK(r["findings"].dump().find("vLLM refused to start") != std::string::npos);
    CHECK(r["findings"].dump().find("does not say the profiling was on") != std::string::npos);
    // Kept, the estimate agrees: nothing is left for the KV cache, and the plan does not fit.
    const json s = json::parse(shardcalc::serve_scenario_text(R"({"model":{"preset":"llama-3.1-8b"},"hardware":{"preset":"h100-sxm-80gb"},
        "serving":{"cuda_graph_gib":118.65}})"));
    CHECK(s["serving"]["memory"]["kv_available_bytes"] == 0);
    CHECK(s["serving"]["memory"]["fits"] == false);
}

// The summary vLLM prints after capture with its --kv-cache-memory suggestion (vllm-project/vllm#21489, Gemma 3 4B).
TEST_CASE("vLLM log: the --kv-cache-memory summary gives the device, budget, weights, activations, outside PyTorch and graphs") {
    const shardcalc::MeasuredServing m = shardcalc::read_vllm_log(test::repo_file("tests/data/logs/vllm-kv-cache-memory-pr21489.log"));
    CHECK(m.total_gpu_memory == doctest::Approx(178.36 * kGiB));
    CHECK(m.gpu_memory_utilization == doctest::Approx(0.9));
    CHECK(m.budget == doctest::Approx(160.53 * kGiB));
    CHECK(m.weights == doctest::Approx(8.58 * kGiB));
    CHECK(m.activation_peak == doctest::Approx(9.96 * kGiB));
    CHECK(m.non_torch == doctest::Approx(0.07 * kGiB));
    CHECK(m.cuda_graphs == doctest::Approx(0.65 * kGiB));
    CHECK(m.graphs_in_budget == -1);
}

// vLLM's CUDA-graph capture line (vllm-project/vllm#11349, tests/data/logs/vllm-graphs-pr11349.log: Llama 3.2 1B).
TEST_CASE("vLLM log: the CUDA graphs' pool, on top of the budget the KV cache was sized to") {
    const shardcalc::MeasuredServing m = shardcalc::read_vllm_log(test::repo_file("tests/data/logs/vllm-graphs-pr11349.log"));
    CHECK(m.cuda_graphs == doctest::Approx(0.21 * kGiB));
    const json r = reconcile(R"({"model":{"preset":"llama-3.1-8b"},"hardware":{"preset":"h100-sxm-80gb"},
        "serving":{"prompt_tokens":1024,"output_tokens":256}})", test::repo_file("tests/data/logs/vllm-graphs-pr11349.log"));
    REQUIRE(r["findings"].size() == 1);
    CHECK(r["findings"][0].get<std::string>().rfind("vLLM's CUDA graphs took 215.04 MiB, captured after its KV cache", 0) == 0);
    for (const auto& u : r["unknowns"]) CHECK(u.get<std::string>().find("CUDA graphs") == std::string::npos);
    // Without the line, the pool is what the log cannot tell.
    bool unknown = false;
    const json without = reconcile(R"({"model":{"preset":"llama-3.1-8b"}})", kV1);
    for (const auto& u : without["unknowns"]) unknown |= u.get<std::string>().find("CUDA graphs") != std::string::npos;
    CHECK(unknown);
}
