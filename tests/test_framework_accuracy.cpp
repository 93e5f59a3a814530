// The mechanisms behind the measured-run validation (validation/measured, docs/memory.md "Framework-
// accurate memory" and "Step time for real implementations"), each checked in isolation: saved tensors
// per Hugging Face layer against the measured inventories, the memory timeline, the verdict, the
// optimizer implementations, GEMM alignment, TF32, the device's matmul unit and the host-bound pass.
#include "compute/roofline.h"
#include "helpers.h"
#include "memory/allocator.h"
#include "memory/model_states.h"

using namespace shardcalc;

namespace {

// The caching allocator's fragmentation as measured on the runs of validation/measured (no calibration given).
const Fragmentation kMeasured = fragmentation_of(ImplementationSpec{});

const char* kLlama160m =
    R"("model":{"arch":"decoder","layers":12,"hidden":768,"heads":12,"kv_heads":4,"ffn_hidden":3072,"mlp":"swiglu",)"
    R"("vocab":32000,"max_positions":8192,"position_embedding":"rope","norm":"rmsnorm","bias":false,"tied_embeddings":false})";

// Bytes one transformer layer saves per microbatch, in units of tokens x hidden.
double layer_saved_per_token_hidden(const Config& c) {
    const ModelGraph g = build_graph(c);
    const double th = static_cast<double>(c.s.training.seq_len * c.s.training.micro_batch * c.s.model.hidden);
    return layer_activation_bytes(g.groups[0].layer, c) / th;
}

std::string gpt2(const char* training, const char* implementation = "{}") {
    return std::string(R"({"framework":"pytorch","model":{"preset":"gpt2"},"training":)") + training +
           R"(,"implementation":)" + implementation + "}";
}

}  // namespace

TEST_CASE("implementation profile: each framework's defaults") {
    const Config pt = test::config(gpt2(R"({"seq_len":1024})"));
    CHECK(pt.s.implementation.model_code == ModelCode::HuggingFace);
    CHECK(pt.s.implementation.optimizer_impl == OptimizerImpl::Foreach);
    CHECK_FALSE(pt.s.implementation.tf32);
    CHECK(pt.traits.autocast);  // fp32 parameters, bf16 compute
    CHECK(pt.s.model.hidden_act == HiddenAct::GeluNew);  // from the preset (HF config activation_function)
    const Config mg = test::config(R"({"model":{"preset":"gpt2"},"training":{"seq_len":1024}})");
    CHECK(mg.s.implementation.model_code == ModelCode::Megatron);
    CHECK(mg.s.implementation.optimizer_impl == OptimizerImpl::Fused);
    CHECK(mg.s.implementation.tf32);
    CHECK_FALSE(mg.traits.autocast);
    CHECK(mg.s.model.fused_qkv);
    // Explicit fields win and are echoed.
    const auto j = nlohmann::json::parse(evaluate_scenario_text(gpt2(R"({"seq_len":1024})", R"({"optimizer_impl":"fused","tf32":true})")));
    CHECK(j["report"]["scenario"]["implementation"]["optimizer_impl"] == "fused");
    CHECK(j["report"]["scenario"]["implementation"]["tf32"] == true);
    CHECK(test::error_of(gpt2("{}", R"({"optimizer_impl":"apex"})"))["path"] == "/implementation/optimizer_impl");
    CHECK(test::error_of(gpt2("{}", R"({"host_forward_us":-1})"))["path"] == "/implementation/host_forward_us");
}

