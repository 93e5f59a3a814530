// Reconciling a run's log with its estimate: the Megatron-LM and DeepSpeed log readers on real published lines
// (tests/data/logs/README.md), and the comparison's arithmetic and rank-to-stage rule.
#include <doctest/doctest.h>

#include "core/units.h"
#include "helpers.h"
#include "io/api.h"
#include "io/import/run_log.h"
#include "report/reconcile.h"

using namespace shardcalc;

namespace {


}  // namespace

TEST_CASE("Megatron-LM logs: per-rank memory lines, the older rank-less line, iteration times; other lines skipped") {
    const MeasuredRun recent = read_run_log(test::repo_file("tests/data/logs/megatron-lm-pr5662.log"));
    CHECK(recent.source == "Megatron-LM");
    REQUIRE(recent.memory.size() == 1);
    CHECK(recent.memory[0].rank == 0);
    CHECK(recent.memory[0].allocated == doctest::Approx(3270.16 * kMiB));
    CHECK(recent.memory[0].max_allocated == doctest::Approx(5670.39 * kMiB));
    CHECK(recent.memory[0].reserved == doctest::Approx(6406.0 * kMiB));
    CHECK(recent.memory[0].max_reserved == doctest::Approx(6406.0 * kMiB));
    REQUIRE(recent.step_seconds.size() == 1);
    CHECK(recent.step_seconds[0] == doctest::Approx(0.744));

    // 2020's format: no "[Rank N]" (rank 0 printed it), and timer lines with "|" that are not memory.
    const MeasuredRun old = read_run_log(test::repo_file("tests/data/logs/megatron-lm-issue60.log"));
    REQUIRE(old.memory.size() == 1);
    CHECK(old.memory[0].rank == 0);
    CHECK(old.memory[0].max_allocated == doctest::Approx(12606.06201171875 * kMiB));
    CHECK(old.memory[0].max_reserved == doctest::Approx(17482.0 * kMiB));
    REQUIRE(old.step_seconds.size() == 2);
    CHECK(old.step_seconds[0] == doctest::Approx(16.4915));
    CHECK(old.step_seconds[1] == doctest::Approx(1.9939));

    // Each rank's last report is kept; a bad number and a log with nothing known are errors at /log.
    const MeasuredRun two = read_run_log(
        "[Rank 4] (after 10 iterations) memory (MB) | allocated: 1 | max allocated: 2 | reserved: 3 | max reserved: 4\n"
        "[Rank 4] (after 20 iterations) memory (MB) | allocated: 5 | max allocated: 6 | reserved: 7 | max reserved: 8\n"
        "[Rank 0] (after 20 iterations) memory (MB) | allocated: 1 | max allocated: 1 | reserved: 1 | max reserved: 1\n");
    REQUIRE(two.memory.size() == 2);
    CHECK(two.memory[0].rank == 0);
    CHECK(two.memory[1].rank == 4);
    CHECK(two.memory[1].max_reserved == doctest::Approx(8 * kMiB));
    try {
        read_run_log("ok\n[Rank 1] memory (MB) | allocated: x | max allocated: 2 | reserved: 3 | max reserved: 4\n");
        FAIL("a bad number must be refused");
    } catch (const InputError& e) {
        CHECK(e.problems()[0].path == "/log");
        CHECK(e.problems()[0].message.find("line 2") == 0);
    }
    // Megatron's own estimate, as a fork printed it (a prefix before the words): read beside the measurements.
    const MeasuredRun theory = read_run_log(test::repo_file("tests/data/logs/flagscale-pr454.log"));
    REQUIRE(theory.has_framework_estimate);
    CHECK(theory.framework_estimate.weights_and_optimizer == doctest::Approx(46983.28 * kMiB));
    CHECK(theory.framework_estimate.activations == doctest::Approx(8989.01 * kMiB));
    CHECK(theory.framework_estimate.total == doctest::Approx(55972.29 * kMiB));
    CHECK(theory.memory.empty());
    CHECK_THROWS_AS(read_run_log("Theoretical memory footprints: weight and optimizer=1 MB, total=2 MB\n"), InputError);
    CHECK_THROWS_AS(read_run_log("epoch 1 loss 2.3\n"), InputError);
    // Numbers past any run (a rank of 1e300, an infinite size) are refused, never turned into Infinity or a wrapped rank.
    CHECK_THROWS_AS(read_run_log("[Rank 1e300] memory (MB) | allocated: 1 | max allocated: 1 | reserved: 1 | max reserved: 1\n"),
                    InputError);
    CHECK_THROWS_AS(read_run_log("memory (MB) | allocated: 1 | max allocated: 1e309 | reserved: 1 | max reserved: 1\n"),
                    InputError);

    // DeepSpeed's see_memory_usage: rank 0's reports, each peak since the previous one (the run's: the largest).
    const MeasuredRun ds = read_run_log(test::repo_file("tests/data/logs/deepspeed-issue522.log"));
    CHECK(ds.source == "DeepSpeed");
    REQUIRE(ds.memory.size() == 1);
    CHECK(ds.memory[0].rank == 0);
    CHECK(ds.memory[0].allocated == doctest::Approx(5.19 * 1024 * kMiB));
    CHECK(ds.memory[0].max_allocated == doctest::Approx(5.31 * 1024 * kMiB));
    CHECK(ds.memory[0].reserved == doctest::Approx(6.68 * 1024 * kMiB));
    CHECK(ds.memory[0].max_reserved == doctest::Approx(7 * 1024 * kMiB));
    const MeasuredRun falling = read_run_log(
        "[INFO] [utils.py:827:see_memory_usage] MA 1 GB         Max_MA 9 GB         CA 10 GB         Max_CA 10 GB\n"
        "[INFO] [utils.py:827:see_memory_usage] MA 1 GB         Max_MA 2 GB         CA 10 GB         Max_CA 3 GB\n");
    CHECK(falling.memory[0].max_allocated == doctest::Approx(9 * 1024 * kMiB));
    CHECK(falling.memory[0].max_reserved == doctest::Approx(10 * 1024 * kMiB));
    CHECK_THROWS_AS(read_run_log("[INFO] see_memory_usage] MA 1 GB Max_MA x GB CA 1 GB Max_CA 1 GB\n"), InputError);
    CHECK_THROWS_AS(read_run_log(test::repo_file("tests/data/logs/deepspeed-issue522.log") +
                                 test::repo_file("tests/data/logs/megatron-lm-pr5662.log")), InputError);
    CHECK_THROWS_AS(read_run_log(""), InputError);
}

