#include "scenario/resolve.h"

#include "scenario/dimension.h"

#include <algorithm>
#include <stdexcept>

#include "core/error.h"
#include "device/device.h"
#include "scenario/names.h"

namespace shardcalc {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

void apply_model_defaults(ModelSpec& m, std::vector<std::string>& notes) {
    const bool encoder = m.arch == Arch::Encoder;
    if (!m.kv_heads) m.kv_heads = m.heads;
    if (!m.head_dim) {
        if (m.hidden % m.heads != 0)
            throw InputError("/model/head_dim", "hidden (" + str(m.hidden) + ") is not divisible by heads (" +
                                                    str(m.heads) + "); give head_dim explicitly");
        m.head_dim = m.hidden / m.heads;
    }
    if (!m.ffn_hidden) {
        m.ffn_hidden = 4 * m.hidden;
        // An LSTM has no feed-forward block: nothing was assumed that it uses.
        if (m.arch != Arch::Lstm) notes.push_back("model.ffn_hidden not given: assumed 4*hidden = " + str(*m.ffn_hidden));
    }
    if (!m.embedding_dim) m.embedding_dim = m.hidden;
    // Qwen2 biases its query, key and value projections and no other linear (transformers
    // modeling_qwen2.py: q/k/v_proj bias=True, o_proj and the MLP bias=False); every other family follows `bias`.
    if (!m.qkv_bias) m.qkv_bias = m.bias;
    // GPT-J biases its MLP (fc_in, fc_out) and not its attention (transformers modeling_gptj.py); Llama's mlp_bias
    // and attention_bias set the two apart too. Every other family follows `bias`.
    if (!m.mlp_bias) m.mlp_bias = m.bias;
    if (!m.embedding_norm) m.embedding_norm = encoder;
    if (!m.type_vocab) m.type_vocab = encoder ? 2 : 0;
    if (!m.pooler) m.pooler = encoder;
    if (m.kv_lora_rank > 0 && !m.v_head_dim) m.v_head_dim = m.head_dim;
    if (m.experts > 0) {
        if (!m.experts_per_token) {
            m.experts_per_token = std::min<int64_t>(2, m.experts);
            notes.push_back("model.experts_per_token not given: assumed " + str(*m.experts_per_token) + " (Mixtral's top-2)");
        }
        if (!m.expert_ffn_hidden) m.expert_ffn_hidden = m.ffn_hidden;
        if (!m.shared_expert_ffn_hidden && m.shared_experts > 0)
            m.shared_expert_ffn_hidden = m.shared_experts * *m.expert_ffn_hidden;
    }
}

void apply_training_defaults(Scenario& s, std::vector<std::string>& notes) {
    TrainingSpec& t = s.training;
    if (!t.seq_len) {
        constexpr int64_t cap = 8192;
        const int64_t mp = s.model.max_positions;
        t.seq_len = mp > 0 ? std::min(mp, cap) : 2048;
        notes.push_back("training.seq_len not given: assumed " + str(*t.seq_len) +
                        (mp > cap ? " (model.max_positions capped at 8192)" : ""));
    }
    if (!t.global_batch) t.global_batch = t.micro_batch * s.parallel.dp;
    // Megatron's --expert-tensor-parallel-size defaults to the tensor-parallel size (megatron/training/arguments.py).
    if (!s.parallel.etp) s.parallel.etp = s.parallel.tp;
}

int64_t round_up(int64_t v, int64_t multiple) { return (v + multiple - 1) / multiple * multiple; }

// apply_defaults fills every defaulted field: one left unset is the engine's own error, never the input's.
[[noreturn]] void unset_default() { throw std::logic_error("a defaulted scenario field was left unset by resolve()"); }

// The two forms of an object: its given fields as they are, its defaulted ones through pair_defaults.
template <class Fields, template <template <class> class> class Spec>
void fill_object(Spec<Given>& given, Spec<Filled>& out) {
    static_cast<Fields&>(out) = std::move(static_cast<Fields&>(given));
    pair_defaults(given, out, [](auto& g, auto& f) {
        if (!g) unset_default();
        f = *g;
    });
}
template <class Fields, template <template <class> class> class Spec>
void given_object(const Spec<Filled>& resolved, Spec<Given>& out) {
    static_cast<Fields&>(out) = static_cast<const Fields&>(resolved);
    pair_defaults(out, resolved, [](auto& g, const auto& f) { g = f; });
}

}  // namespace

void apply_defaults(Scenario& s, std::vector<std::string>& notes) {
    apply_model_defaults(s.model, notes);
    apply_training_defaults(s, notes);
    apply_framework_defaults(s);
}

