// The report for people (io/render/report_text.h, io/api.h text_answer) is written from the engine's report
// structs, not from its JSON: these tests hold the two to the same figures, byte for byte where the CSV gives raw
// values, on plans that exercise every part (pipeline stages, offload, a TPU's XLA program, a plan that does not fit).

#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "helpers.h"
#include "io/api.h"

using nlohmann::json;

namespace {

json rendered(const std::string& scenario, const std::string& format, const std::string& unit = "GiB") {
    return json::parse(shardcalc::text_answer(scenario, {"estimate", format, unit}));
}

json report_of(const std::string& scenario) { return json::parse(shardcalc::evaluate_scenario_text(scenario))["report"]; }

// The CSV's sections (tables separated by a blank line), each a list of rows of cells (no cell here holds a comma
// or a quote but the reason, which is checked apart).
std::vector<std::vector<std::string>> section(const std::string& csv, size_t index) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(csv);
    std::string line;
    size_t at = 0;
    while (std::getline(in, line)) {
        if (line.empty()) {
            ++at;
            continue;
        }
        if (at != index) continue;
        std::vector<std::string> cells;
        std::string cell;
        std::istringstream cols(line);
        while (std::getline(cols, cell, ',')) cells.push_back(cell);
        rows.push_back(cells);
    }
    return rows;
}

// Pipeline stages, offload, a TPU's XLA program and a plan that does not fit (read once the test runs: the
// repository's root is known then).
std::vector<std::string> plans() {
    return {test::repo_file("examples/llama-3.1-70b-h100.json"),
            test::repo_file("examples/llama-2-13b-deepspeed-offload.json"),
            test::repo_file("examples/bert-base-tpu-v3-xla-report.json"),
            R"({"model":{"preset":"llama-3.1-70b"},"hardware":{"preset":"a100-sxm-40gb"},"training":{"seq_len":4096}})"};
}

}  // namespace

TEST_CASE("report text: the CSV's stage table is the JSON report's stages, byte for byte") {
    for (const std::string& plan : plans()) {
        const json csv = rendered(plan, "csv");
        REQUIRE_MESSAGE(csv["ok"] == true, plan);
        const json r = report_of(plan);
        const auto stages = section(csv["text"].get<std::string>(), 0);
        REQUIRE(stages.size() == r["memory"]["stages"].size() + 1);
        for (size_t i = 0; i < r["memory"]["stages"].size(); ++i) {
            const json& s = r["memory"]["stages"][i];
            const auto& row = stages[i + 1];
            CHECK(row[0] == s["stage"].dump());
            CHECK(row[3] == s["weights"].dump());
            CHECK(row[6] == s["activations"].dump());
            CHECK(row[7] == s["other_detail"]["logits"].dump());
            CHECK(row[12] == s["total"].dump());
            CHECK(row[15] == s["allocated"].dump());
            CHECK(row[16] == s["reserved"].dump());
            CHECK(row[17] == s["peak_phase"].get<std::string>());
        }
        CHECK(csv["verdict"] == r["memory"]["verdict"]["verdict"]);
    }
}

TEST_CASE("report text: the step time's parts and the communication are the JSON report's") {
    for (const std::string& plan : plans()) {
        const std::string csv = rendered(plan, "csv")["text"].get<std::string>();
        const json r = report_of(plan);
        const auto time = section(csv, 2);
        const json& order = r["time"]["breakdown_order"];
        REQUIRE(time.size() == order.size() + 2);
        for (size_t i = 0; i < order.size(); ++i) {
            CHECK(time[i + 1][0] == order[i].get<std::string>());
            CHECK(time[i + 1][1] == r["time"]["breakdown"][order[i].get<std::string>()].dump());
        }
        CHECK(time.back()[1] == r["time"]["step_seconds"].dump());
        const auto comm = section(csv, 3);
        REQUIRE(comm.size() == r["communication"].size() + 1);
        for (size_t i = 0; i < r["communication"].size(); ++i) {
            const json& e = r["communication"][i];
            CHECK(comm[i + 1][0] == e["dimension"].get<std::string>());
            CHECK(comm[i + 1][1] == e["collective"].get<std::string>());
            CHECK(comm[i + 1].back() == e["exposed_seconds"].dump());
        }
    }
}

TEST_CASE("report text: the table's headline and verdict follow the report; XLA's program where XLA compiles") {
    const std::vector<std::string> p = plans();
    const json r = report_of(p[3]);
    const json table = rendered(p[3], "table");
    const std::string text = table["text"].get<std::string>();
    CHECK(r["memory"]["verdict"]["verdict"] == "does_not_fit");
    CHECK(text.find("llama-3.1-70b on 1 x a100-sxm-40gb (") == 0);
    CHECK(text.find(": DOES NOT FIT; " + r["memory"]["verdict"]["reason"].get<std::string>()) != std::string::npos);
    CHECK(text.find("if it fitted, step: ") != std::string::npos);
    const std::string tpu = rendered(p[2], "markdown")["text"].get<std::string>();
    CHECK(tpu.find("**Largest program allocations** (XLA, peak stage") != std::string::npos);
    const json first = report_of(p[2])["memory"]["per_device"]["xla"]["largest_allocations"][0];
    CHECK(tpu.find("| `" + first["shape"].get<std::string>() + "` |") != std::string::npos);
}

