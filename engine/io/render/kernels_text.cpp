// The per-kernel table as text: aligned for terminals, Markdown for docs, CSV for spreadsheets. Reads only the
// JSON of io/contract/kernels_json.cpp.
#include <string>

#include "io/render/text_format.h"
#include "io/render/text_table.h"

namespace shardcalc {
namespace {

using nlohmann::json;
using namespace text;

// Counts: with thousands separators for reading, plain in CSV.
std::string number(double v, bool machine = false) {
    const bool whole = v == static_cast<double>(static_cast<int64_t>(v));
    if (!whole) return fixed(v, 2);
    return machine ? std::to_string(static_cast<int64_t>(v)) : thousands(static_cast<int64_t>(v));
}

std::string reloads(const json& row, const char* key) {
    if (!row.contains(key)) return "-";
    const json& r = row[key];
    // DeepFlow's order: A, the output C, B
    return number(r["a"].get<double>(), true) + "," + number(r["c"].get<double>(), true) + "," + number(r["b"].get<double>(), true);
}

std::vector<Row> rows_of(const json& t, bool machine) {
    std::vector<Row> rows{{"module", "kernel", "pass", "count", "m", "k", "n", "gflop", machine ? "hbm_bytes" : "hbm_mb",
                           machine ? "l2_bytes" : "l2_mb", "hbm_reloads_acb", "l2_reloads_acb", "flop_per_byte", "bound",
                           "us_each", "ms_per_step"}};
    for (const json& r : t["rows"]) {
        const bool gemm = r.contains("gemm");
        auto dim = [&](const char* d) { return gemm ? number(r["gemm"][d].get<double>(), machine) : std::string("-"); };
        // A grouped GEMM's rows are per group: "8 x 2,048" for 8 experts' problems of 2,048 rows each (CSV: the
        // group's rows; the JSON has the groups).
        const double groups = gemm ? r["gemm"].value("groups", 1.0) : 1;
        const std::string m = groups > 1 && !machine ? number(groups) + " x " + dim("m") : dim("m");
        auto bytes = [&](const char* key) {
            const double b = r[key].get<double>();
            if (machine) return fixed(b, 0);
            return b > 0 ? fixed(b / 1e6, 2) : std::string("-");
        };
        rows.push_back({r["module"], r["kernel"], r["pass"], number(r["count"].get<double>(), machine), m, dim("k"), dim("n"),
                        fixed(r["flops"].get<double>() / 1e9, 3), bytes("hbm_bytes"), bytes("l2_bytes"),
                        reloads(r, "hbm_reloads"), reloads(r, "l2_reloads"), fixed(r["intensity"].get<double>(), 2),
                        r["bound"], fixed(r["seconds"].get<double>() * 1e6, 1),
                        fixed(r["step_seconds"].get<double>() * 1e3, 3)});
    }
    return rows;
}

// Stages are pipeline ranks from 0, as `--stage`, `estimate` and the report number them.
std::string heading(const json& t) {
    const int64_t stages = t["stages"].get<int64_t>();
    return "Kernels of pipeline stage " + std::to_string(t["stage"].get<int64_t>()) +
           (stages > 1 ? " (stages 0 to " + std::to_string(stages - 1) + ")" : std::string(" (the only stage)")) +
           " on " + t["device"].get<std::string>() + " (" +
           t["dtype"].get<std::string>() + "): one device, each kernel once per instance; count instances per " +
           "microbatch, " + number(t["microbatches"].get<double>()) + " microbatches per step; inflection point " +
           fixed(t["inflection_point"].get<double>(), 2) + " FLOP/byte";
}

std::string totals(const json& t) {
    std::string out = "per step:";
    for (const char* pass : {"forward", "backward_data", "backward_weight", "recompute", "optimizer"}) {
        const double s = t["pass_seconds"][pass].get<double>();
        if (s > 0) out += std::string(" ") + pass + " " + fixed(s * 1e3, 3) + " ms,";
    }
    return out + " all kernels " + fixed(t["step_seconds"].get<double>() * 1e3, 3) + " ms\n";
}

}  // namespace

std::string format_kernels_table(const json& t) { return heading(t) + "\n" + aligned(rows_of(t, false)) + totals(t); }
std::string format_kernels_markdown(const json& t) {
    return "**" + heading(t) + "**\n\n" + markdown(rows_of(t, false)) + "\n" + totals(t);
}
std::string format_kernels_csv(const json& t) { return csv(rows_of(t, true)); }

}  // namespace shardcalc
