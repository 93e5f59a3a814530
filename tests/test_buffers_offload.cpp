// The lines peers leave out: communication buffers, cast copies, transients, overhead, and
// what offloading moves to the host.
#include "helpers.h"
#include "search/launch.h"

using namespace shardcalc;

namespace {

std::string scenario(const char* framework, const std::string& parallel, const std::string& training = "",
                     const char* hardware = "a100-sxm-80gb") {
    return std::string("{\"framework\":\"") + framework +
           R"(","model":{"preset":"llama-2-7b"},"training":{"seq_len":4096)" + training + "},\"parallel\":" + parallel +
           R"(,"hardware":{"preset":")" + hardware + "\"}}";
}

}  // namespace

TEST_CASE("PyTorch DDP: reducer buckets copy every gradient; autocast keeps 16-bit copies of the matmul weights") {
    const Report r = test::report(scenario("pytorch", "{\"dp\":8}"));
    const StageMemory& m = r.peak();
    CHECK(m.other.comm_buffers == doctest::Approx(m.params * 4));
    // Embedding rows and norm vectors are not cast: 6,738,415,616 - 32000*4096 - 4096*65 matmul weights.
    const MemoryLines& fwd = test::phase(m, "forward_end");
    CHECK(fwd.other.cast_weights == doctest::Approx((6738415616.0 - 32000.0 * 4096 - 4096.0 * 65) * 2));
    CHECK(test::phase(m, "optimizer_step").other.cast_weights == 0);  // the cache dies with the autocast region
    // single GPU: no reducer
    CHECK(test::report(scenario("pytorch", "{\"dp\":1}")).peak().other.comm_buffers == 0);
}

TEST_CASE("DeepSpeed ZeRO-3: reduce bucket plus gathered layer and prefetch bucket") {
    const Report r = test::report(scenario("deepspeed", "{\"dp\":8,\"zero\":3}"));
    const StageMemory& m = r.peak();
    const double layer = 202383360;  // LLaMA-2-7B layer parameters
    CHECK(m.other.comm_buffers == doctest::Approx(5e8 * 2 + (layer + 5e7) * 2));
}

TEST_CASE("DeepSpeed ZeRO-1/2: reduce_bucket_size elements each backward, two with overlap_comm, whatever trains") {
    // stage_1_and_2.py backward(): ipg_buffer of reduce_bucket_size 16-bit elements, a second with overlap_comm; on one
    // GPU and for an adapter's few trained parameters alike. The default bucket is DeepSpeed's 5e8 elements.
    const Report one = test::report(scenario("deepspeed", R"({"dp":1,"zero":2})"));
    CHECK(one.peak().other.comm_buffers == doctest::Approx(5e8 * 2));
    const Report two = test::report(scenario("deepspeed", R"({"dp":1,"zero":2,"overlap_grad_reduce":true,"reduce_bucket_size":200000000})"));
    CHECK(two.peak().other.comm_buffers == doctest::Approx(2 * 2e8 * 2));
    CHECK(two.peak().allocated() - one.peak().allocated() == doctest::Approx(0.8e9 - 1e9));
    const Report lora = test::report(R"({"framework":"deepspeed","model":{"preset":"llama-2-7b"},"training":{"seq_len":512},
        "parallel":{"dp":1,"zero":1,"reduce_bucket_size":1000000},"adapter":{"method":"lora","rank":8,"dtype":"bf16"}})");
    CHECK(lora.parameters.trained < 1e7);
    CHECK(lora.peak().other.comm_buffers == doctest::Approx(1e6 * 2));  // in the 16-bit gradients' dtype
    // One bucket with pipeline parallelism (reduce_gradients(pipeline_parallel=True)); ZeRO-0's all-reduce flattens at
    // most the trained gradients, and only across replicas.
    CHECK(test::report(scenario("deepspeed", R"({"dp":2,"pp":2,"zero":1,"overlap_grad_reduce":true})")).peak().other.comm_buffers ==
          doctest::Approx(5e8 * 2));
    CHECK(test::report(scenario("deepspeed", R"({"dp":1,"zero":0})")).peak().other.comm_buffers == 0);
    // A bucket is one request the allocator must serve whole.
    CHECK(test::report(scenario("deepspeed", R"({"dp":1,"zero":2,"reduce_bucket_size":20000000000})")).peak().largest_request ==
          doctest::Approx(4e10));
}

TEST_CASE("reduce_bucket_size is DeepSpeed's: refused for another framework, kept off the others' searched plans") {
    CHECK(test::error_of(scenario("megatron", R"({"dp":8,"reduce_bucket_size":1000})"))["path"] == "/parallel/reduce_bucket_size");
}

TEST_CASE("FSDP FULL_SHARD: two gathered units and one unsharded unit gradient in bf16") {
    const Report r = test::report(scenario("fsdp", "{\"dp\":8,\"zero\":3}"));
    CHECK(r.peak().other.comm_buffers == doctest::Approx(3 * 202383360.0 * 2));
}