TEST_CASE("Hugging Face GPT-2 layer saves what the measured inventory holds, per dtype regime") {
    // validation/measured inventories, per layer in tokens x hidden bytes: autocast 84 (fp32 norm inputs 4+4,
    // qkv cast 2, q/k/v/out 8, lse 1/16, fc cast 2, gelu_new 3 fp32 + 1 bf16 of width 4h = 56, c_proj cast 8).
    CHECK(layer_saved_per_token_hidden(test::config(gpt2(R"({"seq_len":1024,"micro_batch":8})"))) ==
          doctest::Approx(84.0625));
    // Pure bf16: everything in bf16, norm outputs shared by the next linear, gelu_new keeps four bf16 tensors.
    CHECK(layer_saved_per_token_hidden(
              test::config(gpt2(R"({"seq_len":1024,"micro_batch":8,"param_dtype":"bf16"})"))) == doctest::Approx(56.0625));
    // fp32: twice pure bf16's 16-bit tensors.
    CHECK(layer_saved_per_token_hidden(test::config(gpt2(R"({"seq_len":1024,"micro_batch":8,"dtype":"fp32"})"))) ==
          doctest::Approx(112.0625));
    // A fused GeLU keeps its 16-bit input (8) instead of gelu_new's 56, and c_proj's input is the GeLU's
    // 16-bit output itself (8): 4 + 4 + 2 + 8 + 2 + 8 + 8 = 36 (validation/measured: fusedgelu inventory).
    CHECK(layer_saved_per_token_hidden(test::config(
              R"({"framework":"pytorch","model":{"preset":"gpt2","hidden_act":"gelu_pytorch_tanh"},"training":{"seq_len":1024,"micro_batch":8}})")) ==
          doctest::Approx(36.0625));
}

TEST_CASE("Hugging Face Llama layer: unfused RMSNorm, one autocast cast per projection, GQA kept narrow under SDPA") {
    // validation/measured llama-160m inventory per layer: norms 8 + 8, q/k/v casts 6, q 2 + k 2/3 + v 2/3 + out 2,
    // lse 1/16, gate/up casts 4, SwiGLU gate, silu, up and product 32.
    const Config c = test::config(std::string(R"({"framework":"pytorch",)") + kLlama160m +
                                  R"(,"training":{"seq_len":2048,"micro_batch":8}})");
    CHECK(layer_saved_per_token_hidden(c) == doctest::Approx(8 + 6 + 2 + 2.0 / 3 + 2.0 / 3 + 2 + 1.0 / 16 + 8 + 4 + 32));
    // Eager attention keeps fp32 probabilities and their bf16 copy: 6 a s / h per token-hidden more, with k, v repeated.
    const Config e = test::config(std::string(R"({"framework":"pytorch",)") + kLlama160m +
                                  R"(,"training":{"seq_len":2048,"micro_batch":8,"attention":"eager"}})");
    CHECK(layer_saved_per_token_hidden(e) - layer_saved_per_token_hidden(c) ==
          doctest::Approx(6.0 * 12 * 2048 / 768 + (2 - 2.0 / 3) * 2 - 1.0 / 16));
}

TEST_CASE("fp32 with grouped-query attention: SDPA's math kernel keeps the scores, and says so") {
    const Report r = test::report(std::string(R"({"framework":"pytorch",)") + kLlama160m +
                                  R"(,"training":{"seq_len":2048,"micro_batch":4,"dtype":"fp32"}})");
    CHECK(r.config.traits.sdpa_math);
    bool noted = false;
    for (const auto& n : r.notes) noted = noted || n.find("math kernel") != std::string::npos;
    CHECK(noted);
}

TEST_CASE("memory timeline: the peak is a moment, with the loss's temporaries at it") {
    const Report r = test::report(gpt2(R"({"seq_len":1024,"micro_batch":8})", R"({"optimizer_impl":"fused"})"));
    const StageMemory& m = r.peak();
    REQUIRE(m.timeline.size() == 5);
    CHECK(m.timeline[m.peak_phase].name == "loss_backward");
    // At the loss backward: two fp32 [tokens, vocab] gradients; no parameter gradient exists yet (set_to_none).
    const double tv = 8192.0 * 50257;
    CHECK(m.other.transient == doctest::Approx(2 * 4 * tv));
    CHECK(m.gradients == 0);
    CHECK(test::phase(m, "optimizer_step").gradients == doctest::Approx(m.params * 4));
    // The reported lines are those of the peak moment, plus fragmentation and the memory outside the allocator.
    CHECK(m.allocated() == doctest::Approx(m.timeline[m.peak_phase].lines.allocated()));
    CHECK(m.total() == doctest::Approx(m.allocated() * (1 + kMeasured.typical) + 0.77 * test::GiB));
    // With gradient accumulation the gradients already exist while later microbatches run forward.
    const Report acc = test::report(gpt2(R"({"seq_len":1024,"micro_batch":8,"global_batch":16})"));
    CHECK(test::phase(acc.peak(), "forward_end").gradients == doctest::Approx(m.params * 4));
    // Megatron's gradient buffer is allocated up front.
    const Report mg = test::report(R"({"model":{"preset":"gpt2"},"training":{"seq_len":1024}})");
    CHECK(test::phase(mg.peak(), "step_start").gradients > 0);
}