TEST_CASE("report text: a format it does not write, or a plan with an error, is the error value") {
    const json bad = rendered(plans()[0], "yaml");
    CHECK(bad["ok"] == false);
    CHECK(bad["error"]["path"] == "/format");
    const json invalid = rendered(R"({"model":{"preset":"gpt2"},"parallel":{"tp":5}})", "table");
    CHECK(invalid["ok"] == false);
    CHECK(invalid["error"]["path"] == "/parallel/tp");
}

TEST_CASE("report Markdown: the summary, in the reader's unit, the scenario's text escaped") {
    const std::string plan = plans()[0];
    const json r = report_of(plan);
    const std::string gib = rendered(plan, "markdown")["text"].get<std::string>();
    CHECK(gib.find("**shardcalc**: Llama 3.1 70B \u00b7 megatron \u00b7 dp 8 \u00d7 tp 8 \u00d7 pp 4 \u00b7 ") == 0);
    // The reason is the report's own, as a sentence.
    std::string reason = r["memory"]["verdict"]["reason"].get<std::string>();
    reason[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(reason[0])));
    CHECK(gib.find(": **Fits**. " + reason) != std::string::npos);
    const std::string gb = rendered(plan, "markdown", "GB")["text"].get<std::string>();
    CHECK(gb.find("GiB") == std::string::npos);
    CHECK(gb.find("(GB = 10^9 bytes)") != std::string::npos);
    const double total = r["memory"]["per_device"]["total"].get<double>();
    char peak[64];
    std::snprintf(peak, sizeof peak, "Per-device peak **%.2f GB**", total / 1e9);
    CHECK(gb.find(peak) != std::string::npos);
    CHECK(rendered(plan, "markdown", "MB")["error"]["path"] == "/unit");

    // A device's name from a shared link shows as written: one line, no table break, no HTML, no emphasis.
    json hostile = json::parse(plan);
    hostile["hardware"]["name"] = "x|y<script>\n| a | b |\r\n*b* _i_ `c` [l](u)";
    const std::string md = rendered(hostile.dump(), "markdown")["text"].get<std::string>();
    const std::string first = md.substr(0, md.find('\n'));
    CHECK(first.find("x\\|y&lt;script&gt; \\| a \\| b \\| \\*b\\* \\_i\\_ \\`c\\` \\[l\\](u)") != std::string::npos);
    CHECK(md.find("<script") == std::string::npos);
}

TEST_CASE("report Markdown: a plan that does not fit has hypothetical times; a priced run its cost, dollars escaped") {
    json plan = json::parse(plans()[3]);
    const std::string oom = rendered(plan.dump(), "markdown")["text"].get<std::string>();
    CHECK(oom.find("\n_Hypothetical, if it fitted (the plan does not fit)_: step time ") != std::string::npos);
    CHECK(oom.find("\nStep time **") == std::string::npos);
    json priced = json::parse(plans()[0]);
    priced["training"]["train_tokens"] = 15e12;
    priced["hardware"]["price_per_gpu_hour"] = 2.5;
    const json r = report_of(priced.dump());
    const std::string md = rendered(priced.dump(), "markdown")["text"].get<std::string>();
    const double cost = r["training_run"]["cost"].get<double>();
    std::string digits = std::to_string(static_cast<long long>(std::llround(cost)));
    for (size_t at = digits.size(); at > 3; at -= 3) digits.insert(at - 3, ",");
    CHECK(md.find("cost \\$" + digits + " at \\$2.50 per GPU-hour") != std::string::npos);
}

TEST_CASE("text answers: each command's text from its result; the formats and inputs each takes") {
    using shardcalc::TextRequest;
    const auto answer = [](const std::string& scenario, TextRequest q) { return json::parse(shardcalc::text_answer(scenario, q)); };
    const auto text_of = [&](const std::string& scenario, TextRequest q) {
        const json a = answer(scenario, std::move(q));
        REQUIRE_MESSAGE(a["ok"] == true, a.dump());
        return a["text"].get<std::string>();
    };
    const std::string serve = test::repo_file("examples/serve/llama-3.1-8b-h100.json");
    const std::string rl = test::repo_file("examples/rl/verl-grpo-qwen2-7b-seq-balance.json");
    const std::string search = test::repo_file("examples/search/llama-3.1-8b-fewest-gpus.json");
    CHECK(text_of(serve, {"serve"}).rfind("serving on NVIDIA H100 SXM5 80GB: tp 1 per replica", 0) == 0);
    CHECK(text_of(rl, {"rl"}).rfind("grpo on 8 x ", 0) == 0);
    CHECK(text_of(search, {"search"}).find("searched ") != std::string::npos);
    CHECK(text_of(search, {"search", "markdown"}).rfind("## Plan search\n", 0) == 0);
    TextRequest verl{"rl"};
    verl.log = test::repo_file("tests/data/logs/verl-issue1208.log");
    CHECK(text_of(rl, verl).rfind("verl's log against the RL estimate", 0) == 0);
    TextRequest vllm{"serve"};
    vllm.log = test::repo_file("tests/data/logs/vllm-0.6.5-pr10511.log");
    CHECK(text_of(serve, vllm).rfind("vLLM's start-up log against the serving estimate", 0) == 0);
    // The answers written only as a table, a reconciliation without its log, a command the API does not write.
    CHECK(answer(rl, {"rl", "csv"})["error"]["path"] == "/format");
    CHECK(answer(plans()[0], {"reconcile"})["error"]["path"] == "/log");
    CHECK(answer(plans()[0], {"export"})["error"]["path"] == "/command");
}
