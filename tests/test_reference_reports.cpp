// The figures of the published reports in docs/sources.md that users compare us with: XLA's BERT report, the
// Megatron analysis tool's report and the Ulysses memory walk (DeepFlow's LSTM projection: test_kernels.cpp).
#include "helpers.h"

using namespace shardcalc;

namespace {

double saved(const Report& r, const std::string& path) {
    for (const auto& m : r.modules)
        if (m.path == path) return m.activation_bytes;
    FAIL("no module " << path);
    return 0;
}

}  // namespace

TEST_CASE("XLA's BERT report: BERT-base scores f32[64,12,512,512] are 768 MiB per layer") {
    const Report r = test::report(R"({"framework":"megatron","model":{"preset":"bert-base"},
      "training":{"seq_len":512,"micro_batch":64,"dtype":"fp32","attention":"eager","dropout":0.1}})");
    const ModelGraph g = build_graph(r.config);
    const Op* core = nullptr;
    for (const auto& child : g.groups[0].layer.children)
        for (const auto& op : child.ops)
            if (op.name == "core_attention") core = &op;
    REQUIRE(core);
    for (const auto& t : core->saved)
        if (t.name == "softmax") CHECK(saved_tensor_bytes(t, r.config) == 768.0 * 1024 * 1024);
    // PyTorch and Megatron keep a 1-byte dropout mask (192 MiB); XLA keeps the RNG's f32 uniforms instead (768 MiB,
    // allocations 2-3 of XLA's BERT report), which framework xla models (test_xla.cpp).
    for (const auto& t : core->saved)
        if (t.name == "dropout_mask") CHECK(saved_tensor_bytes(t, r.config) == 192.0 * 1024 * 1024);
}

TEST_CASE("The Megatron analysis tool's report: GPT (h=1280, L=36, SwiGLU 3392) parameter table") {
    const Report r = test::report(R"({"framework":"megatron","model":{"layers":36,"hidden":1280,"heads":20,
      "ffn_hidden":3392,"mlp":"swiglu","vocab":50257,"max_positions":1024,"bias":true,"tied_embeddings":true},
      "training":{"seq_len":1024,"micro_batch":4,"global_batch":8},"parallel":{"dp":2,"distributed_optimizer":true}})");
    // The report prints w=[50304,1280]: same vocabulary padding.
    CHECK(r.config.d.vocab_padded == 50304);
    // Per-module weights in MiB, as printed: word 122.8, qkv 9.4, dense 3.1, h_to_4h 16.6, 4h_to_h 8.3.
    auto mib = [&](const std::string& path) {
        for (const auto& m : r.modules)
            if (m.path == path) return m.weight_bytes / (1024.0 * 1024.0);
        return -1.0;
    };
    CHECK(mib("embedding/word_embeddings") == doctest::Approx(122.8).epsilon(0.001));
    CHECK(mib("layer/self_attention/query_key_value") == doctest::Approx(9.4).epsilon(0.01));
    CHECK(mib("layer/self_attention/dense") == doctest::Approx(3.1).epsilon(0.02));
    CHECK(mib("layer/mlp/dense_h_to_4h") == doctest::Approx(16.6).epsilon(0.01));
    CHECK(mib("layer/mlp/dense_4h_to_h") == doctest::Approx(8.3).epsilon(0.01));
    // The report counts 771,106,304 parameters. We count 94,720 more (0.012%): the tool sizes the QKV
    // bias as [1280] instead of [3840] (36 * 2560) and omits the final LayerNorm (2560).
    CHECK(static_cast<int64_t>(r.parameters.total) == 771106304 + 36 * 2560 + 2560);
    // Per-layer activations match the report's input_layernorm row: 10 MiB for s*b = 4096 tokens.
    CHECK(saved(r, "layer/input_layernorm") == 10.0 * 1024 * 1024);
    // The report's model states use 2 + 2 + 16 = 20 bytes/param (fp16-style grads plus an fp32 copy in
    // the optimizer); Megatron with bf16 keeps fp32 main grads and no bf16 grads: 2 + 4 + 12/dp.
    const StageMemory& m = r.peak();
    CHECK((m.weights + m.gradients + m.optimizer) / m.params == doctest::Approx(6 + 12.0 / 2));
}

