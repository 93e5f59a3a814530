// One test per op kind: parameters (shape, tensor-parallel split) and saved tensors.
#include "graph/blocks.h"
#include "helpers.h"
#include "memory/model_states.h"

using namespace shardcalc;

namespace {

const char* kBase = R"({"framework":"megatron","model":{"layers":2,"hidden":1024,"heads":16,"kv_heads":4,
  "ffn_hidden":2816,"mlp":"swiglu","vocab":32000,"position_embedding":"rope","norm":"rmsnorm","bias":false,
  "tied_embeddings":false},"training":{"seq_len":2048,"micro_batch":2},"parallel":{"tp":2}})";

const Op& find_op(const Module& m, const std::string& name) {
    for (const auto& op : m.ops)
        if (op.name == name) return op;
    for (const auto& c : m.children)
        if (c.name == name && c.ops.size() == 1) return c.ops[0];
    FAIL("no op " << name);
    return m.ops[0];
}

double s_b(const Config& c) { return static_cast<double>(c.s.training.seq_len * c.s.training.micro_batch); }

}  // namespace

TEST_CASE("linear: column-parallel QKV holds q + 2*kv heads, split by tp; saves its input") {
    const Config c = test::config(kBase);
    const Module attn = self_attention(build_context(c));
    const Op& qkv = find_op(attn, "query_key_value");
    REQUIRE(qkv.params.size() == 1);  // bias: false
    CHECK(qkv.params[0].shape == std::vector<int64_t>{(16 + 2 * 4) * 64, 1024});
    CHECK(local_numel(qkv.params[0], c) == doctest::Approx(24.0 * 64 * 1024 / 2));
    // input replicated across tp ranks without sp: s*b*h*2 bytes
    CHECK(op_activation_bytes(qkv, c, true) == doctest::Approx(s_b(c) * 1024 * 2));
}

TEST_CASE("linear: row-parallel bias is replicated, column-parallel bias is split") {
    const Config c = test::config(R"({"model":{"layers":2,"hidden":1024,"heads":16,"vocab":1000,"max_positions":2048},
      "training":{"seq_len":1024},"parallel":{"tp":4}})");
    const Module attn = self_attention(build_context(c));
    const Op& dense = find_op(attn, "dense");
    const Op& qkv = find_op(attn, "query_key_value");
    CHECK(local_numel(dense.params[1], c) == 1024);       // replicated bias
    CHECK(local_numel(qkv.params[1], c) == 3 * 1024 / 4);  // split bias
}

TEST_CASE("norm: RMSNorm has a weight only, LayerNorm weight and bias; both save the input") {
    Config c = test::config(kBase);
    const BuildContext b = build_context(c);
    const Op rms = norm(b, "n", 1024);
    CHECK(rms.params.size() == 1);
    CHECK(op_activation_bytes(rms, c, true) == doctest::Approx(s_b(c) * 1024 * 2));
    c.s.model.norm = Norm::LayerNorm;
    CHECK(norm(build_context(c), "n", 1024).params.size() == 2);
}

TEST_CASE("core attention: flash saves q, k, v (kv at GQA width) and fp32 LSE; no s^2 term") {
    const Config c = test::config(kBase);
    const Op& core = find_op(self_attention(build_context(c)), "core_attention");
    const double sb = s_b(c);
    const double expected = sb * (1024 + 2 * 256) * 2 / 2 + sb * 16 * 4 / 2;  // /tp, LSE fp32 per head
    CHECK(op_activation_bytes(core, c, true) == doctest::Approx(expected));
}

