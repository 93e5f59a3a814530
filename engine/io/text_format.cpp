#include "io/text_format.h"

#include <cstdio>
#include <vector>

namespace shardcalc {
namespace {

using nlohmann::json;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string gib(const json& bytes) { return fixed(bytes.get<double>() / kGiB, 2); }
std::string mib(const json& bytes) { return fixed(bytes.get<double>() / kMiB, 1); }

std::string thousands(int64_t v) {
    std::string digits = std::to_string(v < 0 ? -v : v), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return v < 0 ? "-" + out : out;
}

std::string join(const json& arr, const char* sep) {
    std::string out;
    for (const auto& v : arr) out += (out.empty() ? "" : sep) + (v.is_string() ? v.get<std::string>() : v.dump());
    return out;
}

using Row = std::vector<std::string>;

// Columns after the first are right-aligned numbers.
std::string aligned(const std::vector<Row>& rows) {
    std::vector<size_t> width;
    for (const auto& r : rows)
        for (size_t i = 0; i < r.size(); ++i) {
            if (width.size() <= i) width.push_back(0);
            width[i] = std::max(width[i], r[i].size());
        }
    std::string out;
    for (const auto& r : rows) {
        std::string line;
        for (size_t i = 0; i < r.size(); ++i) {
            const std::string pad(width[i] - r[i].size(), ' ');
            line += i == 0 ? r[i] + pad : "  " + pad + r[i];
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    return out;
}

std::string markdown(const std::vector<Row>& rows) {
    std::string out;
    for (size_t k = 0; k < rows.size(); ++k) {
        out += "|";
        for (const auto& cell : rows[k]) out += " " + cell + " |";
        out += "\n";
        if (k == 0) {
            out += "|";
            for (size_t i = 0; i < rows[k].size(); ++i) out += i == 0 ? "---|" : "---:|";
            out += "\n";
        }
    }
    return out;
}

std::string csv_cell(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
}

std::string csv(const std::vector<Row>& rows) {
    std::string out;
    for (const auto& r : rows) {
        for (size_t i = 0; i < r.size(); ++i) out += (i ? "," : "") + csv_cell(r[i]);
        out += "\n";
    }
    return out;
}

std::vector<Row> stage_rows(const json& report, bool raw) {
    std::vector<Row> rows{{"stage", "layers", "in-flight", "weights", "gradients", "optimizer", "activations", "logits",
                           "comm buffers", "cast weights", "transient", "overhead", "total"}};
    auto cell = [&](const json& v) { return raw ? std::to_string(v.get<int64_t>()) : gib(v); };
    for (const auto& s : report["memory"]["stages"]) {
        const json& o = s["other_detail"];
        rows.push_back({std::to_string(s["stage"].get<int64_t>()), std::to_string(s["layers"].get<int64_t>()),
                        join(s["inflight_microbatches"], "/"), cell(s["weights"]), cell(s["gradients"]),
                        cell(s["optimizer"]), cell(s["activations"]), cell(o["logits"]), cell(o["comm_buffers"]),
                        cell(o["cast_weights"]), cell(o["transient"]), cell(o["overhead"]), cell(s["total"])});
    }
    return rows;
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
    std::vector<Row> rows{{"dimension", "collective", "purpose", "group", "first group", "crosses nodes", "message",
                           "count/iteration", "volume/iteration", "time", "exposed"}};
    for (const auto& e : r["communication"]) {
        std::string members;
        for (size_t i = 0; i < e["first_group"].size() && i < 4; ++i) members += (i ? " " : "") + e["first_group"][i].get<std::string>();
        if (e["first_group"].size() > 4) members += " ...";
        auto bytes = [&](const json& v) { return raw ? v.dump() : human_bytes(v.get<double>()); };
        auto secs = [&](const json& v) { return raw ? v.dump() : seconds_text(v.get<double>()); };
        rows.push_back({e["dimension"].get<std::string>(), e["collective"].get<std::string>(), e["purpose"].get<std::string>(),
                        e["group_size"].dump(), "[" + members + "]", e["crosses_nodes"].get<bool>() ? "yes" : "no",
                        bytes(e["bytes"]), fixed(e["count_per_iteration"].get<double>(), 0), bytes(e["volume_per_iteration"]),
                        secs(e["seconds"]), secs(e["exposed_seconds"])});
    }
    return rows;
}

std::string performance_line(const json& r) {
    const json& t = r["time"];
    const json& th = r["throughput"];
    std::string out = "step: " + seconds_text(t["step_seconds"].get<double>()) + ", " +
                      thousands(static_cast<int64_t>(th["tokens_per_second"].get<double>())) + " tokens/s, " +
                      fixed(th["tflops_per_device"].get<double>(), 1) + " model TFLOP/s per device, MFU " +
                      fixed(100 * t["mfu"].get<double>(), 1) + "%, HFU " + fixed(100 * t["hfu"].get<double>(), 1) +
                      "%, pipeline bubble " + fixed(100 * r["pipeline"]["bubble_fraction"].get<double>(), 1) + "%\n";
    if (r.contains("training_run")) {
        const json& run = r["training_run"];
        out += "training run: " + fixed(run["days"].get<double>(), 1) + " days, " +
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
           (p["distributed_optimizer"].get<bool>() ? ", distributed optimizer" : "") + "\n";
    out += "training: seq " + t["seq_len"].dump() + ", micro-batch " + t["micro_batch"].dump() + ", global batch " +
           t["global_batch"].dump() + " (" + d["gradient_accumulation"].dump() + " microbatches per step), " +
           t["dtype"].get<std::string>() + ", " + t["optimizer"].get<std::string>() + ", recompute " +
           t["recompute"].get<std::string>() + ", " + t["attention"].get<std::string>() + " attention\n";
    out += "parameters: " + thousands(r["parameters"]["total"].get<int64_t>()) + "\n";
    const double total = peak["total"].get<double>();
    const double cap = mem["capacity"].get<double>();
    out += "peak device: stage " + peak["stage"].dump() + ", " + gib(peak["total"]) + " GiB of " + gib(mem["capacity"]) +
           " GiB: " + (mem["fits"].get<bool>() ? "fits, " + fixed((cap - total) / kGiB, 2) + " GiB free"
                                                : "OUT OF MEMORY by " + fixed((total - cap) / kGiB, 2) + " GiB") +
           "\n";
    const json& host = mem["host"];
    if (host["cpu_per_device"].get<int64_t>() > 0 || host["nvme_per_device"].get<int64_t>() > 0)
        out += "host (offload): " + gib(host["cpu_per_device"]) + " GiB CPU per device, " + gib(host["cpu_per_node"]) +
               " GiB CPU per node, " + gib(host["nvme_per_device"]) + " GiB NVMe per device\n";
    return out;
}

std::string notes_text(const json& r, const char* bullet) {
    std::string out;
    for (const auto& n : r["notes"]) out += std::string(bullet) + n.get<std::string>() + "\n";
    return out;
}

}  // namespace

std::string format_table(const json& r) {
    std::string out = headline(r);
    out += "\nMemory per device, by pipeline stage (GiB = 2^30 bytes)\n" + aligned(stage_rows(r, false));
    out += "\nModules (per device after tensor parallelism; MiB = 2^20 bytes; activations per microbatch)\n" +
           aligned(module_rows(r, true, false));
    out += "\n" + performance_line(r) + "\nStep time (critical stage " + r["time"]["critical_stage"].dump() + ")\n" +
           aligned(time_rows(r, false));
    out += "\nCommunication per iteration, one device of stage " + r["time"]["critical_stage"].dump() + "\n" +
           aligned(comm_rows(r, false));
    if (!r["notes"].empty()) out += "\nNotes\n" + notes_text(r, "- ");
    return out;
}

std::string format_markdown(const json& r) {
    std::string out;
    for (char ch : headline(r)) out += ch == '\n' ? std::string("  \n") : std::string(1, ch);
    out += "\n**Memory per device, by pipeline stage** (GiB = 2^30 bytes)\n\n" + markdown(stage_rows(r, false));
    out += "\n**Modules** (per device after tensor parallelism; MiB = 2^20 bytes; activations per microbatch)\n\n" +
           markdown(module_rows(r, false, false));
    out += "\n" + performance_line(r) + "\n**Step time**\n\n" + markdown(time_rows(r, false));
    out += "\n**Communication per iteration**\n\n" + markdown(comm_rows(r, false));
    if (!r["notes"].empty()) out += "\n**Notes**\n\n" + notes_text(r, "- ");
    return out;
}

std::string format_csv(const json& r) {
    return csv(stage_rows(r, true)) + "\n" + csv(module_rows(r, false, true)) + "\n" + csv(time_rows(r, true)) + "\n" +
           csv(comm_rows(r, true));
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
    return aligned(models) + "\n" + aligned(hw);
}

}  // namespace shardcalc
