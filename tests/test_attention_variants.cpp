// Attention and layer variants of issue 11: sliding windows with global layers between them (gpt-oss, Gemma,
// Mistral), attention sinks, QK-norm, biased experts. Published counts: validation/moe_facts.md.
#include "compute/roofline.h"
#include "helpers.h"

using namespace shardcalc;

namespace {

// Model FLOPs of the attention core alone: the step's model FLOPs minus those of the same plan at sequence
// length `s` with attention removed is not expressible, so compare two windows on one plan instead.
double model_flops(const std::string& model_fields, int64_t seq) {
    const std::string s = R"({"framework": "megatron", "model": {"layers": 2, "hidden": 256, "heads": 4, "vocab": 1024,
        "position_embedding": "rope", "norm": "rmsnorm", "mlp": "swiglu", "ffn_hidden": 512)" + model_fields +
                          R"(}, "training": {"seq_len": )" + std::to_string(seq) + R"(, "global_batch": 1}})";
    return test::report(s).perf.model_flops;
}

// The kernel that quantizes the input of a [4096 -> 14336] linear (Llama 3 8B's MLP up projection) under the scenario's
// fp8/FP4 recipe (fails the test when there is none).
Kernel input_quantization(const Config& c) {
    Work linear;
    linear.kind = WorkKind::Matmul;
    linear.in = 4096;
    linear.out = 14336;
    const WorkKernels k = work_kernels(linear, c);
    for (int i = 0; i < k.count; ++i)
        if (std::string(k.list[i].name) == "fp8 quantize (input)") return k.list[i].kernel;
    FAIL("no input quantization kernel");
    return {};
}

}  // namespace

TEST_CASE("a sliding window of w keys: s*w - w^2/2 attended pairs per head instead of s^2/2") {
    const double s = 4096, w = 1024, heads = 4, d = 64;
    const double full = model_flops("", 4096);
    const double local = model_flops(R"(, "sliding_window": 1024)", 4096);  // both layers local
    // 3 (fwd + bwd) x 2 matmuls x 2 FLOPs per multiply-add x head_dim, per attended pair, per layer.
    const double per_pair = 3 * 2 * 2 * heads * d;
    CHECK(full - local == doctest::Approx(2 * per_pair * (s * s / 2 - (s * w - w * w / 2))).epsilon(1e-9));
    // Every second layer global: half the saving.
    const double alternating = model_flops(R"(, "sliding_window": 1024, "global_every": 2)", 4096);
    CHECK(full - alternating == doctest::Approx((full - local) / 2).epsilon(1e-9));
    // A window as long as the sequence changes nothing.
    CHECK(model_flops(R"(, "sliding_window": 4096)", 4096) == doctest::Approx(full));
}

TEST_CASE("gpt-oss: exact Hugging Face totals with sinks, biased attention, router and experts; layers alternate") {
    const Report r = test::report(R"({"framework": "pytorch", "model": {"preset": "gpt-oss-20b"}, "training": {"seq_len": 128}})");
    CHECK(r.parameters.total == 20914757184.0);  // the model card's 20.91B
    // The model card's active count leaves out the input embedding: 3.61B.
    CHECK(r.parameters.active - r.parameters.embedding == 3608307264.0);
    const ModelGraph g = build_graph(r.config);
    // Two kinds of layer, alternating: sliding, full, sliding, ... (layer_types).
    REQUIRE(g.groups.size() == 2);
    CHECK(g.groups[0].count == 12);
    CHECK(g.groups[1].count == 12);
    for (size_t i = 0; i < g.layer_group.size(); ++i) CHECK(g.layer_group[i] == static_cast<int64_t>(i % 2));
    const Report big = test::report(R"({"framework": "pytorch", "model": {"preset": "gpt-oss-120b"}, "training": {"seq_len": 128}})");
    CHECK(big.parameters.total == 116829156672.0);
    CHECK(big.parameters.active - big.parameters.embedding == 5132849472.0);
}

