#include "io/render/text_format.h"

#include <cctype>
#include <cstdio>
#include <vector>

#include "io/render/text_table.h"
#include "memory/allocator.h"
#include "memory/memory_terms.h"

namespace shardcalc {
namespace {

using nlohmann::json;
using namespace text;

// A timeline phase in words ("forward_end" -> "end of forward": memory/memory_terms.h).
std::string phase_label(const std::string& phase) { return label_of(kMemoryPhases, phase); }

const json& verdict_of(const json& r) { return r["memory"]["verdict"]; }
bool fits(const json& r) { return verdict_of(r)["verdict"] == verdict_name(Verdict::Fits); }

// The verdict's words in capitals ("DOES NOT FIT": memory/allocator.h kVerdicts).
std::string verdict_word(const json& r) {
    std::string word = label_of(kVerdicts, verdict_of(r)["verdict"].get<std::string>());
    for (char& ch : word) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return word;
}

// Human stage table (GiB): the lines that make up the allocated peak, then allocated,
// fragmentation, reserved, overhead outside the allocator and total. Detail columns that are
// zero on every stage are left out.
std::vector<Row> stage_rows(const json& report) {
    struct Col { const char* head; const char* field; bool detail; };
    static const Col cols[] = {{"weights", "weights", false},
                               {"gradients", "gradients", false},
                               {"optimizer", "optimizer", false},
                               {"activations", "activations", false},
                               {"logits", "other_detail/logits", true},
                               {"comm buffers", "other_detail/comm_buffers", true},
                               {"cast weights", "other_detail/cast_weights", true},
                               {"transient", "other_detail/transient", true},
                               {"workspace", "other_detail/workspace", true},
                               {"allocated", "allocated", false},
                               {"fragmentation", "other_detail/fragmentation", false},
                               {"reserved", "reserved", false},
                               {"overhead", "other_detail/overhead", false},
                               {"total", "total", false}};
    const json& stages = report["memory"]["stages"];
    auto at = [](const json& s, const char* field) -> const json& { return s.at(json::json_pointer("/" + std::string(field))); };
    std::vector<const Col*> shown;
    for (const auto& c : cols) {
        bool any = !c.detail;
        for (const auto& s : stages) any = any || at(s, c.field).get<double>() != 0;
        if (any) shown.push_back(&c);
    }
    Row head{"stage", "layers", "in-flight"};
    for (const Col* c : shown) head.push_back(c->head);
    std::vector<Row> rows{head};
    for (const auto& s : stages) {
        Row row{std::to_string(s["stage"].get<int64_t>()), std::to_string(s["layers"].get<int64_t>()),
                join(s["inflight_microbatches"], "/")};
        for (const Col* c : shown) row.push_back(gib(at(s, c->field)));
        rows.push_back(row);
    }
    return rows;
}

// CSV stage table: every column, raw bytes; the columns added with the timeline come last so
// the original ones keep their positions.
std::vector<Row> stage_rows_raw(const json& report) {
    std::vector<Row> rows{{"stage", "layers", "in-flight", "weights", "gradients", "optimizer", "activations", "logits",
                           "comm buffers", "cast weights", "transient", "overhead", "total", "workspace",
                           "fragmentation", "allocated", "reserved", "peak phase"}};
    auto cell = [](const json& v) { return std::to_string(v.get<int64_t>()); };
    for (const auto& s : report["memory"]["stages"]) {
        const json& o = s["other_detail"];
        rows.push_back({cell(s["stage"]), cell(s["layers"]), join(s["inflight_microbatches"], "/"), cell(s["weights"]),
                        cell(s["gradients"]), cell(s["optimizer"]), cell(s["activations"]), cell(o["logits"]),
                        cell(o["comm_buffers"]), cell(o["cast_weights"]), cell(o["transient"]), cell(o["overhead"]),
                        cell(s["total"]), cell(o["workspace"]), cell(o["fragmentation"]), cell(s["allocated"]),
                        cell(s["reserved"]), s["peak_phase"].get<std::string>()});
    }
    return rows;
}

// Lines of the timeline that are non-zero in some phase of some stage (the human tables show only those).
std::vector<std::string> timeline_lines(const json& report) {
    std::vector<std::string> out;
    for (const Term& t : kMemoryLines) {
        const char* line = t.key;
        bool any = false;
        for (const auto& s : report["memory"]["stages"])
            for (const auto& ph : s["timeline"]) any = any || ph["lines"][line].get<double>() != 0;
        if (any) out.push_back(line);
    }
    return out;
}

// One stage's memory over the step (GiB allocated at each phase), the peak phase marked; `lines`: timeline_lines of
// the report, found once for all stages (per stage, the search over every stage made the writer quadratic).
std::vector<Row> timeline_rows(const std::vector<std::string>& lines, const json& stage) {
    Row head{"phase", "allocated"};
    for (const auto& l : lines) head.push_back(spaced(l));
    std::vector<Row> rows{head};
    for (const auto& ph : stage["timeline"]) {
        const std::string name = ph["phase"].get<std::string>();
        Row row{phase_label(name) + (name == stage["peak_phase"] ? " (peak)" : ""), gib(ph["allocated"])};
        for (const auto& l : lines) row.push_back(gib(ph["lines"][l]));
        rows.push_back(row);
    }
    return rows;
}

std::string timeline_title(const json& stage) {
    std::string what;
    for (const auto& ph : stage["timeline"])
        if (ph["phase"] == stage["peak_phase"]) what = ph["what"].get<std::string>();
    return "Memory over the step, stage " + stage["stage"].dump() + " (GiB allocated at each phase; peak at " +
           phase_label(stage["peak_phase"].get<std::string>()) + (what.empty() ? "" : ": " + what) + ")";
}

// CSV: every stage's timeline in one table, raw bytes, phase names as in the report.
std::vector<Row> timeline_rows_raw(const json& report) {
    Row head{"stage", "phase", "allocated"};
    for (const Term& t : kMemoryLines) head.push_back(spaced(t.key));
    head.push_back("peak");
    head.push_back("what");
    std::vector<Row> rows{head};
    for (const auto& s : report["memory"]["stages"])
        for (const auto& ph : s["timeline"]) {
            Row row{s["stage"].dump(), ph["phase"].get<std::string>(), std::to_string(ph["allocated"].get<int64_t>())};
            for (const Term& t : kMemoryLines) row.push_back(std::to_string(ph["lines"][t.key].get<int64_t>()));
            row.push_back(ph["phase"] == s["peak_phase"] ? "yes" : "no");
            row.push_back(ph["what"].get<std::string>());
            rows.push_back(row);
        }
    return rows;
}

// CSV: the verdict and the peak device's memory, one row.
std::vector<Row> verdict_rows_raw(const json& r) {
    const json& mem = r["memory"];
    const json& v = verdict_of(r);
    const json& peak = mem["per_device"];
    auto raw = [](const json& x) { return std::to_string(x.get<int64_t>()); };
    return {{"verdict", "margin", "reason", "peak stage", "peak phase", "allocated", "reserved", "total", "capacity",
             "fragmentation median fraction", "fragmentation worst fraction"},
            {v["verdict"].get<std::string>(), raw(v["margin"]), v["reason"].get<std::string>(), peak["stage"].dump(),
             peak["peak_phase"].get<std::string>(), raw(peak["allocated"]), raw(peak["reserved"]), raw(peak["total"]),
             raw(mem["capacity"]), v["fragmentation_median_fraction"].dump(), v["fragmentation_worst_fraction"].dump()}};
}

std::vector<Row> module_rows(const json& report, bool tree, bool raw) {
    std::vector<Row> rows{{"module", "param shape", "parameters", raw ? "weight bytes" : "weights MiB",
                           raw ? "activation bytes/microbatch" : "activations MiB/microbatch"}};
    for (const auto& m : report["modules"]) {
        const int depth = m["depth"].get<int>();
        std::string name = m["name"].get<std::string>();
        if (m["repeat"].get<int64_t>() > 1) name += " x " + std::to_string(m["repeat"].get<int64_t>()) + " (per layer)";
        if (tree) name = (depth ? std::string(static_cast<size_t>(depth - 1) * 3, ' ') + "|- " : "") + name;
        else name = m["path"].get<std::string>();
        const bool empty_op = m["parameters"].get<int64_t>() == 0 && m["activation_bytes"].get<int64_t>() == 0;
        if (tree && empty_op && m["kind"] == "op") continue;
        rows.push_back({name, join(m["param_shapes"], ", "),
                        raw ? std::to_string(m["parameters"].get<int64_t>()) : thousands(m["parameters"].get<int64_t>()),
                        raw ? std::to_string(m["weight_bytes"].get<int64_t>()) : mib(m["weight_bytes"]),
                        raw ? std::to_string(m["activation_bytes"].get<int64_t>()) : mib(m["activation_bytes"])});
    }
    return rows;
}

std::string human_bytes(double b) {
    if (b >= kGiB) return fixed(b / kGiB, 2) + " GiB";
    if (b >= kMiB) return fixed(b / kMiB, 1) + " MiB";
    return fixed(b / 1024, 1) + " KiB";
}

std::string seconds_text(double s) { return s >= 1 ? fixed(s, 3) + " s" : fixed(s * 1e3, 2) + " ms"; }

std::vector<Row> time_rows(const json& r, bool raw) {
    std::vector<Row> rows{{"part of the step", raw ? "seconds" : "time", "share"}};
    const double step = r["time"]["step_seconds"].get<double>();
    for (const auto& part : r["time"]["breakdown_order"]) {
        const std::string name = part.get<std::string>();
        const double s = r["time"]["breakdown"][name].get<double>();
        if (!raw && s <= 0) continue;
        rows.push_back({name, raw ? json(s).dump() : seconds_text(s), fixed(step > 0 ? 100 * s / step : 0, 1) + "%"});
    }
    rows.push_back({"step", raw ? json(step).dump() : seconds_text(step), "100.0%"});
    return rows;
}

std::vector<Row> comm_rows(const json& r, bool raw) {
    std::vector<Row> rows{{"dimension", "collective", "purpose", "group", "first group", "scale-out", "message",
                           "count/iteration", "volume/iteration", "time", "exposed"}};
    for (const auto& e : r["communication"]) {
        std::string members;
        for (size_t i = 0; i < e["first_group"].size() && i < 4; ++i) members += (i ? " " : "") + e["first_group"][i].get<std::string>();
        if (e["first_group"].size() > 4) members += " ...";
        auto bytes = [&](const json& v) { return raw ? v.dump() : human_bytes(v.get<double>()); };
        auto secs = [&](const json& v) { return raw ? v.dump() : seconds_text(v.get<double>()); };
        rows.push_back({e["dimension"].get<std::string>(), e["collective"].get<std::string>(), e["purpose"].get<std::string>(),
                        e["group_size"].dump(), "[" + members + "]", e["scale_out"].get<bool>() ? "yes" : "no",
                        bytes(e["bytes"]), fixed(e["count_per_iteration"].get<double>(), 0), bytes(e["volume_per_iteration"]),
                        secs(e["seconds"]), secs(e["exposed_seconds"])});
    }
    return rows;
}

std::string performance_line(const json& r) {
    const json& t = r["time"];
    const json& th = r["throughput"];
    // Times of a plan that does not fit (or may not) are what it would take if it did.
    const std::string hypothetical = fits(r) ? "" : "if it fitted, ";
    std::string out = hypothetical + "step: " + seconds_text(t["step_seconds"].get<double>()) + ", " +
                      thousands(static_cast<int64_t>(th["tokens_per_second"].get<double>())) + " tokens/s, " +
                      fixed(th["tflops_per_device"].get<double>(), 1) + " model TFLOP/s per device, MFU " +
                      fixed(100 * t["mfu"].get<double>(), 1) + "%, HFU " + fixed(100 * t["hfu"].get<double>(), 1) +
                      "%, pipeline bubble " + fixed(100 * r["pipeline"]["bubble_fraction"].get<double>(), 1) + "%\n";
    if (t.contains("efficiency_warning")) out += "warning: " + t["efficiency_warning"].get<std::string>() + "\n";
    if (r.contains("training_run")) {
        const json& run = r["training_run"];
        out += hypothetical + "training run: " + fixed(run["days"].get<double>(), 1) + " days, " +
               thousands(static_cast<int64_t>(run["gpu_hours"].get<double>())) + " GPU-hours" +
               (run["price_per_gpu_hour"].get<double>() > 0
                    ? ", cost " + thousands(static_cast<int64_t>(run["cost"].get<double>()))
                    : std::string()) +
               "\n";
    }
    return out;
}

std::string headline(const json& r) {
    const json& sc = r["scenario"];
    const json& d = r["derived"];
    const json& p = sc["parallel"];
    const json& t = sc["training"];
    const json& mem = r["memory"];
    const json& peak = mem["per_device"];
    std::string model = sc["model"].value("preset", "");
    if (model.empty()) model = "custom model";
    std::string out = model + " on " + std::to_string(d["world_size"].get<int64_t>()) + " x " +
                      sc["hardware"]["preset"].get<std::string>() + " (" + sc["framework"].get<std::string>() + ")\n";
    out += "plan: dp " + p["dp"].dump() + ", tp " + p["tp"].dump() + (p["sp"].get<bool>() ? " +sp" : "") + ", pp " +
           p["pp"].dump() + (p["vpp"].get<int64_t>() > 1 ? " (vpp " + p["vpp"].dump() + ")" : "") + ", cp " +
           p["cp"].dump() + ", ulysses " + p["ulysses"].dump() + ", zero " + p["zero"].dump() +
           (p["distributed_optimizer"].get<bool>() ? ", distributed optimizer" : "") +
           (p.contains("ep") ? ", ep " + p["ep"].dump() + " (etp " + p["etp"].dump() + ")" : "") + "\n";
    out += "training: seq " + t["seq_len"].dump() + ", micro-batch " + t["micro_batch"].dump() + ", global batch " +
           t["global_batch"].dump() + " (" + d["gradient_accumulation"].dump() + " microbatches per step), " +
           t["dtype"].get<std::string>() + ", " + t["optimizer"].get<std::string>() + ", recompute " +
           t["recompute"].get<std::string>() + ", " + t["attention"].get<std::string>() + " attention\n";
    const int64_t total = r["parameters"]["total"].get<int64_t>(), active = r["parameters"]["active"].get<int64_t>();
    const int64_t trained = r["parameters"]["trained"].get<int64_t>();
    out += "parameters: " + thousands(total) + (active < total ? " (" + thousands(active) + " active)" : "") +
           (trained < total ? ", " + thousands(trained) + " trained (the adapter; the rest frozen)" : "") + "\n";
    const json& o = peak["other_detail"];
    out += "peak device: stage " + peak["stage"].dump() + ", " + gib(peak["total"]) + " GiB of " + gib(mem["capacity"]) +
           " GiB: " + verdict_word(r) + "; " + verdict_of(r)["reason"].get<std::string>() + "\n";
    if (peak.contains("xla")) {
        const json& x = peak["xla"];
        // XLA's out-of-memory report's lines (as in XLA's BERT report, docs/sources.md): total = reserved + program
        // + arguments.
        out += "XLA: total HBM " + gib(x["total"]) + " GiB = reserved " + gib(x["reserved"]) + " + program " +
               gib(x["program"]) + " (HLO temp at " + phase_label(peak["peak_phase"].get<std::string>()) +
               ") + arguments " + gib(x["arguments"]) + " (weights and optimizer states); saved tensors " +
               gib(x["saved_all"]) + " GiB if all kept, " + gib(x["saved_floor"]) +
               " GiB XLA cannot rematerialize, " + gib(x["rematerialized"]) + " GiB rematerialized\n";
    } else {
        out += "peak memory: allocated " + gib(peak["allocated"]) + " GiB at " +
               phase_label(peak["peak_phase"].get<std::string>()) + ", reserved " + gib(peak["reserved"]) + " GiB (+" +
               gib(o["fragmentation"]) + " GiB allocator fragmentation, the measured median " +
               fixed(100 * verdict_of(r)["fragmentation_median_fraction"].get<double>(), 1) + "%), total " +
               gib(peak["total"]) + " GiB (+" + gib(o["overhead"]) + " GiB outside the allocator: " +
               verdict_of(r)["reserve"].get<std::string>() + ")\n";
    }
    const json& host = mem["host"];
    if (host["cpu_per_device"].get<int64_t>() > 0 || host["nvme_per_device"].get<int64_t>() > 0)
        out += "host (offload): " + gib(host["cpu_per_device"]) + " GiB CPU per device, " + gib(host["cpu_per_node"]) +
               " GiB CPU per node, " + gib(host["nvme_per_device"]) + " GiB NVMe per device\n";
    return out;
}

// XLA's largest program allocations of the peak stage (as XLA's BERT report lists them), one row per distinct
// buffer.
std::vector<Row> xla_rows(const json& r, bool raw_bytes) {
    std::vector<Row> rows{{"#", "size MiB", "unpadded MiB", "count", "shape", "module", "tensor", "kept"}};
    if (raw_bytes) rows[0][1] = "size", rows[0][2] = "unpadded size";
    int i = 0;
    for (const auto& a : r["memory"]["per_device"]["xla"]["largest_allocations"])
        rows.push_back({std::to_string(++i), raw_bytes ? a["size"].dump() : mib(a["size"]),
                        raw_bytes ? a["unpadded_size"].dump() : mib(a["unpadded_size"]), a["count"].dump(),
                        a["shape"].get<std::string>(), a["module"].get<std::string>(), a["tensor"].get<std::string>(),
                        a["kept"].get<bool>() ? "always" : "unless rematerialized"});
    return rows;
}
bool compiled(const json& r) { return r["memory"]["per_device"].contains("xla"); }
const char* const kXlaTitle = "Largest program allocations (XLA, peak stage; per device, MiB = 2^20 bytes)";

std::string notes_text(const json& r, const char* bullet) {
    std::string out;
    for (const auto& n : r["notes"]) out += std::string(bullet) + n.get<std::string>() + "\n";
    return out;
}

}  // namespace

std::string format_table(const json& r) {
    std::string out = headline(r);
    out += "\nMemory per device, by pipeline stage (GiB = 2^30 bytes)\n" + aligned(stage_rows(r));
    const std::vector<std::string> lines = timeline_lines(r);
    for (const auto& s : r["memory"]["stages"]) out += "\n" + timeline_title(s) + "\n" + aligned(timeline_rows(lines, s));
    if (compiled(r)) out += "\n" + std::string(kXlaTitle) + "\n" + aligned(xla_rows(r, false));
    out += "\nModules (per device after tensor parallelism; MiB = 2^20 bytes; activations per microbatch)\n" +
           aligned(module_rows(r, true, false));
    out += "\n" + performance_line(r) + "\nStep time" + (fits(r) ? "" : " if it fitted") + " (critical stage " +
           r["time"]["critical_stage"].dump() + ")\n" + aligned(time_rows(r, false));
    out += "\nCommunication per iteration, one device of stage " + r["time"]["critical_stage"].dump() + "\n" +
           aligned(comm_rows(r, false));
    if (!r["notes"].empty()) out += "\nNotes\n" + notes_text(r, "- ");
    return out;
}

std::string format_markdown(const json& r) {
    std::string out;
    for (char ch : headline(r)) out += ch == '\n' ? std::string("  \n") : std::string(1, ch);
    out += "\n**Memory per device, by pipeline stage** (GiB = 2^30 bytes)\n\n" + markdown(stage_rows(r));
    const std::vector<std::string> lines = timeline_lines(r);
    for (const auto& s : r["memory"]["stages"]) {
        const std::string title = timeline_title(s);
        const size_t paren = title.find(" (");
        out += "\n**" + title.substr(0, paren) + "**" + title.substr(paren) + "\n\n" + markdown(timeline_rows(lines, s));
    }
    if (compiled(r)) out += "\n**" + std::string(kXlaTitle) + "**\n\n" + markdown(xla_rows(r, false));
    out += "\n**Modules** (per device after tensor parallelism; MiB = 2^20 bytes; activations per microbatch)\n\n" +
           markdown(module_rows(r, false, false));
    out += "\n" + performance_line(r) + "\n**Step time" + (fits(r) ? "" : " (if it fitted)") + "**\n\n" +
           markdown(time_rows(r, false));
    out += "\n**Communication per iteration**\n\n" + markdown(comm_rows(r, false));
    if (!r["notes"].empty()) out += "\n**Notes**\n\n" + notes_text(r, "- ");
    return out;
}

// Sections, each one table, separated by a blank line: stages, modules, step time and
// communication (as before), then the memory verdict and the memory timeline of every stage.
std::string format_csv(const json& r) {
    return csv(stage_rows_raw(r)) + "\n" + csv(module_rows(r, false, true)) + "\n" + csv(time_rows(r, true)) + "\n" +
           csv(comm_rows(r, true)) + "\n" + csv(verdict_rows_raw(r)) + "\n" + csv(timeline_rows_raw(r)) +
           (compiled(r) ? "\n" + csv(xla_rows(r, true)) : "");
}

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
