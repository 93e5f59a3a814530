#include "io/contract/report_json.h"

#include <cmath>

#include "device/device.h"
#include "io/codec/json_text.h"
#include "io/codec/json_writer.h"
#include "io/contract/xla_json.h"
#include "io/contract/scenario_json.h"
#include "scenario/names.h"
#include "version.h"

namespace shardcalc {
namespace {


void lines(JsonWriter& w, const MemoryLines& m) {
    w.begin_object();
    for (size_t i = 0; i < kMemoryLineCount; ++i) w.field(kMemoryLines[i].key, whole(line_bytes(m, i)));
    w.end_object();
}


void stage(JsonWriter& w, const StageMemory& m) {
    const OtherBytes& o = m.other;
    w.begin_object()
        .field("stage", m.rank)
        .field("layers", m.layers)
        .array("inflight_microbatches", m.inflight)
        .field("parameters", whole(m.params))
        .field("weights", whole(m.weights))
        .field("gradients", whole(m.gradients))
        .field("optimizer", whole(m.optimizer))
        .field("activations", whole(m.activations))
        .field("other", whole(o.sum()));
    w.key("other_detail").begin_object();
    for (size_t i = kFirstOtherLine; i < kMemoryLineCount; ++i) w.field(kMemoryLines[i].key, whole(line_bytes(m, i)));
    w.field("fragmentation", whole(o.fragmentation))
        .field("overhead", whole(o.overhead))
        .end_object();
    w.field("allocated", whole(m.allocated()))
        .field("reserved", whole(m.reserved()))
        .field("total", whole(m.total()))
        .field("largest_request", whole(m.largest_request))
        .field("peak_phase", m.timeline.empty() ? std::string() : m.timeline[m.peak_phase].name);
    w.key("timeline").begin_array();
    for (const auto& ph : m.timeline) {
        w.begin_object().field("phase", ph.name).field("what", ph.what).field("allocated", whole(ph.lines.allocated()));
        w.key("lines");
        lines(w, ph.lines);
        w.end_object();
    }
    w.end_array();
    w.key("host").begin_object().field("cpu", whole(m.host_cpu)).field("nvme", whole(m.host_nvme)).end_object();
    if (m.compiled) xla_program_json(w, m.xla);
    w.end_object();
}

void module_row(JsonWriter& w, const ModuleRow& r) {
    w.begin_object()
        .field("path", r.path)
        .field("fwd_flops", r.fwd_flops)
        .field("bwd_flops", r.bwd_flops)
        .field("fwd_bytes", r.fwd_bytes)
        .field("bwd_bytes", r.bwd_bytes)
        .field("fwd_seconds", r.fwd_seconds)
        .field("bwd_seconds", r.bwd_seconds)
        .field("bound", r.fwd_flops > 0 || r.fwd_bytes > 0 ? (r.compute_bound ? "compute" : "memory") : "none")
        .field("fwd_intensity", r.fwd_intensity())
        .field("fwd_flops_per_second", r.fwd_flops_per_second())
        .field("name", r.name)
        .field("depth", r.depth)
        .field("kind", r.is_op ? "op" : "module")
        .field("repeat", r.repeat)
        .array("param_shapes", r.shapes)
        .field("parameters", whole(r.parameters))
        .field("parameters_per_device", whole(r.params_per_device))
        .field("weight_bytes", whole(r.weight_bytes))
        .field("activation_bytes", whole(r.activation_bytes))
        .end_object();
}

void communication(JsonWriter& w, const Report& r) {
    const StageComm& sc = r.perf.comm[r.perf.comm_stage];
    w.key("communication").begin_array();
    for (const auto& e : sc.entries)
        w.begin_object()
            .field("dimension", name_of_dim(e.dimension))
            .field("collective", collective_name(e.kind))
            .field("purpose", e.purpose)
            .field("bytes", whole(e.bytes))
            .field("count_per_iteration", e.count)
            .field("volume_per_iteration", whole(e.volume()))
            .field("group_size", e.group.size)
            .field("scale_out", e.group.scale_out)
            .field("first_group", first_members(e.group))
            .field("algorithm", algorithm_name(e.algorithm))
            .field("seconds", finite(e.seconds()))
            .field("overlapped", e.overlapped)
            .field("exposed_seconds", finite(e.exposed_seconds))
            .end_object();
    w.end_array();
    // The Megatron analysis tool's "Cluster Communication Summary": calls, volume and time per parallel dimension.
    w.key("communication_summary").begin_object();
    for (const DimensionTraffic& t : traffic_by_dimension(sc))
        w.key(name_of_dim(t.dimension))
            .begin_object()
            .field("count_per_iteration", t.count)
            .field("volume_per_iteration", whole(t.volume))
            .field("seconds", finite(t.seconds))
            .field("exposed_seconds", finite(t.exposed_seconds))
            .end_object();
    w.end_object();
}

void performance(JsonWriter& w, const Report& r) {
    const Config& c = r.config;
    const Performance& p = r.perf;
    const Metrics& m = r.metrics;
    w.key("time").begin_object().field("step_seconds", finite(p.step_seconds));
    w.key("breakdown").begin_object();
    for (const auto& [name, seconds] : p.breakdown) w.field(name, finite(seconds));
    w.end_object();
    w.key("breakdown_order").begin_array();  // JSON objects are unordered: the step's order, for display
    for (const auto& part : p.breakdown) w.value(part.first);
    w.end_array();
    w.field("mfu", finite(m.mfu)).field("hfu", finite(m.hfu)).field("peak_flops_per_device", m.peak_flops_per_device);
    if (!m.efficiency_warning.empty()) w.field("efficiency_warning", m.efficiency_warning);
    w.key("kernels")
        .begin_object()
        .field("matmul_seconds", finite(p.step_kernels.matmul_seconds))
        .field("attention_seconds", finite(p.step_kernels.attention_seconds))
        .field("memory_bound_seconds", finite(p.step_kernels.memory_seconds))
        .field("launches", finite(p.step_kernels.launches))
        .end_object();
    w.field("critical_stage", p.pipeline.critical_stage).end_object();

    w.key("throughput")
        .begin_object()
        .field("tokens_per_second", finite(m.tokens_per_second))
        .field("samples_per_second", finite(m.samples_per_second))
        .field("tflops_per_device", finite(m.tflops_per_device))
        .field("hardware_tflops_per_device", finite(m.hardware_tflops_per_device))
        .field("device_seconds_per_million_tokens", finite(m.device_seconds_per_million_tokens))
        .field("cost_per_million_tokens", finite(m.cost_per_million_tokens))
        .end_object();
    w.key("flops")
        .begin_object()
        .field("model_per_iteration", p.model_flops)
        .field("hardware_per_iteration", p.hardware_flops)
        .field("model_per_iteration_full_attention", p.model_flops_full_attention)
        .field("convention",
               "model: forward + backward matmul and attention FLOPs (2 per multiply-add), attention halved under causal "
               "masking, no recompute, tensor-parallel replicas counted once, mixture-of-experts layers over each token's top-k "
               "experts (the active parameters, router included); the full-attention variant counts "
               "all s^2 attention pairs (Megatron papers, PaLM); hardware: what the kernels execute, including recompute "
               "and FlashAttention's backward recompute, eager attention over all pairs")
        .end_object();

    w.key("pipeline")
        .begin_object()
        .field("schedule", c.s.parallel.vpp > 1 ? "interleaved-1f1b" : name_of(c.s.parallel.schedule))
        .field("bubble_seconds", finite(p.pipeline.bubble))
        .field("bubble_fraction", finite(m.bubble_fraction))
        .field("timeline_events", p.timeline.size())
        .field("timeline_complete", !p.timeline.empty() || c.s.parallel.pp == 1);
    w.key("stages").begin_array();
    for (size_t i = 0; i < p.stage_times.size(); ++i) {
        const OpCost& k = p.compute[i].cost;
        w.begin_object()
            .field("stage", i)
            .field("forward_seconds", finite(p.stage_times[i].fwd))
            .field("backward_seconds", finite(p.stage_times[i].bwd))
            .field("forward_launches", finite(k.fwd.launches))
            .field("backward_launches", finite(k.bwd.launches + k.recompute.launches))
            .field("forward_device_seconds", finite(k.fwd.seconds))
            .field("backward_device_seconds", finite(k.bwd.seconds + k.recompute.seconds))
            .field("model_flops_per_microbatch", k.model_flops)
            .end_object();
    }
    w.end_array();
    // Columns, not one object per event: thousands of events stay cheap to build and to send.
    w.key("timeline").begin_object();
    w.key("stage").begin_array();
    for (const auto& e : p.timeline) w.value(e.stage);
    w.end_array().key("kind").begin_array();
    for (const auto& e : p.timeline) w.value(e.forward ? "F" : "B");
    w.end_array().key("microbatch").begin_array();
    for (const auto& e : p.timeline) w.value(e.microbatch);
    w.end_array().key("chunk").begin_array();
    for (const auto& e : p.timeline) w.value(e.chunk);
    w.end_array().key("start").begin_array();
    for (const auto& e : p.timeline) w.value(e.start);
    w.end_array().key("end").begin_array();
    for (const auto& e : p.timeline) w.value(e.end);
    w.end_array().end_object();
    w.end_object();

    w.key("roofline")
        .begin_object()
        .field("peak_flops", m.peak_flops_per_device)
        .field("hbm_bytes_per_second", m.hbm_bytes_per_second)
        .field("ridge_intensity", m.ridge_intensity)
        .end_object();
    communication(w, r);
    if (r.priced_run())
        w.key("training_run")
            .begin_object()
            .field("tokens", c.s.training.train_tokens)
            .field("seconds", m.run_seconds)
            .field("days", m.run_days)
            .field("gpu_hours", m.run_gpu_hours)
            .field("cost", m.run_cost)
            .field("price_per_gpu_hour", c.s.hardware.price_per_gpu_hour)
            .end_object();
}

}  // namespace

void write_report_json(JsonWriter& w, const Report& r) {
    const Config& c = r.config;
    const Derived& d = c.d;
    const StageMemory& peak = r.peak();
    const Estimate::HostMemory host = r.host_memory();
    // A report is tens of kilobytes (more with many stages): room at once rather than a dozen doublings, each copying.
    w.reserve(w.text().size() + (64 << 10));
    w.begin_object();
    w.key("engine").begin_object().field("name", "shardcalc").field("version", kEngineVersion).end_object();
    w.field("scenario", scenario_to_json(c.s));
    w.key("derived")
        .begin_object()
        .field("seq_len", c.s.training.seq_len)
        .field("world_size", d.world_size)
        .field("nodes", d.nodes)
        .field("gradient_accumulation", d.microbatches)
        .field("microbatches", d.microbatches)
        .field("samples_per_step", c.s.training.global_batch)
        .field("tokens_per_step", d.tokens_per_step)
        .field("replica_degree", d.replica_degree)
        .field("expert_replica_degree", d.expert_replica_degree)
        .field("vocab_padded", d.vocab_padded)
        .end_object();
    w.key("parameters")
        .begin_object()
        .field("total", whole(r.parameters.total))
        .field("embedding", whole(r.parameters.embedding))
        .field("layers", whole(r.parameters.layers))
        .field("head", whole(r.parameters.head))
        .field("active", whole(r.parameters.active))
        .field("mtp", whole(r.parameters.mtp))
        .field("trained", whole(r.parameters.trained))
        .end_object();
    w.key("memory").begin_object().key("per_device");
    stage(w, peak);
    w.key("stages").begin_array();
    for (const auto& s : r.stages) stage(w, s);
    w.end_array();
    w.field("capacity", whole(r.capacity)).field("fits", r.fits());
    w.key("verdict")
        .begin_object()
        .field("verdict", verdict_name(r.verdict.verdict))
        .field("margin", whole(r.verdict.margin))
        .field("reason", reason_text(r.verdict));
    // The reason's words and amounts apart (bytes as numbers), so that a reader's unit can show the amounts.
    w.key("reason_parts").begin_array();
    const std::string words = reason_words(r.verdict);
    size_t amount = 0, from = 0;
    for (size_t at; (at = words.find(kAmount, from)) != std::string::npos; from = at + 1) {
        if (at > from) w.value(std::string_view(words).substr(from, at - from));
        w.value(whole(r.verdict.amounts[amount++]));
    }
    if (from < words.size()) w.value(std::string_view(words).substr(from));
    w.end_array()
        // Who places the buffers: PyTorch's caching allocator (its measured fragmentation) or XLA's compiler.
        .field("allocator", peak.compiled ? "xla" : name_of(r.config.s.implementation.allocator))
        .field("fragmentation_median_fraction", r.fragmentation().typical)
        .field("fragmentation_worst_fraction", r.fragmentation().worst)
        .field("reserve", r.reserve_name())
        .end_object();
    w.field("headroom", r.headroom_bytes());
    w.key("host")
        .begin_object()
        .field("cpu_per_device", whole(host.cpu_per_device))
        .field("nvme_per_device", whole(host.nvme_per_device))
        .field("cpu_per_node", whole(host.cpu_per_node))
        .end_object();
    w.end_object();
    w.array("notes", r.notes);
    w.key("modules").begin_array();
    for (const auto& m : r.modules) module_row(w, m);
    w.end_array();
    performance(w, r);
    w.end_object();
}

std::string report_json_text(const Report& r) {
    JsonWriter w;
    write_report_json(w, r);
    return w.take();
}

nlohmann::json report_to_json(const Report& r) { return parse_json_text(report_json_text(r)); }

}  // namespace shardcalc