double routed_tokens_factor(const Config& c, bool busiest) {
    const ResolvedParallel& p = c.s.parallel;
    return (busiest ? c.d.routed_busiest : c.d.routed_mean) * static_cast<double>(p.sp ? p.etp : 1);
}

double tokens_per_device(const Config& c, bool tensor_region) {
    const ResolvedParallel& p = c.s.parallel;
    const double tokens = static_cast<double>(c.s.training.seq_len * c.s.training.micro_batch) / (p.cp * p.ulysses);
    return tensor_region || !p.sp ? tokens : tokens / p.tp;
}

double allgather_dispatch_rows(const Config& c) {
    const ResolvedParallel& p = c.s.parallel;
    return tokens_per_device(c, false) * static_cast<double>(p.ep * p.etp);
}

namespace {

// Recompute modules the model gives nothing to act on: Megatron-Core accepts them and recomputes nothing there.
void recompute_module_notes(Config& c) {
    const unsigned given = c.s.training.recompute_modules;
    const ResolvedModel& m = c.s.model;
    const unsigned moe_only = bit(RecomputeModule::Moe) | bit(RecomputeModule::MoeAct) | bit(RecomputeModule::SharedExperts);
    if ((given & moe_only) && m.experts == 0)
        c.notes.push_back("training.recompute_modules: moe, moe_act and shared_experts need MoE layers; none here");
    else if ((given & bit(RecomputeModule::SharedExperts)) && m.shared_experts == 0)
        c.notes.push_back("training.recompute_modules: shared_experts needs shared experts; none here");
    if ((given & bit(RecomputeModule::MlaUpProj)) && m.kv_lora_rank == 0)
        c.notes.push_back("training.recompute_modules: mla_up_proj needs latent attention (model.kv_lora_rank > 0); none here");
    if ((given & bit(RecomputeModule::LayerNorm)) && m.experts == 0 && m.kv_lora_rank == 0)
        c.notes.push_back("training.recompute_modules: layernorm recomputes the norms before MoE layers and latent attention; "
                          "Transformer Engine fuses this model's into the next linear");
}

}  // namespace

void fill(Scenario&& given, ResolvedScenario& r) {
    r.framework = given.framework;
    fill_object<ModelFields>(given.model, r.model);
    fill_object<TrainingFields>(given.training, r.training);
    fill_object<ParallelFields>(given.parallel, r.parallel);
    r.hardware = std::move(given.hardware);
    fill_object<ImplementationFields>(given.implementation, r.implementation);
    r.adapter = std::move(given.adapter);
}

Scenario given_form(const ResolvedScenario& resolved) {
    Scenario g;
    g.framework = resolved.framework;
    given_object<ModelFields>(resolved.model, g.model);
    given_object<TrainingFields>(resolved.training, g.training);
    given_object<ParallelFields>(resolved.parallel, g.parallel);
    g.hardware = resolved.hardware;
    given_object<ImplementationFields>(resolved.implementation, g.implementation);
    g.adapter = resolved.adapter;
    return g;
}

Config resolve(Scenario scenario) { return resolve(std::move(scenario), Rules::Training); }

