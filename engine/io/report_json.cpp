#include "io/report_json.h"

#include <cmath>

#include "compute/roofline.h"
#include "io/scenario_json.h"
#include "scenario/names.h"
#include "version.h"

namespace shardcalc {
namespace {

using nlohmann::json;

int64_t whole(double bytes) { return static_cast<int64_t>(std::llround(bytes)); }

json lines_json(const MemoryLines& m) {
    const OtherBytes& o = m.other;
    return json{{"weights", whole(m.weights)},
                {"gradients", whole(m.gradients)},
                {"optimizer", whole(m.optimizer)},
                {"activations", whole(m.activations)},
                {"logits", whole(o.logits)},
                {"comm_buffers", whole(o.comm_buffers)},
                {"cast_weights", whole(o.cast_weights)},
                {"transient", whole(o.transient)},
                {"workspace", whole(o.workspace)}};
}

json timeline_json(const StageMemory& m) {
    json out = json::array();
    for (const auto& ph : m.timeline)
        out.push_back({{"phase", ph.name}, {"what", ph.what}, {"allocated", whole(ph.lines.allocated())},
                       {"lines", lines_json(ph.lines)}});
    return out;
}

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
                  {"workspace", whole(o.workspace)},
                  {"fragmentation", whole(o.fragmentation)},
                  {"overhead", whole(o.overhead)}}},
                {"allocated", whole(m.allocated())},
                {"reserved", whole(m.reserved())},
                {"total", whole(m.total())},
                {"peak_phase", m.timeline.empty() ? "" : m.timeline[m.peak_phase].name},
                {"timeline", timeline_json(m)},
                {"host", {{"cpu", whole(m.host_cpu)}, {"nvme", whole(m.host_nvme)}}}};
}

double finite(double v) { return std::isfinite(v) ? v : 0.0; }

