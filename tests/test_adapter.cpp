// Adapters (scenario/adapter.h): LoRA, DoRA and QLoRA as PEFT and bitsandbytes run them, by hand on a small model.
#include "helpers.h"
#include "compute/stage_cost.h"
#include "memory/model_states.h"
#include "search/launch.h"

using namespace shardcalc;

namespace {

// A small Llama-style model: 2 layers, hidden 512, 8 heads of 64 (kv 4), SwiGLU 1,024 wide, vocabulary 1,000.
std::string scenario(const std::string& adapter, const std::string& training = "", const std::string& parallel = "",
                     const char* framework = "pytorch") {
    return std::string("{\"framework\":\"") + framework +
           "\",\"model\":{\"layers\":2,\"hidden\":512,\"heads\":8,\"kv_heads\":4,\"ffn_hidden\":1024,\"vocab\":1000,"
           "\"max_positions\":512,\"mlp\":\"swiglu\",\"norm\":\"rmsnorm\",\"bias\":false,\"position_embedding\":\"rope\","
           "\"tied_embeddings\":false},\"training\":{\"seq_len\":256,\"micro_batch\":2,\"dtype\":\"bf16\"" +
           training + "},\"parallel\":{" + (parallel.empty() ? "\"dp\":1" : parallel) + "}" + (adapter.empty() ? "" : ",\"adapter\":" + adapter) + "}";
}

// Adapter parameters of the small model for a rank and targets, by hand: r (in + out) per targeted linear per layer.
double adapter_params(double r, bool q, bool k, bool v, bool o, bool gate, bool up, bool down) {
    const double h = 512, kv = 4 * 64, f = 1024;
    const double per_layer = r * ((q ? h + h : 0) + (k ? h + kv : 0) + (v ? h + kv : 0) + (o ? h + h : 0) +
                                  (gate ? h + f : 0) + (up ? h + f : 0) + (down ? f + h : 0));
    return 2 * per_layer;
}

double base_params() {
    const double h = 512, kv = 256, f = 1024, vocab = 1000;
    const double layer = h * h + 2 * h * kv + h * h + 3 * h * f + 2 * h;
    return 2 * layer + 2 * vocab * h + h;  // the layers, embedding and output layer, the final norm
}

}  // namespace

TEST_CASE("adapter: the parameters trained are the adapters' alone, r (in + out) per targeted linear") {
    const Report full = test::report(scenario(""));
    CHECK(full.parameters.trained == full.parameters.total);
    CHECK(full.parameters.total == doctest::Approx(base_params()));
    const Report qv = test::report(scenario(R"({"method":"lora","rank":16})"));
    CHECK(qv.parameters.trained == doctest::Approx(adapter_params(16, true, false, true, false, false, false, false)));
    CHECK(qv.parameters.total == doctest::Approx(base_params() + qv.parameters.trained));
    const Report all = test::report(scenario(R"({"method":"lora","rank":8,"targets":["q","k","v","o","gate","up","down"]})"));
    CHECK(all.parameters.trained == doctest::Approx(adapter_params(8, true, true, true, true, true, true, true)));
    // DoRA adds a magnitude per output of each targeted linear.
    const Report dora = test::report(scenario(R"({"method":"dora","rank":8,"targets":["o"]})"));
    CHECK(dora.parameters.trained == doctest::Approx(adapter_params(8, false, false, false, true, false, false, false) + 2 * 512));
}

