// verl's per-step metrics set against the RL estimate (`shardcalc rl FILE LOG`, docs/rl.md "Compare with a verl log"):
// the reader on the lines verl printed, copied from public verl issues (tests/data/logs/README.md), and the
// reconciliation phase by phase.
#include <string>

#include "helpers.h"
#include "io/api.h"
#include "io/contract/rl_json.h"
#include "io/import/verl_log.h"
#include "core/units.h"
#include "rl/rl_reconcile.h"

namespace {

using nlohmann::json;
using namespace shardcalc;

const char* const kExample = "examples/rl/verl-grpo-qwen2-7b-seq-balance.json";

json reconcile(const std::string& scenario, const std::string& log) {
    const json r = json::parse(rl_reconcile_text(scenario, log));
    REQUIRE_MESSAGE(r["ok"] == true, r.dump());
    return r["rl_reconciliation"];
}

const json* term(const json& r, const std::string& key) {
    for (const auto& t : r["terms"])
        if (t["key"] == key) return &t;
    return nullptr;
}

// The example's own estimate, and its scenario with the rl object changed by `edit`.
struct Example {
    json scenario;
    RlSpec rl;
    RlEstimate e;
};
Example example(void (*edit)(json&) = nullptr) {
    Example x;
    x.scenario = json::parse(test::repo_file(kExample));
    if (edit) edit(x.scenario);
    x.rl = rl_spec_from_json(&x.scenario["rl"]);
    json actor = x.scenario;
    actor.erase("rl");
    x.e = rl_estimate(scenario_from_json(actor), x.rl);
    return x;
}

std::string metric(const char* key, double v) { return std::string(" - ") + key + ":" + std::to_string(v); }

}  // namespace

TEST_CASE("verl log: a step line of verl 0.3 (three decimals, Ray's prefix) is read metric by metric") {
    // verl-project/verl#1208: GRPO with SGLang's rollout on GH200s, its step 2.
    const MeasuredRl m = read_verl_log(test::repo_file("tests/data/logs/verl-issue1208.log"));
    REQUIRE(m.steps.size() == 1);
    const LoggedRlStep& s = m.steps[0];
    CHECK(s.step == 2);
    CHECK(s.gen == doctest::Approx(74.020));
    CHECK(s.update_weights == -1);  // verl timed the weight sync inside generation then
    CHECK(s.old_log_prob == doctest::Approx(3.566));
    CHECK(s.ref == doctest::Approx(3.420));
    CHECK(s.values == -1);
    CHECK(s.update_actor == doctest::Approx(14.302));
    CHECK(s.step_seconds == doctest::Approx(96.551));
    CHECK(s.max_allocated == doctest::Approx(25.921 * kGiB));  // verl's "gb" is bytes / 1024**3
    CHECK(s.max_reserved == doctest::Approx(61.611 * kGiB));
    CHECK(s.response_mean == doctest::Approx(324.958));
    CHECK(s.response_max == doctest::Approx(1024));
    CHECK(s.prompt_mean == doctest::Approx(102.534));
    // Against verl's seq-balance example (prompts and responses at their longest): both means are implied.
    const json r = reconcile(test::repo_file(kExample), test::repo_file("tests/data/logs/verl-issue1208.log"));
    CHECK(r["calibration"]["rl.mean_prompt_tokens"] == 103);
    CHECK(r["calibration"]["rl.mean_response_tokens"] == 325);
    CHECK_FALSE(r["calibration"].contains("hardware.matmul_efficiency"));  // only once the means are kept
}

TEST_CASE("verl log: newer verl's full-precision values and actor/-prefixed memory, a line without its timings") {
    // verl-project/verl#7412, step 34 as far as the published excerpt goes (it stops before the timings).
    const MeasuredRl m = read_verl_log(test::repo_file("tests/data/logs/verl-issue7412.log"));
    REQUIRE(m.steps.size() == 1);
    CHECK(m.steps[0].step == 34);  // the header's step, not training/global_step's
    CHECK(m.steps[0].max_allocated == doctest::Approx(24.52155876159668 * kGiB));
    CHECK(m.steps[0].max_reserved == doctest::Approx(27.626953125 * kGiB));
    CHECK(m.steps[0].response_mean == doctest::Approx(1267.024169921875));
    CHECK(m.steps[0].response_max == doctest::Approx(3072));
    CHECK(m.steps[0].step_seconds == -1);
    // Without a step time there are no time terms; the log's longest response is longer than the scenario's.
    const json r = reconcile(test::repo_file(kExample), test::repo_file("tests/data/logs/verl-issue7412.log"));
    CHECK(term(r, "step_seconds") == nullptr);
    CHECK(term(r, "generation_seconds") == nullptr);
    REQUIRE(term(r, "max_allocated_bytes") != nullptr);
    CHECK((*term(r, "max_allocated_bytes"))["log"].get<double>() == doctest::Approx(24.52155876159668 * kGiB).epsilon(1e-9));
    CHECK(r["findings"].dump().find("longest response (3072 tokens)") != std::string::npos);
    CHECK(r["unknowns"].dump().find("no timing_s") != std::string::npos);
    // 1,267 tokens on average are more than the scenario's 1,024 at most: nothing to calibrate within it.
    CHECK(r["calibration"].empty());
}

