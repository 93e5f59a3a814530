#include "io/reconcile_io.h"

#include <vector>

#include "io/text_table.h"

namespace shardcalc {

nlohmann::json reconciliation_json(const Reconciliation& r, const std::string& source) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const RankReconciliation& x : r.ranks) {
        ranks.push_back({{"rank", x.rank}, {"stage", x.stage},
                         {"peak_allocated", {{"log", x.measured_peak_allocated}, {"estimate", x.estimated_peak_allocated},
                                             {"gap", x.peak_allocated_gap}}},
                         {"allocator_reserve", {{"log", x.measured_reserve}, {"estimate", x.estimated_reserve},
                                                {"gap", x.reserve_gap}}},
                         {"peak_reserved", {{"log", x.measured_peak_reserved}, {"estimate", x.estimated_peak_reserved},
                                            {"gap", x.peak_reserved_gap}}}});
        if (x.ooms >= 0) ranks.back()["ooms"] = x.ooms;
        if (x.alloc_retries >= 0) ranks.back()["alloc_retries"] = x.alloc_retries;
    }
    nlohmann::json j = {{"source", source}, {"ranks", ranks}, {"findings", r.findings}, {"unknowns", r.unknowns}};
    // Scenario fields by their dotted path, for a link or a scenario file to keep.
    j["calibration"] = nlohmann::json::object();
    if (r.has_fragmentation) j["calibration"]["implementation.fragmentation"] = r.implied_fragmentation;
    if (r.has_framework_estimate) {
        auto split = [](const FrameworkEstimate& e) {
            return nlohmann::json{{"weights_and_optimizer", e.weights_and_optimizer}, {"activations", e.activations},
                                  {"total", e.total}};
        };
        j["framework_estimate"] = {{"framework", split(r.framework_estimate)}, {"ours", split(r.ours_same_split)}};
    }
    if (r.timed)
        j["step_seconds"] = {{"log", r.measured_step_seconds}, {"log_reports", r.step_reports},
                             {"estimate", r.estimated_step_seconds}, {"error", r.step_error}};
    return j;
}

std::string format_reconciliation_table(const nlohmann::json& j) {
    using text::fixed;
    using text::mib;
    std::string out = j["source"].get<std::string>() + " log against the estimate (MiB = 2^20 bytes; gap = estimate - log)\n";
    if (!j["ranks"].empty()) {
        std::vector<text::Row> rows{{"rank", "stage", "peak allocated: log", "estimate", "gap", "allocator reserve: log",
                                     "estimate", "gap", "peak reserved: log", "estimate", "gap"}};
        for (const auto& r : j["ranks"]) {
            text::Row row{r["rank"].dump(), r["stage"].dump()};
            for (const char* key : {"peak_allocated", "allocator_reserve", "peak_reserved"})
                for (const char* part : {"log", "estimate", "gap"}) row.push_back(mib(r[key][part]));
            rows.push_back(row);
        }
        out += text::aligned(rows);
    }
    if (j.contains("framework_estimate")) {
        const auto& f = j["framework_estimate"]["framework"];
        const auto& o = j["framework_estimate"]["ours"];
        out += "the framework's own estimate (first stage), MiB: weights and optimizer " + mib(f["weights_and_optimizer"]) +
               ", activations " + mib(f["activations"]) + ", total " + mib(f["total"]) + "; ours the same way: " +
               mib(o["weights_and_optimizer"]) + ", " + mib(o["activations"]) + ", " + mib(o["total"]) + "\n";
    }
    if (j.contains("step_seconds")) {
        const auto& t = j["step_seconds"];
        out += "step time: log " + fixed(t["log"].get<double>(), 3) + " s (median of " + t["log_reports"].dump() +
               " reports after the first), estimate " + fixed(t["estimate"].get<double>(), 3) + " s (" +
               (t["error"].get<double>() >= 0 ? "+" : "") + fixed(100 * t["error"].get<double>(), 1) + "%)\n";
    }
    for (const auto& f : j["findings"]) out += f.get<std::string>() + "\n";
    if (j["calibration"].contains("implementation.fragmentation"))
        out += "calibration for this cluster: implementation.fragmentation = " +
               fixed(j["calibration"]["implementation.fragmentation"].get<double>(), 3) +
               " (the log's allocator reserve over its allocated peak, the largest of its ranks)\n";
    out += "the log cannot tell:\n";
    for (const auto& u : j["unknowns"]) out += "  - " + u.get<std::string>() + "\n";
    return out;
}

}  // namespace shardcalc
