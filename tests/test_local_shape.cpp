// One split rule for memory and compute (plan/local_shape.h): over random meshes, each split's local part times the
// devices that split it is the whole tensor, and a saved tensor's bytes are its local elements times its element size.
#include <random>

#include "helpers.h"
#include "memory/activations.h"
#include "plan/local_shape.h"

using namespace shardcalc;

TEST_CASE("a split's local part times the devices that split it is the whole tensor, on random meshes") {
    std::mt19937 rng(20261127);
    auto pick = [&](std::initializer_list<int64_t> options) { return *(options.begin() + rng() % options.size()); };
    for (int i = 0; i < 300; ++i) {
        const int64_t tp = pick({1, 2, 4, 8}), cp = pick({1, 2, 4}), ulysses = pick({1, 2}), mb = pick({1, 2, 3});
        const bool sp = tp > 1 && rng() % 2;
        const std::string json = R"({"framework":"megatron","model":{"preset":"llama-2-7b"},"training":{"seq_len":4096,)"
                                 R"("micro_batch":)" + std::to_string(mb) + R"(},"parallel":{"tp":)" + std::to_string(tp) +
                                 R"(,"cp":)" + std::to_string(cp) + R"(,"ulysses":)" + std::to_string(ulysses) +
                                 R"(,"sp":)" + (sp ? "true" : "false") + "}}";
        CAPTURE(json);
        const Config c = test::config(json);
        const double s = 4096, b = static_cast<double>(mb), width = 4096, heads = 32;
        const double t = static_cast<double>(tp), seq = static_cast<double>(cp * ulysses);
        CHECK(local_elements(SavedSplit::Sequence, 4096, s, c) * seq * (sp ? t : 1) == doctest::Approx(b * s * width));
        CHECK(local_elements(SavedSplit::Tensor, 4096, s, c) * seq * t == doctest::Approx(b * s * width));
        CHECK(local_elements(SavedSplit::Scores, 32, s, c) * t * seq == doctest::Approx(b * heads * s * s));
        // The local shape's dimensions are whole numbers where the plan divides evenly.
        for (const SavedSplit split : {SavedSplit::Sequence, SavedSplit::Tensor, SavedSplit::Scores})
            for (const double d : local_dims(split, split == SavedSplit::Scores ? 32 : 4096, s, c)) CHECK(d == static_cast<double>(static_cast<int64_t>(d)));
        // Memory counts a saved tensor as the same local elements.
        SavedTensor saved;
        saved.split = SavedSplit::Tensor;
        saved.width = 4096;
        saved.kind = SavedKind::Fp32;
        CHECK(saved_tensor_bytes(saved, c) == doctest::Approx(4 * local_elements(SavedSplit::Tensor, 4096, s, c)));
    }
}
