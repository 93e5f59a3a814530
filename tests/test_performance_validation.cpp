// Step time against published training runs on A100 80GB (Selene / Azure). Each case prints
// our figure, the published one and the error; bounds are the model's known accuracy, stated
// with the reason, so that a regression fails. Summary (docs/validation.md, "Validation"):
//   Korthikanti et al. 2022 Table 5 iteration times: +2.9% to -7.9%, mean |error| 3.8%, median 3.6%.
//   Korthikanti Table 4 per-layer times (22B): within 8%.
//   Narayanan et al. 2021 Table 1 TFLOP/s: -1.5% to +13.7%, median +9.4% (ours faster: 2021's kernels were slower).
//   Narayanan Table 2, ZeRO-3 without model parallelism: +34% to +55%: DeepSpeed's per-tensor gathers with a
//     small prefetch bucket expose most of the communication; 2021's runs were slower still.
//   Azure ML's training guide (Megatron-DeepSpeed Bloom, 8-16 A100): +37% to +60%: those runs reach 38% of
//     peak where Megatron-LM reaches 44-52% on the same hardware.
//   Median |error| over all 37 comparisons: 5.7%.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "helpers.h"
#include "io/presets.h"

namespace {

struct Result {
    double step_seconds;
    double eq3_tflops;  // Narayanan eq. 3 FLOPs (full attention, with recompute) over our step time
    double mfu;
};

Result run(const nlohmann::json& s) {
    const auto j = nlohmann::json::parse(shardcalc::evaluate_scenario_text(s.dump()));
    REQUIRE_MESSAGE(j["ok"] == true, j.dump());
    const auto& r = j["report"];
    const auto& m = s["model"];
    const double L = m["layers"].get<double>(), h = m["hidden"].get<double>();
    const double sq = s["training"]["seq_len"].get<double>(), B = s["training"]["global_batch"].get<double>();
    const double V = r["derived"]["vocab_padded"].get<double>();
    const double gpus = r["derived"]["world_size"].get<double>();
    const double step = r["time"]["step_seconds"].get<double>();
    const double eq3 = 96 * B * sq * L * h * h * (1 + sq / (6 * h) + V / (16 * L * h));
    return {step, eq3 / step / gpus / 1e12, r["time"]["mfu"].get<double>()};
}

nlohmann::json gpt(int layers, int hidden, int heads, int tp, int pp, int vpp, int dp, int gbs, int mb, const char* recompute,
                   bool sp) {
    return {{"framework", "megatron"},
            {"model", {{"layers", layers}, {"hidden", hidden}, {"heads", heads}, {"vocab", 51200}, {"max_positions", 2048}}},
            {"training",
             {{"seq_len", 2048}, {"micro_batch", mb}, {"global_batch", gbs}, {"dtype", "fp16"}, {"recompute", recompute},
              {"attention", "eager"}, {"dropout", 0.1}}},
            {"parallel", {{"dp", dp}, {"tp", tp}, {"pp", pp}, {"vpp", vpp}, {"sp", sp}}},
            {"hardware", {{"preset", "a100-sxm-80gb"}}}};
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

TEST_CASE("Korthikanti et al. 2022, Table 5: iteration time, full recompute and sequence parallel + selective") {
    struct Row { const char* name; int L, h, a, tp, pp, vpp, gbs, mb; double full, present; };
    // Table 3 configurations (no data parallelism; 175B and 530B with 3 interleaved stages), Table 5 seconds.
    const Row rows[] = {{"22B", 48, 6144, 64, 8, 1, 1, 4, 4, 1.42, 1.10},
                        {"175B", 96, 12288, 96, 8, 8, 3, 64, 1, 18.13, 13.75},
                        {"530B", 105, 20480, 128, 8, 35, 3, 280, 1, 49.05, 37.83},
                        {"1T", 128, 25600, 160, 8, 64, 1, 512, 1, 94.42, 71.49}};
    std::vector<double> errors;
    for (const Row& r : rows) {
        const Result full = run(gpt(r.L, r.h, r.a, r.tp, r.pp, r.vpp, 1, r.gbs, r.mb, "full", false));
        const Result sel = run(gpt(r.L, r.h, r.a, r.tp, r.pp, r.vpp, 1, r.gbs, r.mb, "selective", true));
        for (auto [label, ours, paper] : {std::tuple{"full recompute", full.step_seconds, r.full},
                                          {"sp + selective", sel.step_seconds, r.present}}) {
            const double err = (ours - paper) / paper;
            std::printf("  Korthikanti T5 %-5s %-15s ours %7.2f s  paper %7.2f s  error %+5.1f%%\n", r.name, label, ours,
                        paper, 100 * err);
            CHECK(std::abs(err) < 0.10);
            errors.push_back(std::abs(err));
        }
    }
    double sum = 0;
    for (const double e : errors) sum += e;
    // Issue 22's target is the mean (Calculon's own figure on this table: 3.65%).
    std::printf("  Korthikanti T5 median |error| %.1f%%, mean %.1f%%\n", 100 * median(errors), 100 * sum / errors.size());
    CHECK(median(errors) < 0.04);
    CHECK(sum / errors.size() < 0.04);
}

TEST_CASE("Korthikanti et al. 2022, Table 4: one 22B layer, forward and backward milliseconds") {
    struct Row { const char* name; const char* recompute; bool sp; double fwd, bwd; };
    const Row rows[] = {{"baseline", "none", false, 7.7, 11.9}, {"sp", "none", true, 7.2, 11.8},
                        {"full recompute", "full", false, 7.7, 19.5}, {"selective", "selective", false, 7.7, 13.2},
                        {"selective + sp", "selective", true, 7.2, 13.1}};
    for (const Row& r : rows) {
        // Per-layer time: the difference between 16 and 8 layers removes embedding and head.
        auto stage = [&](int layers) {
            auto s = gpt(layers, 6144, 64, 8, 1, 1, 1, 4, 4, r.recompute, r.sp);
            const auto j = nlohmann::json::parse(shardcalc::evaluate_scenario_text(s.dump()));
            return j["report"]["pipeline"]["stages"][0];
        };
        const auto a = stage(8), b = stage(16);
        const double fwd = (b["forward_seconds"].get<double>() - a["forward_seconds"].get<double>()) / 8 * 1e3;
        const double bwd = (b["backward_seconds"].get<double>() - a["backward_seconds"].get<double>()) / 8 * 1e3;
        std::printf("  Korthikanti T4 %-15s fwd ours %5.2f paper %4.1f (%+5.1f%%)  bwd ours %5.2f paper %4.1f (%+5.1f%%)\n",
                    r.name, fwd, r.fwd, 100 * (fwd - r.fwd) / r.fwd, bwd, r.bwd, 100 * (bwd - r.bwd) / r.bwd);
        CHECK(std::abs(fwd - r.fwd) / r.fwd < 0.10);
        CHECK(std::abs(bwd - r.bwd) / r.bwd < 0.10);
    }
}

TEST_CASE("Narayanan et al. 2021, Table 1: achieved TFLOP/s per GPU, 1.7B to 1T on up to 3072 A100") {
    struct Row { double billions; int a, h, L, tp, pp, gpus, gbs; double tflops; int mb, vpp; };
    // Table 1; micro-batch and interleaving from Megatron-LM examples/sc21/run_table_1.sh.
    const Row rows[] = {{1.7, 24, 2304, 24, 1, 1, 32, 512, 137, 16, 1},      {3.6, 32, 3072, 30, 2, 1, 64, 512, 138, 16, 1},
                        {7.5, 32, 4096, 36, 4, 1, 128, 512, 142, 16, 1},     {18.4, 48, 6144, 40, 8, 1, 256, 1024, 135, 8, 1},
                        {39.1, 64, 8192, 48, 8, 2, 512, 1536, 138, 4, 1},    {76.1, 80, 10240, 60, 8, 4, 1024, 1792, 140, 2, 3},
                        {145.6, 96, 12288, 80, 8, 8, 1536, 2304, 148, 2, 2}, {310.1, 128, 16384, 96, 8, 16, 1920, 2160, 155, 1, 2},
                        {529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163, 1, 3}, {1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163, 1, 1}};
    std::vector<double> errors;
    for (const Row& r : rows) {
        const int dp = r.gpus / (r.tp * r.pp);
        const Result res = run(gpt(r.L, r.h, r.a, r.tp, r.pp, r.vpp, dp, r.gbs, r.mb, "full", false));
        const double err = (res.eq3_tflops - r.tflops) / r.tflops;
        std::printf("  Narayanan T1 %6.1fB  ours %5.1f TFLOP/s  paper %5.1f  error %+5.1f%%\n", r.billions, res.eq3_tflops,
                    r.tflops, 100 * err);
        CHECK(std::abs(err) < 0.30);
        errors.push_back(err);
    }
    std::printf("  Narayanan T1 median error %+.1f%%\n", 100 * median(errors));
    CHECK(median(errors) < 0.20);
}

TEST_CASE("Narayanan et al. 2021, Table 2: 175B, PTD-P against ZeRO-3 without model parallelism") {
    struct Row { const char* name; bool zero3; int gpus, mb; double tflops; };
    const Row rows[] = {{"PTD-P", false, 384, 1, 153}, {"PTD-P", false, 768, 1, 149}, {"PTD-P", false, 1536, 1, 141},
                        {"ZeRO-3", true, 384, 4, 144},  {"ZeRO-3", true, 768, 2, 88},   {"ZeRO-3", true, 1536, 1, 44}};
    for (const Row& r : rows) {
        nlohmann::json s = gpt(96, 12288, 96, r.zero3 ? 1 : 8, r.zero3 ? 1 : 12, 1, 0, 1536, r.mb, "full", false);
        if (r.zero3) {
            s["framework"] = "deepspeed";
            s["parallel"] = {{"dp", r.gpus}, {"zero", 3}};
        } else {
            s["parallel"]["dp"] = r.gpus / 96;
        }
        const Result res = run(s);
        const double err = (res.eq3_tflops - r.tflops) / r.tflops;
        std::printf("  Narayanan T2 %-6s %4d GPUs  ours %5.1f TFLOP/s  paper %5.1f  error %+6.1f%%\n", r.name, r.gpus,
                    res.eq3_tflops, r.tflops, 100 * err);
        CHECK(err > 0);
        CHECK(err < (r.zero3 ? 0.70 : 0.12));
    }
}

TEST_CASE("Azure ML's training guide: Bloom runs, TP=8 on 8 and 16 A100 80GB (Megatron-DeepSpeed)") {
    struct Row { int layers, gpus, mb; double tflops, samples; };
    // hidden 14336, 32 heads, seq 2048, vocab 250880, global batch 16, activation checkpointing, bf16.
    const Row rows[] = {{10, 16, 1, 119.42, 4.173}, {8, 8, 1, 117.71, 2.51}, {8, 8, 2, 123.52, 2.63}};
    for (const Row& r : rows) {
        // Megatron-DeepSpeed with --zero-stage 0 (the job's YAML, docs/validation-sources.md): DeepSpeed running
        // Megatron's model code.
        const nlohmann::json s = {
            {"framework", "deepspeed"},
            {"model", {{"preset", "bloom-176b"}, {"layers", r.layers}, {"hidden", 14336}, {"heads", 32}, {"kv_heads", 32},
                       {"head_dim", 448}}},
            {"training", {{"seq_len", 2048}, {"micro_batch", r.mb}, {"global_batch", 16}, {"recompute", "full"},
                          {"attention", "eager"}}},
            {"parallel", {{"tp", 8}, {"dp", r.gpus / 8}, {"zero", 0}}},
            {"hardware", {{"preset", "a100-sxm-80gb"}}}};
        const Result res = run(s);
        const double err = (res.eq3_tflops - r.tflops) / r.tflops;
        std::printf("  Azure Bloom %2d layers %2d GPUs mb %d  ours %5.1f TFLOP/s  published %6.2f  error %+5.1f%%\n",
                    r.layers, r.gpus, r.mb, res.eq3_tflops, r.tflops, 100 * err);
        CHECK(err > 0);
        CHECK(err < 0.85);
    }
}

// The one published MoE run with its whole plan (presets/plans/megatron-bridge-gpt-oss-120b-64xh100.json):
// NVIDIA's Megatron-Bridge benchmark, 26.04.01, 5,824 tokens/s per GPU. Tokens/s needs no FLOP convention.
TEST_CASE("Megatron-Bridge 26.04.01: gpt-oss-120b on 64 H100 (pp 4, ep 8), tokens/s per GPU") {
    const auto& plans = shardcalc::all_presets()["plans"];
    const auto plan = std::find_if(plans.begin(), plans.end(), [](const auto& p) { return p["id"] == "megatron-bridge-gpt-oss-120b-64xh100"; });
    REQUIRE(plan != plans.end());
    const auto r = shardcalc::evaluate_scenario((*plan)["scenario"]);
    REQUIRE(r["ok"] == true);
    const double ours = r["report"]["throughput"]["tokens_per_second"].get<double>() / 64;
    const double published = 5824;
    const double err = (ours - published) / published;
    std::printf("  Megatron-Bridge gpt-oss-120b 64 H100  ours %6.0f tokens/s/GPU  published %6.0f  error %+5.1f%%\n", ours,
                published, 100 * err);
    // Ours fast, far more than on dense models (docs/validation.md "Validation against published runs"): with the
    // router's (fused, as the recipe runs it) and dispatcher's kernels counted (+73%), what remains is most likely
    // gpt-oss's sink attention; no constant is tuned to this run.
    CHECK(err > 0.5);
    CHECK(err < 0.8);
}
