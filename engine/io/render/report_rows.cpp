#include "io/render/report_rows.h"

#include <cmath>

#include "comm/collective_time.h"
#include "io/codec/json_writer.h"
#include "io/contract/xla_json.h"
#include "memory/memory_terms.h"
#include "scenario/dimension.h"

namespace shardcalc::report_rows {

using text::amount;
using text::fixed;
using text::small_amount;

std::string raw_bytes(double bytes) { return std::to_string(whole(bytes)); }

std::string human_bytes(double bytes, ByteUnit u) {
    const double b = static_cast<double>(whole(bytes));
    const ByteScale big = byte_scale(u, 0), mid = byte_scale(u, 1), small = byte_scale(u, 2);
    if (b >= big.bytes) return fixed(b / big.bytes, 2) + " " + big.name;
    if (b >= mid.bytes) return fixed(b / mid.bytes, 1) + " " + mid.name;
    return fixed(b / small.bytes, 1) + " " + small.name;
}

std::string seconds_text(double s) { return s >= 1 ? fixed(s, 3) + " s" : fixed(s * 1e3, 2) + " ms"; }

std::string phase_label(std::string_view phase) { return label_of(kMemoryPhases, std::string(phase)); }
std::string_view peak_phase(const StageMemory& s) { return s.timeline.empty() ? std::string_view() : s.timeline[s.peak_phase].name; }

std::string stage_title(ByteUnit u) {
    return std::string("Memory per device, by pipeline stage (") + unit_definition(u, 0) + ")";
}
std::string module_title(ByteUnit u) {
    return std::string("Modules (per device after tensor parallelism; ") + unit_definition(u, 1) +
           "; activations per microbatch)";
}
std::string xla_title(ByteUnit u) {
    return std::string("Largest program allocations (XLA, peak stage; per device, ") + unit_definition(u, 1) + ")";
}

namespace {

template <class Ints>
std::string joined(const Ints& values, const char* sep) {
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
// overhead outside the allocator and total. `detail` columns that are zero on every stage are left out.
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

}  // namespace

std::vector<Row> stage_rows(const Report& r, ByteUnit u) {
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
        for (const StageColumn* c : shown) row.push_back(amount(c->bytes(s), u));
        rows.push_back(row);
    }
    return rows;
}

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

std::vector<Row> timeline_rows(const std::vector<size_t>& lines, const StageMemory& s, ByteUnit u) {
    Row head{"phase", "allocated"};
    for (size_t l : lines) head.push_back(spaced(kMemoryLines[l].key));
    std::vector<Row> rows{head};
    for (const MemoryPhase& ph : s.timeline) {
        Row row{phase_label(ph.name) + (ph.name == peak_phase(s) ? " (peak)" : ""), amount(ph.lines.allocated(), u)};
        for (size_t l : lines) row.push_back(amount(line_bytes(ph.lines, l), u));
        rows.push_back(row);
    }
    return rows;
}

std::string timeline_title(const StageMemory& s, ByteUnit u) {
    const std::string what = s.timeline.empty() ? std::string() : std::string(s.timeline[s.peak_phase].what);
    return "Memory over the step, stage " + std::to_string(s.rank) + " (" + byte_scale(u, 0).name +
           " allocated at each phase; peak at " + phase_label(peak_phase(s)) + (what.empty() ? "" : ": " + what) + ")";
}

std::vector<Row> module_rows(const Report& r, bool tree, bool raw, ByteUnit u) {
    const std::string mid = byte_scale(u, 1).name;
    std::vector<Row> rows{{"module", "param shape", "parameters", raw ? "weight bytes" : "weights " + mid,
                           raw ? "activation bytes/microbatch" : "activations " + mid + "/microbatch"}};
    for (const ModuleRow& m : r.modules) {
        std::string name = m.name;
        if (m.repeat > 1) name += " x " + std::to_string(m.repeat) + " (per layer)";
        if (tree) name = (m.depth ? std::string(static_cast<size_t>(m.depth - 1) * 3, ' ') + "|- " : "") + name;
        else name = m.path;
        const int64_t parameters = whole(m.parameters);
        if (tree && m.is_op && parameters == 0 && whole(m.activation_bytes) == 0) continue;
        rows.push_back({name, joined(m.shapes, ", "), raw ? std::to_string(parameters) : text::thousands(parameters),
                        raw ? raw_bytes(m.weight_bytes) : small_amount(m.weight_bytes, u),
                        raw ? raw_bytes(m.activation_bytes) : small_amount(m.activation_bytes, u)});
    }
    return rows;
}

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

std::vector<Row> comm_rows(const Report& r, bool raw, ByteUnit u) {
    std::vector<Row> rows{{"dimension", "collective", "purpose", "group", "first group", "scale-out", "message",
                           "count/iteration", "volume/iteration", "time", "exposed"}};
    if (r.perf.comm.empty()) return rows;
    auto bytes = [&](double b) { return raw ? raw_bytes(b) : human_bytes(b, u); };
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

std::vector<Row> xla_rows(const Report& r, bool raw, ByteUnit u) {
    const std::string mid = byte_scale(u, 1).name;
    std::vector<Row> rows{{"#", "size " + mid, "unpadded " + mid, "count", "shape", "module", "tensor", "kept"}};
    if (raw) rows[0][1] = "size", rows[0][2] = "unpadded size";
    int i = 0;
    for (const XlaBuffer& b : r.peak().xla.largest)
        rows.push_back({std::to_string(++i), raw ? raw_bytes(b.layout.bytes) : small_amount(b.layout.bytes, u),
                        raw ? raw_bytes(b.layout.unpadded) : small_amount(b.layout.unpadded, u),
                        std::to_string(b.count), xla_shape(b), b.module, b.tensor,
                        b.kept ? "always" : "unless rematerialized"});
    return rows;
}

}  // namespace shardcalc::report_rows