TEST_CASE("verdict: a largest request that cannot find its block again makes a fitting peak tight") {
    // The shape of the out-of-memory run of issue 22: 50.3 GiB in use when one 15.7 GiB request failed on an 80 GB
    // device (79.18 GiB). Its allocated peak with the request, 66 GiB, fits with the worst measured fragmentation
    // (66 x 1.165 + 0.77 = 77.7 GiB), but not with a second block of the request stranded: 66 + 15.7 + 0.77.
    const double cap = 79.18 * test::GiB, ctx = 0.77 * test::GiB, peak = 66.0 * test::GiB, request = 15.7 * test::GiB;
    const MemoryVerdict v = memory_verdict(peak, ctx, cap, request, Allocator::Caching, kMeasured);
    CHECK(v.verdict == Verdict::Tight);
    CHECK(v.margin == doctest::Approx(cap - peak - request - ctx));
    CHECK(reason_text(v).find("largest single request (15.70 GiB)") != std::string::npos);
    CHECK(reason_text(v).find("expandable_segments") != std::string::npos);
    // The same peak with a small largest request fits; with expandable segments it fits too.
    CHECK(memory_verdict(peak, ctx, cap, 0.5 * test::GiB, Allocator::Caching, kMeasured).verdict == Verdict::Fits);
    CHECK(memory_verdict(peak, ctx, cap, request, Allocator::ExpandableSegments, kMeasured).verdict == Verdict::Fits);
    // The engine's largest request of a plan: a GPT-2 step's is the fp32 gradient of its logits (the loss's largest
    // temporary), [tokens, vocab] in fp32.
    const Report r = test::report(R"({"framework":"pytorch","model":{"preset":"gpt2"},"training":{"seq_len":1024,"micro_batch":8}})");
    CHECK(r.peak().largest_request >= 8.0 * 1024 * 50257 * 4);
}

TEST_CASE("verdict: a calibrated fragmentation (implementation.fragmentation) replaces the measured median and worst") {
    const double cap = 80 * test::GiB, ctx = 0.77 * test::GiB, small = 0.5 * test::GiB;
    // 75 GiB allocated is tight against the worst measured (16.5%), fits if this cluster's allocator keeps 5% only.
    CHECK(memory_verdict(75 * test::GiB, ctx, cap, small, Allocator::Caching, kMeasured).verdict == Verdict::Tight);
    ImplementationSpec im;
    im.fragmentation = 0.05;
    const Fragmentation own = fragmentation_of(im);
    const MemoryVerdict v = memory_verdict(75 * test::GiB, ctx, cap, small, Allocator::Caching, own);
    CHECK(v.verdict == Verdict::Fits);
    CHECK(v.margin == doctest::Approx(cap - 75 * 1.05 * test::GiB - ctx));
    CHECK(reason_text(v).find("the calibrated fragmentation (5% of the peak, implementation.fragmentation)") != std::string::npos);
    // In a report: the reserved line and the verdict's fractions follow it.
    const std::string base = R"({"framework":"pytorch","model":{"preset":"gpt2"},"training":{"seq_len":1024,"micro_batch":8})";
    const Report measured = test::report(base + "}");
    const Report calibrated = test::report(base + R"(,"implementation":{"fragmentation":0.25}})");
    CHECK(calibrated.peak().other.fragmentation == doctest::Approx(0.25 * calibrated.peak().allocated()));
    CHECK(calibrated.peak().allocated() == doctest::Approx(measured.peak().allocated()));
    const auto j = nlohmann::json::parse(evaluate_scenario_text(base + R"(,"implementation":{"fragmentation":0.25}})"));
    CHECK(j["report"]["memory"]["verdict"]["fragmentation_worst_fraction"] == 0.25);
    CHECK(j["report"]["scenario"]["implementation"]["fragmentation"] == 0.25);
    CHECK(test::error_of(base + R"(,"implementation":{"fragmentation":1.5}})")["path"] == "/implementation/fragmentation");
}