TEST_CASE("verl log: lines that are not verl's step lines, and metrics that are not numbers, are refused at /log") {
    CHECK_THROWS_WITH_AS(read_verl_log(""), doctest::Contains("no verl metrics line"), InputError);
    CHECK_THROWS_WITH_AS(read_verl_log("training/global_step:3 - timing_s/step:1.0\n"), doctest::Contains("no verl metrics line"),
                         InputError);
    // A validation line (a step, none of the metrics read) is skipped.
    CHECK_THROWS_AS(read_verl_log("step:0 - val-core/openai/gsm8k/reward/mean@1:0.25\n"), InputError);
    try {
        read_verl_log("step:1 - timing_s/gen:3.0\nstep:2 - timing_s/step:nan\n");
        FAIL("nan was read");
    } catch (const InputError& e) {
        CHECK(e.path() == "/log");
        CHECK(std::string(e.what()).find("line 2: timing_s/step") != std::string::npos);
    }
    CHECK_THROWS_AS(read_verl_log("step:1 - perf/max_memory_allocated_gb:-3\n"), InputError);
    CHECK_THROWS_AS(read_verl_log("step:1 - timing_s/step:12s\n"), InputError);
    CHECK_THROWS_AS(read_verl_log("step:1 - timing_s/step:12-3\n"), InputError);
    // Python's repr of a small float is read whole.
    CHECK(read_verl_log("step:1 - timing_s/ref:2.5e-05\n").steps[0].ref == doctest::Approx(2.5e-05));
    const json bad = json::parse(rl_reconcile_text(test::repo_file(kExample), "no metrics here\n"));
    CHECK(bad["ok"] == false);
    CHECK(bad["error"]["path"] == "/log");
}

TEST_CASE("verl reconciliation: a log with the estimate's own figures has no gap and implies the scenario's own figures") {
    const Example x = example();
    const std::string line = "step:1" + metric("timing_s/gen", x.e.rollout_seconds + x.e.reshard_seconds) +
                             metric("timing_s/old_log_prob", x.e.log_prob_pass_seconds) +
                             metric("timing_s/ref", x.e.log_prob_pass_seconds) +
                             metric("timing_s/update_actor", x.e.actor_update_seconds) +
                             metric("timing_s/step", x.e.step_seconds()) +
                             metric("response_length/mean", static_cast<double>(x.rl.mean_response())) + "\n";
    const json r = reconcile(test::repo_file(kExample), line);
    for (const char* key : {"generation_seconds", "old_log_prob_seconds", "ref_seconds", "update_actor_seconds", "step_seconds"}) {
        REQUIRE_MESSAGE(term(r, key) != nullptr, key);
        CHECK_MESSAGE((*term(r, key))["gap"].get<double>() == doctest::Approx(0).epsilon(1e-5).scale(x.e.step_seconds()), key);
    }
    // The updates imply the scenario's own GEMM efficiency (or host time), nothing else.
    const auto& hw = x.e.timed.config.s.hardware;
    const auto& im = x.e.timed.config.s.implementation;
    REQUIRE(r["calibration"].size() >= 1);
    if (r["calibration"].contains("hardware.matmul_efficiency"))
        CHECK(r["calibration"]["hardware.matmul_efficiency"].get<double>() == doctest::Approx(hw.matmul_efficiency).epsilon(1e-4));
    else
        CHECK(r["calibration"]["implementation.host_forward_us"].get<double>() == doctest::Approx(im.host_forward_us).epsilon(1e-4));
    CHECK_FALSE(r["calibration"].contains("rl.mean_response_tokens"));
    CHECK(r["steps"]["first_dropped"] == false);
    CHECK(r["findings"].empty());  // the step is its phases, the responses within the scenario's
}