TEST_CASE("adapter: model states, the base's weights in bf16 and the adapters' weights, gradients and AdamW states in fp32") {
    const Report r = test::report(scenario(R"({"method":"lora","rank":16,"targets":["q","v"]})"));
    const double trained = r.parameters.trained, base = base_params();
    const StageMemory& m = r.peak();
    CHECK(m.weights == doctest::Approx(2 * base + 4 * trained));
    CHECK(m.optimizer == doctest::Approx(8 * trained));  // exp_avg and exp_avg_sq, fp32; no master copy
    CHECK(test::phase(m, "optimizer_step").gradients == doctest::Approx(4 * trained));
    // ZeRO-2 over 4 ranks partitions the adapters' gradients and states, not the frozen base; ZeRO-3 the base too.
    const Report z2 = test::report(scenario(R"({"method":"lora","rank":16})", "", R"("dp":4,"zero":2)", "deepspeed"));
    CHECK(z2.peak().weights == doctest::Approx(2 * base + 4 * trained));
    CHECK(z2.peak().optimizer == doctest::Approx(8 * trained / 4));
    const Report z3 = test::report(scenario(R"({"method":"lora","rank":16})", "", R"("dp":4,"zero":3)", "fsdp"));
    CHECK(z3.peak().weights == doctest::Approx((2 * base + 4 * trained) / 4));
}

// PEFT's modules_to_save (peft/utils/other.py ModulesToSaveWrapper): the module's original kept frozen and a deep copy
// trained, in the base's dtype. Checked on the Qwen README's "LoRA (emb)" rows (validation/lora.py).
TEST_CASE("adapter: train_embeddings trains copies of the embedding and the output layer in the base's dtype") {
    const std::string lora = R"({"method":"lora","rank":16,"targets":["q","v"])";
    const Report plain = test::report(scenario(lora + "}"));
    const Report both = test::report(scenario(lora + R"(,"train_embeddings":true})"));
    const double copies = 2 * 1000 * 512.0;  // the word embedding's [1000, 512] and the output layer's [1000, 512]
    CHECK(both.parameters.trained == doctest::Approx(plain.parameters.trained + copies));
    const StageMemory &a = plain.peak(), &b = both.peak();
    CHECK(b.weights == doctest::Approx(a.weights + 2 * copies));    // the copies in bf16; the originals were there
    CHECK(b.optimizer == doctest::Approx(a.optimizer + 4 * copies));  // AdamW's two states in the copies' bf16
    CHECK(test::phase(b, "optimizer_step").gradients ==
          doctest::Approx(test::phase(a, "optimizer_step").gradients + 2 * copies));
    // One matrix for both (tied embeddings) is not modelled: refused at the field.
    std::string tied = scenario(lora + R"(,"train_embeddings":true})");
    tied.replace(tied.find("\"tied_embeddings\":false"), 23, "\"tied_embeddings\":true ");
    CHECK(test::error_of(tied)["path"] == "/adapter/train_embeddings");
}

TEST_CASE("adapter: QLoRA stores the layers' linear weights in 4 bits with block scales (Dettmers et al. 2023, sec. 3)") {
    const double h = 512, kv = 256, f = 1024, vocab = 1000;
    const double linear = 2 * (h * h + 2 * h * kv + h * h + 3 * h * f);
    const double rest = base_params() - linear;  // embeddings, output layer and norms stay bf16
    for (const bool dq : {false, true}) {
        CAPTURE(dq);
        const Report r = test::report(scenario(std::string(R"({"method":"qlora","rank":8,"double_quant":)") + (dq ? "true" : "false") + "}"));
        // 0.5 bits of fp32 scales per parameter (one per block of 64), 0.127 with double quantization.
        const double bits = dq ? 0.127 : 0.5;
        CHECK(r.peak().weights == doctest::Approx(linear * (4 + bits) / 8 + 2 * rest + 4 * r.parameters.trained).epsilon(1e-4));
    }
    (void)vocab;
}

