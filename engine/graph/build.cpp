#include "graph/build.h"

#include "graph/adapter.h"
#include "graph/blocks.h"
#include "graph/eager_kernels.h"

namespace shardcalc {

bool is_moe_layer(const ModelFields& m, int64_t i) {
    return m.experts > 0 && i >= m.first_dense_layers && (i - m.first_dense_layers + 1) % m.moe_every == 0;
}

bool is_local_layer(const ModelFields& m, int64_t i) {
    return m.sliding_window > 0 && (m.global_every == 0 || (i + 1) % m.global_every != 0);
}

// One group per kind of layer, each layer's module built once: layers that alternate (gpt-oss's local and global
// attention) share two groups however many there are, instead of one group per run of equal layers.
std::vector<LayerGroup> layer_groups(const Config& c, bool post_norm, std::vector<int64_t>& layer_group) {
    const ResolvedModel& m = c.s.model;
    std::vector<LayerGroup> groups;
    std::vector<int64_t> local_of;  // each group's attention: 1 sliding-window (int64_t: no std::vector<bool> code)
    layer_group.assign(static_cast<size_t>(m.layers), 0);
    for (int64_t i = 0; i < m.layers; ++i) {
        const bool moe = is_moe_layer(m, i), local = is_local_layer(m, i);
        size_t k = 0;
        while (k < groups.size() && !(groups[k].moe == moe && (local_of[k] != 0) == local)) ++k;
        if (k == groups.size()) {
            groups.push_back(LayerGroup{transformer_layer(c, post_norm, moe, local), 0, m.shared_layers, moe});
            local_of.push_back(local ? 1 : 0);
        }
        ++groups[k].count;
        layer_group[static_cast<size_t>(i)] = static_cast<int64_t>(k);
    }
    // With more than one kind, each group's name says what sets it apart, for the module and kernel tables
    // (gpt-oss: "layer (sliding window)" and "layer (full attention)"; DeepSeek-V3: "layer (dense)", "layer (MoE)").
    bool moe_differs = false, local_differs = false;
    for (size_t k = 1; k < groups.size(); ++k) {
        moe_differs = moe_differs || groups[k].moe != groups[0].moe;
        local_differs = local_differs || local_of[k] != local_of[0];
    }
    for (size_t k = 0; k < groups.size() && groups.size() > 1; ++k) {
        std::string kind;
        if (moe_differs) kind = groups[k].moe ? "MoE" : "dense";
        if (local_differs) kind += std::string(kind.empty() ? "" : ", ") + (local_of[k] ? "sliding window" : "full attention");
        groups[k].layer.name += " (" + kind + ")";
    }
    return groups;
}

namespace {
ModelGraph build_model(const Config& c) {
    switch (c.s.model.arch) {
        case Arch::Decoder: return build_decoder(c);
        case Arch::Encoder: return build_encoder(c);
        case Arch::Lstm: return build_lstm(c);
    }
    return build_decoder(c);
}
}  // namespace

ModelGraph build_graph(const Config& c) {
    ModelGraph g = build_model(c);
    if (c.s.adapter.method != AdapterMethod::None) apply_adapter(g, c);
    return g;
}

Module embedding_module(const Config& c) {
    const BuildContext b = build_context(c);
    const ResolvedModel& m = c.s.model;
    const int64_t e = m.embedding_dim;
    Module mod{"embedding", {}, {}};
    // Vocab-parallel embedding (megatron/core/tensor_parallel/layers.py VocabParallelEmbedding).
    Op word{"word_embeddings", {weight(c.d.vocab_padded, e, ParamSplit::Sharded)}, {}};
    // Forward gathers rows (read and write e per token); backward accumulates dy into the fp32
    // embedding gradient (read dy, read-modify-write the gradient row).
    const int lookups = 1 + (m.position_embedding == PositionEmbedding::Learned) + (m.type_vocab > 0);
    word.work.push_back(b.hf_code ? eager::embedding(b, e, lookups)
                                  : elementwise(e, SavedSplit::Sequence, 2 * b.act_bytes, b.act_bytes + 8));
    mod.ops.push_back(word);
    if (m.position_embedding == PositionEmbedding::Learned)
        mod.ops.push_back(Op{"position_embeddings", {weight(m.max_positions, e, ParamSplit::Replicated)}, {}});
    if (m.type_vocab > 0)
        mod.ops.push_back(Op{"token_type_embeddings", {weight(m.type_vocab, e, ParamSplit::Replicated)}, {}});
    if (m.embedding_norm) mod.ops.push_back(norm(b, "embedding_layernorm", e));
    // transformers' sliding-window mask for SDPA, one byte per query and key (graph/blocks.h sdpa_window_mask): kept
    // from the forward to the last layer's backward (SDPA saves it), once per microbatch in flight.
    if (b.hf_code && m.sliding_window > 0)
        mod.ops.push_back(Op{"sliding_window_mask", {}, {{"mask", SavedKind::Mask, SavedSplit::Scores, 1, 0, false,
                                                          KernelPath::SdpaWindowMask}}});
    // Embedding dropout mask, sbh (Korthikanti sec. 4.3).
    if (b.dropout) mod.ops.push_back(dropout_add(b, "embedding_dropout", e));
    // ALBERT projects the factorized embedding up to the hidden size (transformers' AlbertTransformer
    // embedding_hidden_mapping_in). An LSTM has no such GEMM: its first layer reads the embedding at its own width
    // (nn.LSTM's input_size; graph/lstm.cpp).
    if (e != m.hidden && m.arch != Arch::Lstm)
        mod.ops.push_back(pointwise_fed(b, eager_linear(
            b, linear("embedding_hidden_mapping_in", m.hidden, e, true, Parallel::None, SavedSplit::Sequence, e), true)));
    return mod;
}

Module transformer_layer(const Config& c, bool post_norm, bool moe, bool local) {
    const BuildContext b = build_context(c);
    const int64_t h = c.s.model.hidden;
    Module layer{"layer", {}, {}};
    // Pre-norm (GPT, LLaMA) and post-norm (BERT) layers save the same tensors; only the order differs.
    auto add_norm = [&](const char* name) {
        Module n{name, {norm(b, name, h)}, {}};
        layer.children.push_back(n);
    };
    auto add_op = [&](Op op) { layer.children.push_back(Module{op.name, {op}, {}}); };
    // Under layernorm recompute Megatron-Core recomputes the norms it builds as modules of their own: before multi-latent
    // attention and before a MoE layer; elsewhere Transformer Engine fuses the norm into the next linear
    // (megatron/core/transformer/transformer_layer.py: IdentityOp norms are skipped; docs/memory.md "Per-module recompute").
    const unsigned norm_rerun = bit(RecomputeModule::LayerNorm);
    if (!post_norm) {
        add_norm("input_layernorm");
        if (c.s.model.kv_lora_rank > 0) layer.children.back().ops.front().rerun_by |= norm_rerun;
    }
    layer.children.push_back(self_attention(b, local));
    if (c.s.model.parallel_block) {
        // Falcon / GPT-J / PaLM parallel layers: attention and MLP both read the one normalized input (saved once,
        // by the attention's projection, unless autocast casts it for each linear) and their outputs join the
        // residual in one add (transformers modeling_falcon.py, parallel_attn).
        if (c.s.model.parallel_norms) {
            // GPT-NeoX (use_parallel_residual, transformers modeling_gpt_neox.py): the MLP reads the layer input
            // through post_attention_layernorm, its own norm; that norm's input is the tensor the first norm keeps.
            Op second = norm(b, "post_attention_layernorm", h);
            second.saved.erase(second.saved.begin());
            layer.children.push_back(Module{second.name, {second}, {}});
        }
        layer.children.push_back(moe ? moe_mlp(b) : mlp(b, c.s.model.ffn_hidden, "mlp", b.autocast || c.s.model.parallel_norms));
        add_op(dropout_add(b, "dropout_add", h));
        return layer;
    }
    // Gemma 2/3 normalize each branch's output before the residual add too (transformers modeling_gemma3.py
    // post_attention_layernorm, post_feedforward_layernorm): each keeps its input.
    if (c.s.model.post_norms) add_norm("attention_output_norm");
    add_op(dropout_add(b, "attention_dropout_add", h));
    add_norm(post_norm ? "attention_output_layernorm" : "post_attention_layernorm");
    if (moe) {
        layer.children.back().ops.front().rerun_by |= norm_rerun;
        layer.children.push_back(moe_mlp(b));
    } else {
        // mlp checkpoints a dense layer's MLP with its fused norm: what they saved is dropped but the norm's input, the
        // checkpoint's own, and all of it runs again.
        const unsigned whole = bit(RecomputeModule::Mlp);
        layer.children.back().ops.front().rerun_by |= whole;
        Module dense = mlp(b, c.s.model.ffn_hidden);
        tag_recompute(dense, whole, whole);
        layer.children.push_back(dense);
    }
    if (c.s.model.post_norms) add_norm("mlp_output_norm");
    add_op(dropout_add(b, "mlp_dropout_add", h));
    if (post_norm) add_norm("output_layernorm");
    return layer;
}

}  // namespace shardcalc
