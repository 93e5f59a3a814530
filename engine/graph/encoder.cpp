// Encoder-only models: BERT (token types, post-norm layers, pooler, MLM head) and ALBERT
// (factorized embedding, one set of layer weights shared by all layers).
#include "graph/blocks.h"
#include "graph/build.h"

namespace shardcalc {
namespace {

// Google's BERT and ALBERT gather the masked positions before the MLM head (run_pretraining.py
// gather_indexes, max_predictions_per_seq): the head's ops then see training.mlm_predictions of each sequence's
// tokens (Derived::mlm_share), its saved tensors and temporaries too.
Op gathered(Op op) {
    for (Work& w : op.work) w.gathered = true;
    for (auto* list : {&op.saved, &op.forward_temporaries, &op.backward_temporaries})
        for (SavedTensor& t : *list) t.gathered = true;
    return op;
}

}  // namespace

ModelGraph build_encoder(const Config& c) {
    const BuildContext b = build_context(c);
    const ResolvedModel& m = c.s.model;
    const int64_t e = m.embedding_dim;
    ModelGraph g;
    g.pre = embedding_module(c);
    g.groups = layer_groups(c, true, g.layer_group);

    g.post = Module{"head", {}, {}};
    // The pooler reads only the first token: its saved input is b*h elements, negligible.
    if (m.pooler) g.post.ops.push_back(Op{"pooler", {weight(m.hidden, m.hidden, ParamSplit::Replicated),
                                                      vector_param("b", m.hidden, ParamSplit::Replicated)}, {}});
    if (m.head == Head::Lm) {
        // MLM head (transformers' BertLMPredictionHead / AlbertMLMHead): dense + GeLU + LayerNorm
        // transform to the embedding size, then the decoder tied to the word embeddings with its own bias.
        g.post.ops.push_back(gathered(pointwise_fed(b, eager_linear(
            b, linear("mlm_transform", e, m.hidden, true, Parallel::None, SavedSplit::Sequence, m.hidden), true))));
        Op act{"mlm_activation", {}, {{"input", SavedKind::Activation, SavedSplit::Sequence, e}}};
        act.work.push_back(elementwise(e, SavedSplit::Sequence, 2 * b.act_bytes, 3 * b.act_bytes));
        g.post.ops.push_back(gathered(act));
        g.post.ops.push_back(gathered(norm(b, "mlm_layernorm", e)));
        Op decoder = pointwise_fed(b, eager_linear(
            b, linear("mlm_decoder", c.d.vocab_padded, e, true, Parallel::Column, SavedSplit::Sequence, e), true));
        decoder.params[0].tied = m.tied_embeddings;
        g.post.ops.push_back(gathered(decoder));
        g.post.ops.push_back(gathered(cross_entropy(b)));
        // BertForPreTraining / AlbertForPreTraining add a 2-way sentence classifier on the pooled output.
        if (m.pooler) g.post.ops.push_back(Op{"sentence_classifier", {weight(2, m.hidden, ParamSplit::Replicated),
                                                                       vector_param("b", 2, ParamSplit::Replicated)}, {}});
    }
    return g;
}

}  // namespace shardcalc
