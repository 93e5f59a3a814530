#include "io/contract/search_json.h"

#include <algorithm>
#include <cmath>

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

json rejections_json(const Rejections& r) {
    json ex = json::array();
    for (const auto& p : r.examples) ex.push_back(plan_json(p, std::nullopt));
    return {{"count", r.count}, {"examples", ex}};
}

}  // namespace

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
                 {{"does_not_fit", rejections_json(r.does_not_fit)},
                  {"invalid", rejections_json(r.invalid)},
                  {"pruned", rejections_json(r.pruned)}}}};
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