TEST_CASE("global_every without a window, and windows in encoders, are refused by name") {
    CHECK(test::error_of(R"({"model": {"preset": "llama-3.1-8b", "global_every": 2}})")["path"] == "/model/global_every");
    CHECK(test::error_of(R"({"model": {"preset": "bert-base", "sliding_window": 128}})")["path"] == "/model/sliding_window");
}

TEST_CASE("Falcon's parallel block: one norm, the MLP reads the attention's saved input, one residual add") {
    const Report falcon = test::report(R"({"framework": "megatron", "model": {"preset": "falcon-7b"}, "training": {"seq_len": 2048}})");
    CHECK(falcon.parameters.total == 6921720704.0);
    const Report serial = test::report(R"({"framework": "megatron", "model": {"preset": "falcon-7b", "parallel_block": false},
        "training": {"seq_len": 2048}})");
    // The serial layer adds a LayerNorm (2h weights) and keeps its input and the MLP's input: 2 x 2sbh more per layer
    // in bf16 (s = 2048, b = 1, h = 4544), plus the norm's weights.
    CHECK(serial.parameters.total - falcon.parameters.total == 32 * 2 * 4544);
    const double per_layer = 2.0 * 2 * 2048 * 4544;
    CHECK(serial.stages[0].activations - falcon.stages[0].activations == doctest::Approx(32 * per_layer).epsilon(1e-9));
    CHECK(test::error_of(R"({"model": {"preset": "bert-base", "parallel_block": true}})")["path"] == "/model/parallel_block");
}

TEST_CASE("fp8 recipes: 1-byte GEMM inputs, fp8 weight copies, GEMMs at the fp8 peak; refused where they cannot run") {
    const std::string base = R"({"framework":"megatron","model":{"preset":"llama-3.1-8b"},
        "training":{"seq_len":4096,"global_batch":8,"recompute":"none")";
    const std::string plan = R"(},"parallel":{"dp":8},"hardware":{"preset":"h100-sxm-80gb"}})";
    const Report bf16 = test::report(base + plan);
    const Report fp8 = test::report(base + R"(,"fp8":"delayed")" + plan);
    const Report block = test::report(base + R"(,"fp8":"blockwise")" + plan);
    // The linear inputs a layer keeps (Llama 3 8B, Megatron code, fused QKV and GLU): the QKV input h, the attention
    // output into the projection h, the MLP input h and the GLU output into the down projection f = 14336.
    const double s = 4096, h = 4096, f = 14336, L = 32;
    const double gemm_inputs = L * s * (3 * h + f);  // elements, one microbatch in flight
    CHECK(bf16.stages[0].activations - fp8.stages[0].activations == doctest::Approx(gemm_inputs * (2 - 1)).epsilon(1e-9));
    CHECK(block.stages[0].activations - fp8.stages[0].activations == doctest::Approx(gemm_inputs * 4.0 / 128).epsilon(1e-9));
    // Row-wise and column-wise fp8 copies of every layer weight (not the embedding or the output layer).
    const double layer_weights = L * (h * (h + 2 * 1024) + h * h + 3 * h * f);
    CHECK(fp8.stages[0].other.cast_weights == doctest::Approx(2 * layer_weights).epsilon(1e-9));
    CHECK(bf16.stages[0].other.cast_weights == 0);
    // A compute-bound GEMM at the fp8 peak, twice the H100's bf16 rate, and the share of it large fp8 GEMMs reach
    // (hardware.matmul_efficiency_fp8: 0.709 against bf16's 0.80, stas00/ml-engineering's MAMF table).
    const Config c = test::config(base + R"(,"fp8":"delayed")" + plan);
    const double t16 = gemm_kernel(16384, 8192, 8192, c, GemmPrecision::Training).seconds,
                 t8 = gemm_kernel(16384, 8192, 8192, c, GemmPrecision::Fp8).seconds;
    CHECK(t16 / t8 == doctest::Approx(1978.9 * 0.709 / (989.4 * 0.8)).epsilon(0.02));
    // Without its own figure an fp8 GEMM takes matmul_efficiency.
    const Config same = test::config(base + R"(,"fp8":"delayed"},"parallel":{"dp":8},
        "hardware":{"preset":"h100-sxm-80gb","matmul_efficiency_fp8":0}})");
    CHECK(gemm_kernel(16384, 8192, 8192, c, GemmPrecision::Training).seconds /
              gemm_kernel(16384, 8192, 8192, same, GemmPrecision::Fp8).seconds ==
          doctest::Approx(1978.9 / 989.4).epsilon(0.02));
    CHECK(fp8.perf.step_seconds < bf16.perf.step_seconds);
    CHECK(fp8.perf.model_flops == doctest::Approx(bf16.perf.model_flops));  // the same model FLOPs
    // Where fp8 cannot run: a device without fp8 tensor cores, Hugging Face code.
    CHECK(test::error_of(base + R"(,"fp8":"current"},"hardware":{"preset":"a100-sxm-80gb"}})")["path"] == "/training/fp8");
    CHECK(test::error_of(base + R"(,"fp8":"current"},"implementation":{"model_code":"huggingface"}})")["path"] == "/training/fp8");
}

