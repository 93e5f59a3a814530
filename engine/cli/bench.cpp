// Prints evaluations per second: the pure engine on a parsed scenario, and the full JSON
// path (parse scenario, evaluate, serialise report). A measurement, never an assertion.
#include <chrono>
#include <cstdio>
#include <string>

#include "io/api.h"
#include "io/scenario_json.h"
#include "report/report.h"

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
    measure("JSON in -> JSON report out", [&] { sink = sink + static_cast<double>(shardcalc::evaluate_scenario_text(text).size()); });
    return 0;
}