TEST_CASE("adapter: a frozen linear computes no weight gradient and keeps no input for one") {
    const Config full = test::config(scenario(""));
    const Config lora = test::config(scenario(R"({"method":"lora","rank":8,"targets":["q"]})"));
    const ModelGraph gf = build_graph(full), gl = build_graph(lora);
    // The q projection: its input kept for its weight gradient in full training, not when frozen; its adapter keeps
    // its own fp32 copy of x (PEFT casts x to the adapter's dtype) and lora_A's [tokens, r] output.
    const auto op_in = [](const ModelGraph& g, const std::string& name) -> const Op& {
        const Op* found = nullptr;
        for_each_op(g.groups.front().layer, [&](const Op& op) {
            if (op.name == name) found = &op;
        });
        REQUIRE(found);
        return *found;
    };
    CHECK(op_in(gf, "query").saved.size() == 1);
    CHECK(op_in(gl, "query").saved.empty());
    CHECK(op_in(gl, "query").work.front().frozen);
    const Op& adapter = op_in(gl, "query.lora");
    REQUIRE(adapter.saved.size() == 2);
    CHECK(adapter.saved[0].kind == SavedKind::Fp32);
    CHECK(adapter.saved[0].width == 512);
    CHECK(adapter.saved[1].width == 8);
    // Backward of the frozen layers: the data-gradient GEMMs only, so less GEMM work than full training's.
    const Report rf = test::report(scenario("")), rl = test::report(scenario(R"({"method":"lora","rank":8,"targets":["q"]})"));
    CHECK(rl.perf.compute.front().cost.bwd.flops < 0.6 * rf.perf.compute.front().cost.bwd.flops);
    CHECK(test::phase(rl.peak(), "forward_end").activations < test::phase(rf.peak(), "forward_end").activations);
}

TEST_CASE("adapter: data parallelism reduces the adapters' fp32 gradients only") {
    const Report r = test::report(scenario(R"({"method":"lora","rank":16})", "", R"("dp":2)"));
    double volume = 0;
    for (const auto& e : r.perf.comm.front().entries)
        if (e.purpose == std::string("gradients")) volume += e.bytes;
    CHECK(volume == doctest::Approx(4 * r.parameters.trained));
}

TEST_CASE("adapter: the echo reproduces the report") {
    const Report r = test::report(scenario(R"({"method":"dora","rank":4,"dropout":0.05,"targets":["k","down"]})"));
    const nlohmann::json echo = scenario_to_json(r.config.s);
    REQUIRE(echo.contains("adapter"));
    CHECK(echo["adapter"]["targets"] == nlohmann::json::array({"k", "down"}));
    const Report again = evaluate(scenario_from_json(echo));
    CHECK(again.perf.step_seconds == r.perf.step_seconds);
    CHECK(again.peak().total() == r.peak().total());
    CHECK_FALSE(scenario_to_json(test::report(scenario("")).config.s).contains("adapter"));
}

TEST_CASE("adapter: the plans it does not model are refused at their fields") {
    CHECK(test::error_of(scenario(R"({"method":"lora"})", "", "", "megatron"))["path"] == "/framework");
    CHECK(test::error_of(scenario(R"({"method":"lora"})", "", R"("tp":2)"))["path"] == "/parallel/tp");
    CHECK(test::error_of(scenario(R"({"method":"lora","double_quant":true})"))["path"] == "/adapter/double_quant");
    CHECK(test::error_of(scenario(R"({"method":"lora","targets":[]})"))["path"] == "/adapter/targets");
    CHECK(test::error_of(scenario(R"({"method":"lora","targets":["qkv"]})"))["path"] == "/adapter/targets/0");
    CHECK(test::error_of(scenario(R"({"method":"lora","rank":0})"))["path"] == "/adapter/rank");
    CHECK(test::error_of(scenario(R"({"method":"qlora"})", "", R"("dp":2,"zero":3)", "deepspeed"))["path"] == "/parallel/zero");
    CHECK(test::error_of(scenario(R"({"method":"lora"})", R"(,"master_weights":true)"))["path"] == "/training/master_weights");
}

