#include "io/contract/kernels_json.h"

#include "scenario/names.h"

namespace shardcalc {

nlohmann::json kernel_table_json(const KernelTable& t) {
    using nlohmann::json;
    json rows = json::array();
    for (const KernelRow& r : t.rows) {
        const Kernel& k = r.kernel;
        json row = {{"module", r.module},
                    {"kernel", r.name},
                    {"pass", pass_name(r.pass)},
                    {"count", r.count},
                    {"runs", r.runs},
                    {"flops", k.flops},
                    {"hbm_bytes", k.bytes},
                    {"l2_bytes", k.l2_bytes},
                    {"intensity", r.intensity()},
                    {"bound", k.flops > 0 && k.compute_bound ? "compute" : "memory"},
                    {"seconds", k.seconds},
                    {"launches", k.launches},
                    {"step_seconds", r.step_seconds()}};
        if (r.gemm.m > 0) {
            row["gemm"] = {{"m", r.gemm.m}, {"k", r.gemm.k}, {"n", r.gemm.n}, {"fp8", r.gemm.precision == GemmPrecision::Fp8},
                           {"fp32", r.gemm.precision == GemmPrecision::Fp32}, {"groups", r.gemm.groups}};
            // Reloads of A, C and B, in DeepFlow's order (A's, the output's, B's): the output is written once.
            row["hbm_reloads"] = {{"a", r.traffic.hbm_reload_a}, {"b", r.traffic.hbm_reload_b}, {"c", 1}};
            row["l2_reloads"] = {{"a", r.traffic.l2_reload_a}, {"b", r.traffic.l2_reload_b}, {"c", 1}};
        }
        rows.push_back(std::move(row));
    }
    json passes = json::object();
    for (int p = 0; p < kKernelPasses; ++p) passes[pass_name(static_cast<KernelPass>(p))] = t.pass_seconds[p];
    return {{"stage", t.stage},
            {"stages", t.stages},
            {"microbatches", t.microbatches},
            {"device", t.device},
            {"dtype", name_of(t.dtype)},
            {"inflection_point", t.inflection_point},
            {"step_seconds", t.seconds},
            {"pass_seconds", passes},
            {"rows", rows}};
}

}  // namespace shardcalc