TEST_CASE("PyTorch's memory_summary: the peaks and the out-of-memory counters, alone or completing a Megatron-LM rank") {
    // Unsloth's published summary (tests/data/logs/README.md): sizes in MiB, device 0, no out-of-memory errors.
    const MeasuredRun run = read_run_log(test::repo_file("tests/data/logs/unsloth-memory-summary.log"));
    CHECK(run.source == "PyTorch (memory_summary)");
    REQUIRE(run.memory.size() == 1);
    CHECK(run.memory[0].rank == 0);
    CHECK(run.memory[0].allocated == doctest::Approx(32711 * kMiB));
    CHECK(run.memory[0].max_allocated == doctest::Approx(52084 * kMiB));
    CHECK(run.memory[0].reserved == doctest::Approx(49552 * kMiB));
    CHECK(run.memory[0].max_reserved == doctest::Approx(52188 * kMiB));
    CHECK(run.memory[0].ooms == 0);
    CHECK(run.memory[0].alloc_retries == 0);
    // Its table as a Docker log or a comment prints it, with a prefix before each line, and KiB and B sizes; after a
    // Megatron-LM line of the same rank it adds the counters.
    const std::string prefixed =
        "[Rank 1] (after 5 iterations) memory (MB) | allocated: 100 | max allocated: 200 | reserved: 300 | max reserved: 400\n"
        "trainer  | |                  PyTorch CUDA memory summary, device ID 1                 |\n"
        "trainer  | |            CUDA OOMs: 2            |        cudaMalloc retries: 5         |\n"
        "trainer  | | Allocated memory      | 682537 KiB |     512 B  |   3115 GiB |   3114 GiB |\n"
        "trainer  | | GPU reserved memory   |  65430 MiB |  65430 MiB |   3115 GiB |   3114 GiB |\n";
    const MeasuredRun both = read_run_log(prefixed);
    CHECK(both.source == "Megatron-LM");
    REQUIRE(both.memory.size() == 1);
    CHECK(both.memory[0].rank == 1);
    CHECK(both.memory[0].ooms == 2);
    CHECK(both.memory[0].alloc_retries == 5);
    CHECK(both.memory[0].max_allocated == doctest::Approx(200 * kMiB));  // the larger of the two peaks
    CHECK(both.memory[0].max_reserved == doctest::Approx(65430 * kMiB));
    // A size without a unit is refused at its line.
    try {
        read_run_log("|  PyTorch CUDA memory summary, device ID 0  |\n| Allocated memory      |  32711 |  52084 MiB | 1 | 1 |\n");
        FAIL("a size without its unit must be refused");
    } catch (const InputError& e) {
        CHECK(e.problems()[0].path == "/log");
        CHECK(e.problems()[0].message.find("line 2") == 0);
    }
}

