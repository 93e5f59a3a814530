// torch.compile (implementation.compile): what the partitioner saves per layer, the loss's buffers, autocast's weight
// casts, the fused kernels' launches and bytes, the compiled passes' host time, the refusals and the launch flags
// (docs/memory.md "Under torch.compile", docs/time.md "Step time for real implementations").
#include "helpers.h"
#include "schedule/step.h"
#include "search/launch.h"

using namespace shardcalc;

namespace {

std::string hf(const char* model, const char* training, const char* implementation) {
    return std::string(R"({"framework":"pytorch","model":)") + model + R"(,"training":)" + training +
           R"(,"implementation":)" + implementation + R"(,"hardware":{"preset":"h100-sxm-80gb"}})";
}

const char* kGpt2 = R"({"preset":"gpt2"})";
const char* kLlama160m =
    R"({"arch":"decoder","layers":12,"hidden":768,"heads":12,"kv_heads":4,"ffn_hidden":3072,"mlp":"swiglu",)"
    R"("vocab":32000,"max_positions":8192,"position_embedding":"rope","norm":"rmsnorm","bias":false,"tied_embeddings":false})";

// Bytes one transformer layer saves per microbatch, in units of tokens x hidden.
double layer_saved(const std::string& json) {
    const Config c = test::config(json);
    const ModelGraph g = build_graph(c);
    const double th = static_cast<double>(c.s.training.seq_len * c.s.training.micro_batch * c.s.model.hidden);
    return layer_activation_bytes(g.groups[0].layer, c) / th;
}

Performance perf(const std::string& json) { return test::report(json).perf; }

}  // namespace

TEST_CASE("compiled layers keep the norms' inputs, the attention kernel's tensors and the activations' inputs only") {
    // GPT-2 under autocast, per token x hidden: the two norms' fp32 inputs 4 + 4, flash's q, k, v 6 and fp32 log-sum-exp
    // 12 x 4 / 768, the output projection's 16-bit input 2, the MLP activation's 16-bit input 4h x 2 = 8. The inputs
    // of c_attn, c_fc and the MLP's c_proj are rebuilt; eager keeps 84.06 (test_framework_accuracy).
    CHECK(layer_saved(hf(kGpt2, R"({"seq_len":1024,"micro_batch":8})", R"({"compile":"inductor"})")) == doctest::Approx(24.0625));
    // Llama-160M (GQA 12/4, SwiGLU f = 4h): RMSNorm inputs 4 + 4 (no fp32 copy, no normalized tensor), q 2, k and v
    // 2/3 each, lse 1/16, o_proj's input 2, gate and up 8h x 2 = 16 (eager also keeps the activated gate: 63.4).
    CHECK(layer_saved(hf(kLlama160m, R"({"seq_len":2048,"micro_batch":4})", R"({"compile":"inductor"})")) ==
          doctest::Approx(4 + 4 + 2 + 4.0 / 3 + 1.0 / 16 + 2 + 16));
    // Pure bf16 (no autocast): the norms keep 16-bit inputs.
    CHECK(layer_saved(hf(kGpt2, R"({"seq_len":1024,"micro_batch":8,"dtype":"bf16","param_dtype":"bf16"})",
                         R"({"compile":"inductor"})")) == doctest::Approx(2 + 2 + 6 + 0.0625 + 2 + 8));
}

TEST_CASE("compiled eager attention keeps the 16-bit probabilities and the mask, k and v before repeat_kv") {
    const char* training = R"({"seq_len":1024,"micro_batch":2,"attention":"eager","dropout":0.1})";
    const double eager = layer_saved(hf(kLlama160m, training, "{}"));
    const double compiled = layer_saved(hf(kLlama160m, training, R"({"compile":"inductor"})"));
    // Per token x hidden, scores s x heads / h = 1024 x 12 / 768 = 16 elements: eager keeps the fp32 softmax (4),
    // its 16-bit copy (2), the mask (1) and the dropped probabilities (2); compiled the copy and the mask.
    const double scores = 1024.0 * 12 / 768;
    CHECK(eager - compiled > 6 * scores);
    CHECK(compiled == doctest::Approx(4 + 4 + 2 + 2.0 / 3 + 2.0 / 3 + 3 * scores + 2 + 16 + 2 * 1));
}

