#include "io/reconcile_io.h"

#include <cstdio>

namespace shardcalc {

nlohmann::json reconciliation_json(const Reconciliation& r, const std::string& source) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const RankReconciliation& x : r.ranks)
        ranks.push_back({{"rank", x.rank}, {"stage", x.stage},
                         {"peak_allocated", {{"log", x.measured_peak_allocated}, {"estimate", x.estimated_peak_allocated},
                                             {"gap", x.peak_allocated_gap}}},
                         {"allocator_reserve", {{"log", x.measured_reserve}, {"estimate", x.estimated_reserve},
                                                {"gap", x.reserve_gap}}},
                         {"peak_reserved", {{"log", x.measured_peak_reserved}, {"estimate", x.estimated_peak_reserved},
                                            {"gap", x.peak_reserved_gap}}}});
    nlohmann::json j = {{"source", source}, {"ranks", ranks}, {"unknowns", r.unknowns}};
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

namespace {

std::string mib(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", bytes / (1024.0 * 1024.0));
    return buf;
}

std::string pad(const std::string& s, size_t width) { return s.size() >= width ? s : std::string(width - s.size(), ' ') + s; }

}  // namespace

std::string format_reconciliation_table(const nlohmann::json& j) {
    std::string out = j["source"].get<std::string>() + " log against the estimate (MiB = 2^20 bytes; gap = estimate - log)\n";
    if (!j["ranks"].empty()) {
        out += "rank  stage   peak allocated: log  estimate     gap   allocator reserve: log  estimate     gap"
               "   peak reserved: log  estimate     gap\n";
        for (const auto& r : j["ranks"]) {
            auto three = [&](const char* key, size_t first) {
                const auto& t = r[key];
                return pad(mib(t["log"].get<double>()), first) + pad(mib(t["estimate"].get<double>()), 10) +
                       pad(mib(t["gap"].get<double>()), 8);
            };
            out += pad(std::to_string(r["rank"].get<int64_t>()), 4) + pad(std::to_string(r["stage"].get<int64_t>()), 7) +
                   three("peak_allocated", 22) + three("allocator_reserve", 25) + three("peak_reserved", 21) + "\n";
        }
    }
    if (j.contains("step_seconds")) {
        const auto& t = j["step_seconds"];
        char buf[200];
        std::snprintf(buf, sizeof buf, "step time: log %.3f s (median of %lld reports after the first), estimate %.3f s (%+.1f%%)\n",
                      t["log"].get<double>(), static_cast<long long>(t["log_reports"].get<int64_t>()),
                      t["estimate"].get<double>(), 100 * t["error"].get<double>());
        out += buf;
    }
    if (j.contains("framework_estimate")) {
        const auto& f = j["framework_estimate"]["framework"];
        const auto& o = j["framework_estimate"]["ours"];
        out += "the framework's own estimate (first stage), MiB: weights and optimizer " +
               mib(f["weights_and_optimizer"].get<double>()) + ", activations " + mib(f["activations"].get<double>()) +
               ", total " + mib(f["total"].get<double>()) + "; ours the same way: " +
               mib(o["weights_and_optimizer"].get<double>()) + ", " + mib(o["activations"].get<double>()) + ", " +
               mib(o["total"].get<double>()) + "\n";
    }
    out += "the log cannot tell:\n";
    for (const auto& u : j["unknowns"]) out += "  - " + u.get<std::string>() + "\n";
    return out;
}

}  // namespace shardcalc
