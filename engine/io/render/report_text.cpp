// The report for people, from the engine's own structs (report/report.h): the table for terminals (in the style of the
// Megatron analysis tool's per-module report, docs/sources.md), Markdown for docs and CSV for spreadsheets. Every
// figure is the report's; this file chooses which to show and writes them in words and units. Amounts are the JSON
// report's (bytes as whole numbers, seconds as written), so that the three formats and the JSON agree digit for digit.
#include "io/render/report_text.h"

#include <cctype>
#include <cmath>

#include "comm/collective_time.h"
#include "io/codec/json_writer.h"
#include "io/contract/scenario_schema.h"
#include "io/contract/xla_json.h"
#include "io/render/text_table.h"
#include "memory/allocator.h"
#include "memory/memory_terms.h"
#include "scenario/dimension.h"
#include "scenario/names.h"

namespace shardcalc {
namespace {

using namespace text;

double finite(double v) { return std::isfinite(v) ? v : 0.0; }
std::string gib_of(double bytes) { return gib(static_cast<double>(whole(bytes))); }
std::string mib_of(double bytes) { return mib(static_cast<double>(whole(bytes))); }
std::string raw_bytes(double bytes) { return std::to_string(whole(bytes)); }

// A timeline phase in words ("forward_end" -> "end of forward": memory/memory_terms.h).
std::string phase_label(std::string_view phase) { return label_of(kMemoryPhases, std::string(phase)); }
std::string_view peak_phase(const StageMemory& s) { return s.timeline.empty() ? std::string_view() : s.timeline[s.peak_phase].name; }

// The verdict's words in capitals ("DOES NOT FIT": memory/allocator.h kVerdicts).
std::string verdict_word(const Report& r) {
    std::string word = label_of(kVerdicts, verdict_name(r.verdict.verdict));
    for (char& ch : word) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return word;
}

std::string joined(const std::vector<int64_t>& values, const char* sep) {
    std::string out;
    for (size_t i = 0; i < values.size(); ++i) out += (i ? sep : "") + std::to_string(values[i]);
    return out;
}

std::string joined(const std::vector<std::string>& values, const char* sep) {
    std::string out;
    for (size_t i = 0; i < values.size(); ++i) out += (i ? sep : "") + values[i];
    return out;
}

// The stage table's columns: the lines that make up the allocated peak, then allocated, fragmentation, reserved,
// overhead outside the allocator and total. `detail` columns that are zero on every stage are left out of the human
// tables.
struct StageColumn {
    const char* head;
    double (*bytes)(const StageMemory&);
    bool detail;
};
const StageColumn kStageColumns[] = {
    {"weights", [](const StageMemory& s) { return s.weights; }, false},
    {"gradients", [](const StageMemory& s) { return s.gradients; }, false},
    {"optimizer", [](const StageMemory& s) { return s.optimizer; }, false},
    {"activations", [](const StageMemory& s) { return s.activations; }, false},
    {"logits", [](const StageMemory& s) { return s.other.logits; }, true},
    {"comm buffers", [](const StageMemory& s) { return s.other.comm_buffers; }, true},
    {"cast weights", [](const StageMemory& s) { return s.other.cast_weights; }, true},
    {"transient", [](const StageMemory& s) { return s.other.transient; }, true},
    {"workspace", [](const StageMemory& s) { return s.other.workspace; }, true},
    {"allocated", [](const StageMemory& s) { return s.allocated(); }, false},
    {"fragmentation", [](const StageMemory& s) { return s.other.fragmentation; }, false},
    {"reserved", [](const StageMemory& s) { return s.reserved(); }, false},
    {"overhead", [](const StageMemory& s) { return s.other.overhead; }, false},
    {"total", [](const StageMemory& s) { return s.total(); }, false},
};

std::vector<Row> stage_rows(const Report& r) {
    std::vector<const StageColumn*> shown;
    for (const StageColumn& c : kStageColumns) {
        bool any = !c.detail;
        for (const StageMemory& s : r.stages) any = any || whole(c.bytes(s)) != 0;
        if (any) shown.push_back(&c);
    }
    Row head{"stage", "layers", "in-flight"};
    for (const StageColumn* c : shown) head.push_back(c->head);
    std::vector<Row> rows{head};
    for (const StageMemory& s : r.stages) {
        Row row{std::to_string(s.rank), std::to_string(s.layers), joined(s.inflight, "/")};
        for (const StageColumn* c : shown) row.push_back(gib_of(c->bytes(s)));
        rows.push_back(row);
    }
    return rows;
}

// CSV stage table: every column, raw bytes; the columns added with the timeline come last so the original ones keep
// their positions.
std::vector<Row> stage_rows_raw(const Report& r) {
    std::vector<Row> rows{{"stage", "layers", "in-flight", "weights", "gradients", "optimizer", "activations", "logits",
                           "comm buffers", "cast weights", "transient", "overhead", "total", "workspace",
                           "fragmentation", "allocated", "reserved", "peak phase"}};
    for (const StageMemory& s : r.stages) {
        const OtherBytes& o = s.other;
        rows.push_back({std::to_string(s.rank), std::to_string(s.layers), joined(s.inflight, "/"), raw_bytes(s.weights),
                        raw_bytes(s.gradients), raw_bytes(s.optimizer), raw_bytes(s.activations), raw_bytes(o.logits),
                        raw_bytes(o.comm_buffers), raw_bytes(o.cast_weights), raw_bytes(o.transient),
                        raw_bytes(o.overhead), raw_bytes(s.total()), raw_bytes(o.workspace), raw_bytes(o.fragmentation),
                        raw_bytes(s.allocated()), raw_bytes(s.reserved()), std::string(peak_phase(s))});
    }
    return rows;
}

// The lines of the timeline (indexes into kMemoryLines) that are non-zero in some phase of some stage: the human
// tables show only those.
std::vector<size_t> timeline_lines(const Report& r) {
    std::vector<size_t> out;
    for (size_t i = 0; i < kMemoryLineCount; ++i) {
        bool any = false;
        for (const StageMemory& s : r.stages)
            for (const MemoryPhase& ph : s.timeline) any = any || whole(line_bytes(ph.lines, i)) != 0;
        if (any) out.push_back(i);
    }
    return out;
}

// One stage's memory over the step (GiB allocated at each phase), the peak phase marked.
std::vector<Row> timeline_rows(const std::vector<size_t>& lines, const StageMemory& s) {
    Row head{"phase", "allocated"};
    for (size_t l : lines) head.push_back(spaced(kMemoryLines[l].key));
    std::vector<Row> rows{head};
    for (const MemoryPhase& ph : s.timeline) {
        Row row{phase_label(ph.name) + (ph.name == peak_phase(s) ? " (peak)" : ""), gib_of(ph.lines.allocated())};
        for (size_t l : lines) row.push_back(gib_of(line_bytes(ph.lines, l)));
        rows.push_back(row);
    }
    return rows;
}

std::string timeline_title(const StageMemory& s) {
    const std::string what = s.timeline.empty() ? std::string() : std::string(s.timeline[s.peak_phase].what);
    return "Memory over the step, stage " + std::to_string(s.rank) + " (GiB allocated at each phase; peak at " +
           phase_label(peak_phase(s)) + (what.empty() ? "" : ": " + what) + ")";
}

// CSV: every stage's timeline in one table, raw bytes, phase names as in the report.
std::vector<Row> timeline_rows_raw(const Report& r) {
    Row head{"stage", "phase", "allocated"};
    for (const Term& t : kMemoryLines) head.push_back(spaced(t.key));
    head.push_back("peak");
    head.push_back("what");
    std::vector<Row> rows{head};
    for (const StageMemory& s : r.stages)
        for (const MemoryPhase& ph : s.timeline) {
            Row row{std::to_string(s.rank), std::string(ph.name), raw_bytes(ph.lines.allocated())};
            for (size_t i = 0; i < kMemoryLineCount; ++i) row.push_back(raw_bytes(line_bytes(ph.lines, i)));
            row.push_back(ph.name == peak_phase(s) ? "yes" : "no");
            row.push_back(std::string(ph.what));
            rows.push_back(row);
        }
    return rows;
}

// CSV: the verdict and the peak device's memory, one row.
std::vector<Row> verdict_rows_raw(const Report& r) {
    const StageMemory& peak = r.peak();
    return {{"verdict", "margin", "reason", "peak stage", "peak phase", "allocated", "reserved", "total", "capacity",
             "fragmentation median fraction", "fragmentation worst fraction"},
            {verdict_name(r.verdict.verdict), raw_bytes(r.verdict.margin), reason_text(r.verdict),
             std::to_string(peak.rank), std::string(peak_phase(peak)), raw_bytes(peak.allocated()),
             raw_bytes(peak.reserved()), raw_bytes(peak.total()), raw_bytes(r.capacity),
             json_number(r.fragmentation().typical), json_number(r.fragmentation().worst)}};
}

std::vector<Row> module_rows(const Report& r, bool tree, bool raw) {
    std::vector<Row> rows{{"module", "param shape", "parameters", raw ? "weight bytes" : "weights MiB",
                           raw ? "activation bytes/microbatch" : "activations MiB/microbatch"}};
    for (const ModuleRow& m : r.modules) {
        std::string name = m.name;
        if (m.repeat > 1) name += " x " + std::to_string(m.repeat) + " (per layer)";
        if (tree) name = (m.depth ? std::string(static_cast<size_t>(m.depth - 1) * 3, ' ') + "|- " : "") + name;
        else name = m.path;
        const int64_t parameters = whole(m.parameters);
        if (tree && m.is_op && parameters == 0 && whole(m.activation_bytes) == 0) continue;
        rows.push_back({name, joined(m.shapes, ", "), raw ? std::to_string(parameters) : thousands(parameters),
                        raw ? raw_bytes(m.weight_bytes) : mib_of(m.weight_bytes),
                        raw ? raw_bytes(m.activation_bytes) : mib_of(m.activation_bytes)});
    }
    return rows;
}

std::string human_bytes(double b) {
    if (b >= kGiB) return fixed(b / kGiB, 2) + " GiB";
    if (b >= kMiB) return fixed(b / kMiB, 1) + " MiB";
    return fixed(b / 1024, 1) + " KiB";
}

std::string seconds_text(double s) { return s >= 1 ? fixed(s, 3) + " s" : fixed(s * 1e3, 2) + " ms"; }

std::vector<Row> time_rows(const Report& r, bool raw) {
    std::vector<Row> rows{{"part of the step", raw ? "seconds" : "time", "share"}};
    const double step = finite(r.perf.step_seconds);
    for (const auto& [name, seconds] : r.perf.breakdown) {
        const double s = finite(seconds);
        if (!raw && s <= 0) continue;
        rows.push_back({std::string(name), raw ? json_number(s) : seconds_text(s),
                        fixed(step > 0 ? 100 * s / step : 0, 1) + "%"});
    }
    rows.push_back({"step", raw ? json_number(step) : seconds_text(step), "100.0%"});
    return rows;
}

std::vector<Row> comm_rows(const Report& r, bool raw) {
    std::vector<Row> rows{{"dimension", "collective", "purpose", "group", "first group", "scale-out", "message",
                           "count/iteration", "volume/iteration", "time", "exposed"}};
    if (r.perf.comm.empty()) return rows;
    auto bytes = [&](double b) { return raw ? raw_bytes(b) : human_bytes(static_cast<double>(whole(b))); };
    auto secs = [&](double s) { return raw ? json_number(finite(s)) : seconds_text(finite(s)); };
    for (const CommEntry& e : r.perf.comm[r.perf.comm_stage].entries) {
        const std::vector<std::string> first = first_members(e.group);
        std::string members;
        for (size_t i = 0; i < first.size() && i < 4; ++i) members += (i ? " " : "") + first[i];
        if (first.size() > 4) members += " ...";
        rows.push_back({name_of_dim(e.dimension), collective_name(e.kind), std::string(e.purpose),
                        std::to_string(e.group.size), "[" + members + "]", e.group.scale_out ? "yes" : "no",
                        bytes(e.bytes), fixed(e.count, 0), bytes(e.volume()), secs(e.seconds()),
                        secs(e.exposed_seconds)});
    }
    return rows;
}

std::string performance_line(const Report& r) {
    const Metrics& m = r.metrics;
    // Times of a plan that does not fit (or may not) are what it would take if it did.
    const std::string hypothetical = r.fits() ? "" : "if it fitted, ";
    std::string out = hypothetical + "step: " + seconds_text(finite(r.perf.step_seconds)) + ", " +
                      thousands(static_cast<int64_t>(finite(m.tokens_per_second))) + " tokens/s, " +
                      fixed(finite(m.tflops_per_device), 1) + " model TFLOP/s per device, MFU " +
                      fixed(100 * finite(m.mfu), 1) + "%, HFU " + fixed(100 * finite(m.hfu), 1) +
                      "%, pipeline bubble " + fixed(100 * finite(m.bubble_fraction), 1) + "%\n";
    if (!m.efficiency_warning.empty()) out += "warning: " + m.efficiency_warning + "\n";
    if (r.priced_run()) {
        out += hypothetical + "training run: " + fixed(finite(m.run_days), 1) + " days, " +
               thousands(static_cast<int64_t>(finite(m.run_gpu_hours))) + " GPU-hours" +
               (r.config.s.hardware.price_per_gpu_hour > 0
                    ? ", cost " + thousands(static_cast<int64_t>(finite(m.run_cost)))
                    : std::string()) +
               "\n";
    }
    return out;
}

std::string headline(const Report& r) {
    const Scenario& sc = r.config.s;
    const Derived& d = r.config.d;
    const ParallelSpec& p = sc.parallel;
    const TrainingSpec& t = sc.training;
    const StageMemory& peak = r.peak();
    const std::string model = sc.model.preset.empty() ? "custom model" : sc.model.preset;
    std::string out = model + " on " + std::to_string(d.world_size) + " x " + sc.hardware.preset + " (" +
                      name_of(sc.framework) + ")\n";
    out += "plan: dp " + std::to_string(p.dp) + ", tp " + std::to_string(p.tp) + (p.sp ? " +sp" : "") + ", pp " +
           std::to_string(p.pp) + (p.vpp > 1 ? " (vpp " + std::to_string(p.vpp) + ")" : "") + ", cp " +
           std::to_string(p.cp) + ", ulysses " + std::to_string(p.ulysses) + ", zero " + std::to_string(p.zero) +
           (p.distributed_optimizer ? ", distributed optimizer" : "") +
           (applies(Applies::MoeOrEp, sc) ? ", ep " + std::to_string(p.ep) + " (etp " + std::to_string(*p.etp) + ")" : "") +
           "\n";
    out += "training: seq " + std::to_string(d.seq_len) + ", micro-batch " + std::to_string(t.micro_batch) +
           ", global batch " + std::to_string(d.samples_per_step) + " (" + std::to_string(d.microbatches) +
           " microbatches per step), " + name_of(t.dtype) + ", " + name_of(t.optimizer) + ", recompute " +
           name_of(t.recompute) + ", " + name_of(t.attention) + " attention\n";
    const int64_t total = whole(r.parameters.total), active = whole(r.parameters.active);
    const int64_t trained = whole(r.parameters.trained);
    out += "parameters: " + thousands(total) + (active < total ? " (" + thousands(active) + " active)" : "") +
           (trained < total ? ", " + thousands(trained) + " trained (the adapter; the rest frozen)" : "") + "\n";
    out += "peak device: stage " + std::to_string(peak.rank) + ", " + gib_of(peak.total()) + " GiB of " +
           gib_of(r.capacity) + " GiB: " + verdict_word(r) + "; " + reason_text(r.verdict) + "\n";
    if (peak.compiled) {
        const XlaProgram& x = peak.xla;
        // XLA's out-of-memory report's lines (as in XLA's BERT report, docs/sources.md): total = reserved + program
        // + arguments.
        out += "XLA: total HBM " + gib_of(x.total) + " GiB = reserved " + gib_of(x.reserved) + " + program " +
               gib_of(x.program) + " (HLO temp at " + phase_label(peak_phase(peak)) + ") + arguments " +
               gib_of(x.arguments) + " (weights and optimizer states); saved tensors " + gib_of(x.saved_all) +
               " GiB if all kept, " + gib_of(x.saved_floor) + " GiB XLA cannot rematerialize, " +
               gib_of(x.rematerialized) + " GiB rematerialized\n";
    } else {
        out += "peak memory: allocated " + gib_of(peak.allocated()) + " GiB at " + phase_label(peak_phase(peak)) +
               ", reserved " + gib_of(peak.reserved()) + " GiB (+" + gib_of(peak.other.fragmentation) +
               " GiB allocator fragmentation, the measured median " + fixed(100 * r.fragmentation().typical, 1) +
               "%), total " + gib_of(peak.total()) + " GiB (+" + gib_of(peak.other.overhead) +
               " GiB outside the allocator: " + r.reserve_name() + ")\n";
    }
    const Estimate::HostMemory host = r.host_memory();
    if (whole(host.cpu_per_device) > 0 || whole(host.nvme_per_device) > 0)
        out += "host (offload): " + gib_of(host.cpu_per_device) + " GiB CPU per device, " + gib_of(host.cpu_per_node) +
               " GiB CPU per node, " + gib_of(host.nvme_per_device) + " GiB NVMe per device\n";
    return out;
}

// XLA's largest program allocations of the peak stage (as XLA's BERT report lists them), one row per distinct buffer.
std::vector<Row> xla_rows(const Report& r, bool raw) {
    std::vector<Row> rows{{"#", "size MiB", "unpadded MiB", "count", "shape", "module", "tensor", "kept"}};
    if (raw) rows[0][1] = "size", rows[0][2] = "unpadded size";
    int i = 0;
    for (const XlaBuffer& b : r.peak().xla.largest)
        rows.push_back({std::to_string(++i), raw ? raw_bytes(b.layout.bytes) : mib_of(b.layout.bytes),
                        raw ? raw_bytes(b.layout.unpadded) : mib_of(b.layout.unpadded), std::to_string(b.count),
                        xla_shape(b), b.module, b.tensor, b.kept ? "always" : "unless rematerialized"});
    return rows;
}
const char* const kXlaTitle = "Largest program allocations (XLA, peak stage; per device, MiB = 2^20 bytes)";

std::string notes_text(const Report& r, const char* bullet) {
    std::string out;
    for (const std::string& n : r.notes) out += std::string(bullet) + n + "\n";
    return out;
}

}  // namespace

std::string format_table(const Report& r) {
    std::string out = headline(r);
    out += "\nMemory per device, by pipeline stage (GiB = 2^30 bytes)\n" + aligned(stage_rows(r));
    const std::vector<size_t> lines = timeline_lines(r);
    for (const StageMemory& s : r.stages) out += "\n" + timeline_title(s) + "\n" + aligned(timeline_rows(lines, s));
    if (r.peak().compiled) out += "\n" + std::string(kXlaTitle) + "\n" + aligned(xla_rows(r, false));
    out += "\nModules (per device after tensor parallelism; MiB = 2^20 bytes; activations per microbatch)\n" +
           aligned(module_rows(r, true, false));
    out += "\n" + performance_line(r) + "\nStep time" + (r.fits() ? "" : " if it fitted") + " (critical stage " +
           std::to_string(r.perf.pipeline.critical_stage) + ")\n" + aligned(time_rows(r, false));
    out += "\nCommunication per iteration, one device of stage " + std::to_string(r.perf.pipeline.critical_stage) +
           "\n" + aligned(comm_rows(r, false));
    if (!r.notes.empty()) out += "\nNotes\n" + notes_text(r, "- ");
    return out;
}

std::string format_markdown(const Report& r) {
    std::string out;
    for (char ch : headline(r)) out += ch == '\n' ? std::string("  \n") : std::string(1, ch);
    out += "\n**Memory per device, by pipeline stage** (GiB = 2^30 bytes)\n\n" + markdown(stage_rows(r));
    const std::vector<size_t> lines = timeline_lines(r);
    for (const StageMemory& s : r.stages) {
        const std::string title = timeline_title(s);
        const size_t paren = title.find(" (");
        out += "\n**" + title.substr(0, paren) + "**" + title.substr(paren) + "\n\n" + markdown(timeline_rows(lines, s));
    }
    if (r.peak().compiled) out += "\n**" + std::string(kXlaTitle) + "**\n\n" + markdown(xla_rows(r, false));
    out += "\n**Modules** (per device after tensor parallelism; MiB = 2^20 bytes; activations per microbatch)\n\n" +
           markdown(module_rows(r, false, false));
    out += "\n" + performance_line(r) + "\n**Step time" + (r.fits() ? "" : " (if it fitted)") + "**\n\n" +
           markdown(time_rows(r, false));
    out += "\n**Communication per iteration**\n\n" + markdown(comm_rows(r, false));
    if (!r.notes.empty()) out += "\n**Notes**\n\n" + notes_text(r, "- ");
    return out;
}

// Sections, each one table, separated by a blank line: stages, modules, step time and communication, then the memory
// verdict and the memory timeline of every stage.
std::string format_csv(const Report& r) {
    return csv(stage_rows_raw(r)) + "\n" + csv(module_rows(r, false, true)) + "\n" + csv(time_rows(r, true)) + "\n" +
           csv(comm_rows(r, true)) + "\n" + csv(verdict_rows_raw(r)) + "\n" + csv(timeline_rows_raw(r)) +
           (r.peak().compiled ? "\n" + csv(xla_rows(r, true)) : "");
}

}  // namespace shardcalc