TEST_CASE("nvidia-smi's GPU table: each GPU's memory in use; beside the allocator's figures it tells the memory outside") {
    // Published during a run on 8 A100s (tests/data/logs/README.md): its first two GPUs.
    const MeasuredRun run = read_run_log(test::repo_file("tests/data/logs/nvidia-smi-spark-issue8.log"));
    CHECK(run.source == "nvidia-smi");
    REQUIRE(run.memory.size() == 2);
    CHECK(run.memory[1].rank == 1);
    CHECK_FALSE(run.memory[0].allocator);
    CHECK(run.memory[0].device_used == doctest::Approx(33717 * kMiB));
    CHECK(run.memory[1].device_used == doctest::Approx(33695 * kMiB));
    // Against a plan: the device's memory in use against our total; no allocator term, no calibration from it alone.
    const std::string plan = R"({"model":{"preset":"gpt2"},"training":{"seq_len":1024,"micro_batch":8},"parallel":{"dp":8},
        "hardware":{"preset":"a100-sxm-80gb"}})";
    const auto alone = nlohmann::json::parse(reconcile_text(plan, test::repo_file("tests/data/logs/nvidia-smi-spark-issue8.log")));
    const auto& rank = alone["reconciliation"]["ranks"][0];
    CHECK_FALSE(rank.contains("peak_allocated"));
    CHECK(rank["device_used"]["log"] == doctest::Approx(33717 * kMiB));
    const Report r = test::report(plan);
    CHECK(rank["device_used"]["estimate"] == doctest::Approx(r.stages[0].total()));
    CHECK_FALSE(alone["reconciliation"]["calibration"].contains("hardware.overhead_gib"));
    // With a Megatron-LM memory line of the same rank: in use less reserved is the memory outside the allocator.
    const auto both = nlohmann::json::parse(reconcile_text(plan,
        "[Rank 0] (after 5 iterations) memory (MB) | allocated: 20000 | max allocated: 30000 | reserved: 32000 | max reserved: 32000\n" +
        test::repo_file("tests/data/logs/nvidia-smi-spark-issue8.log")));
    CHECK(both["reconciliation"]["calibration"]["hardware.overhead_gib"] == doctest::Approx((33717.0 - 32000.0) / 1024));
    CHECK(both["reconciliation"]["ranks"][0].contains("peak_allocated"));
    CHECK(both["reconciliation"]["ranks"][0].contains("device_used"));
    // A fan speed in the memory row ("| 30%") is not a GPU's first row; a memory row without its MiB is an error.
    const MeasuredRun fan = read_run_log(
        "| NVIDIA-SMI 535.54.03   Driver Version: 535.54.03   CUDA Version: 12.2 |\n"
        "|   0  NVIDIA GeForce RTX 3090    Off | 00000000:01:00.0 Off |                  N/A |\n"
        "| 30%   35C    P8    10W / 350W |   2048MiB / 24576MiB |      0%      Default |\n");
    REQUIRE(fan.memory.size() == 1);
    CHECK(fan.memory[0].device_used == doctest::Approx(2048 * kMiB));
    CHECK_THROWS_AS(read_run_log("| NVIDIA-SMI 535.54.03   Driver Version: 535.54.03 |\n|   0  NVIDIA A100    On |\n"
                                 "| N/A   35C    P0    60W / 400W |   xMiB / 81920MiB |\n"), InputError);
}

