// Bytes per parameter of the model states under each framework rule.
#include "helpers.h"
#include "core/decimal.h"
#include "memory/model_states.h"
#include "report/kernel_table.h"

using namespace shardcalc;

namespace {

double per_param(const std::string& json, double params = 1e9) {
    const Config c = test::config(json);
    const ParamTensor vec{"w", {1}, ParamSplit::Replicated, false};
    const double elems = optimizer_state_elems(vec, 1, c.s.training.optimizer) * params;
    const StateBytes s = model_state_bytes(ParamTally{params, elems}, c);
    return (s.weights + s.gradients + s.optimizer) / params;
}

const char* kModel = R"("model":{"layers":2,"hidden":512,"heads":8,"vocab":1000,"max_positions":512},"training":{"seq_len":512)";

std::string with(const char* framework, const std::string& training_extra, const std::string& parallel) {
    return std::string("{\"framework\":\"") + framework + "\"," + kModel + training_extra + "},\"parallel\":" + parallel + "}";
}

}  // namespace

TEST_CASE("ZeRO paper (Rajbhandari et al. 2020, Figure 1): 7.5B parameters, 64 GPUs, K = 12") {
    // Published: 120 GB (baseline), 31.4 GB (P_os), 16.6 GB (P_os+g), 1.9 GB (P_os+g+p).
    const double psi = 7.5e9;
    const double published[] = {120, 31.4, 16.6, 1.9};
    for (int stage = 0; stage <= 3; ++stage) {
        CAPTURE(stage);
        const std::string j = with("deepspeed", ",\"dtype\":\"fp16\"",
                                   "{\"dp\":64,\"zero\":" + std::to_string(stage) + "}");
        const double gb = per_param(j, psi) * psi / test::GB;
        // The paper rounds to one decimal: 31.41, 16.64, 1.875 GB.
        CHECK(gb == doctest::Approx(published[stage]).epsilon(0.015));
    }
}

TEST_CASE("Megatron: 18 bytes/param, 6 + 12/dp with the distributed optimizer") {
    // megatron docs (distrib_optimizer.md): bf16 params, fp32 grads: 18 bytes; distributed: 6 + 12/d.
    CHECK(per_param(with("megatron", "", "{\"dp\":8}")) == doctest::Approx(18));
    for (int dp : {2, 8, 64}) {
        CAPTURE(dp);
        const std::string j = with("megatron", "", "{\"dp\":" + std::to_string(dp) + ",\"distributed_optimizer\":true}");
        CHECK(per_param(j) == doctest::Approx(6 + 12.0 / dp));
    }
    // fp16 params keep the default fp32 main grads: 2 + 4 + 12.
    CHECK(per_param(with("megatron", ",\"dtype\":\"fp16\"", "{}")) == doctest::Approx(18));
}

TEST_CASE("ZeRO shards over dp * cp * ulysses: every rank holding the same weights") {
    const double a = per_param(with("deepspeed", "", "{\"dp\":4,\"zero\":3,\"ulysses\":4}"));
    const double b = per_param(with("deepspeed", "", "{\"dp\":16,\"zero\":3}"));
    CHECK(a == doctest::Approx(b));
    CHECK(a == doctest::Approx(16.0 / 16));
}

TEST_CASE("optimizers: states per parameter") {
    auto opt = [](const char* name) {
        return per_param(with("deepspeed", std::string(",\"optimizer\":\"") + name + "\"", "{}"));
    };
    CHECK(opt("adamw") == doctest::Approx(2 + 2 + 4 + 8));
    CHECK(opt("adam") == doctest::Approx(16));
    CHECK(opt("sgd") == doctest::Approx(2 + 2 + 4));
    CHECK(opt("sgd_momentum") == doctest::Approx(2 + 2 + 4 + 4));
    CHECK(opt("lion") == doctest::Approx(2 + 2 + 4 + 4));
}