TEST_CASE("fp8 primary weights (--fp8-param-gather): the layers' weights in fp8, one transposed copy; Megatron only") {
    const std::string base = R"({"framework":"megatron","model":{"preset":"llama-3.1-8b"},
        "training":{"seq_len":4096,"global_batch":8,"recompute":"none","fp8":"delayed")";
    const std::string plan = R"(},"parallel":{"dp":8,"distributed_optimizer":true},"hardware":{"preset":"h100-sxm-80gb"}})";
    const Report bf16 = test::report(base + plan);
    const Report fp8 = test::report(base + R"(,"param_dtype":"fp8")" + plan);
    const double h = 4096, f = 14336, L = 32;
    const double layer_weights = L * (h * (h + 2 * 1024) + h * h + 3 * h * f);
    // One byte less per layer weight; the embedding, norms and output layer stay bf16.
    CHECK(bf16.stages[0].weights - fp8.stages[0].weights == doctest::Approx(layer_weights).epsilon(1e-9));
    // Transformer Engine keeps only the transposed fp8 copy: the row-wise one is the parameter.
    CHECK(fp8.stages[0].other.cast_weights == doctest::Approx(layer_weights).epsilon(1e-9));
    CHECK(bf16.stages[0].other.cast_weights == doctest::Approx(2 * layer_weights).epsilon(1e-9));
    // The fp32 master copy stays (the distributed optimizer's), and so do the gradients.
    CHECK(fp8.stages[0].optimizer == doctest::Approx(bf16.stages[0].optimizer));
    CHECK(fp8.stages[0].gradients == doctest::Approx(bf16.stages[0].gradients));
    // Refused without an fp8 recipe, outside Megatron, and without the distributed optimizer.
    const std::string no_recipe = R"({"framework":"megatron","model":{"preset":"llama-3.1-8b"},"training":{"param_dtype":"fp8"},
        "parallel":{"distributed_optimizer":true}})";
    CHECK(test::error_of(no_recipe)["path"] == "/training/param_dtype");
    CHECK(test::error_of(std::string(base + R"(,"param_dtype":"fp8"},"parallel":{"dp":8},"hardware":{"preset":"h100-sxm-80gb"}})"))["path"] ==
          "/training/param_dtype");
    const auto ds = test::error_of(R"({"framework":"deepspeed","model":{"preset":"llama-3.1-8b"},
        "training":{"fp8":"delayed","param_dtype":"fp8"},"hardware":{"preset":"h100-sxm-80gb"}})");
    CHECK(ds["path"] == "/training/param_dtype");
}