TEST_CASE("core attention: eager saves repeated k/v, softmax, dropout mask and output (5as^2b)") {
    const Config c = test::config(std::string(kBase).replace(std::string(kBase).find("\"seq_len\""), 0,
                                                             "\"attention\":\"eager\",\"dropout\":0.1,"));
    const Op& core = find_op(self_attention(build_context(c)), "core_attention");
    const double sb = s_b(c), s = static_cast<double>(c.s.training.seq_len), b = c.s.training.micro_batch;
    const double expected = sb * 1024 * 3 * 2 / 2 + 5.0 * 16 * s * s * b / 2;
    CHECK(op_activation_bytes(core, c, true) == doctest::Approx(expected));
    // selective recompute drops exactly the s^2 terms
    Config sel = c;
    sel.s.training.recompute = Recompute::Selective;
    CHECK(op_activation_bytes(core, sel, true) == doctest::Approx(sb * 1024 * 3 * 2 / 2));
}

TEST_CASE("GLU activation: fused keeps 2f, eager keeps 3f; GeLU keeps f") {
    Config c = test::config(kBase);
    const double sb = s_b(c);
    CHECK(op_activation_bytes(find_op(mlp(build_context(c), c.s.model.ffn_hidden), "glu_activation"), c, true) ==
          doctest::Approx(sb * 2 * 2816 * 2 / 2));
    c.traits.fused_glu = false;
    CHECK(op_activation_bytes(find_op(mlp(build_context(c), c.s.model.ffn_hidden), "glu_activation"), c, true) ==
          doctest::Approx(sb * 3 * 2816 * 2 / 2));
    c.s.model.mlp = Mlp::Gelu;
    CHECK(op_activation_bytes(find_op(mlp(build_context(c), c.s.model.ffn_hidden), "activation"), c, true) ==
          doctest::Approx(sb * 2816 * 2 / 2));
    CHECK(find_op(mlp(build_context(c), c.s.model.ffn_hidden), "dense_h_to_4h").params[0].shape[0] == 2816);
}

TEST_CASE("dropout-add: a 1-byte mask only when dropout > 0") {
    Config c = test::config(kBase);
    CHECK(dropout_add(build_context(c), "d", 1024).saved.empty());
    c.s.training.dropout = 0.1;
    const Op d = dropout_add(build_context(c), "d", 1024);
    CHECK(op_activation_bytes(d, c, true) == doctest::Approx(s_b(c) * 1024));
}

TEST_CASE("cross entropy: one fp32 copy 4sbv/t survives forward; BERT's MLM loss under autocast adds the 16-bit scores") {
    Config c = test::config(kBase);
    const double v = static_cast<double>(c.d.vocab_padded);
    CHECK(c.d.vocab_padded == 32000);  // already a multiple of 128*2
    CHECK(op_activation_bytes(cross_entropy(build_context(c)), c, false) == doctest::Approx(s_b(c) * v * 4 / 2));
    // Hugging Face causal LM: logits.float() then log_softmax keeps one fp32 copy; its temporaries are the
    // 16-bit logits and the upcast in forward, two fp32 gradients in backward.
    c.traits.hf_code = true;
    const Op hf = cross_entropy(build_context(c));
    CHECK(op_activation_bytes(hf, c, false) == doctest::Approx(s_b(c) * v * 4 / 2));
    CHECK(hf.forward_temporaries.size() == 2);
    CHECK(hf.backward_temporaries.size() == 2);
    const Config bert = test::config(R"({"framework":"pytorch","model":{"preset":"bert-large"},"training":{"seq_len":512}})");
    const double vb = static_cast<double>(bert.d.vocab_padded);
    CHECK(op_activation_bytes(cross_entropy(build_context(bert)), bert, false) == doctest::Approx(512.0 * vb * (4 + 2)));
}

TEST_CASE("embedding: vocab-parallel word embeddings; learned positions replicated") {
    const Config c = test::config(R"({"model":{"preset":"gpt2"},"training":{"seq_len":1024},"parallel":{"tp":2}})");
    const Module emb = embedding_module(c);
    CHECK(emb.ops[0].params[0].shape == std::vector<int64_t>{50432, 768});  // 50257 padded to 128*2
    CHECK(local_numel(emb.ops[0].params[0], c) == 50432 * 768 / 2);
    CHECK(local_numel(emb.ops[1].params[0], c) == 1024 * 768);
}