TEST_CASE("Adafactor keeps row + column statistics per matrix") {
    const ParamTensor w{"w", {4096, 1024}, ParamSplit::Replicated, false};
    CHECK(optimizer_state_elems(w, 4096.0 * 1024, Optimizer::Adafactor) == 4096 + 1024);
    const ParamTensor v{"b", {4096}, ParamSplit::Replicated, false};
    CHECK(optimizer_state_elems(v, 4096, Optimizer::Adafactor) == 4096);
    // tensor-parallel shard of dim 0
    const ParamTensor ws{"w", {4096, 1024}, ParamSplit::Sharded, false};
    CHECK(optimizer_state_elems(ws, 4096.0 * 1024 / 4, Optimizer::Adafactor) == 1024 + 1024);
    // A row-parallel shard [4096, 1024 / 4] keeps all 4,096 row statistics and its 256 columns'.
    const ParamTensor row{"w", {4096, 1024}, ParamSplit::Sharded, false, false, false, false, true};
    CHECK(optimizer_state_elems(row, 4096.0 * 1024 / 4, Optimizer::Adafactor) == 4096 + 256);
    // A MoE layer's experts [8, 7168, 2048] are factored over their last two dimensions (transformers'
    // `len(shape) >= 2`): 8 x 7168 row and 8 x 2048 column statistics, 4 experts a rank under ep 2.
    const ParamTensor e{"w", {8, 7168, 2048}, ParamSplit::Expert, false};
    CHECK(optimizer_state_elems(e, 8.0 * 7168 * 2048, Optimizer::Adafactor) == 8 * 7168 + 8 * 2048);
    CHECK(optimizer_state_elems(e, 4.0 * 7168 * 2048, Optimizer::Adafactor) == 4 * 7168 + 4 * 2048);
}

double time_part(const Report& r, const std::string& key) {
    for (const auto& [k, v] : r.perf.breakdown)
        if (k == key) return v;
    return -1;
}

// transformers' Adafactor updates one tensor at a time from Python (compute/optimizer_cost.cpp adafactor_loop): 24
// kernels a matrix and 16 a vector (the fp32 parameters and gradients of autocast), each issued by the host.
TEST_CASE("transformers' Adafactor: a Python loop of kernels per tensor, host-bound on a small model") {
    const std::string gpt2 = R"({"framework": "pytorch", "model": {"preset": "gpt2"}, "training": {"seq_len": 1024,
        "micro_batch": 8, "optimizer": ")";
    const std::string tail = R"("}, "hardware": {"preset": "h100-sxm-80gb"}})";
    const Report ada = test::report(gpt2 + "adafactor" + tail), adamw = test::report(gpt2 + "adamw" + tail);
    // GPT-2: wte and wpe, 4 matrices a layer, 8 vectors a layer (2 norms' weight and bias, 4 biases), the final
    // norm's 2: 50 matrices and 98 vectors.
    const KernelTable t = kernel_table(test::scenario(gpt2 + "adafactor" + tail));
    double launches = 0;
    for (const KernelRow& r : t.rows)
        if (r.pass == KernelPass::Optimizer && r.name == std::string("optimizer update")) launches = r.kernel.launches;
    CHECK(launches == 50 * 24 + 98 * 16);
    // The host issues each at the forward's per-launch time (38.5 us): about 107 ms, far over AdamW's one kernel.
    const double step = time_part(ada, "optimizer_step");
    CHECK(step == doctest::Approx(launches * 38.5e-6));
    CHECK(step > 20 * time_part(adamw, "optimizer_step"));
    // Under XLA (T5X's Adafactor, compiled into the step) it stays one memory-bound pass.
    nlohmann::json xla = nlohmann::json::parse(gpt2 + "adafactor" + tail);
    xla["framework"] = "xla";
    xla["hardware"]["preset"] = "tpu-v5p";
    CHECK(time_part(test::report(xla.dump()), "optimizer_step") < 0.05 * step);
}

