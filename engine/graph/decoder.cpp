// Decoder-only language models: GPT-2/GPT-3 (learned positions, LayerNorm, GeLU, biases,
// tied embeddings), LLaMA 2/3 and Mistral (RoPE, RMSNorm, SwiGLU, GQA, untied), Bloom
// (ALiBi, embedding LayerNorm). The differences are all in ModelSpec fields.
#include "graph/blocks.h"
#include "graph/build.h"

namespace shardcalc {

ModelGraph build_decoder(const Config& c) {
    const BuildContext b = build_context(c);
    const ResolvedModel& m = c.s.model;
    ModelGraph g;
    g.pre = embedding_module(c);
    g.groups = layer_groups(c, false, g.layer_group);

    g.post = Module{"head", {}, {}};
    g.post.ops.push_back(norm(b, "final_layernorm", m.hidden));
    if (m.head == Head::Lm) {
        auto output_layer = [&] {
            return high_precision(linear("output_layer", c.d.vocab_padded, m.hidden, m.output_bias, Parallel::Column,
                                         SavedSplit::Sequence, m.hidden));
        };
        Op out = pointwise_fed(b, eager_linear(b, output_layer(), true));
        out.params[0].tied = m.tied_embeddings;  // the weight only: a bias (model.output_bias) is the head's own
        g.post.ops.push_back(out);
        if (m.logit_softcap > 0) g.post.ops.push_back(logit_softcap(b));
        g.post.ops.push_back(cross_entropy(b));
        // Multi-token prediction (DeepSeek-V3 sec. 2.2, Megatron-Core multi_token_prediction.py): each module
        // normalizes the hidden state and the next token's embedding, projects the pair [2h] back to h, runs one
        // layer of the last layer's kind, and predicts through the shared output layer with a loss of its own.
        for (int64_t i = 0; i < m.mtp_layers; ++i) {
            Module mtp{"mtp", {}, {}};
            mtp.ops.push_back(norm(b, "enorm", m.hidden));
            mtp.ops.push_back(norm(b, "hnorm", m.hidden));
            mtp.ops.push_back(linear("eh_proj", m.hidden, 2 * m.hidden, false, Parallel::Column, SavedSplit::Sequence, 2 * m.hidden));
            mtp.children.push_back(transformer_layer(c, false, is_moe_layer(m, m.layers - 1), is_local_layer(m, m.layers - 1)));
            mtp.ops.push_back(norm(b, "final_layernorm", m.hidden));
            Op head = output_layer();
            for (ParamTensor& p : head.params) p.shared = true;
            mtp.ops.push_back(head);
            mtp.ops.push_back(cross_entropy(b));
            g.post.children.push_back(mtp);
        }
    }
    return g;
}

}  // namespace shardcalc