TEST_CASE("Gemma 3 27B: four norms per layer, five local layers to one global, exact text-model count") {
    const Report r = test::report(R"({"framework": "pytorch", "model": {"preset": "gemma-3-27b"}, "training": {"seq_len": 128}})");
    CHECK(r.parameters.total == 27009346304.0);  // llama.cpp's n_params for the text model
    const ModelGraph g = build_graph(r.config);
    // (5 local + 1 global) x 10, then 2 local: two kinds of layer.
    REQUIRE(g.groups.size() == 2);
    CHECK(g.groups[0].count == 52);
    CHECK(g.groups[1].count == 10);
    CHECK(g.layer_group[4] == 0);
    CHECK(g.layer_group[5] == 1);
    CHECK(g.layer_group[61] == 0);
    // Each output norm keeps its input: 2 x s x h per layer more than without them (fp32 under autocast here).
    const Report plain = test::report(R"({"framework": "megatron", "model": {"preset": "gemma-3-27b", "post_norms": false},
        "training": {"seq_len": 4096}})");
    const Report sandwich = test::report(R"({"framework": "megatron", "model": {"preset": "gemma-3-27b"}, "training": {"seq_len": 4096}})");
    CHECK(sandwich.stages[0].activations - plain.stages[0].activations == doctest::Approx(62.0 * 2 * 4096 * 5376 * 2).epsilon(1e-9));
    CHECK(sandwich.parameters.total - plain.parameters.total == 62.0 * 2 * 5376);
}

TEST_CASE("GPT-NeoX's parallel residual: the MLP's own norm adds its weights and the MLP's saved input, not another copy of x") {
    const std::string model = R"("layers": 4, "hidden": 1024, "heads": 8, "vocab": 50432, "max_positions": 2048,
        "position_embedding": "rope", "norm": "layernorm", "mlp": "gelu", "tied_embeddings": false, "parallel_block": true)";
    const Report one = test::report(R"({"framework": "megatron", "model": {)" + model + R"(}, "training": {"seq_len": 2048}})");
    const Report two = test::report(R"({"framework": "megatron", "model": {)" + model +
                                    R"(, "parallel_norms": true}, "training": {"seq_len": 2048}})");
    CHECK(two.parameters.total - one.parameters.total == 4 * 2 * 1024);  // a LayerNorm (weight and bias) per layer
    CHECK(two.stages[0].activations - one.stages[0].activations == doctest::Approx(4.0 * 2048 * 1024 * 2).epsilon(1e-9));
    CHECK(test::error_of(R"({"model": {"preset": "llama-3.1-8b", "parallel_norms": true}})")["path"] == "/model/parallel_norms");
}

TEST_CASE("fp8 quantization: each fp8 GEMM's input and output gradient, and its weight once per step, by recipe") {
    auto config = [](const std::string& recipe, bool sp) {
        return test::config(R"({"framework":"megatron","model":{"preset":"llama-3.1-8b"},"training":{"seq_len":4096,
            "global_batch":8,"fp8":")" + recipe + R"("},"parallel":{"dp":2,"tp":4)" + (sp ? R"(,"sp":true)" : "") +
                            R"(},"hardware":{"preset":"h100-sxm-80gb"}})");
    };
    auto kernel = [](const WorkKernels& k, const std::string& name) {
        for (int i = 0; i < k.count; ++i)
            if (k.list[i].name == name) return k.list[i].kernel;
        FAIL("no kernel " << name);
        return Kernel{};
    };
    Work column;  // a column-parallel linear [h] -> [f]
    column.kind = WorkKind::Matmul;
    column.in = 4096;
    column.out = 14336;
    Work row = column;  // a row-parallel one [f] -> [h]
    row.in = 14336;
    row.out = 4096;
    row.split_in = true;
    const double tokens = 4096, tp = 4;
    for (const bool sp : {false, true}) {
        const Config cur = config("current", sp), del = config("delayed", sp);
        const double mb = static_cast<double>(cur.d.microbatches);
        // Current scaling: amax (read 2 bytes), scale, cast (read 2, write row-wise and column-wise fp8): 3 launches.
        // Under sp the column-parallel input is quantized before its all-gather: 1/tp of it.
        const Kernel in = kernel(work_kernels(column, cur), "fp8 quantize (input)");
        CHECK(in.bytes == doctest::Approx(tokens * 4096 / (sp ? tp : 1) * 6));
        CHECK(in.launches == 3);
        CHECK(kernel(work_kernels(column, del), "fp8 quantize (input)").bytes == doctest::Approx(tokens * 4096 / (sp ? tp : 1) * 4));
        CHECK(kernel(work_kernels(column, del), "fp8 quantize (input)").launches == 1);
        // The output gradient: the column-parallel GEMM's is local ([tokens, f/tp]); the row-parallel one's is gathered.
        CHECK(kernel(work_kernels(column, cur), "fp8 quantize (output gradient)").bytes == doctest::Approx(tokens * 14336 / tp * 6));
        CHECK(kernel(work_kernels(row, cur), "fp8 quantize (output gradient)").bytes ==
              doctest::Approx(tokens * 4096 / (sp ? tp : 1) * 6));
        // The weight [k, n/tp], quantized once per step from bf16: its share of one microbatch.
        CHECK(kernel(work_kernels(column, cur), "fp8 quantize (weight, per step)").bytes ==
              doctest::Approx(4096 * 14336 / tp * 6 / mb));
    }
    // No quantization without an fp8 recipe.
    const WorkKernels bf16 = work_kernels(column, test::config(R"({"framework":"megatron","model":{"preset":"llama-3.1-8b"},
        "parallel":{"tp":4},"hardware":{"preset":"h100-sxm-80gb"}})"));
    CHECK(bf16.count == 3);
}

