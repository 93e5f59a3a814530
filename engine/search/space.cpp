#include "search/space.h"

#include <algorithm>

#include "scenario/dimension.h"
#include "scenario/framework.h"

namespace shardcalc {
namespace {

std::vector<int64_t> powers_of_two(int64_t up_to) {
    std::vector<int64_t> v;
    for (int64_t x = 1; x <= up_to; x *= 2) v.push_back(x);
    return v;
}

std::vector<int64_t> divisors(int64_t n, int64_t cap) {
    std::vector<int64_t> v;
    for (int64_t d = 1; d <= std::min(n, cap); ++d)
        if (n % d == 0) v.push_back(d);
    return v;
}

// What each framework runs: the dimensions from their own rules (scenario/dimension.h), and the two
// modifiers of a dimension, interleaving (vpp, of pp) and sequence parallelism (sp, of tp), which only
// Megatron-LM schedules (Megatron-DeepSpeed's pipeline engine has no interleaving).
struct Support {
    bool pp, vpp, sp, cp, ulysses, tp, ep;
};
Support support_of(Framework f) {
    const bool megatron = f == Framework::Megatron;
    return {dimension(Dim::Pp).run_by(f), megatron, megatron, dimension(Dim::Cp).run_by(f),
            dimension(Dim::Ulysses).run_by(f), dimension(Dim::Tp).run_by(f), dimension(Dim::Ep).run_by(f)};
}

// Expert-parallel degrees for a plan whose other degrees are set: powers of two that divide the experts and
// whose ep * etp divides the non-pipeline ranks (the rule scenario/validate.cpp checks); the given ep where the
// search does not vary it or the model has no experts.
std::vector<int64_t> expert_degrees(const ParallelSpec& p, int64_t experts, const SearchSpec& spec, bool can) {
    if (!searched(spec, SearchDim::Ep) || experts == 0) return {p.ep};
    if (!can) return {1};
    const int64_t ranks = p.dp * p.tp * p.cp * p.ulysses, etp = expert_tp(p);
    std::vector<int64_t> out;
    for (const int64_t ep : powers_of_two(experts))
        if (experts % ep == 0 && ranks % (ep * etp) == 0) out.push_back(ep);
    return out;
}

// ZeRO stage / distributed optimizer / offload combinations per framework.
std::vector<ParallelSpec> sharding_options(Framework f, const ParallelSpec& base, const SearchSpec& spec, int64_t pp) {
    std::vector<ParallelSpec> out;
    const bool zero = searched(spec, SearchDim::Zero), offload = searched(spec, SearchDim::Offload);
    // Asked for in the scenario, Megatron's overlapped parameter gather goes with the plans that can run it
    // (scenario/framework.h); the others run without it.
    auto gather_overlap = [&](ParallelSpec& p) { p.overlap_param_gather = base.overlap_param_gather && runs_param_gather_overlap(f, p, p.overlap_grad_reduce.value_or(false)); };
    auto add = [&](int stage, bool distopt, Offload opt, Offload params) {
        ParallelSpec p = base;
        p.zero = stage;
        p.distributed_optimizer = distopt;
        p.offload_optimizer = opt;
        p.offload_params = params;
        gather_overlap(p);
        out.push_back(p);
    };
    if (!zero) {  // the scenario's own choice
        ParallelSpec p = base;
        gather_overlap(p);
        out.push_back(p);
        return out;
    }
    switch (f) {
        case Framework::Megatron:
            add(0, false, Offload::None, Offload::None);
            add(0, true, Offload::None, Offload::None);
            // Megatron-FSDP's optim_grads_params (without pipeline parallelism: scenario/validate.cpp).
            if (pp == 1) add(3, true, Offload::None, Offload::None);
            if (offload) add(0, true, Offload::Cpu, Offload::None);
            break;
        case Framework::DeepSpeed:
            for (int stage = 0; stage <= (pp > 1 ? 1 : 3); ++stage) {
                add(stage, false, Offload::None, Offload::None);
                if (offload && stage >= 1) add(stage, false, Offload::Cpu, Offload::None);
                if (offload && stage == 3) add(stage, false, Offload::Cpu, Offload::Cpu);
            }
            break;
        case Framework::Fsdp:
            for (int stage : {0, 2, 3}) add(stage, false, Offload::None, Offload::None);
            if (offload) add(3, false, Offload::Cpu, Offload::Cpu);
            break;
        case Framework::Pytorch:
            for (int stage : {0, 1}) add(stage, false, Offload::None, Offload::None);
            break;
        case Framework::Xla:
            add(0, false, Offload::None, Offload::None);
            break;
    }
    return out;
}

}  // namespace

bool searched(const SearchSpec& spec, SearchDim d) {
    if (spec.dims.empty()) return d != SearchDim::Offload;
    return spec.dims.count(d) > 0;
}

std::vector<Structure> structures(const Scenario& base, const Config& shape, const SearchSpec& spec, int64_t devices,
                                  size_t limit) {
    std::vector<Structure> out;
    const ResolvedModel& m = shape.s.model;
    const int64_t heads = m.heads, kv = m.kv_heads, ffn = m.ffn_hidden, layers = m.layers, seq = shape.s.training.seq_len;
    const int64_t per_domain = nvlink_domain_of(shape.s.hardware);  // tensor parallelism needs NVLink
    const ParallelSpec& given = base.parallel;
    std::vector<Framework> frameworks = spec.frameworks;
    if (frameworks.empty()) frameworks.push_back(base.framework);
    for (const Framework f : frameworks) {
        const Support can = support_of(f);
        const int64_t tp_cap = spec.tp_within_node ? std::min(devices, per_domain) : devices;
        const std::vector<int64_t> tps =
            searched(spec, SearchDim::Tp) ? (can.tp ? powers_of_two(tp_cap) : std::vector<int64_t>{1})
                                          : std::vector<int64_t>{given.tp};
        for (const int64_t tp : tps) {
            if (heads % tp || kv % tp || ffn % tp || devices % tp) continue;
            const std::vector<int64_t> cps = searched(spec, SearchDim::Cp) && can.cp && base.training.attention == Attention::Flash
                                                 ? powers_of_two(devices / tp)
                                                 : std::vector<int64_t>{searched(spec, SearchDim::Cp) ? 1 : given.cp};
            for (const int64_t cp : cps) {
                if (cp > 1 && seq % (2 * cp)) continue;
                const std::vector<int64_t> us = searched(spec, SearchDim::Ulysses) && can.ulysses
                                                    ? powers_of_two(devices / (tp * cp))
                                                    : std::vector<int64_t>{searched(spec, SearchDim::Ulysses) ? 1 : given.ulysses};
                for (const int64_t u : us) {
                    if ((heads / tp) % u || (kv / tp) % u || seq % u) continue;
                    const int64_t rest = devices / (tp * cp * u);
                    if (rest * tp * cp * u != devices) continue;
                    const std::vector<int64_t> pps = searched(spec, SearchDim::Pp) ? (can.pp ? divisors(layers, rest)
                                                                                              : std::vector<int64_t>{1})
                                                                                   : std::vector<int64_t>{given.pp};
                    for (const int64_t pp : pps) {
                        if (rest % pp) continue;
                        const int64_t dp = rest / pp;
                        std::vector<int64_t> vpps{1};
                        if (!searched(spec, SearchDim::Vpp)) vpps = {given.vpp};
                        else if (can.vpp && pp > 1)
                            for (int64_t v = 2; v <= 8; ++v)
                                if (layers % (pp * v) == 0) vpps.push_back(v);
                        for (const int64_t vpp : vpps) {
                            std::vector<bool> sps{false};
                            if (!searched(spec, SearchDim::Sp)) sps = {given.sp};
                            else if (can.sp && tp > 1 && seq % tp == 0) sps = {true, false};
                            for (const bool sp : sps) {
                                ParallelSpec p = given;
                                p.dp = dp;
                                p.tp = tp;
                                p.pp = pp;
                                p.vpp = vpp;
                                p.cp = cp;
                                p.ulysses = u;
                                p.sp = sp;
                                // Asked for in the scenario, tensor-parallel overlap goes with the plans that can run
                                // it (scenario/framework.h); the others run without it.
                                p.tp_comm_overlap = given.tp_comm_overlap && runs_tp_comm_overlap(f, p);
                                // DeepSpeed's bucket size belongs to DeepSpeed's plans.
                                if (f != Framework::DeepSpeed) p.reduce_bucket_size.reset();
                                p.world_size.reset();
                                // The search splits layers evenly (its pp divide the layers); a given uneven split
                                // belongs to the given pp only.
                                p.first_stage_layers.reset();
                                p.last_stage_layers.reset();
                                p.stage_layers.clear();
                                p.embedding_as_layer = p.loss_as_layer = false;
                                for (const int64_t ep : expert_degrees(p, m.experts, spec, can.ep)) {
                                    p.ep = ep;
                                    for (const ParallelSpec& sharded : sharding_options(f, p, spec, pp))
                                        out.push_back(Structure{f, sharded});
                                }
                                if (out.size() > limit) return out;
                            }
                        }
                    }
                }
            }
        }
    }
    return out;
}

std::vector<int64_t> micro_batches(const Scenario& base, const SearchSpec& spec, int64_t samples_per_rank) {
    if (!searched(spec, SearchDim::MicroBatch)) return {base.training.micro_batch};
    std::vector<int64_t> out;
    for (int64_t mb = 1; mb <= std::min(spec.max_micro_batch, samples_per_rank); mb *= 2)
        if (samples_per_rank % mb == 0) out.push_back(mb);
    return out;
}

std::vector<Recompute> recomputes(const Scenario& base, const SearchSpec& spec, Framework f) {
    if (!searched(spec, SearchDim::Recompute)) return {base.training.recompute};
    // Selective recompute (Korthikanti et al. 2022) is Megatron's: Megatron-LM and Megatron-DeepSpeed with
    // Megatron's model code. Hugging Face models checkpoint whole layers (gradient_checkpointing).
    const bool megatron_code = f == Framework::Megatron ||
                               (f == Framework::DeepSpeed && base.implementation.model_code.value_or(ModelCode::Megatron) ==
                                                                 ModelCode::Megatron);
    if (megatron_code) return {Recompute::Full, Recompute::Selective, Recompute::None};
    return {Recompute::Full, Recompute::None};
}

}  // namespace shardcalc
