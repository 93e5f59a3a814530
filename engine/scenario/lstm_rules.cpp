#include "scenario/lstm_rules.h"

#include <string>
#include <utility>

namespace shardcalc {

std::vector<Problem> lstm_problems(const Config& c) {
    const ResolvedModel& m = c.s.model;
    const ResolvedParallel& p = c.s.parallel;
    std::vector<Problem> list;
    auto require = [&](bool ok, const char* path, const std::string& message) {
        if (!ok) list.push_back({path, message});
    };
    require(m.proj_size < m.hidden, "/model/proj_size",
            "must be smaller than hidden (" + std::to_string(m.hidden) + "), got " + std::to_string(m.proj_size) +
                " (torch.nn.LSTM: proj_size has to be smaller than hidden_size); 0 for none");
    const int64_t top = m.proj_size > 0 ? m.proj_size : m.hidden;
    const int64_t out = m.projection > 0 ? m.projection : top;
    require(m.head != Head::Lm || !m.tied_embeddings || m.embedding_dim == out, "/model/tied_embeddings",
            "a tied output layer is the word-embedding table, so embedding_dim (" + std::to_string(m.embedding_dim) +
                ") must equal the width the softmax reads (" + std::to_string(out) +
                (m.projection > 0 ? ", model.projection" : m.proj_size > 0 ? ", model.proj_size" : ", model.hidden") +
                "); set tied_embeddings to false");
    for (const auto& [bad, path] : {std::pair<bool, const char*>{m.experts > 0, "/model/experts"},
                                    {m.shared_layers, "/model/shared_layers"},
                                    {m.kv_lora_rank > 0, "/model/kv_lora_rank"},
                                    {m.mtp_layers > 0, "/model/mtp_layers"},
                                    {m.qk_norm, "/model/qk_norm"},
                                    {m.type_vocab > 0, "/model/type_vocab"},
                                    {m.embedding_norm, "/model/embedding_norm"}})
        require(!bad, path, "describes a transformer; an LSTM (arch lstm) has none");
    // Tensor, sequence, context, Ulysses and expert parallelism split heads, widths or the sequence of attention
    // layers; an LSTM's recurrence runs its time steps in order on one device.
    for (const auto& [bad, path] : {std::pair<bool, const char*>{p.tp > 1, "/parallel/tp"},
                                    {p.sp, "/parallel/sp"},
                                    {p.cp > 1, "/parallel/cp"},
                                    {p.ulysses > 1, "/parallel/ulysses"},
                                    {p.ep > 1, "/parallel/ep"}})
        require(!bad, path, "is modelled for transformers; an LSTM runs with data and pipeline parallelism (dp, pp) and ZeRO");
    // cuDNN runs on NVIDIA GPUs, its four gates in one GEMM (cudnnRNNForward, CUDNN_LSTM).
    if (c.s.implementation.rnn == RnnImpl::Cudnn) {
        require(c.s.framework != Framework::Xla && c.s.hardware.kind == DeviceKind::Gpu, "/implementation/rnn",
                "cudnn runs on GPUs under PyTorch; an XLA program on a TPU unrolls the recurrence: set rnn to unrolled");
        require(m.fused_gates, "/model/fused_gates",
                "cuDNN computes the four gates in one GEMM; set fused_gates to true, or implementation.rnn to unrolled");
    }
    return list;
}

}  // namespace shardcalc