TEST_CASE("DeepSpeed's throughput timer: samples per second, a step being the plan's global batch over them") {
    const MeasuredRun run = read_run_log(test::repo_file("tests/data/logs/deepspeed-timer-cscs.log"));
    CHECK(run.source == "DeepSpeed");
    REQUIRE(run.samples_per_second.size() == 3);
    CHECK(run.samples_per_second[1] == doctest::Approx(227.45044884073528));
    CHECK(run.memory.empty());
    // Against a plan of global batch 256: the median after the first report, 256 over 227.59 samples/s.
    const std::string plan = R"({"model":{"preset":"bert-base"},"training":{"seq_len":384,"micro_batch":4,"global_batch":256},
        "parallel":{"dp":8}})";
    const auto j = nlohmann::json::parse(reconcile_text(plan, test::repo_file("tests/data/logs/deepspeed-timer-cscs.log")));
    const auto& t = j["reconciliation"]["step_seconds"];
    CHECK(t["log_reports"] == 2);
    CHECK(t["log"] == doctest::Approx(256 / ((227.45044884073528 + 227.7217889790298) / 2)).epsilon(1e-3));
    CHECK_THROWS_AS(read_run_log("[INFO] [timer.py:198:stop] 0/20, RunningAvgSamplesPerSec=1, CurrSamplesPerSec=-3\n"), InputError);
}

TEST_CASE("reconcile: a run that ran out of memory says so, whatever its peak") {
    const std::string scenario = R"({"model":{"preset":"gpt2"},"training":{"seq_len":1024,"micro_batch":8}})";
    const auto j = nlohmann::json::parse(reconcile_text(scenario,
        "|  PyTorch CUDA memory summary, device ID 0  |\n|  CUDA OOMs: 1  |  cudaMalloc retries: 3  |\n"
        "| Allocated memory      |  1000 MiB |  9000 MiB | 1 GiB | 1 GiB |\n| GPU reserved memory   |  9500 MiB |  9500 MiB | 1 GiB | 1 GiB |\n"));
    REQUIRE(j["ok"] == true);
    const auto& r = j["reconciliation"];
    CHECK(r["ranks"][0]["ooms"] == 1);
    CHECK(r["ranks"][0]["alloc_retries"] == 3);
    REQUIRE(r["findings"].size() == 2);
    CHECK(r["findings"][0] == "rank 0 ran out of memory 1 time: the run did not fit as it ran, whatever its peak");
    CHECK(r["findings"][1].get<std::string>().find("retried cudaMalloc 3 times") != std::string::npos);
    // Megatron-LM's lines carry no counters: no finding, and no counter in the answer.
    const auto megatron = nlohmann::json::parse(
        reconcile_text(scenario, "memory (MB) | allocated: 1 | max allocated: 2 | reserved: 3 | max reserved: 4\n"));
    CHECK(megatron["reconciliation"]["findings"].empty());
    // The calibration the log implies: its allocator reserve over its allocated peak, a scenario field by its path.
    CHECK(megatron["reconciliation"]["calibration"]["implementation.fragmentation"] == doctest::Approx((4.0 - 2.0) / 2.0));
    const auto real = nlohmann::json::parse(reconcile_text(scenario, test::repo_file("tests/data/logs/megatron-lm-pr5662.log")));
    CHECK(real["reconciliation"]["calibration"]["implementation.fragmentation"] == doctest::Approx((6406.0 - 5670.39) / 5670.39));
    // A log with no memory line implies nothing of memory (its step time implies the GEMM efficiency alone).
    const auto timed = nlohmann::json::parse(reconcile_text(scenario, "elapsed time per iteration (ms): 100\n"));
    for (const auto& [path, value] : timed["reconciliation"]["calibration"].items())
        CHECK(path.rfind("hardware.matmul_efficiency", 0) == 0);  // and its fp8 twin, scaled alike
    CHECK(timed["reconciliation"]["calibration"].contains("hardware.matmul_efficiency"));
    CHECK_FALSE(megatron["reconciliation"]["ranks"][0].contains("ooms"));
}