namespace {

// The notes of a resolved plan that keeps every rule, after those its defaults gave (`unit`: its GEMMs' matrix unit).
void resolved_notes(Config& c, const MatmulUnit& unit) {
    const ResolvedParallel& p = c.s.parallel;
    const Derived& d = c.d;
    if (d.vocab_padded != c.s.model.vocab)
        c.notes.push_back("vocabulary padded from " + str(c.s.model.vocab) + " to " + str(d.vocab_padded) +
                          " rows (multiple of " + str(c.traits.vocab_multiple * p.tp) + ")");
    if (!unit.how.empty()) c.notes.push_back(unit.how + " (" + c.s.hardware.preset + ")");
    if (c.s.training.fp8 != Fp8Recipe::None)
        c.notes.push_back(std::string("training.fp8 ") + name_of(c.s.training.fp8) +
                          ": the layers' GEMMs run at the fp8 peak (the output layer, routers and attention's core in " +
                          name_of(c.s.training.dtype) + "); MFU stays against the " + name_of(c.s.training.dtype) + " peak");
    if (c.s.implementation.allocator == Allocator::ExpandableSegments)
        c.notes.push_back("implementation.allocator expandable_segments: the verdict counts no fragmentation (free pages "
                          "are unmapped before an allocation fails); the reserved line keeps the caching allocator's "
                          "measured median (the one measured run with expandable segments reserved 7.2% over its peak)");
    recompute_module_notes(c);
    if (c.traits.sdpa_math)
        c.notes.push_back("fp32 with grouped-query attention: PyTorch's SDPA runs its math kernel, which keeps the "
                          "attention probabilities like eager attention");
    if (c.s.model.attention_softcap > 0 && c.s.training.attention != Attention::Eager)
        c.notes.push_back("model.attention_softcap under flash attention: FlashAttention 2.6 and later caps the scores "
                          "inside its kernel (transformers' flash_attention_2), PyTorch's SDPA not at all; neither keeps "
                          "anything for it, and the engine times no work for it");
    const HardwareSpec& hw = c.s.hardware;
    if (c.s.parallel.offload_optimizer == Offload::Nvme)
        c.notes.push_back("the optimizer step offloaded to NVMe is not timed (its bandwidth is not modelled)");
    else if (c.s.parallel.offload_optimizer == Offload::Cpu && (hw.host_link_gbps <= 0 || hw.host_memory_gbps <= 0))
        c.notes.push_back("hardware.host_link_gbps and host_memory_gbps are not known for this device: the optimizer "
                          "step offloaded to the host is not timed");
}

// Resolves `given` into `c`, returning the rules it breaks (resolve() throws them, resolve_checked()
// hands them back). The notes of the resolved plan come only `with_notes`: the plan search, which shows no plan's
// notes, would build them for every plan it weighs (the vocabulary's padding is a note on most models).
std::vector<Problem> resolve_in_place(Scenario& given, Rules rules, Config& c, bool with_notes) {
    if (given.hardware.preset_defaulted)
        c.notes.push_back("hardware.preset not given: assumed " + given.hardware.preset);
    apply_defaults(given, c.notes);
    fill(std::move(given), c.s);
    c.traits = traits_of(c.s);

    const ResolvedParallel& p = c.s.parallel;
    // Checked in floating point before the integer product can overflow.
    double devices = 1;
    for (const Dimension& dim : dimensions())
        if (dim.in_world) devices *= static_cast<double>(dim.degree(p));
    if (devices > static_cast<double>(int64_t{1} << 30))
        return {{"/parallel", "dp*tp*pp*cp*ulysses makes more than 1073741824 devices, the most supported"}};
    Derived& d = c.d;
    const int64_t predictions = c.s.training.mlm_predictions;
    if (predictions > 0) d.mlm_share = static_cast<double>(predictions) / static_cast<double>(c.s.training.seq_len);
    d.world_size = world_size(p);
    const int64_t per_pass = c.s.training.micro_batch * p.dp;
    d.microbatches = per_pass > 0 ? c.s.training.global_batch / per_pass : 0;
    d.tokens_per_step = c.s.training.global_batch * c.s.training.seq_len;
    d.replica_degree = replica_degree(p);
    d.expert_replica_degree = dimension(Dim::ExpertDp).degree(p);
    if (c.s.model.experts > 0) {
        const ResolvedTraining& t = c.s.training;
        // An expert keeps at most capacity_factor x the average load and drops the rest (GShard, Lepikhin et al. 2020,
        // sec. 2.2): below 1 even the average expert drops tokens, so the copies processed per token fall to
        // top-k x capacity_factor, and model FLOPs count those (a dropped token does no expert work).
        const double k = static_cast<double>(*c.s.model.experts_per_token);
        const double cap = t.capacity_factor.value_or(t.expert_imbalance);
        d.routed_mean = k * std::min(1.0, cap);
        d.routed_busiest = k * std::min(t.expert_imbalance, cap);
    }
    // Megatron pads the vocabulary so each tensor-parallel shard is a multiple of
    // make_vocab_size_divisible_by (megatron/training/tokenizer/tokenizer.py _vocab_size_with_padding);
    // any framework needs at least divisibility by tp to shard the embedding.
    d.vocab_padded = round_up(c.s.model.vocab, c.traits.vocab_multiple * p.tp);
    d.nodes = (d.world_size + c.s.hardware.gpus_per_node - 1) / std::max<int64_t>(1, c.s.hardware.gpus_per_node);
    if (std::vector<Problem> broken = rule_problems(c, rules); !broken.empty()) return broken;
    const MatmulUnit unit = matmul_unit(c.s.hardware, c.s.training.dtype, c.s.implementation.tf32);
    if (unit.tflops <= 0) return {{"/training/dtype", unit.how + " (" + c.s.hardware.preset + ")"}};
    if (with_notes) resolved_notes(c, unit);
    return {};
}

}  // namespace

Config resolve(Scenario scenario, Rules rules) {
    Config c;
    std::vector<Problem> problems = resolve_in_place(scenario, rules, c, true);
    if (!problems.empty()) throw InputError(std::move(problems));
    return c;
}

std::vector<Problem> resolve_checked(const Scenario& scenario, Config& c) {
    Scenario given = scenario;
    return resolve_in_place(given, Rules::Training, c, false);
}

}  // namespace shardcalc
