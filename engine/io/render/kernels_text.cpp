// The per-kernel table (report/kernel_table.h) as text: aligned for terminals, Markdown for docs, CSV for spreadsheets.
// The JSON of the same table is io/contract/kernels_json.cpp.
#include <string>

#include "io/render/answer_text.h"
#include "io/render/text_table.h"
#include "scenario/names.h"

namespace shardcalc {
namespace {

using namespace text;

// Counts: with thousands separators for reading, plain in CSV.
std::string number(double v, bool machine = false) {
    const bool whole = v == static_cast<double>(static_cast<int64_t>(v));
    if (!whole) return fixed(v, 2);
    return machine ? std::to_string(static_cast<int64_t>(v)) : thousands(static_cast<int64_t>(v));
}

// A GEMM's reloads in DeepFlow's order: A's, the output's (written once), B's.
std::string reloads(const KernelRow& r, double a, double b) {
    if (r.gemm.m <= 0) return "-";
    return number(a, true) + "," + number(1, true) + "," + number(b, true);
}

std::vector<Row> rows_of(const KernelTable& t, bool machine) {
    std::vector<Row> rows{{"module", "kernel", "pass", "count", "m", "k", "n", "gflop", machine ? "hbm_bytes" : "hbm_mb",
                           machine ? "l2_bytes" : "l2_mb", "hbm_reloads_acb", "l2_reloads_acb", "flop_per_byte", "bound",
                           "us_each", "ms_per_step"}};
    for (const KernelRow& r : t.rows) {
        const Kernel& k = r.kernel;
        const bool gemm = r.gemm.m > 0;
        auto dim = [&](double d) { return gemm ? number(d, machine) : std::string("-"); };
        // A grouped GEMM's rows are per group: "8 x 2,048" for 8 experts' problems of 2,048 rows each (CSV: the
        // group's rows).
        const double groups = gemm ? static_cast<double>(r.gemm.groups) : 1;
        const double m = static_cast<double>(r.gemm.m);
        const std::string m_text = groups > 1 && !machine ? number(groups) + " x " + dim(m) : dim(m);
        auto bytes = [&](double b) {
            if (machine) return fixed(b, 0);
            return b > 0 ? fixed(b / 1e6, 2) : std::string("-");
        };
        rows.push_back({r.module, r.name, pass_name(r.pass), number(r.count, machine), m_text,
                        dim(static_cast<double>(r.gemm.k)), dim(static_cast<double>(r.gemm.n)), fixed(k.flops / 1e9, 3),
                        bytes(k.bytes), bytes(k.l2_bytes), reloads(r, r.traffic.hbm_reload_a, r.traffic.hbm_reload_b),
                        reloads(r, r.traffic.l2_reload_a, r.traffic.l2_reload_b), fixed(r.intensity(), 2),
                        k.flops > 0 && k.compute_bound ? "compute" : "memory", fixed(k.seconds * 1e6, 1),
                        fixed(r.step_seconds() * 1e3, 3)});
    }
    return rows;
}

// Stages are pipeline ranks from 0, as `--stage`, `estimate` and the report number them.
std::string heading(const KernelTable& t) {
    return "Kernels of pipeline stage " + std::to_string(t.stage) +
           (t.stages > 1 ? " (stages 0 to " + std::to_string(t.stages - 1) + ")" : std::string(" (the only stage)")) +
           " on " + t.device + " (" + name_of(t.dtype) + "): one device, each kernel once per instance; count instances " +
           "per microbatch, " + number(t.microbatches) + " microbatches per step; inflection point " +
           fixed(t.inflection_point, 2) + " FLOP/byte";
}

std::string totals(const KernelTable& t) {
    std::string out = "per step:";
    for (int p = 0; p < kKernelPasses; ++p)
        if (t.pass_seconds[p] > 0)
            out += std::string(" ") + pass_name(static_cast<KernelPass>(p)) + " " + fixed(t.pass_seconds[p] * 1e3, 3) + " ms,";
    return out + " all kernels " + fixed(t.seconds * 1e3, 3) + " ms\n";
}

}  // namespace

std::string format_kernels(const KernelTable& t, TextFormat f) {
    if (f == TextFormat::Csv) return csv(rows_of(t, true));
    if (f == TextFormat::Markdown) return "**" + heading(t) + "**\n\n" + markdown(rows_of(t, false)) + "\n" + totals(t);
    return heading(t) + "\n" + aligned(rows_of(t, false)) + totals(t);
}

}  // namespace shardcalc
