#include "io/contract/search_json.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include "io/codec/json_reader.h"
#include "io/contract/scenario_json.h"
#include "scenario/dimension.h"
#include "scenario/names.h"

namespace shardcalc {
namespace {

using nlohmann::json;

constexpr int64_t kMaxDevices = int64_t{1} << 30;  // as parallel's world size

// devices: one count, a list of counts, or {"min": a, "max": b} (every power of two between, and both ends).
std::vector<int64_t> parse_devices(const json& v) {
    const std::string path = "/search/devices";
    std::vector<int64_t> out;
    auto count = [&](const json& x, const std::string& where) {
        if (!x.is_number_integer() || x.get<int64_t>() < 1 || x.get<int64_t>() > kMaxDevices ||
            (x.is_number_unsigned() && x.get<uint64_t>() > static_cast<uint64_t>(kMaxDevices)))
            throw InputError(where, "must be an integer from 1 to " + std::to_string(kMaxDevices) + ", got " + x.dump());
        return x.get<int64_t>();
    };
    if (v.is_number()) {
        out.push_back(count(v, path));
    } else if (v.is_array()) {
        if (v.empty() || v.size() > 64) throw InputError(path, "a list of 1 to 64 device counts");
        for (size_t i = 0; i < v.size(); ++i) out.push_back(count(v[i], path + "/" + std::to_string(i)));
    } else if (v.is_object()) {
        ObjectReader r(v, path);
        const auto lo = r.integer("min", 1, kMaxDevices), hi = r.integer("max", 1, kMaxDevices);
        r.finish();
        if (!lo || !hi) throw InputError(path, "a range needs both min and max");
        if (*lo > *hi) throw InputError(path + "/min", "must not exceed max");
        out.push_back(*lo);
        for (int64_t p = 1; p <= *hi; p *= 2)
            if (p > *lo && p < *hi) out.push_back(p);
        out.push_back(*hi);
    } else {
        throw InputError(path, "one device count, a list of counts, or {\"min\": a, \"max\": b}; got " + v.dump());
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

template <class E>
std::vector<E> parse_list(const json& v, const std::string& path) {
    if (!v.is_array() || v.empty()) throw InputError(path, "a non-empty list; allowed: " + allowed_names<E>());
    std::vector<E> out;
    for (size_t i = 0; i < v.size(); ++i) {
        const auto e = v[i].is_string() ? parse_name<E>(v[i].get<std::string>()) : std::nullopt;
        if (!e)
            throw InputError(path + "/" + std::to_string(i), "unknown value " + v[i].dump() + "; allowed: " + allowed_names<E>());
        out.push_back(*e);
    }
    return out;
}

json plan_json(const PlanFigures& p, std::optional<size_t> rank) {
    const ParallelSpec& q = p.parallel;
    json j = {{"framework", name_of(p.framework)},
              {"devices", p.devices},
              {"parallel",
               {{"dp", q.dp},
                {"tp", q.tp},
                {"pp", q.pp},
                {"vpp", q.vpp},
                {"sp", q.sp},
                {"cp", q.cp},
                {"ulysses", q.ulysses},
                {"ep", q.ep},
                {"etp", expert_tp(q)},
                {"zero", q.zero},
                {"distributed_optimizer", q.distributed_optimizer},
                {"offload_optimizer", name_of(q.offload_optimizer)},
                {"offload_params", name_of(q.offload_params)}}},
              {"micro_batch", p.micro_batch},
              {"recompute", name_of(p.recompute)},
              {"reason", p.reason}};
    if (rank) j["rank"] = *rank;
    if (!p.path.empty()) j["path"] = p.path;
    if (p.seq_len > 0) j["seq_len"] = p.seq_len;
    if (p.global_batch > 0) j["global_batch"] = p.global_batch;
    if (p.capacity > 0)
        j["memory"] = {{"peak_bytes", static_cast<int64_t>(std::llround(p.peak_bytes))},
                       {"capacity", static_cast<int64_t>(std::llround(p.capacity))},
                       {"verdict", verdict_name(p.verdict.verdict)},
                       {"margin", static_cast<int64_t>(std::llround(p.verdict.margin))}};
    if (p.timed) {
        j["time"] = {{"step_seconds", p.step_seconds},
                     {"mfu", p.mfu},
                     {"tokens_per_second", p.tokens_per_second},
                     {"device_seconds_per_million_tokens", p.device_seconds_per_million_tokens},
                     {"cost_per_million_tokens", p.cost_per_million_tokens},
                     {"bubble_fraction", p.bubble_fraction}};
        j["pareto"] = p.pareto;
    }
    if (p.scenario) j["scenario"] = scenario_to_json(*p.scenario);
    if (!p.launch.empty()) {
        json launch = json::array();
        for (const auto& l : p.launch) launch.push_back({{"tool", l.tool}, {"lines", l.lines}});
        j["launch"] = std::move(launch);
    }
    return j;
}

// A kind of rejection: its count and its examples, each written by `plan` (the answer's, or a part's findings').
template <class Write>
json rejections_json(const Rejections& r, Write plan) {
    json ex = json::array();
    for (const auto& p : r.examples) ex.push_back(plan(p));
    return {{"count", r.count}, {"examples", std::move(ex)}};
}
json answer_plan(const PlanFigures& p) { return plan_json(p, std::nullopt); }

// One plan of a part's findings: what the search evaluated of it, not its structure (read from walk_order) nor what
// the joined result words (reasons of memory refusals, scenarios, launch lines).
json finding_json(const PlanFigures& p) {
    const MemoryVerdict& v = p.verdict;
    json j = {{"walk_order", p.walk_order},
              {"micro_batch", p.micro_batch},
              {"recompute", name_of(p.recompute)},
              {"seq_len", p.seq_len},
              {"global_batch", p.global_batch},
              {"peak_bytes", p.peak_bytes},
              {"capacity", p.capacity},
              {"verdict",
               {{"verdict", verdict_name(v.verdict)},
                {"margin", v.margin},
                {"reason", static_cast<int>(v.reason)},
                {"amounts", v.amounts},
                {"fragmentation_worst", v.fragmentation_worst},
                {"fragmentation_calibrated", v.fragmentation_calibrated},
                {"rematerialized", v.rematerialized}}},
              {"reason", p.reason},
              {"path", p.path}};
    if (p.timed)
        j["time"] = {p.step_seconds, p.mfu, p.tokens_per_second, p.device_seconds_per_million_tokens,
                     p.cost_per_million_tokens, p.bubble_fraction};
    return j;
}

constexpr double kLargest = 1e300;  // any finite figure the engine writes
constexpr int64_t kAnyCount = std::numeric_limits<int64_t>::max();

// A field every finding has: read (its problems thrown by `r.finish()` first), then required.
template <class T>
T required(const std::optional<T>& v, const std::string& path, const char* key) {
    if (!v) throw InputError(path + "/" + key, "missing");
    return *v;
}

// `n` numbers of a list at `key` into `out`.
void numbers_into(const nlohmann::json* v, const std::string& at, double* const* out, size_t n) {
    if (!v || !v->is_array() || v->size() != n) throw InputError(at, "a list of " + std::to_string(n) + " numbers");
    for (size_t i = 0; i < n; ++i) {
        if (!(*v)[i].is_number()) throw InputError(at + "/" + std::to_string(i), "a number");
        *out[i] = (*v)[i].get<double>();
    }
}

MemoryVerdict verdict_from_json(const json* j, const std::string& at) {
    if (!j) throw InputError(at, "missing");
    MemoryVerdict m;
    ObjectReader v(*j, at);
    const auto name = v.string("verdict");
    const auto margin = v.number("margin", -kLargest, kLargest);
    const auto reason = v.integer("reason", 0, static_cast<int64_t>(VerdictReason::XlaFits));
    const json* amounts = v.value("amounts");
    const auto worst = v.number("fragmentation_worst", 0, kLargest);
    const auto calibrated = v.boolean("fragmentation_calibrated");
    const auto remat = v.boolean("rematerialized");
    v.finish();
    const std::string verdict = required(name, at, "verdict");
    const auto known = std::find_if(std::begin(kVerdicts), std::end(kVerdicts), [&](const Term& t) { return verdict == t.key; });
    if (known == std::end(kVerdicts)) throw InputError(at + "/verdict", "unknown verdict \"" + verdict + "\"");
    m.verdict = static_cast<Verdict>(known - std::begin(kVerdicts));
    m.margin = required(margin, at, "margin");
    m.reason = static_cast<VerdictReason>(required(reason, at, "reason"));
    double* const into[] = {&m.amounts[0], &m.amounts[1], &m.amounts[2], &m.amounts[3], &m.amounts[4]};
    static_assert(std::size(into) == std::size(MemoryVerdict{}.amounts));
    numbers_into(amounts, at + "/amounts", into, std::size(into));
    m.fragmentation_worst = required(worst, at, "fragmentation_worst");
    m.fragmentation_calibrated = required(calibrated, at, "fragmentation_calibrated");
    m.rematerialized = required(remat, at, "rematerialized");
    return m;
}

PlanFigures finding_from_json(const json& j, const std::string& path) {
    PlanFigures p;
    ObjectReader r(j, path);
    const auto walk_order = r.integer("walk_order", 0, kAnyCount);
    const auto micro_batch = r.integer("micro_batch", 1, kAnyCount);
    const auto recompute = r.choice<Recompute>("recompute");
    const auto seq_len = r.integer("seq_len", 0, kAnyCount);
    const auto global_batch = r.integer("global_batch", 0, kAnyCount);
    const auto peak = r.number("peak_bytes", 0, kLargest);
    const auto capacity = r.number("capacity", 0, kLargest);
    const auto reason = r.string("reason");
    const auto field = r.string("path");
    const json* verdict = r.value("verdict");
    const json* time = r.value("time");
    r.finish();
    p.walk_order = required(walk_order, path, "walk_order");
    p.micro_batch = required(micro_batch, path, "micro_batch");
    p.recompute = required(recompute, path, "recompute");
    p.seq_len = required(seq_len, path, "seq_len");
    p.global_batch = required(global_batch, path, "global_batch");
    p.peak_bytes = required(peak, path, "peak_bytes");
    p.capacity = required(capacity, path, "capacity");
    p.reason = required(reason, path, "reason");
    p.path = required(field, path, "path");
    p.verdict = verdict_from_json(verdict, path + "/verdict");
    if (time) {
        double* const into[] = {&p.step_seconds, &p.mfu, &p.tokens_per_second, &p.device_seconds_per_million_tokens,
                                &p.cost_per_million_tokens, &p.bubble_fraction};
        numbers_into(time, path + "/time", into, std::size(into));
        p.timed = true;
    }
    return p;
}

// A list of findings at `at`.
std::vector<PlanFigures> findings_list(const json* v, const std::string& at) {
    if (!v || !v->is_array()) throw InputError(at, "a list");
    std::vector<PlanFigures> out;
    for (size_t i = 0; i < v->size(); ++i) out.push_back(finding_from_json((*v)[i], at + "/" + std::to_string(i)));
    return out;
}

Rejections findings_rejections_from_json(const json* j, const std::string& path) {
    if (!j) throw InputError(path, "missing");
    ObjectReader r(*j, path);
    const auto count = r.integer("count", 0, kAnyCount);
    const json* examples = r.value("examples");
    r.finish();
    Rejections out;
    out.count = required(count, path, "count");
    out.examples = findings_list(examples, path + "/examples");
    return out;
}

}  // namespace

json search_findings_to_json(const SearchFindings& f) {
    json fitting = json::array();
    for (const auto& p : f.fitting) fitting.push_back(finding_json(p));
    return {{"candidates", f.candidates},
            {"memory_evaluated", f.memory_evaluated},
            {"time_evaluated", f.time_evaluated},
            {"fitting_count", f.fitting_count},
            {"does_not_fit", rejections_json(f.does_not_fit, finding_json)},
            {"invalid", rejections_json(f.invalid, finding_json)},
            {"pruned", rejections_json(f.pruned, finding_json)},
            {"fitting", std::move(fitting)}};
}

SearchFindings search_findings_from_json(const json& j) {
    const std::string path = "/findings";
    ObjectReader r(j, path);
    const auto candidates = r.integer("candidates", 0, kAnyCount);
    const auto memory = r.integer("memory_evaluated", 0, kAnyCount);
    const auto timed = r.integer("time_evaluated", 0, kAnyCount);
    const auto fitting_count = r.integer("fitting_count", 0, kAnyCount);
    const json* does_not_fit = r.value("does_not_fit");
    const json* invalid = r.value("invalid");
    const json* pruned = r.value("pruned");
    const json* fitting = r.value("fitting");
    r.finish();
    SearchFindings f;
    f.candidates = required(candidates, path, "candidates");
    f.memory_evaluated = required(memory, path, "memory_evaluated");
    f.time_evaluated = required(timed, path, "time_evaluated");
    f.fitting_count = required(fitting_count, path, "fitting_count");
    f.does_not_fit = findings_rejections_from_json(does_not_fit, path + "/does_not_fit");
    f.invalid = findings_rejections_from_json(invalid, path + "/invalid");
    f.pruned = findings_rejections_from_json(pruned, path + "/pruned");
    f.fitting = findings_list(fitting, path + "/fitting");
    if (f.fitting_count < static_cast<int64_t>(f.fitting.size()))
        throw InputError(path + "/fitting_count", "must be at least the fitting plans listed (" + std::to_string(f.fitting.size()) + ")");
    return f;
}

SearchSpec search_spec_from_json(const json* j) {
    SearchSpec spec;
    if (!j) return spec;
    ObjectReader r(*j, "/search");
    assign(spec.question, r.choice<Question>("question"));
    assign(spec.rank_by, r.choice<RankBy>("rank_by"));
    if (const auto v = r.integer("top", 1, 1000)) spec.top = *v;
    if (const auto v = r.integer("max_micro_batch", 1, 65536)) spec.max_micro_batch = *v;
    spec.global_batch = r.integer("global_batch", 1, int64_t{1} << 32);  // as training.global_batch
    spec.global_batch_tokens = r.integer("global_batch_tokens", 1, int64_t{1} << 46);
    assign(spec.tp_within_node, r.boolean("tp_within_node"));
    assign(spec.memory_margin, r.number("memory_margin", 0, 0.9));
    if (const json* v = r.value("devices")) r.collect([&] { spec.devices = parse_devices(*v); });
    if (const json* v = r.value("frameworks"))
        r.collect([&] { spec.frameworks = parse_list<Framework>(*v, "/search/frameworks"); });
    if (const json* v = r.value("dimensions"))
        r.collect([&] {
            for (SearchDim d : parse_list<SearchDim>(*v, "/search/dimensions")) spec.dims.insert(d);
        });
    r.finish();
    return spec;
}

json search_result_to_json(const SearchResult& r) {
    json plans = json::array(), pareto = json::array();
    for (size_t i = 0; i < r.plans.size(); ++i) plans.push_back(plan_json(r.plans[i], i + 1));
    for (const auto& p : r.pareto) pareto.push_back(plan_json(p, std::nullopt));
    json out = {{"question", name_of(r.question)},
                {"rank_by", name_of(r.rank_by)},
                {"devices", r.devices},
                {"parts", r.parts},
                {"counts",
                 {{"structures", r.structures},
                  {"candidates", r.candidates},
                  {"memory_evaluated", r.memory_evaluated},
                  {"time_evaluated", r.time_evaluated},
                  {"fitting", r.fitting},
                  {"equivalent", r.equivalent},
                  {"does_not_fit", r.does_not_fit.count},
                  {"invalid", r.invalid.count},
                  {"pruned", r.pruned.count}}},
                {"rejected",
                 {{"does_not_fit", rejections_json(r.does_not_fit, answer_plan)},
                  {"invalid", rejections_json(r.invalid, answer_plan)},
                  {"pruned", rejections_json(r.pruned, answer_plan)}}}};
    out["plans"] = std::move(plans);
    out["pareto"] = std::move(pareto);
    if (!r.answer_field.empty()) {
        json a = {{"field", r.answer_field}};
        if (r.answer) a["value"] = *r.answer;  // absent when there is none: then "reason" says why
        if (r.answer_plan) a["plan"] = plan_json(*r.answer_plan, std::nullopt);
        if (r.next_up) a["next_up"] = plan_json(*r.next_up, std::nullopt);
        if (!r.answer_reason.empty()) a["reason"] = r.answer_reason;
        out["answer"] = std::move(a);
    }
    return out;
}

}  // namespace shardcalc