TEST_CASE("compiled loss keeps the 16-bit logits and writes one 16-bit gradient; no autocast weight copies") {
    const std::string eager = hf(kGpt2, R"({"seq_len":1024,"micro_batch":8})", "{}");
    const std::string compiled = hf(kGpt2, R"({"seq_len":1024,"micro_batch":8})", R"({"compile":"inductor"})");
    const Report e = test::report(eager), k = test::report(compiled);
    const double logits = 8.0 * 1024 * 50257;  // the preset's vocabulary, unpadded under transformers
    CHECK(test::phase(e.stages[0], "loss_backward").other.logits == doctest::Approx(4 * logits));
    CHECK(test::phase(k.stages[0], "loss_backward").other.logits == doctest::Approx(2 * logits));
    CHECK(test::phase(k.stages[0], "loss_backward").other.transient >= 2 * logits);
    CHECK(test::phase(k.stages[0], "loss_backward").other.transient < 2 * logits * 1.01);
    CHECK(e.stages[0].other.cast_weights > 0);
    CHECK(k.stages[0].other.cast_weights == 0);
}

TEST_CASE("compiled passes launch fewer kernels, move fewer bytes and pay inductor's host time per launch") {
    const char* training = R"({"seq_len":1024,"micro_batch":1,"global_batch":1})";
    const Performance e = perf(hf(kGpt2, training, "{}"));
    const Performance k = perf(hf(kGpt2, training, R"({"compile":"inductor"})"));
    const Kernel& ef = e.compute[0].cost.fwd;
    const Kernel& kf = k.compute[0].cost.fwd;
    CHECK(kf.launches < 0.6 * ef.launches);  // the weight casts and GEMMs stay: 187 of 358
    CHECK(kf.memory_seconds < ef.memory_seconds / 2);
    CHECK(kf.matmul_seconds == doctest::Approx(ef.matmul_seconds));  // GEMMs stay cuBLAS's
    // Eager GPT-2 at micro-batch 1 is launch-bound at 38.5 µs a launch; compiled at 9.1 µs it is device-bound.
    CHECK(e.step_seconds > 2 * k.step_seconds);
    const auto wait = [](const Performance& p) {
        double w = 0;
        for (const auto& [name, s] : p.breakdown)
            if (name == "forward_host_wait" || name == "backward_host_wait") w += s;
        return w;
    };
    CHECK(wait(e) > 0);
    CHECK(wait(k) == 0);
    // A host time per compiled launch large enough makes the compiled pass host-bound again, at that time per launch.
    const Performance slow = perf(hf(kGpt2, training, R"({"compile":"inductor","host_compiled_us":1000})"));
    CHECK(wait(slow) > 0);
    // CUDA graphs replay the pass: no host time per kernel.
    CHECK(*test::config(hf(kGpt2, training, R"({"compile":"reduce_overhead"})")).s.implementation.host_compiled_us == 0);
    CHECK(*test::config(hf(kGpt2, training, R"({"compile":"inductor"})")).s.implementation.host_compiled_us == doctest::Approx(9.1));
}

TEST_CASE("torch.compile is refused where it is not modelled, at its field") {
    CHECK(test::error_of(R"({"framework":"megatron","model":{"preset":"gpt2"},"implementation":{"compile":"inductor"}})")["path"] ==
          "/implementation/compile");
    CHECK(test::error_of(hf(R"({"preset":"mixtral-8x7b"})", "{}", R"({"compile":"inductor"})"))["path"] == "/implementation/compile");
    CHECK(test::error_of(hf(kGpt2, "{}", R"({"compile":"fast"})"))["path"] == "/implementation/compile");
    CHECK(test::error_of(hf(kGpt2, "{}", R"({"host_compiled_us":5})"))["path"] == "/implementation/host_compiled_us");
    CHECK(test::error_of(std::string(R"({"framework":"pytorch","model":{"preset":"gpt2"},"adapter":{"method":"lora"},)") +
                         R"("implementation":{"compile":"inductor"}})")["path"] == "/implementation/compile");
}

TEST_CASE("torch.compile is echoed when on, and exported as the Trainer's flags") {
    const auto on = nlohmann::json::parse(evaluate_scenario_text(hf(kGpt2, "{}", R"({"compile":"reduce_overhead"})")));
    CHECK(on["report"]["scenario"]["implementation"]["compile"] == "reduce_overhead");
    const auto off = nlohmann::json::parse(evaluate_scenario_text(hf(kGpt2, "{}", "{}")));
    CHECK_FALSE(off["report"]["scenario"]["implementation"].contains("compile"));
    CHECK_FALSE(off["report"]["scenario"]["implementation"].contains("host_compiled_us"));
    bool flag = false;
    for (const LaunchCommand& l : launch_commands(test::config(hf(kGpt2, "{}", R"({"compile":"max_autotune"})"))))
        for (const std::string& line : l.lines) flag = flag || line == "--torch_compile --torch_compile_mode max-autotune";
    CHECK(flag);
}