TEST_CASE("adapter: QLoRA fine-tunes LLaMA-65B on one 48 GB GPU, 16-bit LoRA cannot (Dettmers et al. 2023, abstract)") {
    // examples/qlora-llama-65b-48gb.json: the Guanaco-65B recipe (artidoro/qlora scripts/finetune_guanaco_65b.sh).
    nlohmann::json s = nlohmann::json::parse(test::repo_file("examples/qlora-llama-65b-48gb.json"));
    const Report q = evaluate(scenario_from_json(s));
    CHECK(q.verdict.verdict != Verdict::DoesNotFit);
    CHECK(q.peak().weights / test::GiB == doctest::Approx(33.6).epsilon(0.01));
    s["adapter"]["method"] = "lora";
    s["adapter"].erase("double_quant");
    const Report l = evaluate(scenario_from_json(s));
    CHECK(l.verdict.verdict == Verdict::DoesNotFit);
    CHECK(l.peak().weights > 2 * 65e9);
}

TEST_CASE("adapter: bitsandbytes' 8-bit AdamW keeps a byte per moment and an absmax per block of 2,048") {
    const Report r = test::report(scenario(R"({"method":"lora","rank":16})", R"(,"optimizer":"adamw_8bit")"));
    CHECK(r.peak().optimizer == doctest::Approx(2 * (1 + 4.0 / 2048) * r.parameters.trained));
    const Report full = test::report(scenario("", R"(,"optimizer":"adamw_8bit","param_dtype":"bf16")", "", "deepspeed"));
    CHECK(full.peak().optimizer == doctest::Approx((4 + 2 * (1 + 4.0 / 2048)) * full.parameters.total));  // fp32 master too
}

TEST_CASE("adapter: launch flags as TRL names them, with the PEFT and bitsandbytes configs") {
    const Config c = test::config(scenario(R"({"method":"qlora","rank":32,"dropout":0.1,"double_quant":true,"targets":["q","down"]})",
                                           R"(,"optimizer":"adamw_8bit","recompute":"full")", R"("dp":2)"));
    std::string text;
    for (const LaunchCommand& cmd : launch_commands(c))
        for (const std::string& line : cmd.lines) text += line + "\n";
    CHECK(text.find("--use_peft --lora_r 32 --lora_dropout 0.1 --lora_target_modules q_proj down_proj\n") != std::string::npos);
    CHECK(text.find("--load_in_4bit --bnb_4bit_quant_type nf4 --use_bnb_nested_quant\n") != std::string::npos);
    CHECK(text.find("bnb_4bit_use_double_quant=True") != std::string::npos);
    CHECK(text.find("--optim adamw_bnb_8bit") != std::string::npos);
    CHECK(text.find("--gradient_checkpointing") != std::string::npos);
    CHECK(text.find("use_dora") == std::string::npos);
    CHECK(text.find("pretrain_gpt.py") == std::string::npos);
}

TEST_CASE("adapter: QLoRA dequantizes each 4-bit weight before its forward and its data-gradient GEMM, and nothing else") {
    const Config c = test::config(scenario(R"({"method":"qlora","rank":8})"));
    const ModelGraph g = build_graph(c);
    int dequantized = 0, quantized = 0;
    for_each_op(g.groups.front().layer, [&](const Op& op) {
        for (const Work& w : op.work)
            if (w.kind == WorkKind::Elementwise && w.per_weight && w.fwd_bytes == doctest::Approx(0.5 + 4.0 / 64 + 2)) ++dequantized;
        if (!op.params.empty() && op.params.front().quantized) ++quantized;
    });
    CHECK(quantized == 7);  // q, k, v, o, gate, up, down
    CHECK(dequantized == quantized);
}

TEST_CASE("adapter: LoRA on GPT-3 175B holds the frozen fp16 weights, about 350 GB (Hu et al. 2021, sec. 4.2)") {
    // The LoRA paper: "On GPT-3 175B, we reduce the VRAM consumption during training from 1.2TB to 350GB" with r = 4 on
    // the query and value projections. Here GPT-3 is fused-QKV (one module: q and v target it whole).
    const Report r = test::report(R"({"framework":"pytorch","model":{"preset":"gpt3-175b"},"training":{"seq_len":2048,"micro_batch":1,
        "dtype":"fp16","recompute":"full"},"parallel":{"dp":1},"adapter":{"method":"lora","rank":4,"targets":["q","v"]}})");
    const StageMemory& m = r.peak();
    CHECK((m.weights + m.optimizer + test::phase(m, "optimizer_step").gradients) / test::GB == doctest::Approx(350).epsilon(0.01));
    CHECK(r.parameters.trained < 1e-3 * r.parameters.total);
}

