// Decoder-only language models: GPT-2/GPT-3 (learned positions, LayerNorm, GeLU, biases,
// tied embeddings), LLaMA 2/3 and Mistral (RoPE, RMSNorm, SwiGLU, GQA, untied), Bloom
// (ALiBi, embedding LayerNorm). The differences are all in ModelSpec fields.
#include "graph/blocks.h"
#include "graph/build.h"

namespace shardcalc {

ModelGraph build_decoder(const Config& c) {
    const BuildContext b = build_context(c);
    const ModelSpec& m = c.s.model;
    ModelGraph g;
    g.pre = embedding_module(c);
    g.groups = layer_groups(c, false);

    g.post = Module{"head", {}, {}};
    g.post.ops.push_back(norm(b, "final_layernorm", m.hidden));
    if (m.head == Head::Lm) {
        Op out = eager_linear(
            b, linear("output_layer", c.d.vocab_padded, m.hidden, false, Parallel::Column, SavedSplit::Sequence, m.hidden),
            true);
        out.params[0].tied = m.tied_embeddings;
        g.post.ops.push_back(out);
        g.post.ops.push_back(cross_entropy(b));
    }
    return g;
}

}  // namespace shardcalc