TEST_CASE("reconcile: each rank against its pipeline stage's estimate, the gaps, the steady step time") {
    const std::string scenario = test::repo_file("examples/llama-3.1-70b-h100.json");  // 256 devices, pp 4
    const Report r = test::report(scenario);
    REQUIRE(r.stages.size() == 4);
    MeasuredRun run;
    // Megatron's rank order puts the pipeline outermost: 64 ranks per stage.
    for (int64_t rank : {0, 63, 64, 255}) run.memory.push_back({rank, 1e9, 30e9, 33e9, 36e9});
    run.step_seconds = {60.0, 17.0, 18.0, 19.0};
    const Reconciliation x = reconcile(r, run);
    REQUIRE(x.ranks.size() == 4);
    const int64_t stages[] = {0, 0, 1, 3};
    for (size_t i = 0; i < 4; ++i) {
        const RankReconciliation& k = x.ranks[i];
        CHECK(k.stage == stages[i]);
        const StageMemory& s = r.stages[static_cast<size_t>(k.stage)];
        CHECK(k.estimated_peak_allocated == s.allocated());
        CHECK(k.peak_allocated_gap == doctest::Approx(s.allocated() - 30e9));
        CHECK(k.measured_reserve == doctest::Approx(6e9));  // max reserved - max allocated
        CHECK(k.reserve_gap == doctest::Approx(s.other.fragmentation - 6e9));
        CHECK(k.peak_reserved_gap == doctest::Approx(s.reserved() - 36e9));
    }
    // The first report holds start-up: the median of the rest.
    CHECK(x.timed);
    CHECK(x.measured_step_seconds == 18.0);
    CHECK(x.step_reports == 3);
    CHECK(x.step_error == doctest::Approx((r.perf.step_seconds - 18.0) / 18.0));
    CHECK_FALSE(x.unknowns.empty());
    CHECK_FALSE(x.has_framework_estimate);
    // With Megatron's own estimate: ours beside it, split as it splits (the first stage).
    run.has_framework_estimate = true;
    run.framework_estimate = {40e9, 20e9, 60e9};
    const Reconciliation y = reconcile(r, run);
    REQUIRE(y.has_framework_estimate);
    const StageMemory& first = r.stages.front();
    CHECK(y.ours_same_split.weights_and_optimizer == doctest::Approx(first.weights + first.gradients + first.optimizer));
    CHECK(y.ours_same_split.activations == doctest::Approx(first.activations));
    CHECK(y.framework_estimate.total == 60e9);

    run.memory.push_back({256, 1, 1, 1, 1});
    try {
        reconcile(r, run);
        FAIL("a rank outside the plan must be refused");
    } catch (const InputError& e) {
        CHECK(e.problems()[0].path == "/log");
    }
}