TEST_CASE("Megatron: gradients reduce in place, no extra buffers") {
    const Report r = test::report(scenario("megatron", "{\"dp\":8,\"distributed_optimizer\":true}"));
    CHECK(r.peak().other.comm_buffers == 0);
    CHECK(r.peak().other.cast_weights == 0);
}

TEST_CASE("overhead is the hardware preset's, overridable, 0 allowed") {
    const std::string base = R"({"model":{"preset":"gpt2"},"training":{"seq_len":1024},"hardware":{"preset":"a100-sxm-80gb")";
    CHECK(test::report(base + "}}").peak().other.overhead == doctest::Approx(1.0 * test::GiB));
    CHECK(test::report(base + ",\"overhead_gib\":0}}").peak().other.overhead == 0);
    CHECK(test::report(base + ",\"overhead_gib\":2.5}}").peak().other.overhead == doctest::Approx(2.5 * test::GiB));
}

TEST_CASE("ZeRO-Offload moves optimizer states to the host with an fp32 gradient copy") {
    const Report on = test::report(scenario("deepspeed", "{\"dp\":8,\"zero\":2,\"offload_optimizer\":\"cpu\"}"));
    const Report off = test::report(scenario("deepspeed", "{\"dp\":8,\"zero\":2}"));
    CHECK(on.peak().optimizer == 0);
    CHECK(on.peak().gradients == 0);  // partitioned gradients are copied to the host as they are reduced
    CHECK(on.peak().host_cpu == doctest::Approx(off.peak().optimizer + 4 * off.peak().params / 8));
    CHECK(on.peak().total() < off.peak().total());
}

TEST_CASE("ZeRO-Infinity: parameters and optimizer to NVMe") {
    const Report r = test::report(scenario("deepspeed", "{\"dp\":8,\"zero\":3,\"offload_optimizer\":\"nvme\",\"offload_params\":\"nvme\"}"));
    CHECK(r.peak().weights == 0);
    CHECK(r.peak().host_nvme > 0);
    CHECK(r.peak().host_cpu == doctest::Approx(4 * r.peak().params / 8));  // fp32 grads for the CPU step
}

TEST_CASE("transient: full recompute rematerialises one layer during backward") {
    const Report none = test::report(scenario("megatron", "{\"tp\":2}", ",\"recompute\":\"none\""));
    const Report full = test::report(scenario("megatron", "{\"tp\":2}", ",\"recompute\":\"full\""));
    // 32 layer inputs plus the final norm's and output layer's inputs, 2sbh each (tp 2, no sp: replicated)
    CHECK(full.peak().activations == doctest::Approx(34 * 4096.0 * 4096 * 2));
    CHECK(none.peak().activations > 9 * full.peak().activations);
    CHECK(full.peak().other.transient > none.peak().other.transient);
}

TEST_CASE("transient: the optimizer step's temporaries when they exceed the freed activations") {
    // DeepSpeed ZeRO-0 on one GPU materialises a 4-byte fp32 gradient per parameter for the step.
    const Report r = test::report(R"({"framework":"deepspeed","model":{"preset":"llama-2-7b"},
      "training":{"seq_len":128},"hardware":{"preset":"a100-sxm-80gb"}})");
    const StageMemory& m = r.peak();
    CHECK(m.other.transient == doctest::Approx(4 * m.params - m.activations - m.other.logits));
}

TEST_CASE("a plan that does not fit says so and by how much") {
    const Report r = test::report(scenario("pytorch", "{\"dp\":1}"));
    CHECK_FALSE(r.fits());
    const auto j = nlohmann::json::parse(shardcalc::evaluate_scenario_text(scenario("pytorch", "{\"dp\":1}")));
    CHECK(j["report"]["memory"]["fits"] == false);
    CHECK(j["report"]["memory"]["headroom"].get<int64_t>() < 0);
}

namespace {

// The message of the first ZeRO-3 all-gather of the critical stage (one layer's gathered parameters).
double zero3_gather_bytes(const Report& r) {
    for (const auto& e : r.perf.comm[r.perf.comm_stage].entries)
        if (e.dimension == Dim::Zero3 && e.kind == CollectiveKind::AllGather) return e.bytes;
    return 0;
}

double breakdown_part(const Report& r, const std::string& key) {
    for (const auto& [k, v] : r.perf.breakdown)
        if (k == key) return v;
    return -1;
}

}  // namespace

