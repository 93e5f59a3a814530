// Parameter counts of every model preset against its published figure (presets/models/*.json
// "reference": Hugging Face num_parameters()/safetensors totals, or the paper's nominal size).
// Counted with the pytorch profile and tp = 1 so the vocabulary is not padded, as Hugging Face counts.
#include <cstdio>

#include "helpers.h"
#include "io/presets.h"

TEST_CASE("every model preset reproduces its reference parameter count") {
    int exact = 0, nominal = 0;
    for (const auto& p : shardcalc::all_presets()["models"]) {
        const std::string id = p["id"];
        CAPTURE(id);
        REQUIRE(p.contains("reference"));
        const auto& ref = p["reference"];
        const nlohmann::json s = {{"framework", "pytorch"},
                                  {"model", {{"preset", id}, {"head", ref["head"]}}},
                                  {"training", {{"seq_len", 128}}}};
        const double counted = test::report(s.dump()).parameters.total;
        const double published = ref["parameters"].get<double>();
        if (ref["exact"].get<bool>()) {
            CHECK(counted == published);
            ++exact;
        } else {
            // Nominal sizes ("175B") are rounded; the largest gap is GPT-3 350M at +1.7%
            // (Brown et al. round 355.9M down to "350M").
            const double err = test::rel(counted, published);
            std::printf("  %-16s counted %.4g vs nominal %.4g: %+.2f%%\n", id.c_str(), counted, published,
                        100 * (counted - published) / published);
            CHECK(err < 0.02);
            ++nominal;
        }
    }
    CHECK(exact >= 17);
    CHECK(exact + nominal >= 20);
}

TEST_CASE("named exact counts from the issue (Hugging Face)") {
    auto count = [](const char* preset, const char* head) {
        const nlohmann::json s = {{"framework", "pytorch"},
                                  {"model", {{"preset", preset}, {"head", head}}},
                                  {"training", {{"seq_len", 128}}}};
        return static_cast<int64_t>(test::report(s.dump()).parameters.total);
    };
    CHECK(count("gpt2", "lm") == 124439808);
    CHECK(count("bert-base", "none") == 109482240);
    CHECK(count("llama-2-7b", "lm") == 6738415616);
    CHECK(count("llama-2-70b", "lm") == 68976648192);
    CHECK(count("llama-3.1-8b", "lm") == 8030261248);
    CHECK(count("mistral-7b", "lm") == 7241732096);
    // BertForPreTraining = BertModel + MLM head (dense 768x768+768, LayerNorm 1536, decoder bias
    // 30522; decoder weight tied) + NSP classifier (768*2+2) = 110,106,428.
    CHECK(count("bert-base", "lm") == 110106428);
}

TEST_CASE("ALBERT counts the shared layer once however many layers run") {
    const auto r12 = test::report(R"({"framework":"pytorch","model":{"preset":"albert-base","head":"none"},"training":{"seq_len":128}})");
    const auto r24 = test::report(R"({"framework":"pytorch","model":{"preset":"albert-base","head":"none","layers":24},"training":{"seq_len":128}})");
    CHECK(r12.parameters.total == r24.parameters.total);
    // ...but activations are per layer: 24 layers keep twice the layer activations of 12.
    const double a12 = r12.peak().activations, a24 = r24.peak().activations;
    CHECK(a24 > 1.9 * a12);
}

TEST_CASE("Megatron pads the vocabulary to 128*tp, so its count exceeds Hugging Face's") {
    const auto r = test::report(R"({"framework":"megatron","model":{"preset":"gpt2"},"training":{"seq_len":1024},"parallel":{"tp":1}})");
    // 50257 -> 50304 rows: 47 extra rows of 768 (the Megatron analysis tool's report shows word_embeddings
    // w=[50304,1280]).
    CHECK(static_cast<int64_t>(r.parameters.total) == 124439808 + 47 * 768);
}
