// Reconciling a run's log with its estimate: the Megatron-LM and DeepSpeed log readers on real published lines
// (tests/data/logs/README.md), and the comparison's arithmetic and rank-to-stage rule.
#include <doctest/doctest.h>

#include "helpers.h"
#include "io/api.h"
#include "io/run_log.h"
#include "report/reconcile.h"

using namespace shardcalc;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

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