TEST_CASE("adapter: DDP's gradient buckets hold the adapters' gradients only") {
    // torch DDP's reducer buckets the parameters that require a gradient; the frozen base has none.
    const Report r = test::report(scenario(R"({"method":"lora","rank":16})", "", R"("dp":2)"));
    CHECK(r.peak().other.comm_buffers == doctest::Approx(4 * r.parameters.trained));
    const Report full = test::report(scenario("", "", R"("dp":2)"));
    CHECK(full.peak().other.comm_buffers == doctest::Approx(4 * full.parameters.total));  // fp32 gradients under pytorch
}

TEST_CASE("adapter: FSDP-QLoRA shards the packed 4-bit weights and gathers a layer of them packed") {
    const Report one = test::report(scenario(R"({"method":"qlora","rank":8})"));
    const Report fsdp = test::report(scenario(R"({"method":"qlora","rank":8})", "", R"("dp":4,"zero":3)", "fsdp"));
    CHECK(fsdp.peak().weights == doctest::Approx(one.peak().weights / 4));
    // The current and the prefetched unit (a layer) packed, and the unit's adapters' gradients.
    const double h = 512, kv = 256, f = 1024;
    const double layer = h * h + 2 * h * kv + h * h + 3 * h * f + 2 * h + 8 * (h + h) + 8 * (h + kv);
    const double adapters = 8 * (h + h) + 8 * (h + kv);
    CHECK(fsdp.peak().other.comm_buffers == doctest::Approx(2 * (0.5 + 4.0 / 64) * layer + 2 * adapters).epsilon(1e-3));
}

// GPTQ (adapter.quantization gptq), as Qwen's Int4 models are fine-tuned (transformers' GPTQConfig with AutoGPTQ's
// qlinear_cuda_old): 4-bit codes, and per group of input rows and output column an fp16 scale and a 4-bit zero; in fp16.
namespace {
const char* const kGptq = R"({"method":"qlora","quantization":"gptq","rank":8})";
std::string fp16(const std::string& adapter, const std::string& training = "", const std::string& parallel = "",
                 const char* framework = "pytorch") {
    std::string s = scenario(adapter, training, parallel, framework);
    s.replace(s.find(R"("dtype":"bf16")"), 14, R"("dtype":"fp16")");
    return s;
}
}  // namespace

TEST_CASE("adapter: a GPTQ base stores 4-bit codes with an fp16 scale and a 4-bit zero per group of input rows") {
    const double h = 512, kv = 256, f = 1024;
    const double linear = 2 * (h * h + 2 * h * kv + h * h + 3 * h * f);
    const double rest = base_params() - linear;  // embeddings, output layer and norms stay fp16
    for (const int group : {128, 64}) {
        CAPTURE(group);
        const std::string adapter = std::string(R"({"method":"qlora","quantization":"gptq","rank":8,"group_size":)") +
                                    std::to_string(group) + "}";
        const Report r = test::report(fp16(adapter));
        CHECK(r.peak().weights == doctest::Approx(linear * (0.5 + 2.5 / group) + 2 * rest + 4 * r.parameters.trained).epsilon(1e-6));
    }
}

