#include "io/report_json.h"

#include <cmath>

#include "io/scenario_json.h"
#include "scenario/names.h"
#include "version.h"

namespace shardcalc {
namespace {

using nlohmann::json;

int64_t whole(double bytes) { return static_cast<int64_t>(std::llround(bytes)); }

json stage_json(const StageMemory& m) {
    const OtherBytes& o = m.other;
    return json{{"stage", m.rank},
                {"layers", m.layers},
                {"inflight_microbatches", m.inflight},
                {"parameters", whole(m.params)},
                {"weights", whole(m.weights)},
                {"gradients", whole(m.gradients)},
                {"optimizer", whole(m.optimizer)},
                {"activations", whole(m.activations)},
                {"other", whole(o.sum())},
                {"other_detail",
                 {{"logits", whole(o.logits)},
                  {"comm_buffers", whole(o.comm_buffers)},
                  {"cast_weights", whole(o.cast_weights)},
                  {"transient", whole(o.transient)},
                  {"overhead", whole(o.overhead)}}},
                {"total", whole(m.total())},
                {"host", {{"cpu", whole(m.host_cpu)}, {"nvme", whole(m.host_nvme)}}}};
}

json module_json(const ModuleRow& r) {
    return json{{"path", r.path},
                {"name", r.name},
                {"depth", r.depth},
                {"kind", r.is_op ? "op" : "module"},
                {"repeat", r.repeat},
                {"param_shapes", r.shapes},
                {"parameters", whole(r.parameters)},
                {"parameters_per_device", whole(r.params_per_device)},
                {"weight_bytes", whole(r.weight_bytes)},
                {"activation_bytes", whole(r.activation_bytes)}};
}

}  // namespace

json report_to_json(const Report& r) {
    const Config& c = r.config;
    const Derived& d = c.d;
    json stages = json::array();
    for (const auto& s : r.stages) stages.push_back(stage_json(s));
    json modules = json::array();
    for (const auto& m : r.modules) modules.push_back(module_json(m));

    double host_cpu = 0, host_nvme = 0;
    for (const auto& s : r.stages) {
        host_cpu = std::max(host_cpu, s.host_cpu);
        host_nvme = std::max(host_nvme, s.host_nvme);
    }
    const StageMemory& peak = r.peak();
    const int64_t per_node = std::min(c.s.hardware.gpus_per_node, d.world_size);
    return json{
        {"engine", {{"name", "shardcalc"}, {"version", kEngineVersion}}},
        {"scenario", scenario_to_json(c.s)},
        {"derived",
         {{"seq_len", d.seq_len},
          {"world_size", d.world_size},
          {"nodes", d.nodes},
          {"gradient_accumulation", d.microbatches},
          {"microbatches", d.microbatches},
          {"samples_per_step", d.samples_per_step},
          {"tokens_per_step", d.tokens_per_step},
          {"replica_degree", d.replica_degree},
          {"vocab_padded", d.vocab_padded}}},
        {"parameters",
         {{"total", whole(r.parameters.total)},
          {"embedding", whole(r.parameters.embedding)},
          {"layers", whole(r.parameters.layers)},
          {"head", whole(r.parameters.head)}}},
        {"memory",
         {{"per_device", stage_json(peak)},
          {"stages", stages},
          {"capacity", whole(r.capacity)},
          {"fits", r.fits()},
          {"headroom", whole(r.capacity - peak.total())},
          {"host",
           {{"cpu_per_device", whole(host_cpu)},
            {"nvme_per_device", whole(host_nvme)},
            {"cpu_per_node", whole(host_cpu * static_cast<double>(per_node))}}}}},
        {"modules", modules},
        {"notes", r.notes}};
}

}  // namespace shardcalc
