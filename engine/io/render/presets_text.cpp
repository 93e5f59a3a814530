#include "io/render/text_format.h"

#include "io/render/text_table.h"

namespace shardcalc {

using nlohmann::json;
using namespace text;

std::string format_presets_table(const json& presets) {
    std::vector<Row> models{{"model preset", "name", "layers", "hidden", "heads", "parameters (reference)"}};
    for (const auto& p : presets["models"]) {
        const json& m = p["model"];
        const json ref = p.value("reference", json::object());
        models.push_back({p["id"].get<std::string>(), p.value("name", ""), m["layers"].dump(), m["hidden"].dump(),
                          m["heads"].dump(),
                          ref.contains("parameters") ? thousands(ref["parameters"].get<int64_t>()) : ""});
    }
    std::vector<Row> hw{{"hardware preset", "name", "memory GiB", "bf16 TFLOP/s", "HBM GB/s"}};
    for (const auto& p : presets["hardware"]) {
        const json peaks = p.value("peak_tflops", json::object());
        hw.push_back({p["id"].get<std::string>(), p.value("name", ""), fixed(p["memory_gib"].get<double>(), 2),
                      peaks.contains("bf16") ? fixed(peaks["bf16"].get<double>(), 1) : "-",
                      fixed(p.value("hbm_gbps", 0.0), 0)});
    }
    // Plans are scenario files: `shardcalc estimate presets/plans/<id>.json` evaluates one.
    std::vector<Row> plans{{"plan preset", "name"}};
    for (const auto& p : presets.value("plans", json::array()))
        plans.push_back({p["id"].get<std::string>(), p["scenario"].value("name", "")});
    return aligned(models) + "\n" + aligned(hw) + "\n" + aligned(plans);
}

}  // namespace shardcalc
