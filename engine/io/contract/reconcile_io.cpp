#include "io/contract/reconcile_io.h"

#include <algorithm>
#include <string_view>
#include <vector>

namespace shardcalc {

namespace {

// The fields a found time calibration sets (report/time_calibration.h).
void add_time_fields(const TimeCalibration& t, std::vector<ImpliedField>& out) {
    if (t.outcome != TimeCalibration::Outcome::Found) return;
    if (t.term == TimeCalibration::Term::Host) {
        out.push_back({"implementation.host_forward_us", t.host_forward_us});
        out.push_back({"implementation.host_backward_us", t.host_backward_us});
    } else {
        out.push_back({"hardware.matmul_efficiency", t.matmul_efficiency});
        if (t.matmul_efficiency_fp8 > 0) out.push_back({"hardware.matmul_efficiency_fp8", t.matmul_efficiency_fp8});
    }
}

std::vector<ImpliedField> in_path_order(std::vector<ImpliedField> fields) {
    std::sort(fields.begin(), fields.end(),
              [](const ImpliedField& a, const ImpliedField& b) { return std::string_view(a.path) < std::string_view(b.path); });
    return fields;
}

}  // namespace

std::vector<ImpliedField> implied_fields(const Reconciliation& r) {
    std::vector<ImpliedField> out;
    if (r.has_fragmentation) out.push_back({"implementation.fragmentation", r.implied_fragmentation});
    if (r.has_overhead) out.push_back({"hardware.overhead_gib", r.implied_overhead_gib});
    if (r.has_capacity) out.push_back({"hardware.memory_gib", r.implied_memory_gib});
    if (r.has_time_calibration) add_time_fields(r.time, out);
    return in_path_order(std::move(out));
}

std::vector<ImpliedField> implied_fields(const ServingReconciliation& r) {
    std::vector<ImpliedField> out;
    if (r.has_overhead) out.push_back({"hardware.overhead_gib", r.implied_overhead_gib});
    if (r.has_utilization) out.push_back({"serving.gpu_memory_utilization", r.implied_utilization});
    if (r.has_cuda_graphs) out.push_back({"serving.cuda_graph_gib", r.implied_cuda_graph_gib});
    return in_path_order(std::move(out));
}

std::vector<ImpliedField> implied_fields(const RlReconciliation& r) {
    std::vector<ImpliedField> out;
    if (r.has_mean_response) out.push_back({"rl.mean_response_tokens", static_cast<double>(r.implied_mean_response_tokens), true});
    if (r.has_mean_prompt) out.push_back({"rl.mean_prompt_tokens", static_cast<double>(r.implied_mean_prompt_tokens), true});
    if (r.has_time_calibration) add_time_fields(r.time, out);
    return in_path_order(std::move(out));
}

nlohmann::json implied_fields_json(const std::vector<ImpliedField>& fields) {
    nlohmann::json out = nlohmann::json::object();
    for (const ImpliedField& f : fields)
        out[f.path] = f.integer ? nlohmann::json(static_cast<int64_t>(f.value)) : nlohmann::json(f.value);
    return out;
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
    j["calibration"] = implied_fields_json(implied_fields(r));
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

}  // namespace shardcalc