TEST_CASE("MXFP8: an E8M0 scale per 32 elements, the block-scaled tensor-core peak, Blackwell only") {
    const std::string base = R"({"framework":"megatron","model":{"preset":"llama-3.1-8b"},
        "training":{"seq_len":4096,"global_batch":8,"recompute":"none")";
    const std::string plan = R"(},"parallel":{"dp":8},"hardware":{"preset":"b200-sxm-180gb"}})";
    const Report current = test::report(base + R"(,"fp8":"current")" + plan);
    const Report mx = test::report(base + R"(,"fp8":"mxfp8")" + plan);
    const double s = 4096, h = 4096, f = 14336, L = 32;
    const double gemm_inputs = L * s * (3 * h + f);
    const double layer_weights = L * (h * (h + 2 * 1024) + h * h + 3 * h * f);
    // The saved inputs and both weight copies carry 1/32 byte of scales per element.
    CHECK(mx.stages[0].activations - current.stages[0].activations == doctest::Approx(gemm_inputs / 32).epsilon(1e-9));
    CHECK(mx.stages[0].other.cast_weights == doctest::Approx(2 * layer_weights * (1 + 1.0 / 32)).epsilon(1e-9));
    // Each quantization reads the operand once and writes both scaled copies: one kernel.
    const Kernel quantize = input_quantization(mx.config);
    CHECK(quantize.bytes == doctest::Approx(4096 * 4096 * (2 + 2 * (1 + 1.0 / 32))));
    CHECK(quantize.launches == 1);
    // The GEMMs take hardware.peak_tflops.mxfp8: at half the fp8 rate a compute-bound GEMM takes twice as long.
    const Config half = test::config(base + R"(,"fp8":"mxfp8"},"parallel":{"dp":8},
        "hardware":{"preset":"b200-sxm-180gb","peak_tflops":{"mxfp8":2250}}})");
    CHECK(gemm_kernel(16384, 8192, 8192, half, GemmPrecision::Fp8).seconds /
              gemm_kernel(16384, 8192, 8192, mx.config, GemmPrecision::Fp8).seconds ==
          doctest::Approx(2).epsilon(0.01));
    // Hopper has no block-scaled tensor cores: refused, naming the field.
    const auto hopper = test::error_of(base + R"(,"fp8":"mxfp8"},"hardware":{"preset":"h100-sxm-80gb"}})");
    CHECK(hopper["path"] == "/training/fp8");
    CHECK(hopper["message"].get<std::string>().find("peak_tflops.mxfp8") != std::string::npos);
}