TEST_CASE("The Ulysses memory walk: DeepSpeed-Ulysses attention, N=60000, d=16384, 128 heads, P=16") {
    const Report r = test::report(R"({"framework":"deepspeed","model":{"layers":1,"hidden":16384,"heads":128,
      "vocab":32000,"position_embedding":"rope","bias":false},
      "training":{"seq_len":60000,"micro_batch":1,"attention":"eager"},"parallel":{"ulysses":16}})");
    const ModelGraph g = build_graph(r.config);
    for (const auto& child : g.groups[0].layer.children)
        for (const auto& op : child.ops)
            if (op.name == "core_attention")
                for (const auto& t : op.saved) {
                    CAPTURE(t.name);
                    // A [h/P, N, N] bf16: 57.60 GB; q, k, v [h/P, N, d/h] bf16: 122.88 MB each.
                    if (t.name == "softmax") CHECK(saved_tensor_bytes(t, r.config) == doctest::Approx(57.6e9));
                    if (t.name == "q" || t.name == "k" || t.name == "v")
                        CHECK(saved_tensor_bytes(t, r.config) == doctest::Approx(122.88e6));
                }
    // The walk's measured peak allocation is 61.02 GB with the 57.6 GB matrix live; our layer
    // activations plus the backward transient of the score gradient exceed it, as training must.
    CHECK(r.peak().activations > 57.6e9);
}

TEST_CASE("XLA's BERT report: Google's BERT gathers the masked positions before its MLM head (training.mlm_predictions)") {
    // BERT-base in fp32, batch 64, sequence 512 (the setting of XLA's BERT report), Hugging Face's head over every
    // position against Google's over max_predictions_per_seq = 80 gathered positions (run_pretraining.py; the
    // README's ~15% of 512).
    const std::string all = R"({"framework":"pytorch","model":{"preset":"bert-base"},
        "training":{"seq_len":512,"micro_batch":64,"dtype":"fp32","dropout":0.1},"hardware":{"preset":"a100-sxm-80gb"}})";
    std::string gathered = all;
    gathered.replace(gathered.find("\"dropout\":0.1"), 13, "\"dropout\":0.1,\"mlm_predictions\":80");
    const Report a = test::report(all), g = test::report(gathered);
    auto row = [](const Report& r, const std::string& path) -> const ModuleRow& {
        for (const auto& m : r.modules)
            if (m.path == path) return m;
        FAIL("no module row " << path);
        return r.modules.front();
    };
    const double share = 80.0 / 512.0;
    for (const char* path : {"head/mlm_transform", "head/mlm_decoder", "head/cross_entropy", "head/mlm_layernorm"}) {
        CAPTURE(path);
        CHECK(row(g, path).activation_bytes == doctest::Approx(share * row(a, path).activation_bytes));
    }
    // Elementwise traffic and GEMM FLOPs scale with the positions (a GEMM's bytes less: its weight is read whole).
    for (const char* path : {"head/cross_entropy", "head/mlm_layernorm", "head/mlm_activation"})
        CHECK(row(g, path).fwd_bytes == doctest::Approx(share * row(a, path).fwd_bytes));
    for (const char* path : {"head/mlm_transform", "head/mlm_decoder"})
        CHECK(row(g, path).fwd_flops == doctest::Approx(share * row(a, path).fwd_flops));
    // The fp32 logits over every position, [64 x 512, 30522] x 4 bytes = 3.73 GiB, kept twice by the loss (+7.45
    // GiB in the setting of XLA's BERT report): here the loss's log-probabilities shrink by the same share.
    const double logits = 64.0 * 512 * 30522 * 4;
    CHECK(row(a, "head/cross_entropy").activation_bytes == doctest::Approx(logits).epsilon(0.01));
    CHECK(row(g, "head/cross_entropy").activation_bytes == doctest::Approx(logits * share).epsilon(0.01));
    // The layers and the parameters do not change.
    CHECK(g.parameters.total == a.parameters.total);
    CHECK(row(g, "layer").activation_bytes == row(a, "layer").activation_bytes);
    // Refusals name the field.
    CHECK(test::error_of(R"({"model":{"preset":"gpt2"},"training":{"mlm_predictions":20}})")["path"] == "/training/mlm_predictions");
    CHECK(test::error_of(R"({"model":{"preset":"bert-base"},"training":{"seq_len":128,"mlm_predictions":200}})")["path"] ==
          "/training/mlm_predictions");
}
