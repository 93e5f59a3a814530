// Constraints between fields. Each failure names the field a user would change and says why.
#include <vector>

#include "core/error.h"
#include "scenario/adapter_rules.h"
#include "scenario/checks.h"
#include "scenario/dimension.h"
#include "scenario/divisors.h"
#include "scenario/framework.h"
#include "scenario/lstm_rules.h"
#include "scenario/names.h"
#include "scenario/pipeline_split.h"
#include "scenario/resolve.h"

namespace shardcalc {
namespace {

using validation::Checks;
using validation::Size;
using validation::gcd;
using validation::str;
using validation::validate_framework;

// A transformer has none of an LSTM's fields; an LSTM's own rules are in scenario/lstm_rules.cpp.
void validate_arch(const Config& c, Checks& check) {
    const ResolvedModel& m = c.s.model;
    if (c.s.adapter.method != AdapterMethod::None)
        for (const Problem& p : adapter_problems(c)) check.fail(p.path.c_str(), p.message);
    if (m.arch == Arch::Lstm) {
        for (const Problem& p : lstm_problems(c)) check.fail(p.path.c_str(), p.message);
        return;
    }
    check.require(m.projection == 0, "/model/projection", "projects an LSTM's output; set model.arch to lstm");
    check.require(m.proj_size == 0, "/model/proj_size", "projects an LSTM's recurrent output (LSTMP); set model.arch to lstm");
    check.require(m.fused_gates, "/model/fused_gates", "describes an LSTM's gate GEMMs; set model.arch to lstm");
    check.require(m.gate_biases == 2, "/model/gate_biases", "counts an LSTM's gate biases; set model.arch to lstm");
    check.require(!c.s.implementation.rnn, "/implementation/rnn", "says how an LSTM's layers run; set model.arch to lstm");
}

void validate_model(const Config& c, Checks& check) {
    const ResolvedModel& m = c.s.model;
    validate_arch(c, check);
    // Ranges are checked while parsing; here only relations between fields.
    if (m.heads % m.kv_heads != 0)
        check.fail("/model/kv_heads", "must divide heads (" + str(m.heads) + "), got " + str(m.kv_heads));
    check.require(m.arch == Arch::Encoder || !m.pooler, "/model/pooler", "a pooler exists only for arch encoder");
    check.require(m.logit_softcap == 0 || (m.arch == Arch::Decoder && m.head == Head::Lm), "/model/logit_softcap",
                  "caps a decoder's output logits; needs arch decoder with its language-model head (head lm)");
    check.require(m.attention_softcap == 0 || m.arch != Arch::Lstm, "/model/attention_softcap",
                  "caps attention scores; an LSTM has none (arch decoder or encoder)");
    check.require(m.swiglu_limit == 0 || (m.experts > 0 && m.mlp == Mlp::Swiglu), "/model/swiglu_limit",
                  "clamps the routed experts' SwiGLU (gpt-oss); needs model.experts and mlp swiglu");
    check.require(!c.s.implementation.experts || (m.experts > 0 && c.traits.hf_code), "/implementation/experts",
                  "says how transformers runs a MoE layer's experts; needs model.experts and model_code huggingface");
    // torch.compile is modelled where inductor compiles transformers' dense modules under PyTorch's own frameworks
    // (graph/compiled_kernels.cpp); not MoE routing, LSTMs (cuDNN runs them), adapters or Megatron's fused code.
    if (c.s.implementation.compile != CompileMode::None) {
        const Framework f = c.s.framework;
        check.require(c.traits.hf_code && (f == Framework::Pytorch || f == Framework::Fsdp || f == Framework::DeepSpeed),
                      "/implementation/compile", "torch.compile is modelled for transformers' modules (model_code huggingface) "
                      "under frameworks pytorch, fsdp or deepspeed; allowed here: none");
        check.require(m.arch != Arch::Lstm, "/implementation/compile",
                      "an LSTM runs cuDNN's kernels, which torch.compile leaves as they are; allowed: none");
        check.require(m.experts == 0, "/implementation/compile",
                      "torch.compile of transformers' MoE routing is not modelled; allowed for a MoE model: none");
        check.require(c.s.adapter.method == AdapterMethod::None, "/implementation/compile",
                      "torch.compile of a model with adapters is not modelled; allowed with an adapter: none");
    }
    check.require(!c.s.implementation.host_compiled_us || c.s.implementation.compile != CompileMode::None,
                  "/implementation/host_compiled_us", "times torch.compile's launches; set implementation.compile");
    check.require(!m.output_bias || (m.arch != Arch::Encoder && m.head == Head::Lm), "/model/output_bias",
                  "a bias on the output layer needs a decoder or LSTM with its language-model head (arch decoder or lstm, head lm)");
    // A decoder's tied output layer is the [vocab, embedding_dim] word-embedding table itself, and it reads the
    // hidden state directly: the two widths must agree (ALBERT, an encoder, maps back down in its MLM head).
    if (m.arch == Arch::Decoder && m.head == Head::Lm && m.tied_embeddings && m.embedding_dim != m.hidden)
        check.fail("/model/embedding_dim",
                   "a decoder with tied_embeddings shares the word-embedding table with its output layer, so embedding_dim "
            "must equal hidden (" + str(m.hidden) + "), got " + str(m.embedding_dim) +
                "; set model.tied_embeddings to false for a factorized decoder embedding");
    if (m.position_embedding == PositionEmbedding::Learned)
        check.require(m.max_positions > 0, "/model/max_positions",
                "learned position embeddings need max_positions (the table's row count)");
    if (m.kv_lora_rank == 0)
        for (const auto& [given, path] : {std::pair<bool, const char*>{m.q_lora_rank > 0, "/model/q_lora_rank"},
                                          {m.qk_rope_head_dim > 0, "/model/qk_rope_head_dim"},
                                          {m.v_head_dim.has_value(), "/model/v_head_dim"}})
            check.require(!given, path, "describes multi-head latent attention; set model.kv_lora_rank (> 0) for it");
    if (m.kv_lora_rank != 0 && m.kv_heads != m.heads)
        check.fail("/model/kv_heads",
                   "multi-head latent attention projects keys and values for every head: kv_heads must equal heads (" +
                      str(m.heads) + ")");
    check.require(m.mtp_layers == 0 || m.arch == Arch::Decoder, "/model/mtp_layers", "multi-token prediction needs a decoder");
    check.require(m.global_every == 0 || m.sliding_window > 0, "/model/global_every",
                  "places global layers among sliding-window ones; set model.sliding_window (> 0)");
    check.require(!m.post_norms || (m.arch == Arch::Decoder && !m.parallel_block), "/model/post_norms",
                  "output norms are modelled for pre-norm decoders with serial attention and MLP");
    check.require(!m.parallel_norms || m.parallel_block, "/model/parallel_norms",
                  "gives a parallel block's MLP its own norm; set model.parallel_block too");
    check.require(!m.parallel_block || m.arch == Arch::Decoder, "/model/parallel_block",
                  "parallel attention and MLP blocks are modelled for pre-norm decoders");
    check.require(m.sliding_window == 0 || m.arch == Arch::Decoder, "/model/sliding_window",
                  "sliding-window attention is modelled for causal decoders");
    if (m.experts == 0) {
        for (const auto& [given, path] : {std::pair<bool, const char*>{m.experts_per_token.has_value(), "/model/experts_per_token"},
                                          {m.router_bias, "/model/router_bias"},
                                          {m.shared_expert_gate, "/model/shared_expert_gate"},
                                          {m.expert_ffn_hidden.has_value(), "/model/expert_ffn_hidden"},
                                          {m.shared_experts > 0, "/model/shared_experts"},
                                          {m.shared_expert_ffn_hidden.has_value(), "/model/shared_expert_ffn_hidden"},
                                          {m.first_dense_layers > 0, "/model/first_dense_layers"},
                                          {m.moe_every > 1, "/model/moe_every"}})
            check.require(!given, path, "describes mixture-of-experts layers; set model.experts (> 0) for a MoE model");
        return;
    }
    if (*m.experts_per_token > m.experts)
        check.fail("/model/experts_per_token",
                   "a token goes to at most model.experts (" + str(m.experts) + ") experts, got " + str(*m.experts_per_token));
    check.require(m.shared_experts == 0 || *m.shared_expert_ffn_hidden > 0, "/model/shared_expert_ffn_hidden",
            "shared experts need a width");
    check.require(!m.shared_expert_gate || m.shared_experts > 0, "/model/shared_expert_gate",
            "gates the shared experts' output; set model.shared_experts (> 0)");
    if (m.first_dense_layers >= m.layers)
        check.fail("/model/first_dense_layers",
                   "must leave at least one MoE layer (model.layers = " + str(m.layers) + "), got " + str(m.first_dense_layers));
}

void validate_training(const Config& c, Checks& check) {
    const ResolvedTraining& t = c.s.training;
    const ResolvedModel& m = c.s.model;
    check.require(c.s.training.seq_len > 0, "/training/seq_len", "must be a positive integer");
    if (m.position_embedding == PositionEmbedding::Learned && c.s.training.seq_len > m.max_positions)
        check.fail("/training/seq_len",
                   "exceeds the learned position table (model.max_positions = " + str(m.max_positions) + ")");
    check.require(t.dropout >= 0 && t.dropout < 1, "/training/dropout", "must be in [0, 1)");
    if (t.recompute_modules != 0) {
        check.require(t.recompute == Recompute::Selective, "/training/recompute_modules",
                      "needs training.recompute selective (Megatron's --recompute-granularity selective)");
        check.require(c.s.framework == Framework::Megatron || t.recompute_modules == bit(RecomputeModule::CoreAttn),
                      "/training/recompute_modules",
                      "modules other than core_attn are Megatron-Core's (framework megatron)");
    }
    if (t.activation_offload_layers > 0) {
        // megatron/core/transformer/transformer_config.py __post_init__ (--cpu-offloading): fewer layers than the
        // model's, no pipeline parallelism, no recompute; Transformer Engine's offload context (transformer_block.py).
        const char* path = "/training/activation_offload_layers";
        check.require(c.s.framework == Framework::Megatron, path, "is Megatron's --cpu-offloading: framework megatron");
        if (t.activation_offload_layers >= m.layers)
            check.fail(path, "must be below model.layers (" + str(m.layers) + ")");
        check.require(c.s.parallel.pp == 1, path, "needs pp = 1 (Megatron's rule)");
        check.require(t.recompute == Recompute::None, path, "needs recompute none (Megatron's rule)");
    }
    if (t.mlm_predictions > 0) {
        check.require(m.arch == Arch::Encoder && m.head == Head::Lm, "/training/mlm_predictions",
                      "gathers the positions an encoder's MLM head predicts; the model has no MLM head (arch encoder, head lm)");
        if (t.mlm_predictions > c.s.training.seq_len)
            check.fail("/training/mlm_predictions",
                       "at most training.seq_len (" + str(c.s.training.seq_len) + ") positions per sequence, got " + str(t.mlm_predictions));
    }
    check.require(!(t.master_weights && t.param_dtype == Dtype::Fp32), "/training/master_weights",
            "parameters are already fp32 (param_dtype fp32): a separate fp32 master copy does not exist");
    const int64_t per_pass = t.micro_batch * c.s.parallel.dp;
    if (t.global_batch <= 0 || t.global_batch % per_pass != 0)
        check.fail("/training/global_batch",
                   "must be a positive multiple of micro_batch * dp (" + str(per_pass) + "), got " + str(t.global_batch));
    if (t.fp8 != Fp8Recipe::None) {
        check.require(!c.traits.hf_code, "/training/fp8",
                      "fp8 GEMMs are modelled for Transformer Engine layers: set implementation.model_code to megatron");
        if (c.s.hardware.peak_tflops_fp8 <= 0)
            check.fail("/training/fp8",
                       "the device has no fp8 tensor cores (hardware.peak_tflops.fp8 is 0: " + c.s.hardware.preset + ")");
        if (t.fp8 == Fp8Recipe::Mx && c.s.hardware.peak_tflops_mxfp8 <= 0)
            check.fail("/training/fp8",
                       "MXFP8 needs block-scaled fp8 tensor cores (Blackwell): hardware.peak_tflops.mxfp8 is 0 (" +
                          c.s.hardware.preset + "); allowed here: none|delayed|current|blockwise");
        if (t.fp8 == Fp8Recipe::Nvfp4 && c.s.hardware.peak_tflops_nvfp4 <= 0)
            check.fail("/training/fp8",
                       "NVFP4 needs 4-bit block-scaled tensor cores (Blackwell): hardware.peak_tflops.nvfp4 is 0 (" +
                          c.s.hardware.preset + ")");
        check.require(is_16bit(t.dtype), "/training/fp8", "fp8 GEMMs run beside 16-bit activations: training.dtype must be bf16 or fp16");
        // Megatron's --fp8-param-gather keeps Transformer Engine's weights in fp8 with an fp32 master copy in the
        // optimizer (megatron/training/arguments.py: it requires the distributed optimizer or FSDP).
        if (t.param_dtype == Dtype::Fp8) {
            if (c.s.framework != Framework::Megatron)
                check.fail("/training/param_dtype",
                           std::string("fp8 primary weights are Megatron's --fp8-param-gather; framework ") +
                              name_of(c.s.framework) + " keeps 16-bit weights; allowed: fp32|fp16|bf16");
            check.require(c.s.parallel.distributed_optimizer, "/training/param_dtype",
                          "fp8 primary weights (--fp8-param-gather) need Megatron's distributed optimizer: set "
                          "parallel.distributed_optimizer true");
        }
    }
    if (m.experts == 0) {
        check.require(t.expert_imbalance == 1, "/training/expert_imbalance", "describes expert routing; the model has no experts");
        check.require(!t.capacity_factor, "/training/capacity_factor", "describes expert routing; the model has no experts");
        check.require(!t.router_z_loss, "/training/router_z_loss", "describes expert routing; the model has no experts");
    }
    if (c.s.implementation.moe_router_fusion)
        check.require(m.experts > 0 && c.s.framework == Framework::Megatron, "/implementation/moe_router_fusion",
                      "is Megatron-Core's fused MoE router (--moe-router-fusion): a MoE model under framework megatron");
}

// Megatron-Core MoE (megatron/training/arguments.py, core/parallel_state.py): experts split evenly over ep,
// each expert's width over etp, and ep * etp fitted into the non-pipeline ranks.
void validate_experts(const Config& c, Checks& check) {
    const ResolvedModel& m = c.s.model;
    const ResolvedParallel& p = c.s.parallel;
    const int64_t etp = p.etp;
    if (m.experts == 0) {
        check.require(p.ep == 1, "/parallel/ep", "expert parallelism needs a mixture-of-experts model (model.experts > 0)");
        check.require(p.moe_dispatcher == MoeDispatcher::AllToAll, "/parallel/moe_dispatcher",
                      "chooses how tokens reach their experts; the model has no experts");
        return;
    }
    // The flex dispatcher (DeepEP, HybridEP) is Megatron-Core's, and modelled as the published recipes run it: expert
    // parallelism without expert tensor parallelism.
    if (p.moe_dispatcher == MoeDispatcher::Flex) {
        check.require(c.s.framework == Framework::Megatron, "/parallel/moe_dispatcher", "flex is Megatron's: framework megatron");
        if (etp != 1)
            check.fail("/parallel/moe_dispatcher", "flex is modelled with etp = 1, got " + str(etp));
    }
    // Megatron-Core overlaps the expert-parallel exchange with another microbatch only for the all-to-all
    // (and flex) dispatchers (--overlap-moe-expert-parallel-comm).
    check.require(!(p.overlap_moe_comm && p.moe_dispatcher == MoeDispatcher::AllGather), "/parallel/overlap_moe_comm",
                  "is Megatron's overlap of the all-to-all dispatcher; with moe_dispatcher allgather: false");
    if (p.ep != 1 && !dimension(Dim::Ep).run_by(c.s.framework))
        check.fail("/parallel/ep",
                   std::string("expert parallelism runs under megatron or deepspeed, not ") + name_of(c.s.framework) + "; allowed: 1");
    check.divides(p.ep, {{"model.experts", m.experts, "each rank holds experts / ep of them"}}, "/parallel/ep", "ep");
    check.divides(etp, {{"model.expert_ffn_hidden", *m.expert_ffn_hidden}}, "/parallel/etp", "etp");
    const int64_t ranks = c.d.replica_degree * p.tp;  // the non-pipeline ranks
    if (ranks % (p.ep * etp) != 0)
        check.fail("/parallel/ep",
                   "ep * etp (" + str(p.ep * etp) + ") must divide the non-pipeline ranks, dp*tp*cp*ulysses = " +
                                       str(ranks) + "; ep that work with etp = " + str(etp) + ": " +
                                       divisors_text(gcd(m.experts, ranks % etp == 0 ? ranks / etp : 1)));
    // Megatron requires sequence parallelism with tensor parallelism in MoE models (arguments.py).
    if (c.s.framework == Framework::Megatron)
        check.require(p.tp == 1 || p.sp, "/parallel/sp", "Megatron's MoE layers need sequence parallelism (sp) when tp > 1");
}

void validate_sharding(const Config& c, Checks& check) {
    const ResolvedModel& m = c.s.model;
    const ResolvedParallel& p = c.s.parallel;
    const int64_t seq = c.s.training.seq_len;
    // Megatron attention/MLP sharding (megatron/core/transformer/attention.py, mlp.py). An LSTM has no heads
    // or FFN to split: its tensor parallelism is refused by lstm_rules.cpp, in words of its own.
    if (m.arch != Arch::Lstm)
        check.divides(p.tp, {{"model.heads", m.heads}, {"model.kv_heads", m.kv_heads, "query groups are split across tensor-parallel ranks"},
                             {"model.ffn_hidden", m.ffn_hidden}},
                      "/parallel/tp", "tp");
    if (p.sp && !check.has("/parallel/tp"))
        check.divides(p.tp, {{"training.seq_len", seq, "sequence parallelism splits it by tp"}}, "/parallel/sp", "tp");
    // DeepSpeed-Ulysses scatters heads with an all-to-all (deepspeed/sequence/layer.py); per-rank heads only
    // mean something once tp divides them.
    if (!check.has("/parallel/tp"))
        check.divides(p.ulysses, {{"the heads per tensor-parallel rank", m.heads / p.tp}, {"the key/value heads per tensor-parallel rank", m.kv_heads / p.tp},
                                  {"training.seq_len", seq}},
                      "/parallel/ulysses", "ulysses degrees");
    // Megatron context parallelism splits the sequence into 2*cp chunks for load balance
    // (megatron/core/utils.py get_batch_on_this_cp_rank) and needs blockwise (flash) attention.
    if (p.cp > 1) {
        if (seq % (2 * p.cp) != 0)
            check.fail("/parallel/cp",
                       "2*cp must divide training.seq_len (" + str(seq) + ": the sequence is cut into 2*cp chunks), got cp = " +
                                           str(p.cp) + (seq % 2 == 0 ? "; cp that work: " + divisors_text(seq / 2) : "; an odd seq_len allows cp = 1 only"));
        check.require(c.s.training.attention == Attention::Flash, "/parallel/cp",
                      "context (ring) parallelism needs training.attention = flash: ring attention is blockwise");
    }
    // Together the sequence splits must still divide the sequence (each alone may).
    const int64_t seq_split = (p.cp > 1 ? 2 * p.cp : 1) * p.ulysses * (p.sp ? p.tp : 1);
    if (!check.has("/parallel/tp") && !check.has("/parallel/sp") && !check.has("/parallel/ulysses") && !check.has("/parallel/cp"))
        if (seq % seq_split != 0)
            check.fail("/training/seq_len",
                       "must be divisible by the sequence split: (2*cp if cp > 1) * ulysses * (tp if sp) = " + str(seq_split) +
                          ", got " + str(seq));
    // The layers per stage (even, or uneven with first/last stage counts): scenario/pipeline_split.cpp.
    const PipelineSplit split = pipeline_split(p, c.s.model.layers);
    if (!split.problem.empty()) check.fail(split.path.c_str(), split.problem);
    if (p.vpp > 1) {
        check.require(p.pp > 1, "/parallel/vpp", "interleaving (vpp > 1) needs pipeline parallelism (pp > 1)");
        // megatron/core/pipeline_parallel/schedules.py forward_backward_pipelining_with_interleaving
        if (!check.has("/training/global_batch") && c.d.microbatches % p.pp != 0)
            check.fail("/training/global_batch",
                       "the interleaved schedule needs the number of microbatches (" + str(c.d.microbatches) +
                    ") to be a multiple of pp (" + str(p.pp) + ")");
    }
    check.require(p.schedule != Schedule::GPipe || p.vpp == 1, "/parallel/schedule",
            "gpipe has no interleaved variant: use 1f1b with vpp > 1, or vpp = 1");
    validate_experts(c, check);
    if (p.world_size)
        if (*p.world_size != c.d.world_size)
            check.fail("/parallel/world_size",
                       "must equal dp*tp*pp*cp*ulysses = " + str(c.d.world_size) + ", got " + str(*p.world_size));
}

void validate_hardware(const Config& c, Checks& check) {
    const HardwareSpec& h = c.s.hardware;
    // Ranges of single fields are checked while parsing (io/contract/scenario_schema.cpp). A peak of 0
    // means the unit is absent; any other must be large enough that times stay finite.
    for (const auto& [value, path] : {std::pair<double, const char*>{h.peak_tflops_fp32, "/hardware/peak_tflops/fp32"},
                                      {h.peak_tflops_tf32, "/hardware/peak_tflops/tf32"},
                                      {h.peak_tflops_fp16, "/hardware/peak_tflops/fp16"},
                                      {h.peak_tflops_bf16, "/hardware/peak_tflops/bf16"},
                                      {h.peak_tflops_fp8, "/hardware/peak_tflops/fp8"},
                                      {h.peak_tflops_int8, "/hardware/peak_tflops/int8"}})
        check.require(value == 0 || value >= 1e-3, path,
                "must be 0 (the device has no such unit) or from 0.001 to 1000000000 TFLOP/s");
    check.require(h.peak_tflops_fp32 > 0 || h.peak_tflops_bf16 > 0 || h.peak_tflops_fp16 > 0, "/hardware/peak_tflops",
            "needs at least one peak (fp32, fp16 or bf16) in TFLOP/s");
    // The NVLink domain is a whole number of hosts (NVL72: 18 hosts of 4); the ring rules of comm/collective_time.cpp
    // count hosts and domains in those units.
    if (h.nvlink_domain != 0 && h.nvlink_domain % h.gpus_per_node != 0)
        check.fail("/hardware/nvlink_domain",
                   "must be a multiple of gpus_per_node (" + std::to_string(h.gpus_per_node) +
                      "): one NVLink/NVSwitch fabric joins whole hosts; null for one host");
}

}  // namespace

std::vector<Problem> rule_problems(const Config& c, Rules rules) {
    Checks check;
    validate_model(c, check);
    if (rules == Rules::Training) {
        validate_training(c, check);
        validate_sharding(c, check);
        validate_framework(c, check);
    }
    validate_hardware(c, check);
    return check.problems();
}

}  // namespace shardcalc
