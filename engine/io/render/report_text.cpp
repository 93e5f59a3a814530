// The report for people, from the engine's own structs (report/report.h): the table for terminals (in the style of the
// Megatron analysis tool's per-module report, docs/sources.md) and CSV for spreadsheets; the Markdown is
// io/render/report_markdown.cpp. Every figure is the report's; these choose which to show and write them in words and
// units, with the JSON report's amounts (bytes as whole numbers, seconds as written), so that the formats and the JSON
// agree digit for digit.
#include "io/render/answer_text.h"

#include <cctype>

#include "io/codec/json_writer.h"
#include "io/contract/scenario_schema.h"
#include "io/render/report_rows.h"
#include "io/render/text_table.h"
#include "memory/allocator.h"
#include "scenario/names.h"

namespace shardcalc {
namespace {

using namespace text;
using namespace report_rows;

std::string gib_of(double bytes) { return amount(bytes, ByteUnit::GiB); }

// The verdict's words in capitals ("DOES NOT FIT": memory/allocator.h kVerdicts).
std::string verdict_word(const Report& r) {
    std::string word = label_of(kVerdicts, verdict_name(r.verdict.verdict));
    for (char& ch : word) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return word;
}

// CSV stage table: every column, raw bytes; the columns added with the timeline come last so the original ones keep
// their positions.
std::vector<Row> stage_rows_raw(const Report& r) {
    std::vector<Row> rows{{"stage", "layers", "in-flight", "weights", "gradients", "optimizer", "activations", "logits",
                           "comm buffers", "cast weights", "transient", "overhead", "total", "workspace",
                           "fragmentation", "allocated", "reserved", "peak phase"}};
    for (const StageMemory& s : r.stages) {
        const OtherBytes& o = s.other;
        std::string inflight;
        for (size_t i = 0; i < s.inflight.size(); ++i) inflight += (i ? "/" : "") + std::to_string(s.inflight[i]);
        rows.push_back({std::to_string(s.rank), std::to_string(s.layers), inflight, raw_bytes(s.weights),
                        raw_bytes(s.gradients), raw_bytes(s.optimizer), raw_bytes(s.activations), raw_bytes(o.logits),
                        raw_bytes(o.comm_buffers), raw_bytes(o.cast_weights), raw_bytes(o.transient),
                        raw_bytes(o.overhead), raw_bytes(s.total()), raw_bytes(o.workspace), raw_bytes(o.fragmentation),
                        raw_bytes(s.allocated()), raw_bytes(s.reserved()), std::string(peak_phase(s))});
    }
    return rows;
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
    const ResolvedScenario& sc = r.config.s;
    const Derived& d = r.config.d;
    const ResolvedParallel& p = sc.parallel;
    const ResolvedTraining& t = sc.training;
    const StageMemory& peak = r.peak();
    const std::string model = sc.model.preset.empty() ? "custom model" : sc.model.preset;
    std::string out = model + " on " + std::to_string(d.world_size) + " x " + sc.hardware.preset + " (" +
                      name_of(sc.framework) + ")\n";
    out += "plan: dp " + std::to_string(p.dp) + ", tp " + std::to_string(p.tp) + (p.sp ? " +sp" : "") + ", pp " +
           std::to_string(p.pp) + (p.vpp > 1 ? " (vpp " + std::to_string(p.vpp) + ")" : "") + ", cp " +
           std::to_string(p.cp) + ", ulysses " + std::to_string(p.ulysses) + ", zero " + std::to_string(p.zero) +
           (p.distributed_optimizer ? ", distributed optimizer" : "") +
           (applies(Applies::MoeOrEp, sc) ? ", ep " + std::to_string(p.ep) + " (etp " + std::to_string(p.etp) + ")" : "") +
           "\n";
    out += "training: seq " + std::to_string(t.seq_len) + ", micro-batch " + std::to_string(t.micro_batch) +
           ", global batch " + std::to_string(t.global_batch) + " (" + std::to_string(d.microbatches) +
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

std::string notes_text(const Report& r, const char* bullet) {
    std::string out;
    for (const std::string& n : r.notes) out += std::string(bullet) + n + "\n";
    return out;
}

}  // namespace

std::string format_table(const Report& r) {
    const ByteUnit u = ByteUnit::GiB;
    std::string out = headline(r);
    out += "\n" + stage_title(u) + "\n" + aligned(stage_rows(r, u));
    const std::vector<size_t> lines = timeline_lines(r);
    for (const StageMemory& s : r.stages) out += "\n" + timeline_title(s, u) + "\n" + aligned(timeline_rows(lines, s, u));
    if (r.peak().compiled) out += "\n" + xla_title(u) + "\n" + aligned(xla_rows(r, false, u));
    out += "\n" + module_title(u) + "\n" + aligned(module_rows(r, true, false, u));
    out += "\n" + performance_line(r) + "\nStep time" + (r.fits() ? "" : " if it fitted") + " (critical stage " +
           std::to_string(r.perf.pipeline.critical_stage) + ")\n" + aligned(time_rows(r, false));
    out += "\nCommunication per iteration, one device of stage " + std::to_string(r.perf.pipeline.critical_stage) +
           "\n" + aligned(comm_rows(r, false, u));
    if (!r.notes.empty()) out += "\nNotes\n" + notes_text(r, "- ");
    return out;
}

// Sections, each one table, separated by a blank line: stages, modules, step time and communication, then the memory
// verdict and the memory timeline of every stage.
std::string format_csv(const Report& r) {
    const ByteUnit u = ByteUnit::GiB;  // only the headers' words: the CSV's amounts are bytes
    return csv(stage_rows_raw(r)) + "\n" + csv(module_rows(r, false, true, u)) + "\n" + csv(time_rows(r, true)) + "\n" +
           csv(comm_rows(r, true, u)) + "\n" + csv(verdict_rows_raw(r)) + "\n" + csv(timeline_rows_raw(r)) +
           (r.peak().compiled ? "\n" + csv(xla_rows(r, true, u)) : "");
}

}  // namespace shardcalc