// DeepSpeed hands the optimizer flat fp32 partitions (ZeRO, and its 16-bit optimizers even without ZeRO) and FSDP's
// sharded flat parameters are 1-D views: Adafactor sees vectors and keeps a whole second moment, where DDP's loop over
// the model's tensors factors each matrix (FrameworkTraits::flat_optimizer_params).
TEST_CASE("Adafactor inside flat partitions keeps a whole second moment, and loops over two parameter groups") {
    const std::string gpt2 = R"({"model": {"preset": "gpt2"}, "implementation": {"model_code": "huggingface"},
        "training": {"seq_len": 1024, "micro_batch": 8, "optimizer": "adafactor"}, "hardware": {"preset": "h100-sxm-80gb"},)";
    const auto states = [&](const std::string& rest) {
        const Report r = test::report(gpt2 + rest);
        return r.stages[0].optimizer / r.stages[0].params;  // bytes per parameter this device keeps
    };
    const double ddp = states(R"("framework": "pytorch"})");
    const double zero2 = states(R"("framework": "deepspeed", "parallel": {"dp": 4, "zero": 2}})");
    const double zero0_bf16 = states(R"("framework": "deepspeed"})");
    const double fsdp = states(R"("framework": "fsdp", "parallel": {"dp": 4, "zero": 3}})");
    // DDP with autocast: the fp32 parameters themselves, factored statistics (a fraction of a byte per parameter).
    CHECK(ddp < 0.1);
    // DeepSpeed ZeRO-2 over 4: the fp32 master partition and a whole fp32 second moment, each a quarter per device.
    CHECK(zero2 == doctest::Approx((4 + 4) / 4.0));
    CHECK(zero0_bf16 == doctest::Approx(4 + 4));
    CHECK(fsdp == doctest::Approx(4 / 4.0));  // FSDP keeps no master copy (fp32 parameters), the moment sharded
    // The loop: two flat fp32 vectors (16 kernels each, no casts), not one loop step per tensor.
    const KernelTable t = kernel_table(test::scenario(gpt2 + R"("framework": "deepspeed", "parallel": {"dp": 4, "zero": 2}})"));
    double launches = 0;
    for (const KernelRow& r : t.rows)
        if (r.pass == KernelPass::Optimizer && r.name == std::string("optimizer update")) launches = r.kernel.launches;
    CHECK(launches == 2 * 16);
}

TEST_CASE("fp32 weights (pytorch AMP, FSDP) have no separate master copy") {
    CHECK(per_param(with("pytorch", "", "{}")) == doctest::Approx(4 + 4 + 8));
    CHECK(per_param(with("fsdp", "", "{\"dp\":8,\"zero\":3}")) == doctest::Approx(16.0 / 8));
    CHECK(test::error_of(with("pytorch", ",\"master_weights\":true", "{}"))["path"] == "/training/master_weights");
}

TEST_CASE("Azure ML's training guide: DeepSpeed's 20 bytes/param = 16 resident + 4 fp32 gradient for the step") {
    const Config c = test::config(with("deepspeed", ",\"dtype\":\"fp16\"", "{}"));
    const StateBytes s = model_state_bytes(ParamTally{1, 2}, c);
    CHECK(s.weights + s.gradients + s.optimizer == doctest::Approx(16));
    CHECK(s.step_transient == doctest::Approx(4));
}

TEST_CASE("a verdict's reason comes as words and byte amounts too: joined with the amounts in GiB, it is the reason") {
    for (const char* text : {R"({"model":{"preset":"llama-3.1-8b"},"parallel":{"tp":8}})",                       // fits
                             R"({"model":{"preset":"llama-3.1-70b"},"training":{"seq_len":4096}})",              // does not fit
                             R"({"model":{"preset":"bert-base"},"training":{"seq_len":512,"micro_batch":64,"dtype":"fp32"},)"
                             R"("hardware":{"preset":"tpu-v3"}})"}) {                                             // XLA's program
        const auto r = nlohmann::json::parse(shardcalc::evaluate_scenario_text(text));
        REQUIRE(r["ok"] == true);
        const auto& v = r["report"]["memory"]["verdict"];
        std::string joined;
        int amounts = 0;
        for (const auto& part : v["reason_parts"]) {
            if (part.is_number()) {
                ++amounts;
                joined += shardcalc::gib_text(part.get<double>());
            } else {
                joined += part.get<std::string>();
            }
        }
        CHECK(amounts >= 1);
        CHECK(joined == v["reason"].get<std::string>());
    }
}
