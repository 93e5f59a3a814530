// The report as Markdown for a wiki, an issue or a design doc: what `shardcalc estimate --format markdown` prints and
// what the page's "Copy Markdown" copies (through the whole engine, web/src/js/engine-worker.js), in the reader's unit.
// A summary first (the plan in one line, the memory verdict and its reason, the step time and the training run), then
// the tables (memory per stage, the peak stage's memory over the step, XLA's largest allocations, modules, the step's
// parts, communication) and the notes. Text that comes from the scenario (a device's or model's name) is escaped so that it
// shows as written and breaks no table.
#include "io/render/answer_text.h"

#include <cctype>
#include <cmath>
#include <utility>

#include "core/decimal.h"
#include "io/codec/json_writer.h"
#include "io/presets.h"
#include "io/render/report_rows.h"
#include "memory/allocator.h"
#include "scenario/names.h"

namespace shardcalc {
namespace {

using namespace report_rows;
using text::markdown_text;

// Fixed point with thousands separators, as the page writes numbers ("41,884", "1,234.5").
std::string grouped(double v, int digits) {
    std::string s = decimal(v, digits);
    const size_t start = s[0] == '-' ? 1 : 0;
    size_t end = s.find('.');
    if (end == std::string::npos) end = s.size();
    for (size_t at = end; at > start + 3; at -= 3) s.insert(at - 3, ",");
    return s;
}

// Seconds in the unit that reads best, about three significant digits ("1.56 s", "314 ms", "52.4 µs"), as the page
// shows a duration.
std::string duration(double seconds) {
    const double a = std::fabs(seconds);
    const double v = a >= 1 || a == 0 ? seconds : a >= 1e-3 ? seconds * 1e3 : seconds * 1e6;
    const char* unit = a >= 1 || a == 0 ? "s" : a >= 1e-3 ? "ms" : "\u00b5s";
    const int digits = std::fabs(v) >= 100 || v == 0 ? 0 : std::fabs(v) >= 10 ? 1 : 2;
    return grouped(v, digits) + " " + unit;
}

std::string percent(double fraction) { return grouped(100 * finite(fraction), 1) + " %"; }

// US dollars, the sign escaped (two on a line read as inline math to GitHub's renderer): whole dollars from $100 up,
// cents below; a price keeps up to four decimals as typed ("$2.50", "$0.0125").
std::string dollars(double v) { return "\\$" + grouped(v, std::fabs(v) >= 100 ? 0 : 2); }
std::string price(double v) {
    std::string s = grouped(v, 4);
    while (s.size() > 1 && s.back() == '0' && s.size() - s.find('.') > 3) s.pop_back();
    return "\\$" + s;
}

std::string in_unit(double bytes, ByteUnit u) { return amount(bytes, u) + " " + byte_scale(u, 0).name; }

std::string capitalized(std::string text) {
    if (!text.empty()) text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
    return text;
}

std::string sentence(std::string text) {
    if (text.empty()) return text;
    text = capitalized(std::move(text));
    const char last = text.back();
    return last == '.' || last == '!' || last == '?' ? text : text + ".";
}

// The plan in one line, as the page's headline names it: model, framework, the parallel degrees, ZeRO, the batch,
// the precision, recompute and the device.
std::string plan_line(const Report& r) {
    const ResolvedScenario& s = r.config.s;
    const ResolvedParallel& p = s.parallel;
    std::string model = "Custom model";
    if (!s.model.preset.empty()) {
        const nlohmann::json* preset = model_preset(s.model.preset);
        model = preset && preset->contains("name") ? (*preset)["name"].get<std::string>() : s.model.preset;
    }
    std::string degrees = "dp " + grouped(static_cast<double>(p.dp), 0) + " \u00d7 tp " +
                          grouped(static_cast<double>(p.tp), 0) + " \u00d7 pp " + grouped(static_cast<double>(p.pp), 0);
    const std::pair<const char*, int64_t> more[] = {{"vpp", p.vpp}, {"cp", p.cp}, {"ulysses", p.ulysses}, {"ep", p.ep}};
    for (const auto& [name, degree] : more)
        if (degree > 1) degrees += std::string(" \u00d7 ") + name + " " + grouped(static_cast<double>(degree), 0);
    const std::string device = !s.hardware.name.empty() ? s.hardware.name
                               : !s.hardware.preset.empty() ? s.hardware.preset : "custom device";
    const std::string dot = " \u00b7 ";
    return model + dot + name_of(s.framework) + dot + degrees + (p.zero ? dot + "ZeRO-" + std::to_string(p.zero) : "") +
           dot + "seq " + grouped(static_cast<double>(r.config.s.training.seq_len), 0) + dot + "micro-batch " +
           grouped(static_cast<double>(s.training.micro_batch), 0) + dot + "global batch " +
           grouped(static_cast<double>(r.config.s.training.global_batch), 0) + dot + name_of(s.training.dtype) + dot +
           "recompute " + name_of(s.training.recompute) + dot + device;
}

// The memory verdict: the peak against the capacity, why, the margin and where the peak falls.
std::string verdict_paragraph(const Report& r, ByteUnit u) {
    const StageMemory& peak = r.peak();
    const std::string label = label_of(kVerdicts, verdict_name(r.verdict.verdict));
    std::string out = "Per-device peak **" + in_unit(peak.total(), u) + "** of " + in_unit(r.capacity, u) + ": **" +
                      label + "**. " + sentence(reason_text(r.verdict, u)) + " Margin " + in_unit(r.verdict.margin, u) +
                      (peak.compiled ? " as XLA compiles it" : " at the worst measured fragmentation") +
                      "; peak on stage " + std::to_string(peak.rank) + " at " + phase_label(peak_phase(peak)) + ": ";
    if (peak.compiled)
        out += "program " + in_unit(peak.xla.program, u) + ", arguments " + in_unit(peak.xla.arguments, u) +
               ", runtime reserve " + in_unit(peak.xla.reserved, u) + "; ";
    else
        out += "allocated " + in_unit(peak.allocated(), u) + ", reserved " + in_unit(peak.reserved(), u) + "; ";
    const double total = static_cast<double>(whole(r.parameters.total));
    const double active = static_cast<double>(whole(r.parameters.active));
    out += "parameters " + grouped(total, 0) + (active < total ? " (" + grouped(active, 0) + " active)" : "") + ".\n";
    const Estimate::HostMemory host = r.host_memory();
    if (whole(host.cpu_per_device) > 0 || whole(host.nvme_per_device) > 0)
        out += "\nOffloaded to the host: " + in_unit(host.cpu_per_device, u) + " CPU memory per device, " +
               in_unit(host.cpu_per_node, u) + " per node, " + in_unit(host.nvme_per_device, u) + " NVMe per device.\n";
    return out;
}

// The step time and the training run; a plan that does not fit (or may not) gets what it would take if it fitted.
std::string time_paragraph(const Report& r) {
    const Metrics& m = r.metrics;
    const std::string step = duration(finite(r.perf.step_seconds));
    std::string figures = grouped(finite(m.tokens_per_second), 0) + " tokens/s, MFU " + percent(m.mfu) + " (HFU " +
                          percent(m.hfu) + "), " + grouped(finite(m.tflops_per_device), 1) +
                          " model TFLOP/s per device, pipeline bubble " + percent(m.bubble_fraction);
    if (r.priced_run()) {
        const double per_hour = r.config.s.hardware.price_per_gpu_hour;
        figures += "; training run " + grouped(finite(m.run_days), 1) + " days, " + grouped(finite(m.run_gpu_hours), 0) +
                   " GPU-hours" +
                   (per_hour > 0 ? ", cost " + dollars(finite(m.run_cost)) + " at " + price(per_hour) + " per GPU-hour"
                                 : std::string());
    }
    std::string out = r.fits() ? "Step time **" + step + "**, " + figures + ".\n"
                               : std::string("_Hypothetical, if it fitted (the plan ") +
                                     (r.verdict.verdict == Verdict::Tight ? "is tight on memory" : "does not fit") +
                                     ")_: step time " + step + ", " + figures + ".\n";
    if (!m.efficiency_warning.empty()) out += "\nWarning: " + markdown_text(m.efficiency_warning) + "\n";
    return out;
}

// A table for Markdown: every cell's text escaped (the `code` column's as inline code instead), heads capitalized.
std::string table(std::vector<text::Row> rows, int code = -1) {
    for (size_t i = 0; i < rows.size(); ++i)
        for (size_t j = 0; j < rows[i].size(); ++j) {
            std::string& cell = rows[i][j];
            if (i > 0 && static_cast<int>(j) == code) cell = "`" + cell + "`";
            else cell = markdown_text(i == 0 ? capitalized(cell) : cell);
        }
    return text::markdown(rows);
}

// "**Title** (what its numbers are)" from a title with its parenthesis.
std::string heading(const std::string& title) {
    const size_t paren = title.find(" (");
    return paren == std::string::npos ? "**" + title + "**" : "**" + title.substr(0, paren) + "**" + title.substr(paren);
}

}  // namespace

std::string format_markdown(const Report& r, ByteUnit u) {
    std::string out = "**shardcalc**: " + markdown_text(plan_line(r)) + "\n\n" + verdict_paragraph(r, u) + "\n" +
                      time_paragraph(r);
    out += "\n" + heading(stage_title(u)) + "\n\n" + table(stage_rows(r, u));
    // Over the step, the peak stage alone (the terminal's table gives every stage's): a document stays readable at
    // hundreds of stages, and the stage table above has them all.
    out += "\n" + heading(timeline_title(r.peak(), u)) + "\n\n" + table(timeline_rows(timeline_lines(r), r.peak(), u));
    if (r.peak().compiled) out += "\n" + heading(xla_title(u)) + "\n\n" + table(xla_rows(r, false, u), 4);
    out += "\n" + heading(module_title(u)) + "\n\n" + table(module_rows(r, false, false, u));
    out += "\n" + heading(std::string(r.fits() ? "Step time" : "Step time, if it fitted") + " (critical stage " +
                          std::to_string(r.perf.pipeline.critical_stage) + ")") +
           "\n\n" + table(time_rows(r, false));
    out += "\n" + heading("Communication per iteration (one device of stage " +
                          std::to_string(r.perf.pipeline.critical_stage) + ")") +
           "\n\n" + table(comm_rows(r, false, u));
    if (!r.notes.empty()) {
        out += "\n**Notes**\n\n";
        for (const std::string& n : r.notes) out += "- " + markdown_text(n) + "\n";
    }
    return out;
}

}  // namespace shardcalc