TEST_CASE("reconcile_text: the API's answer, and its errors at the scenario's fields or at /log") {
    const std::string scenario = test::repo_file("examples/llama-3.1-70b-h100.json");
    const nlohmann::json ok = nlohmann::json::parse(reconcile_text(scenario, test::repo_file("tests/data/logs/megatron-lm-pr5662.log")));
    REQUIRE(ok["ok"] == true);
    const auto& j = ok["reconciliation"];
    CHECK(j["source"] == "Megatron-LM");
    CHECK(j["ranks"][0]["peak_allocated"]["log"].get<double>() == doctest::Approx(5670.39 * kMiB));
    CHECK(j["step_seconds"]["log"].get<double>() == doctest::Approx(0.744));
    CHECK(j["step_seconds"]["log_reports"] == 1);  // one report: nothing to drop
    const nlohmann::json bad_log = nlohmann::json::parse(reconcile_text(scenario, "nothing here"));
    CHECK(bad_log["error"]["path"] == "/log");
    const nlohmann::json bad_plan = nlohmann::json::parse(reconcile_text(R"({"model": {"preset": "llama-3.1-8b"}, "parallel": {"tp": 3}})", "x"));
    CHECK(bad_plan["error"]["path"] == "/parallel/tp");
}

TEST_CASE("reconcile: the GEMM efficiency a log's step time implies, with which the estimate's step is the log's") {
    // Llama-3.1-8B on 8 H100s under Megatron: its estimate's own step, then a run 30% slower and one 100 times faster.
    const std::string scenario = R"({"framework":"megatron","model":{"preset":"llama-3.1-8b"},"hardware":{"preset":"h100-sxm-80gb"},
        "training":{"seq_len":4096,"micro_batch":1,"global_batch":64,"recompute":"selective"},"parallel":{"tp":2,"dp":4}})";
    const nlohmann::json base = nlohmann::json::parse(evaluate_scenario_text(scenario));
    REQUIRE(base["ok"] == true);
    const double step = base["report"]["time"]["step_seconds"];
    const double preset = base["report"]["scenario"]["hardware"]["matmul_efficiency"];
    const auto implied = [&](double seconds) {
        // Two iteration lines: the first (start-up) is dropped, the second is the run's step.
        const std::string ms = std::to_string(seconds * 1e3);
        return nlohmann::json::parse(reconcile_text(scenario, "elapsed time per iteration (ms): " + ms +
                                                                  "\nelapsed time per iteration (ms): " + ms + "\n"))["reconciliation"];
    };
    // The estimate's own step implies the preset's efficiency.
    CHECK(implied(step)["calibration"]["hardware.matmul_efficiency"].get<double>() == doctest::Approx(preset).epsilon(1e-3));
    // A slower run implies slower GEMMs, and with them kept the estimate's step is the run's.
    const auto slower = implied(1.3 * step);
    const double efficiency = slower["calibration"]["hardware.matmul_efficiency"];
    CHECK(efficiency < preset);
    // The H100's fp8 GEMM efficiency (measured apart) is scaled alike.
    const double fp8 = base["report"]["scenario"]["hardware"]["matmul_efficiency_fp8"];
    REQUIRE(fp8 > 0);
    CHECK(slower["calibration"]["hardware.matmul_efficiency_fp8"].get<double>() == doctest::Approx(efficiency * fp8 / preset));
    nlohmann::json kept = nlohmann::json::parse(scenario);
    kept["hardware"]["matmul_efficiency"] = efficiency;
    const nlohmann::json again = nlohmann::json::parse(evaluate_scenario_text(kept.dump()));
    CHECK(again["report"]["time"]["step_seconds"].get<double>() == doctest::Approx(1.3 * step).epsilon(1e-3));
    // A run faster than any GEMM efficiency allows implies none, and says where the difference lies.
    const auto faster = implied(step / 100);
    CHECK_FALSE(faster["calibration"].contains("hardware.matmul_efficiency"));
    bool said = false;
    for (const auto& f : faster["findings"]) said |= f.get<std::string>().find("even with every GEMM at the device's peak") != std::string::npos;
    CHECK(said);
}

