// The reconciliations as tables for a terminal, from the engine's results: a training run's log (report/reconcile.h),
// vLLM's start-up log (serve/serving_reconcile.h) and verl's step lines (rl/rl_reconcile.h), each term as log, estimate
// and gap, then the findings, the scenario fields the log implies and what it cannot tell.
#include <cmath>

#include "io/contract/reconcile_io.h"
#include "io/render/answer_text.h"
#include "io/render/text_table.h"
#include "memory/out_of_memory.h"

namespace shardcalc {
namespace {

using namespace text;

// A logged term's bytes as the JSON writes them: a whole number, in GiB.
std::string gib_whole(double bytes) { return amount(bytes, ByteUnit::GiB); }

// The terms of the serving and RL reconciliations (core/logged_term.h): bytes in GiB, seconds, counts.
std::vector<Row> logged_rows(const std::vector<LoggedTerm>& terms, std::string (*cell)(const LoggedTerm&, double)) {
    std::vector<Row> rows{{"term", "log", "estimate", "gap"}};
    for (const LoggedTerm& t : terms) rows.push_back({t.label, cell(t, t.log), cell(t, t.estimate), cell(t, t.gap)});
    return rows;
}

std::string bullets(const std::vector<std::string>& lines, const std::string& lead) {
    std::string out;
    for (const std::string& l : lines) out += lead + l + "\n";
    return out;
}

}  // namespace

std::string format_reconciliation(const Reconciliation& r, const std::string& source) {
    std::string out = source + " log against the estimate (MiB = 2^20 bytes; gap = estimate - log)\n";
    // The terms some rank's log gives, each as log, estimate and gap; "-" where a rank's log lacks one.
    struct Term {
        const char* label;
        bool (*given)(const RankReconciliation&);
        double RankReconciliation::*log;
        double RankReconciliation::*estimate;
        double RankReconciliation::*gap;
    };
    using R = RankReconciliation;
    const Term all[] = {
        {"peak allocated", [](const R& x) { return x.allocator && x.allocated_known; }, &R::measured_peak_allocated,
         &R::estimated_peak_allocated, &R::peak_allocated_gap},
        {"allocator reserve", [](const R& x) { return x.allocator && x.allocated_known; }, &R::measured_reserve,
         &R::estimated_reserve, &R::reserve_gap},
        {"peak reserved", [](const R& x) { return x.allocator; }, &R::measured_peak_reserved, &R::estimated_peak_reserved,
         &R::peak_reserved_gap},
        {"device in use", [](const R& x) { return x.has_device_used; }, &R::measured_device_used, &R::estimated_device_used,
         &R::device_used_gap},
    };
    std::vector<const Term*> terms;
    for (const Term& t : all)
        for (const R& x : r.ranks)
            if (t.given(x)) {
                terms.push_back(&t);
                break;
            }
    if (!terms.empty()) {
        Row head{"rank", "stage"};
        for (const Term* t : terms) head.insert(head.end(), {std::string(t->label) + ": log", "estimate", "gap"});
        std::vector<Row> rows{head};
        for (const R& x : r.ranks) {
            Row row{std::to_string(x.rank), std::to_string(x.stage)};
            for (const Term* t : terms)
                for (double R::*part : {t->log, t->estimate, t->gap}) row.push_back(t->given(x) ? mib(x.*part) : "-");
            rows.push_back(row);
        }
        out += aligned(rows);
    }
    // Each out-of-memory error: the request, the allocator and the device when it failed, and what the rank needed.
    std::vector<Row> failed{{"out of memory: rank", "request", "allocated", "cached", "free", "capacity", "cause", "needed",
                             "estimate", "gap"}};
    for (const R& x : r.ranks)
        if (x.has_oom) {
            const OutOfMemory& o = x.oom.oom;
            failed.push_back({std::to_string(x.rank), mib(o.request), mib(o.allocated), mib(o.cached),
                              mib(o.free), mib(o.capacity), name_of(x.oom.cause), mib(x.oom.needed),
                              mib(x.estimated_peak_allocated), mib(x.oom_needed_gap)});
        }
    if (failed.size() > 1) out += aligned(failed);
    if (r.has_framework_estimate) {
        const FrameworkEstimate& f = r.framework_estimate;
        const FrameworkEstimate& o = r.ours_same_split;
        out += "the framework's own estimate (first stage), MiB: weights and optimizer " + mib(f.weights_and_optimizer) +
               ", activations " + mib(f.activations) + ", total " + mib(f.total) + "; ours the same way: " +
               mib(o.weights_and_optimizer) + ", " + mib(o.activations) + ", " + mib(o.total) + "\n";
    }
    if (r.timed) {
        const std::string over = r.step_reports == 1 ? "one report" : "median of " + std::to_string(r.step_reports) + " reports";
        out += "step time: log " + fixed(r.measured_step_seconds, 3) + " s (" + over +
               (r.step_first_dropped ? " after the first" : "") + "), estimate " + fixed(r.estimated_step_seconds, 3) +
               " s (" + (r.step_error >= 0 ? "+" : "") + fixed(100 * r.step_error, 1) + "%)\n";
    }
    out += bullets(r.findings, "");
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
    const std::vector<ImpliedField> implied = implied_fields(r);
    for (const auto& k : calibrations)
        for (const ImpliedField& f : implied)
            if (std::string_view(f.path) == k.path)
                out += std::string("calibration for this cluster: ") + k.path + " = " + fixed(f.value, k.digits) + " (" +
                       k.from + ")\n";
    return out + "the log cannot tell:\n" + bullets(r.unknowns, "  - ");
}

std::string format_serving_reconciliation(const ServingReconciliation& r) {
    std::string out = "vLLM's start-up log against the serving estimate (GiB = 2^30 bytes; gap = estimate - log)\n";
    const std::vector<Row> rows = logged_rows(r.terms, [](const LoggedTerm& t, double v) {
        if (t.unit == LoggedUnit::Bytes) return gib_whole(v) + " GiB";
        return t.key == "kv_tokens" ? thousands(std::llround(v)) : fixed(v, 2);
    });
    if (rows.size() > 1) out += aligned(rows);
    if (r.has_kv_per_token)
        out += "KV cache per token: " + thousands(static_cast<int64_t>(r.log_kv_bytes_per_token + 0.5)) +
               " bytes in the log (its KV memory over its tokens), " +
               thousands(static_cast<int64_t>(r.estimated_kv_bytes_per_token + 0.5)) + " estimated\n";
    out += bullets(r.findings, "- ");
    const std::vector<ImpliedField> implied = implied_fields(r);
    if (!implied.empty()) {
        out += "What the log implies for the scenario:";
        for (const ImpliedField& f : implied) out += std::string(" ") + f.path + " = " + fixed(f.value, 2) + ";";
        out += "\n";
    }
    return out + bullets(r.unknowns, "- not in the log: ");
}

std::string format_rl_reconciliation(const RlReconciliation& r) {
    std::string out = "verl's log against the RL estimate (GiB = 2^30 bytes; gap = estimate - log; each the median over " +
                      thousands(r.steps_used) + " of its " + thousands(r.steps_read) + " steps" +
                      (r.first_dropped ? ", the first left out" : "") + ")\n";
    out += aligned(logged_rows(r.terms, [](const LoggedTerm& t, double v) {
        return t.unit == LoggedUnit::Bytes ? gib_whole(v) + " GiB" : t.unit == LoggedUnit::Seconds ? fixed(v, 2) + " s" : fixed(v, 0);
    }));
    out += bullets(r.findings, "- ");
    const std::vector<ImpliedField> implied = implied_fields(r);
    if (!implied.empty()) {
        out += "What the log implies for the scenario:";
        for (const ImpliedField& f : implied)
            out += std::string(" ") + f.path + " = " +
                   (f.integer ? std::to_string(static_cast<int64_t>(f.value)) : fixed(f.value, 3)) + ";";
        out += "\n";
    }
    return out + bullets(r.unknowns, "- not in the log: ");
}

}  // namespace shardcalc