TEST_CASE("verdict: fits with the worst measured fragmentation, tight without it, does not fit even packed") {
    const double cap = 80 * test::GiB, ctx = 0.77 * test::GiB, small = 0.5 * test::GiB;
    const auto caching = [&](double allocated, double largest = 0.5 * test::GiB) {
        return memory_verdict(allocated, ctx, cap, largest, Allocator::Caching, kMeasured);
    };
    CHECK(caching(60 * test::GiB).verdict == Verdict::Fits);
    CHECK(caching(75 * test::GiB).verdict == Verdict::Tight);
    CHECK(caching(79.5 * test::GiB).verdict == Verdict::DoesNotFit);
    CHECK(caching(75 * test::GiB).margin < 0);
    // Expandable segments return fragmented pages under pressure: the allocated peak and the context decide.
    CHECK(memory_verdict(75 * test::GiB, ctx, cap, small, Allocator::ExpandableSegments, kMeasured).verdict == Verdict::Fits);
    CHECK(memory_verdict(75 * test::GiB, ctx, cap, small, Allocator::ExpandableSegments, kMeasured).margin ==
          doctest::Approx(cap - 75 * test::GiB - ctx));
    CHECK(memory_verdict(79.5 * test::GiB, ctx, cap, small, Allocator::ExpandableSegments, kMeasured).verdict == Verdict::DoesNotFit);
    CHECK(memory_verdict(79.5 * test::GiB, ctx, cap, small, Allocator::ExpandableSegments, kMeasured).margin < 0);
    // The report: a plan that does not fit is not "fits", and its JSON says which verdict and why.
    const auto j = nlohmann::json::parse(evaluate_scenario_text(
        R"({"framework":"pytorch","model":{"preset":"llama-3.1-8b"},"training":{"seq_len":4096,"micro_batch":8}})"));
    CHECK(j["report"]["memory"]["verdict"]["verdict"] == "does_not_fit");
    CHECK(j["report"]["memory"]["fits"] == false);
    CHECK_FALSE(j["report"]["memory"]["verdict"]["reason"].get<std::string>().empty());
}

TEST_CASE("optimizer implementations: foreach materialises one state-sized temporary, fused none, SGD none") {
    auto step_temp = [](const char* training, const char* impl) {
        return test::phase(test::report(gpt2(training, impl)).peak(), "optimizer_step").other.transient;
    };
    const double params = 124439808;
    CHECK(step_temp(R"({"seq_len":1024})", R"({"optimizer_impl":"foreach"})") == doctest::Approx(4 * params));
    CHECK(step_temp(R"({"seq_len":1024})", R"({"optimizer_impl":"fused"})") == 0);
    CHECK(step_temp(R"({"seq_len":1024,"optimizer":"sgd_momentum"})", R"({"optimizer_impl":"foreach"})") == 0);
    // Pure bf16 with torch.optim: no master copy, states in bf16, temporaries too.
    const Report bf = test::report(gpt2(R"({"seq_len":1024,"param_dtype":"bf16"})"));
    CHECK(bf.peak().optimizer == doctest::Approx(params * 2 * 2));
    CHECK(test::phase(bf.peak(), "optimizer_step").other.transient == doctest::Approx(2 * params));
}

