// Prints evaluations per second: the pure engine on a parsed scenario, and the full JSON
// path (parse scenario, evaluate, serialise report). A measurement, never an assertion.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "io/api.h"
#include "io/contract/scenario_json.h"
#include "io/render/text_format.h"
#include "report/report.h"
#include "scenario/names.h"
#include "graph/build.h"
#include "search/search.h"
#include "search/search_memos.h"
#include "serve/serving.h"

namespace {

template <class F>
void measure(const char* label, F&& f) {
    using clock = std::chrono::steady_clock;
    int64_t n = 0;
    const auto start = clock::now();
    double elapsed = 0;
    while (elapsed < 1.0) {
        for (int i = 0; i < 100; ++i) f();
        n += 100;
        elapsed = std::chrono::duration<double>(clock::now() - start).count();
    }
    std::printf("%-48s %10.0f evaluations/s  (%.2f us each)\n", label, n / elapsed, 1e6 * elapsed / n);
}

}  // namespace

int main() {
    const std::string text = R"({"framework":"megatron",
      "model":{"preset":"llama-3.1-70b"},
      "training":{"seq_len":8192,"micro_batch":1,"global_batch":512,"recompute":"selective"},
      "parallel":{"dp":16,"tp":8,"pp":4,"vpp":2,"sp":true,"distributed_optimizer":true},
      "hardware":{"preset":"h100-sxm-80gb"}})";
    const shardcalc::Scenario scenario = shardcalc::scenario_from_json(nlohmann::json::parse(text));
    volatile double sink = 0;
    measure("evaluate (llama-3.1-70b, tp8 pp4 vpp2 dp16)", [&] { sink = sink + shardcalc::evaluate(scenario).peak().total(); });
    // Issue 31's numbers-only estimate: memory per stage, verdict, step time and metrics of a resolved plan on a graph
    // built once per model, as the search runs each candidate; then with the layer figures of earlier plans shared.
    {
        const shardcalc::Config c = shardcalc::resolve(scenario);
        const shardcalc::ModelGraph g = shardcalc::build_graph(c);
        measure("numbers-only estimate (graph built once)",
                [&] { sink = sink + shardcalc::estimate(c, g, shardcalc::Detail::Numbers).perf.step_seconds; });
        shardcalc::SearchMemos memos;
        measure("numbers-only estimate (graph and layer figures shared)", [&] {
            sink = sink + shardcalc::estimate(c, g, shardcalc::Detail::Numbers, {&memos, &memos}).perf.step_seconds;
        });
    }
    measure("JSON in -> JSON report out", [&] { sink = sink + static_cast<double>(shardcalc::evaluate_scenario_text(text).size()); });
    // Serving (issue 26's target: one serving estimate within 50 us natively): the engine on a resolved plan and
    // graph, then the full JSON path of `shardcalc serve` (which also resolves, builds the graph, draws the curve).
    const std::string served = R"({"model":{"preset":"llama-3.1-70b"},"hardware":{"preset":"h100-sxm-80gb"},"parallel":{"tp":4},
      "serving":{"prompt_tokens":2000,"output_tokens":500,"concurrency":64}})";
    {
        shardcalc::Scenario plan = scenario;
        plan.parallel = {};
        plan.parallel.tp = 4;
        const shardcalc::Config c = shardcalc::resolve(plan, shardcalc::Rules::ModelAndDevice);
        const shardcalc::ModelGraph g = shardcalc::build_graph(c);
        shardcalc::ServingSpec s;
        s.prompt_tokens = 2000;
        s.output_tokens = 500;
        s.concurrency = 64;
        measure("serving estimate (llama-3.1-70b, tp4)", [&] { sink = sink + shardcalc::serving_estimate(c, g, s).tpot_seconds; });
    }
    measure("serve: JSON in -> JSON out (with its curve)", [&] { sink = sink + static_cast<double>(shardcalc::serve_scenario_text(served).size()); });
    // What the page asks after each answer (the menus' valid options) and on an arrow key (the next valid tp).
    const std::string menus = R"({"scenario":)" + text + R"(,"options":{"/parallel/zero":[0,1,2,3],)"
                              R"("/parallel/offload_optimizer":["none","cpu","nvme"],"/parallel/offload_params":["none","cpu","nvme"],)"
                              R"("/parallel/schedule":["1f1b","gpipe"],"/training/attention":["flash","eager"]}})";
    measure("choices: the page's 5 menus (13 candidates)", [&] { sink = sink + static_cast<double>(shardcalc::choices_text(menus).size()); });
    measure("choices: tp 8 -> 4 (one step down)", [&] {
        sink = sink + static_cast<double>(
                          shardcalc::choices_text(R"({"scenario":)" + text + R"(,"step":{"path":"/parallel/tp","from":8,"direction":-1}})").size());
    });
    {
        // The worst case: no valid tp above 8 (64 heads, 8 KV heads), so the whole window of 1,024 candidates is read.
        const auto t0 = std::chrono::steady_clock::now();
        const std::string none = shardcalc::choices_text(R"({"scenario":)" + text + R"(,"step":{"path":"/parallel/tp","from":8,"direction":1}})");
        const double ms = 1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%-48s %10.1f ms (%s)\n", "choices: tp 8 -> none above (1,024 candidates)", ms, none.c_str());
    }
    // The text report of a 512-stage pipeline (the most parallel.pp takes): one memory table per stage, so the writer must stay
    // linear in them.
    {
        const std::string deep = R"({"model":{"preset":"gpt2","layers":1024},"parallel":{"pp":512},"training":{"global_batch":1024}})";
        const auto start = std::chrono::steady_clock::now();
        const size_t bytes = shardcalc::text_answer(deep, {}).size();
        const double ms = 1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("%-48s %10.1f ms (%zu bytes of text)\n", "text report of a 512-stage pipeline (evaluated)", ms, bytes);
    }
    // The plan search: a 70B model on 1,024 GPUs, every dimension, three frameworks and offload.
    shardcalc::SearchSpec spec;
    spec.devices = {1024};
    spec.frameworks = {shardcalc::Framework::Megatron, shardcalc::Framework::DeepSpeed, shardcalc::Framework::Fsdp};
    for (const auto& [d, name] : shardcalc::enum_names<shardcalc::SearchDim>()) spec.dims.insert(d);
    shardcalc::Scenario base = scenario;
    base.training.global_batch = 1024;
    const auto start = std::chrono::steady_clock::now();
    const shardcalc::SearchResult r = shardcalc::search(base, spec);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("search (llama-3.1-70b, 1024 GPUs, all dimensions, 3 frameworks): %lld plans in %.2f s "
                "(%.0f plans/s; %lld memory estimates, %lld timed, %lld pruned)\n",
                static_cast<long long>(r.candidates), s, static_cast<double>(r.candidates) / s,
                static_cast<long long>(r.memory_evaluated), static_cast<long long>(r.time_evaluated),
                static_cast<long long>(r.pruned.count));
    // The process's peak memory so far, the search's included (Linux: kilobytes).
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("peak resident memory of this benchmark: %.0f MB\n", static_cast<double>(usage.ru_maxrss) / 1024);
    return 0;
}