TEST_CASE("adapter: a GPTQ weight is unpacked by torch ops before its forward GEMM only; the fp16 weight is kept for backward") {
    const Config c = test::config(fp16(kGptq));
    const ModelGraph g = build_graph(c);
    int unpacked = 0, quantized = 0;
    double kept = 0, weights = 0;
    for_each_op(g.groups.front().layer, [&](const Op& op) {
        for (const Work& w : op.work)
            if (w.per_weight && w.fwd_bytes == doctest::Approx(16.5 + 13.5 / 128) && w.fwd_kernels == 9 && w.bwd_bytes == 0 &&
                w.bwd_kernels == 0)
                ++unpacked;
        for (const SavedTensor& t : op.saved)
            if (t.split == SavedSplit::Weight) kept += saved_tensor_bytes(t, c);
        if (!op.params.empty() && op.params.front().quantized) {
            ++quantized;
            weights += static_cast<double>(op.params.front().numel());
        }
    });
    CHECK(quantized == 7);
    CHECK(unpacked == quantized);
    CHECK(kept == doctest::Approx(2 * weights));  // each layer's linear weights in fp16
    // Without recompute every layer keeps them until its backward; under full recompute one layer's, as it runs again.
    const Report none = test::report(fp16(kGptq));
    const Report full = test::report(fp16(kGptq, R"(,"recompute":"full")"));
    CHECK(layer_activation_bytes(g.groups.front().layer, c) >= 2 * weights);
    CHECK(test::phase(full.peak(), "forward_end").activations < 2 * weights);
    CHECK(test::phase(none.peak(), "forward_end").activations > 2 * 2 * weights);  // both layers' weights
}

TEST_CASE("adapter: a GPTQ base is refused where it is not modelled, at its fields") {
    CHECK(test::error_of(fp16(R"({"method":"lora","quantization":"gptq"})"))["path"] == "/adapter/quantization");
    CHECK(test::error_of(scenario(kGptq))["path"] == "/training/dtype");  // bf16: AutoGPTQ multiplies in fp16
    CHECK(test::error_of(fp16(R"({"method":"qlora","quantization":"gptq","double_quant":true})"))["path"] ==
          "/adapter/double_quant");
    CHECK(test::error_of(scenario(R"({"method":"qlora","group_size":64})"))["path"] == "/adapter/group_size");
    CHECK(test::error_of(fp16(kGptq, "", R"("dp":2,"zero":3)", "fsdp"))["path"] == "/parallel/zero");
}

TEST_CASE("adapter: DeepSpeed keeps an fp32 master and fp32 AdamW states of 16-bit adapters; torch.optim their own dtype") {
    const char* bf16 = R"({"method":"lora","rank":8,"dtype":"bf16"})";
    const Report ds = test::report(scenario(bf16, "", R"("dp":1,"zero":0)", "deepspeed"));
    const Report torch = test::report(scenario(bf16));
    const double trained = ds.parameters.trained;
    CHECK(trained == doctest::Approx(adapter_params(8, true, false, true, false, false, false, false)));
    CHECK(ds.peak().optimizer == doctest::Approx(trained * (4 + 2 * 4)));
    CHECK(torch.peak().optimizer == doctest::Approx(trained * 2 * 2));
    CHECK(test::error_of(scenario(bf16, R"(,"master_weights":true)"))["path"] == "/training/master_weights");
}

// implementation.loss_16bit: model code whose causal-LM loss is CrossEntropyLoss on the 16-bit logits (Qwen 1's), with
// no autocast: log_softmax keeps its output in 16 bits where transformers' upcast keeps fp32; under autocast the loss
// runs in fp32 either way.
TEST_CASE("adapter: a loss on the 16-bit logits keeps its log-probabilities in 16 bits, in fp32 under autocast") {
    const auto logits = [](const std::string& training, bool loss_16bit) {
        std::string s = scenario("", training);
        s.pop_back();
        s += std::string(R"(,"implementation":{"model_code":"huggingface","loss_16bit":)") + (loss_16bit ? "true" : "false") + "}}";
        return test::phase(test::report(s).peak(), "forward_end").other.logits;
    };
    const std::string pure = R"(,"param_dtype":"bf16")";
    CHECK(logits(pure, true) == doctest::Approx(logits(pure, false) / 2));
    const std::string autocast = R"(,"param_dtype":"fp32")";
    CHECK(logits(autocast, true) == doctest::Approx(logits(autocast, false)));
}