TEST_CASE("GEMM alignment: unpadded vocabularies fall back to narrow loads") {
    // The output layer's leading dimensions: its input's features and the vocabulary.
    CHECK(alignment_factor(768, 50257, 2) == doctest::Approx(2.0 / 16));  // odd: 2-byte loads
    CHECK(alignment_factor(1024, 30522, 2) == doctest::Approx(4.0 / 16));  // even: 4-byte loads
    CHECK(alignment_factor(768, 50304, 2) == 1);
    CHECK(alignment_factor(768, 50257, 4) == doctest::Approx(4.0 / 16));
    // The tokens a GEMM sums over or produces are never a leading dimension: an odd count per microbatch runs at its
    // aligned neighbour's rate (the vocabulary padded, so only the token count differs).
    const auto per_token = [](int seq) {
        const std::string s = R"({"framework":"pytorch","model":{"preset":"gpt2","vocab":50304},"training":{"seq_len":)" +
                              std::to_string(seq) + R"(,"micro_batch":3}})";
        return test::report(s).perf.step_seconds / seq;
    };
    CHECK(per_token(1023) == doctest::Approx(per_token(1024)).epsilon(0.02));
    // The padded vocabulary makes the same step faster.
    const double odd = test::report(gpt2(R"({"seq_len":1024,"micro_batch":8})")).perf.step_seconds;
    const double padded = test::report(R"({"framework":"pytorch","model":{"preset":"gpt2","vocab":50304},
        "training":{"seq_len":1024,"micro_batch":8}})").perf.step_seconds;
    CHECK(padded < odd * 0.9);
}

TEST_CASE("fp32 matmuls: the fp32 peak unless TF32 is on; TPUs run them through bf16, and have no fp16") {
    const Config off = test::config(gpt2(R"({"seq_len":1024,"dtype":"fp32"})"));
    const Config on = test::config(gpt2(R"({"seq_len":1024,"dtype":"fp32"})", R"({"tf32":true})"));
    CHECK(peak_flops(off) == doctest::Approx(66.9e12));
    CHECK(peak_flops(on) == doctest::Approx(494.7e12));
    const Config tpu = test::config(R"({"model":{"preset":"bert-base"},"training":{"seq_len":512,"dtype":"fp32"},
        "hardware":{"preset":"tpu-v3"}})");
    CHECK(peak_flops(tpu) == doctest::Approx(61.5e12));
    const auto j = nlohmann::json::parse(evaluate_scenario_text(R"({"model":{"preset":"bert-base"},
        "training":{"seq_len":512,"dtype":"fp32"},"hardware":{"preset":"tpu-v3"}})"));
    CHECK(j["report"]["time"]["mfu"].get<double>() > 0);
    CHECK(test::error_of(R"({"model":{"preset":"bert-base"},"training":{"seq_len":512,"dtype":"fp16"},
        "hardware":{"preset":"tpu-v3"}})")["path"] == "/training/dtype");
}

TEST_CASE("small models are launch-bound: a pass takes at least its kernels times the host's time per launch") {
    const Report slow_host = test::report(gpt2(R"({"seq_len":1024})", R"({"host_forward_us":100,"host_backward_us":100})"));
    const Report fast_host = test::report(gpt2(R"({"seq_len":1024})", R"({"host_forward_us":1,"host_backward_us":1})"));
    const auto& b = slow_host.perf.breakdown;
    double wait = 0;
    for (const auto& [part, seconds] : b)
        if (part == "forward_host_wait" || part == "backward_host_wait") wait += seconds;
    CHECK(wait > 0);
    CHECK(slow_host.perf.step_seconds > 2 * fast_host.perf.step_seconds);
    // A large model on the same host is not.
    const Report big = test::report(R"({"framework":"pytorch","model":{"preset":"llama-3.1-8b"},"training":{"seq_len":4096}})");
    for (const auto& [part, seconds] : big.perf.breakdown)
        if (part == "forward_host_wait") CHECK(seconds == 0);
}
