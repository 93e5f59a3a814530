#include "io/contract/reconcile_io.h"

#include <algorithm>
#include <vector>

#include "io/render/text_table.h"

namespace shardcalc {

void add_time_calibration(const TimeCalibration& t, nlohmann::json& calibration) {
    if (t.outcome != TimeCalibration::Outcome::Found) return;
    if (t.term == TimeCalibration::Term::Host) {
        calibration["implementation.host_forward_us"] = t.host_forward_us;
        calibration["implementation.host_backward_us"] = t.host_backward_us;
    } else {
        calibration["hardware.matmul_efficiency"] = t.matmul_efficiency;
        if (t.matmul_efficiency_fp8 > 0) calibration["hardware.matmul_efficiency_fp8"] = t.matmul_efficiency_fp8;
    }
}

nlohmann::json reconciliation_json(const Reconciliation& r, const std::string& source) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const RankReconciliation& x : r.ranks) {
        nlohmann::json rank = {{"rank", x.rank}, {"stage", x.stage}};
        // Each term the log gives: the allocator's three (not from nvidia-smi alone), the device's memory in use.
        const auto term = [](double log, double estimate, double gap) {
            return nlohmann::json{{"log", log}, {"estimate", estimate}, {"gap", gap}};
        };
        if (x.allocator) {
            if (x.allocated_known) {
                rank["peak_allocated"] = term(x.measured_peak_allocated, x.estimated_peak_allocated, x.peak_allocated_gap);
                rank["allocator_reserve"] = term(x.measured_reserve, x.estimated_reserve, x.reserve_gap);
            }
            rank["peak_reserved"] = term(x.measured_peak_reserved, x.estimated_peak_reserved, x.peak_reserved_gap);
        }
        if (x.has_device_used) rank["device_used"] = term(x.measured_device_used, x.estimated_device_used, x.device_used_gap);
        if (x.has_oom) {
            // The failed request and the device at that moment, why it failed, and what the rank needed then.
            const OutOfMemory& o = x.oom.oom;
            nlohmann::json e = {{"request", o.request},      {"allocated", o.allocated}, {"cached", o.cached},
                                {"free", o.free},            {"capacity", o.capacity},   {"cause", name_of(x.oom.cause)},
                                {"shortfall", x.oom.shortfall},
                                {"needed", term(x.oom.needed, x.estimated_peak_allocated, x.oom_needed_gap)},
                                {"estimated_largest_request", x.estimated_largest_request},
                                {"other_processes", o.other_processes}};
            if (o.allowed >= 0) e["allowed"] = o.allowed;
            if (o.process_used >= 0) e["process_used"] = o.process_used;
            rank["out_of_memory"] = e;
        }
        if (x.ooms >= 0) rank["ooms"] = x.ooms;
        if (x.alloc_retries >= 0) rank["alloc_retries"] = x.alloc_retries;
        ranks.push_back(rank);
    }
    nlohmann::json j = {{"source", source}, {"ranks", ranks}, {"findings", r.findings}, {"unknowns", r.unknowns}};
    // Scenario fields by their dotted path, for a link or a scenario file to keep.
    j["calibration"] = nlohmann::json::object();
    if (r.has_fragmentation) j["calibration"]["implementation.fragmentation"] = r.implied_fragmentation;
    if (r.has_overhead) j["calibration"]["hardware.overhead_gib"] = r.implied_overhead_gib;
    if (r.has_capacity) j["calibration"]["hardware.memory_gib"] = r.implied_memory_gib;
    if (r.has_time_calibration) add_time_calibration(r.time, j["calibration"]);
    if (r.has_framework_estimate) {
        auto split = [](const FrameworkEstimate& e) {
            return nlohmann::json{{"weights_and_optimizer", e.weights_and_optimizer}, {"activations", e.activations},
                                  {"total", e.total}};
        };
        j["framework_estimate"] = {{"framework", split(r.framework_estimate)}, {"ours", split(r.ours_same_split)}};
    }
    if (r.timed)
        j["step_seconds"] = {{"log", r.measured_step_seconds}, {"log_reports", r.step_reports},
                             {"log_first_dropped", r.step_first_dropped},
                             {"estimate", r.estimated_step_seconds}, {"error", r.step_error}};
    return j;
}