TEST_CASE("Megatron-FSDP: ZeRO-3 partitions with Megatron's dtypes, FSDP's unit buffers, fp8 parameters gathered as fp8") {
    const double layer = 202383360;  // LLaMA-2-7B layer parameters
    const Report r = test::report(scenario("megatron", R"({"dp":8,"zero":3,"distributed_optimizer":true})"));
    const StageMemory& m = r.peak();
    CHECK(m.weights == doctest::Approx(m.params / 8 * 2));
    CHECK(m.gradients == doctest::Approx(m.params / 8 * 4));  // fp32 main grads, partitioned
    CHECK(m.other.comm_buffers == doctest::Approx(3 * layer * 2));
    CHECK(zero3_gather_bytes(r) == doctest::Approx(m.params / 32 * 2));  // the stage's parameters per layer
    // FP8 primary weights (--fp8-param-gather): partitioned too, and the units gathered in fp8.
    const Report h = test::report(scenario("megatron", R"({"dp":8,"zero":3,"distributed_optimizer":true})", "",
                                           "h100-sxm-80gb"));
    const Report f = test::report(scenario("megatron", R"({"dp":8,"zero":3,"distributed_optimizer":true})",
                                           R"(,"fp8":"current","param_dtype":"fp8")", "h100-sxm-80gb"));
    CHECK(f.peak().weights < h.peak().weights * 0.6);
    CHECK(f.peak().other.comm_buffers == doctest::Approx((2 * 1 + 2) * layer));
    CHECK(zero3_gather_bytes(f) == doctest::Approx(m.params / 32 * 1));
    // Its launch flags, and its rules: the distributed optimizer with it, stage 1 is that optimizer itself.
    std::string lines;
    for (const auto& cmd : launch_commands(r.config))
        for (const auto& l : cmd.lines) lines += l + "\n";
    CHECK(lines.find("--use-megatron-fsdp\n--data-parallel-sharding-strategy optim_grads_params\n") != std::string::npos);
    CHECK(test::error_of(scenario("megatron", R"({"dp":8,"zero":3})"))["path"] == "/parallel/distributed_optimizer");
    CHECK(test::error_of(scenario("megatron", R"({"dp":8,"zero":1,"distributed_optimizer":true})"))["path"] == "/parallel/zero");
}

TEST_CASE("activation offload: the first N layers' saved tensors on the host, one in flight, copies timed over the host link") {
    const std::string plan = R"({"dp":8,"distributed_optimizer":true})";
    const Report base = test::report(scenario("megatron", plan));
    const Report off = test::report(scenario("megatron", plan, R"(,"activation_offload_layers":31)"));
    const StageMemory& m = off.peak();
    CHECK(m.offloaded_layers == 31);
    CHECK(m.host_cpu == doctest::Approx(m.offloaded_activations));
    CHECK(m.offloaded_activations > 0.95 * base.peak().activations * 31 / 32);
    // The device keeps the last layer and one offloaded layer in flight.
    CHECK(base.peak().activations - m.activations == doctest::Approx(m.offloaded_activations * 30 / 31));
    // On an A100's PCIe Gen4 (32 GB/s) a 4096-token layer's copy outlasts the one layer of forward it runs beside; on
    // a link 100x faster nothing shows, nor with 8 layers offloaded, each copy beside 4 layers. The step's parts still
    // sum to the step.
    const double exposed = breakdown_part(off, "activation_offload");
    CHECK(exposed > 0);
    double sum = 0;
    for (const auto& [k, v] : off.perf.breakdown) sum += v;
    CHECK(sum == doctest::Approx(off.perf.step_seconds));
    CHECK(off.perf.step_seconds == doctest::Approx(base.perf.step_seconds + exposed));
    const Report fast = test::report(std::string(R"({"framework":"megatron","model":{"preset":"llama-2-7b"},)") +
                                     R"("training":{"seq_len":4096,"activation_offload_layers":31},"parallel":)" + plan +
                                     R"(,"hardware":{"preset":"a100-sxm-80gb","host_link_gbps":3200}})");
    CHECK(breakdown_part(fast, "activation_offload") == 0);
    CHECK(breakdown_part(base, "activation_offload") == 0);
    bool flag = false;
    for (const auto& cmd : launch_commands(off.config))
        for (const auto& l : cmd.lines) flag = flag || l == "--cpu-offloading --cpu-offloading-num-layers 31";
    CHECK(flag);
    CHECK(breakdown_part(test::report(scenario("megatron", plan, R"(,"activation_offload_layers":8)")), "activation_offload") == 0);
    // Megatron-Core's rules for --cpu-offloading.
    const auto path = [&](const char* framework, const std::string& parallel, const std::string& training) {
        return test::error_of(scenario(framework, parallel, training))["path"];
    };
    const std::string eight = R"(,"activation_offload_layers":8)";
    CHECK(path("deepspeed", R"({"dp":8})", eight) == "/training/activation_offload_layers");
    CHECK(path("megatron", R"({"dp":4,"pp":2})", eight) == "/training/activation_offload_layers");
    CHECK(path("megatron", plan, eight + R"(,"recompute":"full")") == "/training/activation_offload_layers");
    CHECK(path("megatron", plan, R"(,"activation_offload_layers":32)") == "/training/activation_offload_layers");
}