TEST_CASE("transformers' SDPA over a window shorter than the sequence: a mask, every block computed, b*s^2 bytes kept") {
    // Mistral-7B's layout (window 4096) at 8,192 tokens in Hugging Face's modules, one layer: transformers passes SDPA a
    // boolean mask, so the memory-efficient backend computes all s^2 scores where FlashAttention would skip the blocks
    // outside the window; the mask itself stays alive for the backward.
    auto scenario = [](int64_t seq, const char* code) {
        return R"({"framework": "pytorch", "model": {"preset": "mistral-7b", "layers": 1},
            "training": {"seq_len": )" + std::to_string(seq) + R"(, "micro_batch": 2, "global_batch": 2, "attention": "flash"},
            "implementation": {"model_code": ")" + std::string(code) + R"("}, "hardware": {"preset": "h100-sxm-80gb"}})";
    };
    auto attention_seconds = [](const Report& r) {
        double s = 0;
        for (const auto& st : r.perf.compute) s += st.attention_fwd;
        return s;
    };
    const Report hf = test::report(scenario(8192, "huggingface")), megatron = test::report(scenario(8192, "megatron"));
    const double s = 8192, w = 4096;
    // Attention time: all s^2 pairs against the window's s*w - w^2/2, the same model FLOPs.
    CHECK(attention_seconds(hf) / attention_seconds(megatron) == doctest::Approx(s * s / (s * w - w * w / 2)).epsilon(0.02));
    // The mask: 1 byte per query and key, per sequence of the microbatch.
    double mask = 0;
    for (const auto& m : hf.modules)
        if (m.path == "embedding/sliding_window_mask") mask = m.activation_bytes;
    CHECK(mask == 2 * s * s);
    // A window as long as the sequence needs no mask: SDPA runs causal FlashAttention.
    const Report short_seq = test::report(scenario(4096, "huggingface"));
    for (const auto& m : short_seq.modules)
        if (m.path == "embedding/sliding_window_mask") CHECK(m.activation_bytes == 0);
}

TEST_CASE("Gemma 2's soft-capped logits: three passes over [tokens, vocab] each way, and the tanh's output kept") {
    auto scenario = [](const char* cap) {
        return R"({"framework": "pytorch", "model": {"preset": "gemma-3-27b", "layers": 1)" + std::string(cap) + R"(},
            "training": {"seq_len": 1024, "micro_batch": 2, "global_batch": 2}, "hardware": {"preset": "h100-sxm-80gb"}})";
    };
    const Report plain = test::report(scenario("")), capped = test::report(scenario(R"(, "logit_softcap": 30)"));
    const double tokens = 2 * 1024, vocab = static_cast<double>(capped.config.d.vocab_padded), a = 2;  // bf16
    double saved = 0, fwd_bytes = 0;
    for (const auto& m : capped.modules)
        if (m.path == "head/logit_softcap") saved = m.activation_bytes, fwd_bytes = m.fwd_bytes;
    CHECK(saved == tokens * vocab * a);
    CHECK(fwd_bytes == doctest::Approx(6 * tokens * vocab * a));
    CHECK(test::phase(capped.peak(), "forward_end").activations - test::phase(plain.peak(), "forward_end").activations ==
          doctest::Approx(saved));
    CHECK(capped.perf.step_seconds > plain.perf.step_seconds);
    CHECK(test::error_of(R"({"model":{"preset":"bert-base","logit_softcap":30}})")["path"] == "/model/logit_softcap");
}