std::string format_reconciliation_table(const nlohmann::json& j) {
    using text::fixed;
    using text::mib;
    std::string out = j["source"].get<std::string>() + " log against the estimate (MiB = 2^20 bytes; gap = estimate - log)\n";
    // The terms some rank's log gives, each as log, estimate and gap; "-" where a rank's log lacks one.
    const std::pair<const char*, const char*> all[] = {{"peak_allocated", "peak allocated"},
                                                       {"allocator_reserve", "allocator reserve"},
                                                       {"peak_reserved", "peak reserved"},
                                                       {"device_used", "device in use"}};
    std::vector<std::pair<const char*, const char*>> terms;
    for (const auto& t : all)
        if (std::any_of(j["ranks"].begin(), j["ranks"].end(), [&](const auto& r) { return r.contains(t.first); }))
            terms.push_back(t);
    if (!terms.empty()) {
        text::Row head{"rank", "stage"};
        for (const auto& [key, label] : terms) head.insert(head.end(), {std::string(label) + ": log", "estimate", "gap"});
        std::vector<text::Row> rows{head};
        for (const auto& r : j["ranks"]) {
            text::Row row{r["rank"].dump(), r["stage"].dump()};
            for (const auto& [key, label] : terms)
                for (const char* part : {"log", "estimate", "gap"}) row.push_back(r.contains(key) ? mib(r[key][part]) : "-");
            rows.push_back(row);
        }
        out += text::aligned(rows);
    }
    // Each out-of-memory error: the request, the allocator and the device when it failed, and what the rank needed.
    std::vector<text::Row> failed{{"out of memory: rank", "request", "allocated", "cached", "free", "capacity", "cause",
                                   "needed", "estimate", "gap"}};
    for (const auto& r : j["ranks"])
        if (r.contains("out_of_memory")) {
            const auto& o = r["out_of_memory"];
            failed.push_back({r["rank"].dump(), mib(o["request"]), mib(o["allocated"]), mib(o["cached"]), mib(o["free"]),
                              mib(o["capacity"]), o["cause"].get<std::string>(), mib(o["needed"]["log"]),
                              mib(o["needed"]["estimate"]), mib(o["needed"]["gap"])});
        }
    if (failed.size() > 1) out += text::aligned(failed);
    if (j.contains("framework_estimate")) {
        const auto& f = j["framework_estimate"]["framework"];
        const auto& o = j["framework_estimate"]["ours"];
        out += "the framework's own estimate (first stage), MiB: weights and optimizer " + mib(f["weights_and_optimizer"]) +
               ", activations " + mib(f["activations"]) + ", total " + mib(f["total"]) + "; ours the same way: " +
               mib(o["weights_and_optimizer"]) + ", " + mib(o["activations"]) + ", " + mib(o["total"]) + "\n";
    }
    if (j.contains("step_seconds")) {
        const auto& t = j["step_seconds"];
        const int64_t reports = t["log_reports"].get<int64_t>();
        const std::string over = reports == 1 ? "one report" : "median of " + t["log_reports"].dump() + " reports";
        out += "step time: log " + fixed(t["log"].get<double>(), 3) + " s (" + over +
               (t["log_first_dropped"].get<bool>() ? " after the first" : "") + "), estimate " +
               fixed(t["estimate"].get<double>(), 3) + " s (" +
               (t["error"].get<double>() >= 0 ? "+" : "") + fixed(100 * t["error"].get<double>(), 1) + "%)\n";
    }
    for (const auto& f : j["findings"]) out += f.get<std::string>() + "\n";
    // Each calibration the log implies: its scenario field, its digits and where it comes from.
    const struct {
        const char* path;
        int digits;
        const char* from;
    } calibrations[] = {
        {"implementation.fragmentation", 3, "the log's allocator reserve over its allocated peak, the largest of its ranks"},
        {"hardware.overhead_gib", 2,
         "the device memory a process held beyond its allocator's reserved, by nvidia-smi or an out-of-memory error, the "
         "largest of its ranks"},
        {"hardware.memory_gib", 2, "the device's capacity as CUDA reports it in the out-of-memory error"},
        {"hardware.matmul_efficiency", 3,
         "the GEMM efficiency at which the estimate's step equals the log's, every other term as estimated"},
        {"implementation.host_forward_us", 1,
         "the host's time per launch, with host_backward_us scaled alike, at which the estimate's host-bound step equals "
         "the log's"},
    };
    for (const auto& k : calibrations)
        if (j["calibration"].contains(k.path))
            out += std::string("calibration for this cluster: ") + k.path + " = " +
                   fixed(j["calibration"][k.path].get<double>(), k.digits) + " (" + k.from + ")\n";
    out += "the log cannot tell:\n";
    for (const auto& u : j["unknowns"]) out += "  - " + u.get<std::string>() + "\n";
    return out;
}

}  // namespace shardcalc
