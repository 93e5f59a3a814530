// Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models",
// Table 2: activation bytes per transformer layer. The paper's assumptions: GPT layer with
// GeLU MLP of 4h, eager attention with dropout, 16-bit activations, 1-byte masks, a = heads.
// Under the same settings the engine must match each row exactly.
#include "helpers.h"

using namespace shardcalc;

namespace {

// The 22B configuration of Table 3 (a=64, h=6144, s=2048), micro-batch 1.
std::string scenario(int tp, bool sp, const char* recompute) {
    return std::string(R"({"framework":"megatron","model":{"preset":"megatron-22b"},
      "training":{"seq_len":2048,"micro_batch":1,"attention":"eager","dropout":0.1,"recompute":")") +
           recompute + R"("},"parallel":{"tp":)" + std::to_string(tp) + R"(,"sp":)" + (sp ? "true" : "false") + "}}";
}

double per_layer(const std::string& json) {
    const Config c = test::config(json);
    const ModelGraph g = build_graph(c);
    return layer_activation_bytes(g.groups[0].layer, c);
}

constexpr double s = 2048, b = 1, h = 6144, a = 64;

}  // namespace

TEST_CASE("Table 2, no parallelism: sbh(34 + 5as/h)") {
    CHECK(per_layer(scenario(1, false, "none")) == doctest::Approx(s * b * h * (34 + 5 * a * s / h)));
}

TEST_CASE("Table 2, tensor parallel: sbh(10 + 24/t + 5as/(ht))") {
    const double t = 8;
    CHECK(per_layer(scenario(8, false, "none")) == doctest::Approx(s * b * h * (10 + 24 / t + 5 * a * s / (h * t))));
}

TEST_CASE("Table 2, tensor + sequence parallel: sbh(34/t + 5as/(ht))") {
    const double t = 8;
    CHECK(per_layer(scenario(8, true, "none")) == doctest::Approx(s * b * h * (34 / t + 5 * a * s / (h * t))));
}

TEST_CASE("Table 2, tensor + sequence parallel + selective recompute: sbh(34/t)") {
    const double t = 8;
    CHECK(per_layer(scenario(8, true, "selective")) == doctest::Approx(s * b * h * 34 / t));
}

TEST_CASE("Table 2, full recompute: 2sbh (sequence parallel: 2sbh/t)") {
    CHECK(per_layer(scenario(1, false, "full")) == doctest::Approx(2 * s * b * h));
    CHECK(per_layer(scenario(8, true, "full")) == doctest::Approx(2 * s * b * h / 8));
}

TEST_CASE("Sec. 4.2.3: the first pipeline stage holds L layers' activations under 1F1B") {
    // 175B on tp 8 pp 8: the first stage keeps L/p layers for p microbatches = L layers' worth.
    const std::string j = R"({"framework":"megatron","model":{"preset":"megatron-175b"},
      "training":{"seq_len":2048,"micro_batch":1,"global_batch":64,"recompute":"selective","attention":"eager","dropout":0.1},
      "parallel":{"tp":8,"pp":8,"sp":true}})";
    const Config c = test::config(j);
    const Report r = test::report(j);
    const double L = 96, hh = 12288;
    const double layers_only = s * b * hh * 34 / 8 * L;
    // Stage 0 also keeps the embedding dropout mask for its 8 in-flight microbatches (sbh/t each, sec. 4.3).
    const double embedding = 8 * s * b * hh / 8;
    CHECK(r.stages[0].activations == doctest::Approx(layers_only + embedding));
    CHECK(c.d.microbatches == 64);
}

TEST_CASE("Sec. 4.2.3: interleaving multiplies the first stage by 1 + (p-1)/(pm)") {
    const auto act = [](int vpp) {
        const std::string j = R"({"framework":"megatron","model":{"preset":"megatron-175b","position_embedding":"rope"},
          "training":{"seq_len":2048,"micro_batch":1,"global_batch":64,"recompute":"selective"},
          "parallel":{"tp":8,"pp":8,"sp":true,"vpp":)" + std::to_string(vpp) + "}}";
        return test::report(j).stages[0].activations;
    };
    const double p = 8, m = 4;  // vpp = 4 interleaved chunks
    CHECK(act(4) / act(1) == doctest::Approx(1 + (p - 1) / (p * m)));
}
