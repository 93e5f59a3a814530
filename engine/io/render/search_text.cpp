// The plan search (search/search.h) as text: a ranked table for terminals, Markdown for docs, CSV for spreadsheets
// (docs/search.md); and launch commands as text, a search row's or `shardcalc export`'s.
#include <string>

#include "io/render/answer_text.h"
#include "io/render/text_format.h"
#include "io/render/text_table.h"
#include "scenario/dimension.h"
#include "scenario/names.h"

namespace shardcalc {
namespace {

using nlohmann::json;
using namespace text;

std::string zero_label(const ParallelSpec& p) { return p.distributed_optimizer ? "distopt" : std::to_string(p.zero); }

std::string offload_label(const ParallelSpec& p) {
    const std::string o = name_of(p.offload_optimizer), w = name_of(p.offload_params);
    if (o == "none" && w == "none") return "-";
    if (w == "none") return "opt:" + o;
    return "opt+params:" + o;
}

Row header() {
    return {"#", "framework", "devices", "dp", "tp", "pp", "vpp", "sp", "cp", "ulysses", "ep", "zero", "offload", "micro_batch",
            "recompute", "peak_gib", "verdict", "step_s", "mfu_%", "tokens_per_s", "device_s_per_Mtok", "pareto", "reason"};
}

Row row(const PlanFigures& plan, const std::string& rank) {
    const ParallelSpec& p = plan.parallel;
    Row r{rank, name_of(plan.framework), std::to_string(plan.devices), std::to_string(p.dp), std::to_string(p.tp),
          std::to_string(p.pp), std::to_string(p.vpp), p.sp ? "yes" : "no", std::to_string(p.cp), std::to_string(p.ulysses),
          std::to_string(p.ep), zero_label(p), offload_label(p), std::to_string(plan.micro_batch), name_of(plan.recompute)};
    if (plan.capacity > 0) {
        r.push_back(amount(plan.peak_bytes, ByteUnit::GiB));
        r.push_back(verdict_name(plan.verdict.verdict));
    } else {
        r.insert(r.end(), {"-", "-"});
    }
    if (plan.timed) {
        r.push_back(fixed(plan.step_seconds, 3));
        r.push_back(fixed(100 * plan.mfu, 1));
        r.push_back(thousands(static_cast<int64_t>(plan.tokens_per_second)));
        r.push_back(fixed(plan.device_seconds_per_million_tokens, 1));
        r.push_back(plan.pareto ? "yes" : "no");
    } else {
        r.insert(r.end(), {"-", "-", "-", "-", "-"});
    }
    r.push_back(plan.reason);
    return r;
}

std::vector<Row> plan_rows(const SearchResult& s) {
    std::vector<Row> rows{header()};
    for (size_t i = 0; i < s.plans.size(); ++i) rows.push_back(row(s.plans[i], std::to_string(i + 1)));
    return rows;
}

std::string answer_line(const SearchResult& s) {
    if (s.answer_field.empty()) return "";
    std::string out = s.answer_field + ": ";
    out += s.answer ? std::to_string(*s.answer) : "none (" + s.answer_reason + ")";
    if (s.next_up && s.answer) out += "; the next value up does not fit: " + s.next_up->reason;
    return out + "\n";
}

std::string counts_line(const SearchResult& s) {
    std::string devices;
    for (size_t i = 0; i < s.devices.size(); ++i) devices += (i ? ", " : "") + std::to_string(s.devices[i]);
    return "searched " + thousands(s.candidates) + " plans (" + thousands(s.structures) + " structures) on " + devices +
           " devices: " + thousands(s.fitting) + " fit, " + thousands(s.does_not_fit.count) + " do not fit, " +
           thousands(s.invalid.count) + " invalid, " + thousands(s.pruned.count) + " pruned without evaluation; ranked by " +
           name_of(s.rank_by) + "\n";
}

std::string rejected_text(const SearchResult& s) {
    std::string out;
    const std::pair<const char*, const Rejections*> kinds[] = {
        {"does_not_fit", &s.does_not_fit}, {"invalid", &s.invalid}, {"pruned", &s.pruned}};
    for (const auto& [kind, g] : kinds) {
        if (g->count == 0) continue;
        out += std::string(kind) + ": " + thousands(g->count) + "\n";
        for (const PlanFigures& p : g->examples) {
            const ParallelSpec& q = p.parallel;
            std::string plan = " tp" + std::to_string(q.tp) + " pp" + std::to_string(q.pp);
            if (q.cp > 1) plan += " cp" + std::to_string(q.cp);
            if (q.ulysses > 1) plan += " ulysses" + std::to_string(q.ulysses);
            if (q.ep > 1) plan += " ep" + std::to_string(q.ep);
            out += std::string("  ") + name_of(p.framework) + plan + " dp" + std::to_string(q.dp) + " zero " + zero_label(q) +
                   " mb" + std::to_string(p.micro_batch) + " " + name_of(p.recompute) + ": " + p.reason + "\n";
        }
    }
    return out;
}

}  // namespace

std::string format_search(const SearchResult& s, TextFormat f) {
    if (f == TextFormat::Csv) return csv(plan_rows(s));
    if (f == TextFormat::Markdown) {
        std::string out = "## Plan search\n\n";
        const std::string a = answer_line(s);
        if (!a.empty()) out += "**" + a.substr(0, a.size() - 1) + "**\n\n";
        out += counts_line(s) + "\n";
        if (!s.plans.empty()) out += markdown(plan_rows(s)) + "\n### Launch #1\n\n" + launch_text(s.plans[0].launch, "```\n");
        return out;
    }
    std::string out = answer_line(s) + counts_line(s) + "\n";
    if (s.plans.empty()) out += "no plan fits\n";
    else out += aligned(plan_rows(s));
    out += "\nPareto front (step time against memory per device): " + std::to_string(s.pareto.size()) + " plans\n";
    out += "\n" + rejected_text(s);
    if (!s.plans.empty()) out += "\nlaunch #1\n" + launch_text(s.plans[0].launch);
    return out;
}

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