TEST_CASE("reconcile: a host-bound step implies the host's time per launch, with which the estimate's step is the log's") {
    // GPT-2 at micro-batch 1 of 128 tokens on an H100: its passes wait on the host's launches more than they compute.
    const std::string scenario = R"({"model":{"preset":"gpt2"},"hardware":{"preset":"h100-sxm-80gb"},
        "training":{"seq_len":128,"micro_batch":1,"global_batch":1}})";
    const nlohmann::json base = nlohmann::json::parse(evaluate_scenario_text(scenario));
    const auto& parts = base["report"]["time"]["breakdown"];
    REQUIRE(parts["forward_host_wait"].get<double>() + parts["backward_host_wait"].get<double>() >
            parts["forward_compute"].get<double>() + parts["backward_compute"].get<double>());
    const double step = base["report"]["time"]["step_seconds"];
    const std::string ms = std::to_string(2 * step * 1e3);
    const auto r = nlohmann::json::parse(reconcile_text(scenario, "elapsed time per iteration (ms): " + ms +
                                                                      "\nelapsed time per iteration (ms): " + ms + "\n"))["reconciliation"];
    CHECK_FALSE(r["calibration"].contains("hardware.matmul_efficiency"));
    const double f = r["calibration"]["implementation.host_forward_us"], b = r["calibration"]["implementation.host_backward_us"];
    const auto& im = base["report"]["scenario"]["implementation"];
    CHECK(f / b == doctest::Approx(im["host_forward_us"].get<double>() / im["host_backward_us"].get<double>()));  // scaled alike
    CHECK(f > im["host_forward_us"].get<double>());
    nlohmann::json kept = nlohmann::json::parse(scenario);
    kept["implementation"] = {{"host_forward_us", f}, {"host_backward_us", b}};
    const nlohmann::json again = nlohmann::json::parse(evaluate_scenario_text(kept.dump()));
    CHECK(again["report"]["time"]["step_seconds"].get<double>() == doctest::Approx(2 * step).epsilon(1e-4));
    // A run faster than the estimate with its launches free: none implied, and said.
    const std::string fast = std::to_string(step * 1e3 / 100);
    const auto faster = nlohmann::json::parse(reconcile_text(scenario, "elapsed time per iteration (ms): " + fast +
                                                                           "\nelapsed time per iteration (ms): " + fast + "\n"))["reconciliation"];
    CHECK(faster["calibration"].empty());
    bool said = false;
    for (const auto& x : faster["findings"]) said |= x.get<std::string>().find("the host's launches free") != std::string::npos;
    CHECK(said);
}

TEST_CASE("Hugging Face's Trainer's final metrics: samples per second, a step being the plan's global batch over them") {
    // stanford_alpaca #190 (tests/data/logs/README.md): LLaMA-7B, FSDP on 8 A100 40GB, micro-batch 1, 8 accumulation
    // steps: 64 samples a step at 10.072 samples/s (its progress bar: 6.36 s/it).
    const MeasuredRun run = read_run_log(test::repo_file("tests/data/logs/hf-trainer-alpaca-issue190.log"));
    CHECK(run.source == "Hugging Face Trainer");
    REQUIRE(run.samples_per_second.size() == 1);
    CHECK(run.samples_per_second[0] == doctest::Approx(10.072));
    const std::string plan = R"({"framework":"fsdp","model":{"preset":"llama-2-7b"},"hardware":{"preset":"a100-sxm-40gb"},
        "training":{"seq_len":512,"micro_batch":1,"global_batch":64,"dtype":"bf16"},"implementation":{"model_code":"huggingface"},
        "parallel":{"dp":8,"zero":3}})";
    const auto j = nlohmann::json::parse(reconcile_text(plan, test::repo_file("tests/data/logs/hf-trainer-alpaca-issue190.log")));
    const auto& t = j["reconciliation"]["step_seconds"];
    CHECK(t["log"] == doctest::Approx(64 / 10.072));
    CHECK(t["log_reports"] == 1);
    CHECK(t["log_first_dropped"] == false);  // the only report is taken as it is
    CHECK_THROWS_AS(read_run_log("{'train_runtime': 1.0, 'train_samples_per_second': 0, 'train_steps_per_second': 0.1}\n"), InputError);
}