TEST_CASE("verl reconciliation: newer verl times the weight sync apart; generation is then the rollout alone") {
    const Example x = example();
    const json r = reconcile(test::repo_file(kExample), "step:1 - timing_s/gen:50.0 - timing_s/update_weights:4.0 - timing_s/step:80\n");
    REQUIRE(term(r, "generation_seconds") != nullptr);
    REQUIRE(term(r, "weight_sync_seconds") != nullptr);
    CHECK((*term(r, "generation_seconds"))["estimate"].get<double>() == doctest::Approx(x.e.rollout_seconds));
    CHECK((*term(r, "weight_sync_seconds"))["estimate"].get<double>() == doctest::Approx(x.e.reshard_seconds));
    CHECK((*term(r, "generation_seconds"))["label"] == "generation (timing_s/gen)");
    // 26 s of the 80 are outside the phases the estimate prices.
    CHECK(r["findings"].dump().find("26.00 s of the log's step (32.5%)") != std::string::npos);
    const json older = reconcile(test::repo_file(kExample), "step:1 - timing_s/gen:50.0 - timing_s/step:80\n");
    CHECK((*term(older, "generation_seconds"))["estimate"].get<double>() ==
          doctest::Approx(x.e.rollout_seconds + x.e.reshard_seconds));
}

TEST_CASE("verl reconciliation: the first step is left out and each metric is the median of the rest") {
    const std::string log = "step:1 - timing_s/step:500 - response_length/mean:900\n"
                            "step:2 - timing_s/step:100 - response_length/mean:400\n"
                            "step:3 - timing_s/step:120 - response_length/mean:410\n"
                            "step:4 - timing_s/step:110 - response_length/mean:420\n";
    const json r = reconcile(test::repo_file(kExample), log);
    CHECK(r["steps"]["read"] == 4);
    CHECK(r["steps"]["used"] == 3);
    CHECK(r["steps"]["first_dropped"] == true);
    CHECK((*term(r, "step_seconds"))["log"].get<double>() == doctest::Approx(110));
    CHECK(r["calibration"]["rl.mean_response_tokens"] == 410);
    // Kept in the scenario, the mean is the log's, and the log implies nothing more.
    const Example x = example([](json& s) { s["rl"]["mean_response_tokens"] = 410; });
    const json again = reconcile(x.scenario.dump(), log);
    CHECK(again["calibration"].empty());
    CHECK((*term(again, "response_mean_tokens"))["gap"].get<double>() == doctest::Approx(0));
}

TEST_CASE("verl reconciliation: PPO's critic has its terms; a critic or reference the scenario lacks is said") {
    const std::string log = "step:1 - timing_s/gen:60 - timing_s/values:5 - timing_s/ref:4 - timing_s/update_critic:20 - "
                            "timing_s/update_actor:21 - timing_s/step:115\n";
    const Example ppo = example([](json& s) { s["rl"]["algorithm"] = "ppo"; });
    const json r = reconcile(ppo.scenario.dump(), log);
    REQUIRE(term(r, "values_seconds") != nullptr);
    REQUIRE(term(r, "update_critic_seconds") != nullptr);
    CHECK((*term(r, "update_critic_seconds"))["estimate"].get<double>() == doctest::Approx(ppo.e.actor_update_seconds));
    CHECK((*term(r, "values_seconds"))["estimate"].get<double>() == doctest::Approx(ppo.e.log_prob_pass_seconds));
    const Example grpo = example([](json& s) { s["rl"]["reference"] = false; });
    const json g = reconcile(grpo.scenario.dump(), log);
    CHECK(term(g, "values_seconds") == nullptr);
    CHECK(term(g, "ref_seconds") == nullptr);
    CHECK(g["findings"].dump().find("set rl.algorithm to ppo") != std::string::npos);
    CHECK(g["findings"].dump().find("set rl.reference") != std::string::npos);
    const Example dpo = example([](json& s) {
        s["rl"]["algorithm"] = "dpo";
        s["rl"]["n"] = 2;
        s["rl"]["max_token_len_per_gpu"] = 0;  // verl's dynamic batch size is not DPO's
        s["training"]["micro_batch"] = 2;      // whole pairs
    });
    const json refused = json::parse(rl_reconcile_text(dpo.scenario.dump(), log));
    CHECK(refused["ok"] == false);
    CHECK(refused["error"]["path"] == "/rl/algorithm");
}

TEST_CASE("verl reconciliation: the allocator peaks against the update's, with the rollout engine said where it would explain them") {
    const Example x = example();
    const double update = x.e.training.peak().allocated();
    const std::string above = "step:1 - perf/max_memory_allocated_gb:" + std::to_string(2 * update / kGiB) +
                              " - perf/max_memory_reserved_gb:" + std::to_string(2.2 * update / kGiB) + "\n";
    const json r = reconcile(test::repo_file(kExample), above);
    REQUIRE(term(r, "max_allocated_bytes") != nullptr);
    CHECK((*term(r, "max_allocated_bytes"))["unit"] == "bytes");
    CHECK((*term(r, "max_allocated_bytes"))["estimate"].get<double>() == doctest::Approx(update).epsilon(1e-6));
    CHECK(r["findings"].dump().find("the rollout engine's weights, activations and KV cache") != std::string::npos);
    CHECK(r["unknowns"].dump().find("which phase verl's allocator peaks come from") != std::string::npos);
}
