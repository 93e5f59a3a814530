// Constraints between fields. Each failure names the field a user would change and says why.
#include <vector>

#include "core/error.h"
#include "scenario/names.h"
#include "scenario/resolve.h"

namespace shardcalc {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

void require(bool ok, const char* path, const std::string& message) {
    if (!ok) throw InputError(path, message);
}

// The divisors of `n` in ascending order, at most `cap` of them (what a user could choose instead).
std::string divisors_text(int64_t n, size_t cap = 12) {
    std::vector<int64_t> low, high;
    for (int64_t d = 1; d * d <= n; ++d)
        if (n % d == 0) {
            low.push_back(d);
            if (d != n / d) high.push_back(n / d);
        }
    low.insert(low.end(), high.rbegin(), high.rend());
    std::string out;
    for (size_t i = 0; i < low.size() && i < cap; ++i) out += (i ? ", " : "") + str(low[i]);
    return low.size() > cap ? out + ", ..." : out;
}

void divides(int64_t divisor, int64_t value, const char* path, const std::string& what) {
    require(divisor > 0 && value % divisor == 0, path,
            "must divide " + what + " (" + str(value) + "), got " + str(divisor) + "; divisors: " + divisors_text(value));
}

void validate_model(const Config& c) {
    const ModelSpec& m = c.s.model;
    // Ranges are checked while parsing; here only relations between fields.
    require(m.heads % *m.kv_heads == 0, "/model/kv_heads",
            "must divide heads (" + str(m.heads) + "), got " + str(*m.kv_heads));
    require(m.arch == Arch::Encoder || !*m.pooler, "/model/pooler", "a pooler exists only for arch encoder");
    // A decoder's tied output layer is the [vocab, embedding_dim] word-embedding table itself, and it reads the
    // hidden state directly: the two widths must agree (ALBERT, an encoder, maps back down in its MLM head).
    require(m.arch == Arch::Encoder || m.head != Head::Lm || !m.tied_embeddings || *m.embedding_dim == m.hidden,
            "/model/embedding_dim",
            "a decoder with tied_embeddings shares the word-embedding table with its output layer, so embedding_dim "
            "must equal hidden (" + str(m.hidden) + "), got " + str(*m.embedding_dim) +
                "; set model.tied_embeddings to false for a factorized decoder embedding");
    if (m.position_embedding == PositionEmbedding::Learned)
        require(m.max_positions > 0, "/model/max_positions",
                "learned position embeddings need max_positions (the table's row count)");
}

void validate_training(const Config& c) {
    const TrainingSpec& t = c.s.training;
    const ModelSpec& m = c.s.model;
    require(c.d.seq_len > 0, "/training/seq_len", "must be a positive integer");
    if (m.position_embedding == PositionEmbedding::Learned)
        require(c.d.seq_len <= m.max_positions, "/training/seq_len",
                "exceeds the learned position table (model.max_positions = " + str(m.max_positions) + ")");
    require(t.dropout >= 0 && t.dropout < 1, "/training/dropout", "must be in [0, 1)");
    require(!(*t.master_weights && *t.param_dtype == Dtype::Fp32), "/training/master_weights",
            "parameters are already fp32 (param_dtype fp32): a separate fp32 master copy does not exist");
    const int64_t per_pass = t.micro_batch * c.s.parallel.dp;
    require(*t.global_batch > 0 && *t.global_batch % per_pass == 0, "/training/global_batch",
            "must be a positive multiple of micro_batch * dp (" + str(per_pass) + "), got " + str(*t.global_batch));
}

void validate_sharding(const Config& c) {
    const ModelSpec& m = c.s.model;
    const ParallelSpec& p = c.s.parallel;
    const int64_t seq = c.d.seq_len;
    // Megatron attention/MLP sharding (megatron/core/transformer/attention.py, mlp.py).
    divides(p.tp, m.heads, "/parallel/tp", "model.heads");
    divides(p.tp, *m.kv_heads, "/parallel/tp", "model.kv_heads (query groups are split across tensor-parallel ranks)");
    divides(p.tp, *m.ffn_hidden, "/parallel/tp", "model.ffn_hidden");
    if (p.sp) divides(p.tp, seq, "/parallel/sp", "training.seq_len when sequence parallelism splits it by tp");
    // DeepSpeed-Ulysses scatters heads with an all-to-all (deepspeed/sequence/layer.py).
    divides(p.ulysses, m.heads / p.tp, "/parallel/ulysses", "the heads per tensor-parallel rank");
    divides(p.ulysses, *m.kv_heads / p.tp, "/parallel/ulysses", "the key/value heads per tensor-parallel rank");
    divides(p.ulysses, seq, "/parallel/ulysses", "training.seq_len");
    // Megatron context parallelism splits the sequence into 2*cp chunks for load balance
    // (megatron/core/utils.py get_batch_on_this_cp_rank) and needs blockwise (flash) attention.
    if (p.cp > 1) {
        require(seq % (2 * p.cp) == 0, "/parallel/cp",
                "2*cp must divide training.seq_len (" + str(seq) + ": the sequence is cut into 2*cp chunks), got cp = " +
                    str(p.cp) + (seq % 2 == 0 ? "; cp that work: " + divisors_text(seq / 2) : "; an odd seq_len allows cp = 1 only"));
        require(c.s.training.attention == Attention::Flash, "/parallel/cp",
                "context (ring) parallelism needs training.attention = flash: ring attention is blockwise");
    }
    // Together the sequence splits must still divide the sequence.
    const int64_t seq_split = (p.cp > 1 ? 2 * p.cp : 1) * p.ulysses * (p.sp ? p.tp : 1);
    divides(seq_split, seq, "/training/seq_len",
            "nothing: the sequence is split (2*cp if cp > 1) * ulysses * (tp if sp) = " + std::to_string(seq_split) +
                " ways and seq_len");
    // Megatron splits the layers evenly into pp * vpp model chunks.
    require(c.s.model.layers % (p.pp * p.vpp) == 0, "/parallel/pp",
            "pp * vpp (" + str(p.pp) + " * " + str(p.vpp) + " = " + str(p.pp * p.vpp) +
                ") must divide model.layers (" + str(c.s.model.layers) + ") so every model chunk holds the same layers");
    if (p.vpp > 1) {
        require(p.pp > 1, "/parallel/vpp", "interleaving (vpp > 1) needs pipeline parallelism (pp > 1)");
        // megatron/core/pipeline_parallel/schedules.py forward_backward_pipelining_with_interleaving
        require(c.d.microbatches % p.pp == 0, "/training/global_batch",
                "the interleaved schedule needs the number of microbatches (" + str(c.d.microbatches) +
                    ") to be a multiple of pp (" + str(p.pp) + ")");
    }
    require(p.schedule != Schedule::GPipe || p.vpp == 1, "/parallel/schedule",
            "gpipe has no interleaved variant: use 1f1b with vpp > 1, or vpp = 1");
    if (p.world_size)
        require(*p.world_size == c.d.world_size, "/parallel/world_size",
                "must equal dp*tp*pp*cp*ulysses = " + str(c.d.world_size) + ", got " + str(*p.world_size));
}

void validate_framework(const Config& c) {
    const ParallelSpec& p = c.s.parallel;
    const Framework f = c.s.framework;
    switch (f) {
        case Framework::Megatron:
            require(p.zero == 0, "/parallel/zero",
                    "the megatron profile shards optimizer states with distributed_optimizer (ZeRO-1 semantics); "
                    "stages 2-3 need framework deepspeed or fsdp");
            require(p.offload_params == Offload::None, "/parallel/offload_params",
                    "megatron does not offload parameters; allowed: none");
            require(p.offload_optimizer != Offload::Nvme, "/parallel/offload_optimizer",
                    "megatron offloads the optimizer to cpu only; allowed: none|cpu");
            require(p.offload_optimizer == Offload::None || p.distributed_optimizer, "/parallel/offload_optimizer",
                    "megatron's optimizer CPU offload needs distributed_optimizer = true");
            break;
        case Framework::DeepSpeed:
            require(!p.distributed_optimizer, "/parallel/distributed_optimizer",
                    "is a megatron option; with deepspeed use zero >= 1");
            // deepspeed/runtime/pipe/engine.py asserts ZeRO stage < 2 with pipeline parallelism.
            require(p.pp == 1 || p.zero <= 1, "/parallel/zero",
                    "DeepSpeed pipeline parallelism (pp > 1) supports ZeRO stage 0 or 1 only");
            require(p.offload_optimizer == Offload::None || p.zero >= 1, "/parallel/offload_optimizer",
                    "ZeRO-Offload needs zero >= 1");
            require(p.offload_params == Offload::None || p.zero == 3, "/parallel/offload_params",
                    "parameter offload (ZeRO-Infinity) needs zero = 3");
            break;
        case Framework::Fsdp:
            require(p.zero != 1, "/parallel/zero",
                    "FSDP sharding strategies are NO_SHARD (0), SHARD_GRAD_OP (2) and FULL_SHARD (3); allowed: 0|2|3");
            require(!p.distributed_optimizer, "/parallel/distributed_optimizer", "is a megatron option");
            require(p.offload_params != Offload::Nvme, "/parallel/offload_params", "FSDP offloads to cpu only; allowed: none|cpu");
            require(p.offload_optimizer != Offload::Nvme, "/parallel/offload_optimizer",
                    "FSDP offloads to cpu only; allowed: none|cpu");
            // torch.distributed.fsdp.CPUOffload(offload_params=True) moves parameters and gradients
            // to the host, so the optimizer step runs there too.
            require(p.offload_params == p.offload_optimizer, "/parallel/offload_optimizer",
                    "FSDP CPUOffload moves parameters, gradients and the optimizer together: set offload_params "
                    "and offload_optimizer to the same value");
            require(p.offload_params == Offload::None || p.zero == 3, "/parallel/offload_params",
                    "FSDP CPU offload needs FULL_SHARD (zero = 3)");
            break;
        case Framework::Pytorch:
            require(p.zero <= 1, "/parallel/zero",
                    "plain PyTorch DDP offers ZeroRedundancyOptimizer (1) at most; allowed: 0|1");
            require(!p.distributed_optimizer, "/parallel/distributed_optimizer", "is a megatron option");
            require(p.offload_optimizer == Offload::None, "/parallel/offload_optimizer",
                    "plain PyTorch DDP has no offload; allowed: none");
            require(p.offload_params == Offload::None, "/parallel/offload_params",
                    "plain PyTorch DDP has no offload; allowed: none");
            break;
    }
}

void validate_hardware(const Config& c) {
    const HardwareSpec& h = c.s.hardware;
    // Ranges of single fields are checked while parsing (io/scenario_json.cpp kHardwareNumbers). A peak of 0
    // means the unit is absent; any other must be large enough that times stay finite.
    for (const auto& [value, path] : {std::pair<double, const char*>{h.peak_tflops_fp32, "/hardware/peak_tflops/fp32"},
                                      {h.peak_tflops_tf32, "/hardware/peak_tflops/tf32"},
                                      {h.peak_tflops_fp16, "/hardware/peak_tflops/fp16"},
                                      {h.peak_tflops_bf16, "/hardware/peak_tflops/bf16"},
                                      {h.peak_tflops_fp8, "/hardware/peak_tflops/fp8"},
                                      {h.peak_tflops_int8, "/hardware/peak_tflops/int8"}})
        require(value == 0 || value >= 1e-3, path,
                "must be 0 (the device has no such unit) or from 0.001 to 1000000000 TFLOP/s");
    require(h.peak_tflops_fp32 > 0 || h.peak_tflops_bf16 > 0 || h.peak_tflops_fp16 > 0, "/hardware/peak_tflops",
            "needs at least one peak (fp32, fp16 or bf16) in TFLOP/s");
}

}  // namespace

void validate(const Config& c) {
    validate_model(c);
    validate_training(c);
    validate_sharding(c);
    validate_framework(c);
    validate_hardware(c);
}

}  // namespace shardcalc