TEST_CASE("torchtitan's metrics lines: each rank's reserved peak, tokens per second per device after each rank's first") {
    // torchtitan PR #1884 (tests/data/logs/README.md): Llama 3 8B on 4 GPUs, context parallel 2, full recompute; each
    // rank's step 1, and rank 2's step 10.
    const MeasuredRun run = read_run_log(test::repo_file("tests/data/logs/torchtitan-pr1884.log"));
    CHECK(run.source == "torchtitan");
    REQUIRE(run.memory.size() == 4);
    CHECK(run.memory[2].max_reserved == doctest::Approx(44.84 * 1024 * kMiB));
    CHECK(run.memory[0].max_reserved == doctest::Approx(33.21 * 1024 * kMiB));
    CHECK_FALSE(run.memory[0].allocated_known);
    REQUIRE(run.tokens_per_device_second.size() == 1);  // rank 2's step 10: "5,615"; the step 1 reports left out
    CHECK(run.tokens_per_device_second[0] == 5615);
    CHECK(run.tps_first_dropped);
    // A step is the plan's tokens per device over them; only the reserved peak is compared (torchtitan prints no
    // allocated figure), so no fragmentation is implied.
    const std::string plan = R"({"framework":"fsdp","model":{"preset":"llama-3.1-8b"},"training":{"seq_len":8192,"micro_batch":1,
        "global_batch":2,"recompute":"full"},"parallel":{"dp":2,"cp":2,"zero":3}})";
    const auto j = nlohmann::json::parse(reconcile_text(plan, test::repo_file("tests/data/logs/torchtitan-pr1884.log")))["reconciliation"];
    CHECK(j["step_seconds"]["log"] == doctest::Approx(2 * 8192.0 / 4 / 5615));
    CHECK(j["step_seconds"]["log_first_dropped"] == true);
    CHECK(j["ranks"][2]["peak_reserved"]["log"] == doctest::Approx(44.84 * 1024 * kMiB));
    CHECK_FALSE(j["ranks"][2].contains("peak_allocated"));
    CHECK_FALSE(j["calibration"].contains("implementation.fragmentation"));
    // Every rank reported once: those reports are the run's.
    const MeasuredRun once = read_run_log(
        "[rank0]:[titan] 2025-10-15 10:37:01,391 - root - INFO - step:  1  loss: 12.2465  grad_norm:  4.5253  memory: 33.21GiB(34.95%)  tps: 87  tflops: 5.02  mfu: 0.51%\n");
    CHECK(once.tokens_per_device_second == std::vector<double>{87});
    CHECK_FALSE(once.tps_first_dropped);
}

TEST_CASE("NeMo's progress lines: the step timer's seconds, the first report left out") {
    // NVIDIA-BioNeMo/bionemo-recipes PR #740 (tests/data/logs/README.md): six iterations of a NeMo 2 run.
    const MeasuredRun run = read_run_log(test::repo_file("tests/data/logs/nemo-bionemo-pr740.log"));
    CHECK(run.source == "NeMo");
    REQUIRE(run.step_seconds.size() == 6);
    CHECK(run.step_seconds[4] == doctest::Approx(0.0317));
    const auto j = nlohmann::json::parse(reconcile_text(R"({"model":{"preset":"gpt2"}})",
                                                        test::repo_file("tests/data/logs/nemo-bionemo-pr740.log")))["reconciliation"];
    CHECK(j["step_seconds"]["log_reports"] == 5);
    CHECK(j["step_seconds"]["log"] == doctest::Approx(0.03163));  // the median of the five after the first
    CHECK_THROWS_AS(read_run_log("Training epoch 0, iteration 1/9 | train_step_timing in s: -1\n"), InputError);
}
