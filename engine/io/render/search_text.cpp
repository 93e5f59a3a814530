// The plan search as text: a ranked table for terminals, Markdown for docs, CSV for spreadsheets.
// Reads only the public JSON of the result (docs/search.md).
#include <string>

#include "io/render/answer_text.h"
#include "io/render/text_format.h"
#include "io/render/text_table.h"

namespace shardcalc {
namespace {

using nlohmann::json;
using namespace text;

std::string zero_label(const json& p) {
    if (p["distributed_optimizer"].get<bool>()) return "distopt";
    return std::to_string(p["zero"].get<int>());
}

std::string offload_label(const json& p) {
    const std::string o = p["offload_optimizer"], w = p["offload_params"];
    if (o == "none" && w == "none") return "-";
    if (w == "none") return "opt:" + o;
    return "opt+params:" + o;
}

Row header() {
    return {"#", "framework", "devices", "dp", "tp", "pp", "vpp", "sp", "cp", "ulysses", "ep", "zero", "offload", "micro_batch",
            "recompute", "peak_gib", "verdict", "step_s", "mfu_%", "tokens_per_s", "device_s_per_Mtok", "pareto", "reason"};
}

Row row(const json& plan, const std::string& rank) {
    const json& p = plan["parallel"];
    Row r{rank, plan["framework"], std::to_string(plan["devices"].get<int64_t>()), std::to_string(p["dp"].get<int64_t>()),
          std::to_string(p["tp"].get<int64_t>()), std::to_string(p["pp"].get<int64_t>()),
          std::to_string(p["vpp"].get<int64_t>()), p["sp"].get<bool>() ? "yes" : "no",
          std::to_string(p["cp"].get<int64_t>()), std::to_string(p["ulysses"].get<int64_t>()),
          std::to_string(p["ep"].get<int64_t>()), zero_label(p),
          offload_label(p), std::to_string(plan["micro_batch"].get<int64_t>()), plan["recompute"]};
    if (plan.contains("memory")) {
        r.push_back(gib(plan["memory"]["peak_bytes"]));
        r.push_back(plan["memory"]["verdict"]);
    } else {
        r.insert(r.end(), {"-", "-"});
    }
    if (plan.contains("time")) {
        const json& t = plan["time"];
        r.push_back(fixed(t["step_seconds"].get<double>(), 3));
        r.push_back(fixed(100 * t["mfu"].get<double>(), 1));
        r.push_back(thousands(static_cast<int64_t>(t["tokens_per_second"].get<double>())));
        r.push_back(fixed(t["device_seconds_per_million_tokens"].get<double>(), 1));
        r.push_back(plan.value("pareto", false) ? "yes" : "no");
    } else {
        r.insert(r.end(), {"-", "-", "-", "-", "-"});
    }
    r.push_back(plan["reason"]);
    return r;
}

std::vector<Row> plan_rows(const json& s) {
    std::vector<Row> rows{header()};
    for (const auto& p : s["plans"]) rows.push_back(row(p, std::to_string(p["rank"].get<int64_t>())));
    return rows;
}

std::string answer_line(const json& s) {
    if (!s.contains("answer")) return "";
    const json& a = s["answer"];
    std::string out = a["field"].get<std::string>() + ": ";
    out += a.contains("value") ? std::to_string(a["value"].get<int64_t>()) : "none (" + a.value("reason", std::string()) + ")";
    if (a.contains("next_up") && a.contains("value"))
        out += "; the next value up does not fit: " + a["next_up"]["reason"].get<std::string>();
    return out + "\n";
}

std::string counts_line(const json& s) {
    const json& c = s["counts"];
    auto n = [&](const char* k) { return thousands(c[k].get<int64_t>()); };
    return "searched " + n("candidates") + " plans (" + n("structures") + " structures) on " + join(s["devices"], ", ") +
           " devices: " + n("fitting") + " fit, " + n("does_not_fit") + " do not fit, " + n("invalid") + " invalid, " +
           n("pruned") + " pruned without evaluation; ranked by " + s["rank_by"].get<std::string>() + "\n";
}

std::string launch_text(const json& plan, const char* fence) {
    return plan.contains("launch") ? format_launch_text(plan["launch"], fence) : std::string();
}

std::string rejected_text(const json& s) {
    std::string out;
    for (const char* kind : {"does_not_fit", "invalid", "pruned"}) {
        const json& g = s["rejected"][kind];
        if (g["count"].get<int64_t>() == 0) continue;
        out += std::string(kind) + ": " + thousands(g["count"].get<int64_t>()) + "\n";
        for (const auto& p : g["examples"]) {
            const json& q = p["parallel"];
            std::string plan = " tp" + std::to_string(q["tp"].get<int64_t>()) + " pp" + std::to_string(q["pp"].get<int64_t>());
            if (q["cp"].get<int64_t>() > 1) plan += " cp" + std::to_string(q["cp"].get<int64_t>());
            if (q["ulysses"].get<int64_t>() > 1) plan += " ulysses" + std::to_string(q["ulysses"].get<int64_t>());
            if (q["ep"].get<int64_t>() > 1) plan += " ep" + std::to_string(q["ep"].get<int64_t>());
            out += "  " + p["framework"].get<std::string>() + plan + " dp" + std::to_string(q["dp"].get<int64_t>()) +
                   " zero " + zero_label(q) + " mb" +
                   std::to_string(p["micro_batch"].get<int64_t>()) + " " + p["recompute"].get<std::string>() + ": " +
                   p["reason"].get<std::string>() + "\n";
        }
    }
    return out;
}

}  // namespace

std::string format_search_table(const json& s) {
    std::string out = answer_line(s) + counts_line(s) + "\n";
    if (s["plans"].empty()) out += "no plan fits\n";
    else out += aligned(plan_rows(s));
    out += "\nPareto front (step time against memory per device): " + std::to_string(s["pareto"].size()) + " plans\n";
    out += "\n" + rejected_text(s);
    if (!s["plans"].empty()) out += "\nlaunch #1\n" + launch_text(s["plans"][0], "");
    return out;
}

std::string format_search_markdown(const json& s) {
    std::string out = "## Plan search\n\n";
    const std::string a = answer_line(s);
    if (!a.empty()) out += "**" + a.substr(0, a.size() - 1) + "**\n\n";
    out += counts_line(s) + "\n";
    if (!s["plans"].empty()) out += markdown(plan_rows(s)) + "\n### Launch #1\n\n" + launch_text(s["plans"][0], "```\n");
    return out;
}

std::string format_search_csv(const json& s) { return csv(plan_rows(s)); }

std::string launch_text(const std::vector<LaunchCommand>& launch, const std::string& fence) {
    std::string out;
    for (const LaunchCommand& l : launch) {
        out += l.tool + ":\n" + fence;
        for (const std::string& line : l.lines) out += "  " + line + "\n";
        out += fence;
    }
    return out;
}

std::string format_launch_text(const json& launch, const std::string& fence) {
    std::vector<LaunchCommand> commands;
    for (const auto& l : launch) commands.push_back({l["tool"].get<std::string>(), l["lines"].get<std::vector<std::string>>()});
    return launch_text(commands, fence);
}

}  // namespace shardcalc