// Gemma 2's soft-capped attention scores (transformers' eager_attention_forward: scores / cap, tanh, * cap): three
// kernels over the [b, heads, s, s] scores each way, and the tanh's output kept, one more score matrix per layer in
// the training dtype; under flash attention nothing is kept and a note says where the cap happens.
TEST_CASE("Gemma 2's soft-capped attention scores: eager attention keeps the tanh's output, flash keeps nothing") {
    auto scenario = [](const char* attention, const char* cap) {
        return R"({"framework": "pytorch", "model": {"preset": "gemma-3-27b", "layers": 2)" + std::string(cap) +
               R"(}, "training": {"seq_len": 1024, "micro_batch": 2, "global_batch": 2, "attention": ")" + attention +
               R"("}, "hardware": {"preset": "h100-sxm-80gb"}})";
    };
    const Report plain = test::report(scenario("eager", "")), capped = test::report(scenario("eager", R"(, "attention_softcap": 50)"));
    const double b = 2, s = 1024, heads = 32, a = 2;  // bf16; Gemma 3 27B's 32 query heads
    CHECK(test::phase(capped.peak(), "forward_end").activations - test::phase(plain.peak(), "forward_end").activations ==
          doctest::Approx(2 * b * heads * s * s * a));  // two layers
    CHECK(capped.perf.step_seconds > plain.perf.step_seconds);
    // Six kernels more a layer (three each way).
    CHECK(capped.perf.step_kernels.launches - plain.perf.step_kernels.launches == doctest::Approx(2 * 6));
    // Under flash attention: the same report as without the cap, and a note.
    const Report flash = test::report(scenario("flash", R"(, "attention_softcap": 50)")), flash_plain = test::report(scenario("flash", ""));
    CHECK(flash.perf.step_seconds == flash_plain.perf.step_seconds);
    CHECK(test::phase(flash.peak(), "forward_end").activations == test::phase(flash_plain.peak(), "forward_end").activations);
    bool noted = false;
    for (const auto& n : flash.notes) noted = noted || n.rfind("model.attention_softcap under flash attention", 0) == 0;
    CHECK(noted);
    CHECK(test::error_of(R"({"model":{"preset":"deepflow-lstm-38b","attention_softcap":50}})")["path"] == "/model/attention_softcap");
}

TEST_CASE("NVFP4: half a byte per element with an E4M3 scale per 16, the 4-bit tensor-core peak, Blackwell only") {
    const std::string base = R"({"framework":"megatron","model":{"preset":"llama-3.1-8b"},
        "training":{"seq_len":4096,"global_batch":8,"recompute":"none")";
    const std::string plan = R"(},"parallel":{"dp":8},"hardware":{"preset":"gb300-nvl72"}})";
    const Report mx = test::report(base + R"(,"fp8":"mxfp8")" + plan);
    const Report fp4 = test::report(base + R"(,"fp8":"nvfp4")" + plan);
    const double s = 4096, h = 4096, f = 14336, L = 32;
    const double gemm_inputs = L * s * (3 * h + f);
    const double layer_weights = L * (h * (h + 2 * 1024) + h * h + 3 * h * f);
    // Saved GEMM inputs: 0.5 + 1/16 byte where MXFP8 keeps 1 + 1/32; weight copies 0.5 + 1/256 (16x16 blocks).
    CHECK(mx.stages[0].activations - fp4.stages[0].activations ==
          doctest::Approx(gemm_inputs * ((1 + 1.0 / 32) - (0.5 + 1.0 / 16))).epsilon(1e-9));
    CHECK(fp4.stages[0].other.cast_weights == doctest::Approx(2 * layer_weights * (0.5 + 1.0 / 256)).epsilon(1e-9));
    // Each quantization reads the operand twice (the per-tensor amax, then the fused cast of both copies).
    const Kernel quantize = input_quantization(fp4.config);
    CHECK(quantize.bytes == doctest::Approx(4096 * 4096 * (2 * 2 + 2 * (0.5 + 1.0 / 16))));
    CHECK(quantize.launches == 2);
    // The GEMMs run at hardware.peak_tflops.nvfp4 (GB300: 15,000 dense, three times its MXFP8 rate of 5,000).
    CHECK(gemm_kernel(16384, 8192, 8192, mx.config, GemmPrecision::Fp8).seconds /
              gemm_kernel(16384, 8192, 8192, fp4.config, GemmPrecision::Fp8).seconds ==
          doctest::Approx(3).epsilon(0.05));
    CHECK(fp4.metrics.peak_flops_per_device == 15000e12);
    // Hopper has no FP4 tensor cores: refused, naming the field.
    const auto hopper = test::error_of(base + R"(,"fp8":"nvfp4"},"hardware":{"preset":"h100-sxm-80gb"}})");
    CHECK(hopper["path"] == "/training/fp8");
    CHECK(hopper["message"].get<std::string>().find("peak_tflops.nvfp4") != std::string::npos);
}