json module_json(const ModuleRow& r) {
    return json{{"path", r.path},
                {"fwd_flops", r.fwd_flops},
                {"bwd_flops", r.bwd_flops},
                {"fwd_bytes", r.fwd_bytes},
                {"bwd_bytes", r.bwd_bytes},
                {"fwd_seconds", r.fwd_seconds},
                {"bwd_seconds", r.bwd_seconds},
                {"bound", r.fwd_flops > 0 || r.fwd_bytes > 0 ? (r.compute_bound ? "compute" : "memory") : "none"},
                // The roofline plot's coordinates: FLOP per HBM byte, and achieved FLOP/s, of the forward kernels.
                {"fwd_intensity", r.fwd_bytes > 0 ? r.fwd_flops / r.fwd_bytes : 0.0},
                {"fwd_flops_per_second", r.fwd_seconds > 0 ? r.fwd_flops / r.fwd_seconds : 0.0},
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

json communication_json(const Report& r) {
    json list = json::array();
    const StageComm& sc = r.perf.comm[r.perf.comm_stage];
    for (const auto& e : sc.entries)
        list.push_back({{"dimension", name_of_dim(e.dimension)},
                        {"collective", collective_name(e.kind)},
                        {"purpose", e.purpose},
                        {"bytes", whole(e.bytes)},
                        {"count_per_iteration", e.count},
                        {"volume_per_iteration", whole(e.bytes * e.count)},
                        {"group_size", e.group.size},
                        {"crosses_nodes", e.group.crosses_nodes},
                        {"first_group", e.group.first},
                        {"algorithm", e.algorithm},
                        {"seconds", finite(e.seconds())},
                        {"overlapped", e.overlapped},
                        {"exposed_seconds", finite(e.exposed_seconds)}});
    return list;
}

// Seed 002's "Cluster Communication Summary": calls, volume and time per parallel dimension.
json communication_summary_json(const Report& r) {
    json summary = json::object();
    for (const auto& e : r.perf.comm[r.perf.comm_stage].entries) {
        json& d = summary[name_of_dim(e.dimension)];
        if (d.is_null()) d = {{"count_per_iteration", 0.0}, {"volume_per_iteration", 0}, {"seconds", 0.0}, {"exposed_seconds", 0.0}};
        d["count_per_iteration"] = d["count_per_iteration"].get<double>() + e.count;
        d["volume_per_iteration"] = d["volume_per_iteration"].get<int64_t>() + whole(e.bytes * e.count);
        d["seconds"] = d["seconds"].get<double>() + finite(e.seconds());
        d["exposed_seconds"] = d["exposed_seconds"].get<double>() + finite(e.exposed_seconds);
    }
    return summary;
}

json performance_json(const Report& r) {
    const Config& c = r.config;
    const Performance& p = r.perf;
    const double step = p.step_seconds;
    json breakdown = json::object();
    json parts = json::array();  // JSON objects are unordered: the step's order, for display
    for (const auto& [name, seconds] : p.breakdown) {
        breakdown[name] = finite(seconds);
        parts.push_back(name);
    }
    json stages = json::array();
    for (size_t i = 0; i < p.stage_times.size(); ++i)
        stages.push_back({{"stage", i},
                          {"forward_seconds", finite(p.stage_times[i].fwd)},
                          {"backward_seconds", finite(p.stage_times[i].bwd)},
                          {"forward_launches", finite(p.compute[i].cost.fwd.launches)},
                          {"backward_launches", finite(p.compute[i].cost.bwd.launches + p.compute[i].cost.recompute.launches)},
                          {"forward_device_seconds", finite(p.compute[i].cost.fwd.seconds)},
                          {"backward_device_seconds",
                           finite(p.compute[i].cost.bwd.seconds + p.compute[i].cost.recompute.seconds)},
                          {"model_flops_per_microbatch", p.compute[i].cost.model_flops}});
    // Columns, not one object per event: thousands of events stay cheap to build and to send.
    json stage_col = json::array(), kind_col = json::array(), mb_col = json::array(), chunk_col = json::array(),
         start_col = json::array(), end_col = json::array();
    for (const auto& e : p.timeline) {
        stage_col.emplace_back(e.stage);
        kind_col.emplace_back(e.forward ? "F" : "B");
        mb_col.emplace_back(e.microbatch);
        chunk_col.emplace_back(e.chunk);
        start_col.emplace_back(e.start);
        end_col.emplace_back(e.end);
    }
    json timeline = json::object();
    timeline["stage"] = std::move(stage_col);
    timeline["kind"] = std::move(kind_col);
    timeline["microbatch"] = std::move(mb_col);
    timeline["chunk"] = std::move(chunk_col);
    timeline["start"] = std::move(start_col);
    timeline["end"] = std::move(end_col);
    const Metrics& m = r.metrics;
    json out = {
        {"time",
         {{"step_seconds", finite(step)},
          {"breakdown", breakdown},
          {"breakdown_order", parts},
          {"mfu", finite(m.mfu)},
          {"hfu", finite(m.hfu)},
          {"peak_flops_per_device", m.peak_flops_per_device},
          {"kernels",
           {{"matmul_seconds", finite(p.step_kernels.matmul_seconds)},
            {"attention_seconds", finite(p.step_kernels.attention_seconds)},
            {"memory_bound_seconds", finite(p.step_kernels.memory_seconds)},
            {"launches", finite(p.step_kernels.launches)}}},
          {"critical_stage", p.pipeline.critical_stage}}},
        {"throughput",
         {{"tokens_per_second", finite(m.tokens_per_second)},
          {"samples_per_second", finite(m.samples_per_second)},
          {"tflops_per_device", finite(m.tflops_per_device)},
          {"hardware_tflops_per_device", finite(m.hardware_tflops_per_device)},
          {"device_seconds_per_million_tokens", finite(m.device_seconds_per_million_tokens)},
          {"cost_per_million_tokens", finite(m.cost_per_million_tokens)}}},
        {"flops",
         {{"model_per_iteration", p.model_flops},
          {"hardware_per_iteration", p.hardware_flops},
          {"model_per_iteration_full_attention", p.model_flops_full_attention},
          {"convention",
           "model: forward + backward matmul and attention FLOPs (2 per multiply-add), attention halved under causal "
           "masking, no recompute, tensor-parallel replicas counted once; model_per_iteration_full_attention counts all "
           "s^2 attention pairs (Megatron papers, PaLM); hardware: what the kernels execute, including recompute and "
           "FlashAttention's backward recompute, eager attention over all pairs"}}},
        {"pipeline",
         {{"schedule", c.s.parallel.vpp > 1 ? "interleaved-1f1b" : name_of(c.s.parallel.schedule)},
          {"bubble_seconds", finite(p.pipeline.bubble)},
          {"bubble_fraction", finite(m.bubble_fraction)},
          {"timeline_events", p.timeline.size()},
          {"timeline_complete", !p.timeline.empty() || c.s.parallel.pp == 1}}},
        {"roofline",
         {{"peak_flops", m.peak_flops_per_device},
          {"hbm_bytes_per_second", hbm_bytes_per_s(c)},
          {"ridge_intensity", m.peak_flops_per_device / hbm_bytes_per_s(c)}}},
    };
    // Large arrays are moved in: nlohmann's initializer lists deep-copy their elements.
    out["communication"] = communication_json(r);
    out["communication_summary"] = communication_summary_json(r);
    out["pipeline"]["stages"] = std::move(stages);
    out["pipeline"]["timeline"] = std::move(timeline);
    const TrainingSpec& t = c.s.training;
    if (t.train_tokens > 0 && m.tokens_per_second > 0) {
        out["training_run"] = {{"tokens", t.train_tokens},
                               {"seconds", m.run_seconds},
                               {"days", m.run_days},
                               {"gpu_hours", m.run_gpu_hours},
                               {"cost", m.run_cost},
                               {"price_per_gpu_hour", c.s.hardware.price_per_gpu_hour}};
    }
    return out;
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
    json out{
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
          {"verdict",
           {{"verdict", verdict_name(r.verdict.verdict)},
            {"margin", whole(r.verdict.margin)},
            {"reason", r.verdict.reason},
            {"fragmentation_median_fraction", fragmentation_median_fraction()},
            {"fragmentation_worst_fraction", fragmentation_worst_fraction()}}},
          {"headroom", whole(r.capacity) - whole(peak.total())},
          {"host",
           {{"cpu_per_device", whole(host_cpu)},
            {"nvme_per_device", whole(host_nvme)},
            {"cpu_per_node", whole(host_cpu * static_cast<double>(per_node))}}}}},
        {"notes", r.notes}};
    out["modules"] = std::move(modules);
    json perf = performance_json(r);
    for (auto it = perf.begin(); it != perf.end(); ++it) out[it.key()] = std::move(it.value());
    return out;
}

}  // namespace shardcalc
