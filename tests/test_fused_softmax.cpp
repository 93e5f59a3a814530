// Megatron's fused scale-mask-softmax has CUDA variants for some score shapes only; elsewhere torch computes the
// softmax op by op (scenario/framework.h megatron_fused_softmax). The graph holds both paths; each plan takes one.
#include "compute/op_cost.h"
#include "helpers.h"
#include "scenario/framework.h"

using namespace shardcalc;

namespace {

// Megatron-DeepSpeed's GPT of vTrain's 8-GPU runs (hidden 2048, 16 heads, seq 1024, fp16, dropout) on tp 8: two heads
// per rank.
std::string gpt_tp8(int micro_batch) {
    return R"({"framework":"deepspeed","model":{"arch":"decoder","layers":2,"hidden":2048,"heads":16,"vocab":50257,
        "max_positions":1024,"position_embedding":"learned","norm":"layernorm","mlp":"gelu","bias":true},
        "training":{"seq_len":1024,"micro_batch":)" + std::to_string(micro_batch) + R"(,"global_batch":8,"dtype":"fp16",
        "attention":"eager","dropout":0.1},"parallel":{"tp":8},"hardware":{"preset":"a100-sxm-80gb"}})";
}

const Op& core_attention(const ModelGraph& g) {
    for (const auto& child : g.groups.at(0).layer.children)
        for (const auto& op : child.ops)
            if (op.name == "core_attention") return op;
    FAIL("no core_attention op");
    return g.groups.at(0).layer.children.at(0).ops.at(0);
}

}  // namespace

TEST_CASE("the fused softmax's shape rules: Megatron-LM's and Megatron-DeepSpeed's") {
    // microbatch x heads per rank a multiple of 4 (and of the kernel's batches per block under Megatron-LM).
    CHECK_FALSE(megatron_fused_softmax(Framework::DeepSpeed, 1, 2, 1024, true, true));
    CHECK(megatron_fused_softmax(Framework::DeepSpeed, 2, 2, 1024, true, true));
    CHECK(megatron_fused_softmax(Framework::Megatron, 1, 4, 1024, true, true));
    CHECK_FALSE(megatron_fused_softmax(Framework::Megatron, 1, 4, 128, true, true));  // 8 rows a block up to 128 keys
    CHECK(megatron_fused_softmax(Framework::Megatron, 1, 8, 128, true, true));
    // A padding mask asks the queries to fill the block instead.
    CHECK(megatron_fused_softmax(Framework::Megatron, 1, 4, 128, false, true));
    // Key lengths: up to 2,048 in Megatron-DeepSpeed, 4,096 in Megatron-LM; 16-bit scores only.
    CHECK_FALSE(megatron_fused_softmax(Framework::DeepSpeed, 4, 4, 4096, true, true));
    CHECK(megatron_fused_softmax(Framework::Megatron, 4, 4, 4096, true, true));
    CHECK_FALSE(megatron_fused_softmax(Framework::Megatron, 4, 4, 8192, true, true));
    CHECK_FALSE(megatron_fused_softmax(Framework::Megatron, 4, 4, 1024, true, false));
    CHECK_FALSE(megatron_fused_softmax(Framework::Megatron, 4, 4, 1022, true, true));
}

TEST_CASE("two attention batches per rank: Megatron-DeepSpeed's softmax in fp32, op by op, saving its fp32 output") {
    const Config one = test::config(gpt_tp8(1)), two = test::config(gpt_tp8(2));
    const ModelGraph g = build_graph(one);  // the same graph serves both plans
    const Op& op = core_attention(g);
    // Saved: everything scales with the microbatch except the softmax's output, 4 bytes a score instead of 2.
    double saved1 = 0, saved2 = 0;
    for (const auto& t : op.saved) saved1 += saved_tensor_bytes(t, one), saved2 += saved_tensor_bytes(t, two);
    const double scores = 1.0 * (16 / 8) * 1024 * 1024;  // one microbatch's scores on one rank
    CHECK(saved1 - saved2 / 2 == doctest::Approx(2 * scores));
    // Kernels: cast, layer-number multiply, mask fill, softmax, cast back and dropout where the fused kernel and
    // dropout are two, forward and backward.
    const OpCost c1 = op_cost(op, one, true), c2 = op_cost(op, two, true);
    CHECK(c1.fwd.launches - c2.fwd.launches == 4);
    CHECK(c1.bwd.launches - c2.bwd.launches == 4);
    // Traffic over the scores forward: casts 2x(2+4), multiply, fill and softmax 3x8, dropout 2x2+1 bytes each;
    // fused: softmax 2x2 and dropout 2x2+1.
    auto score_bytes = [&](const Config& c) {
        double bytes = 0;
        for (const auto& w : op.work) {
            if (w.kind != WorkKind::Elementwise || w.split != SavedSplit::Scores) continue;
            const WorkKernels k = work_kernels(w, c);
            for (int i = 0; i < k.count; ++i)
                if (k.list[i].pass == Pass::Forward) bytes += k.list[i].kernel.bytes * k.list[i].repeat;
        }
        return bytes;
    };
    CHECK(score_bytes(one) == doctest::Approx(41 * scores));
    CHECK(score_bytes(two) == doctest::Approx(9 * 2 * scores));
}
