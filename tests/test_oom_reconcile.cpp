// PyTorch's out-of-memory error in a run's log: the reader on each wording as real runs published it
// (tests/data/logs/README.md), why each request failed, and what the rank needed against the estimate of its stage.
#include <doctest/doctest.h>

#include "core/units.h"
#include "helpers.h"
#include "io/api.h"
#include "io/contract/reconcile_io.h"
#include "io/import/run_log.h"
#include "memory/allocator.h"
#include "report/reconcile.h"

using namespace shardcalc;

namespace {


// The one rank of `run`, which ran out of memory (a copy: `run` is often a temporary).
MeasuredMemory only_rank(const MeasuredRun& run) {
    REQUIRE(run.memory.size() == 1);
    REQUIRE(run.memory[0].has_oom);
    return run.memory[0];
}

nlohmann::json reconciled(const std::string& scenario, const std::string& log) {
    const nlohmann::json j = nlohmann::json::parse(reconcile_text(scenario, log));
    REQUIRE(j["ok"] == true);
    return j["reconciliation"];
}

bool has_finding(const nlohmann::json& r, const std::string& part) {
    for (const auto& f : r["findings"])
        if (f.get<std::string>().find(part) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("PyTorch's out-of-memory error: each of its three wordings, the rank from torchrun's prefix or the GPU") {
    // PyTorch 1.5 to 2.0 (stanford_alpaca #223): reserved in total, the cache being the reserved less the allocated.
    const MeasuredRun older = read_run_log(test::repo_file("tests/data/logs/pytorch-oom-alpaca-issue223.log"));
    CHECK(older.source == "PyTorch (out-of-memory error)");
    const MeasuredMemory a = only_rank(older);
    CHECK(a.rank == 3);  // "(GPU 3; ..."
    CHECK_FALSE(a.allocator);  // known by its error alone: no peaks
    CHECK(a.ooms == 1);
    CHECK(a.oom.request == doctest::Approx(388.0 * kMiB));
    CHECK(a.oom.capacity == doctest::Approx(31.75 * kGiB));
    CHECK(a.oom.allocated == doctest::Approx(28.42 * kGiB));
    CHECK(a.oom.free == doctest::Approx(340.94 * kMiB));
    CHECK(a.oom.cached == doctest::Approx((30.39 - 28.42) * kGiB));
    CHECK(a.oom.allowed == -1);
    CHECK(a.oom.process_used == -1);
    // Earlier releases (GenerativeGraph #5): "cached" is the cache itself; sizes in KiB.
    const MeasuredMemory g = only_rank(read_run_log(test::repo_file("tests/data/logs/pytorch-oom-generativegraph-issue5.log")));
    CHECK(g.oom.request == doctest::Approx(1024.0 * 1024));
    CHECK(g.oom.free == doctest::Approx(576.0 * 1024));
    CHECK(g.oom.cached == doctest::Approx(30.96 * kMiB));
    // "0 bytes free" (easydiffusion #104).
    CHECK(only_rank(read_run_log(test::repo_file("tests/data/logs/pytorch-oom-easydiffusion-issue104.log"))).oom.free == 0);
    // PyTorch 2.1 and later (TRL #3436): this process's device memory, PyTorch's and not.
    const MeasuredMemory t = only_rank(read_run_log(test::repo_file("tests/data/logs/pytorch-oom-trl-issue3436.log")));
    CHECK(t.rank == 0);
    CHECK(t.oom.request == doctest::Approx(388.0 * kMiB));
    CHECK(t.oom.capacity == doctest::Approx(9.68 * kGiB));
    CHECK(t.oom.free == doctest::Approx(95.75 * kMiB));
    CHECK(t.oom.process_used == doctest::Approx(9.54 * kGiB));
    CHECK(t.oom.allocated == doctest::Approx(6.61 * kGiB));
    CHECK(t.oom.cached == doctest::Approx(2.57 * kGiB));
    CHECK(t.oom.named_processes == 0);
    // torchrun's "[rank2]:" prefix (llama-cookbook #949); the traceback's other ranks print no memory.
    const MeasuredMemory c = only_rank(read_run_log(test::repo_file("tests/data/logs/pytorch-oom-llama-cookbook-issue949.log")));
    CHECK(c.rank == 2);
    CHECK(c.oom.request == doctest::Approx(3.91 * kGiB));
    // A process named by its PID (vLLM #16712, in a container).
    const MeasuredMemory v = only_rank(read_run_log(test::repo_file("tests/data/logs/vllm-oom-issue16712.log")));
    CHECK(v.rank == 1);
    CHECK(v.oom.named_processes == 1);
    CHECK(v.oom.other_processes == doctest::Approx(91.82 * kGiB));
    CHECK(v.oom.process_used == -1);
    // A limit set with torch.cuda.set_per_process_memory_fraction, and the error beside a memory line of the same rank:
    // the peaks stay the memory line's, the error completes them.
    const MeasuredRun both = read_run_log(
        "[Rank 0] (after 1 iterations) memory (MB) | allocated: 100 | max allocated: 200 | reserved: 300 | max reserved: 400\n"
        "CUDA out of memory. Tried to allocate 8.00 GiB. GPU 0 has a total capacity of 47.37 GiB of which 46.57 GiB is free. "
        "Including non-PyTorch memory, this process has 772.00 MiB memory in use. 800.55 MiB allowed; Of the allocated "
        "memory 245.48 MiB is allocated by PyTorch, and 16.52 MiB is reserved by PyTorch but unallocated.\n");
    CHECK(both.source == "Megatron-LM");
    const MeasuredMemory b = only_rank(both);
    CHECK(b.allocator);
    CHECK(b.max_allocated == doctest::Approx(200 * kMiB));
    CHECK(b.oom.allowed == doctest::Approx(800.55 * kMiB));
    // A message missing a figure its wording always has is an error naming the line, not a silent zero.
    try {
        read_run_log("x\n[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total "
                     "capacity of 79.15 GiB of which 1.00 GiB is free. Of the allocated memory\n");
        FAIL("a cut message was read");
    } catch (const InputError& e) {
        CHECK(e.path() == "/log");
        CHECK(std::string(e.what()).find("line 2:") != std::string::npos);
    }
    CHECK_THROWS_AS(read_run_log("CUDA out of memory. Tried to allocate lots (GPU 0; 1 GiB total capacity)"), InputError);
}

TEST_CASE("an out-of-memory error's cause: past the limit, at the device's edge, fragmentation or a shortage") {
    const std::string scenario = R"({"model":{"preset":"gpt2"},"hardware":{"preset":"a100-sxm-80gb"},"parallel":{"dp":4}})";
    const auto cause = [&](const std::string& log) {
        const auto r = reconciled(scenario, log);
        REQUIRE(r["ranks"].size() == 1);
        return r["ranks"][0]["out_of_memory"];
    };
    // 388 MiB asked with 1.97 GiB cached and 0.33 GiB free: neither alone held it (stanford_alpaca #223).
    const auto frag = cause(test::repo_file("tests/data/logs/pytorch-oom-alpaca-issue223.log"));
    CHECK(frag["cause"] == "fragmentation");
    CHECK(frag["shortfall"] == 0);
    // 64 MiB asked with 0 bytes free and 61 MiB cached: short by 3 MiB whatever the allocator does (easydiffusion #104).
    const auto short_of = cause(test::repo_file("tests/data/logs/pytorch-oom-easydiffusion-issue104.log"));
    CHECK(short_of["cause"] == "shortage");
    CHECK(short_of["shortfall"].get<double>() == doctest::Approx(64 * kMiB - (3.41 - 3.35) * kGiB));
    // 774 MiB asked with 791.50 MiB free (stanford_alpaca #189).
    CHECK(cause(test::repo_file("tests/data/logs/pytorch-oom-alpaca-issue189.log"))["cause"] == "device_edge");
    // 8 GiB asked of an 800.55 MiB allowance: the allocator refused before asking the device.
    const auto limit = cause("CUDA out of memory. Tried to allocate 8.00 GiB. GPU 0 has a total capacity of 47.37 GiB of "
                             "which 46.57 GiB is free. 800.55 MiB allowed; Of the allocated memory 245.48 MiB is allocated "
                             "by PyTorch, and 16.52 MiB is reserved by PyTorch but unallocated.");
    CHECK(limit["cause"] == "limit");
    CHECK(limit["shortfall"].get<double>() == doctest::Approx((8 * 1024 + 245.48 + 16.52 - 800.55) * kMiB));
    // Each rule is decided by its own figures: without the limit the same request fits the free memory.
    CHECK(cause("CUDA out of memory. Tried to allocate 8.00 GiB. GPU 0 has a total capacity of 47.37 GiB of which 46.57 GiB "
                "is free. Of the allocated memory 245.48 MiB is allocated by PyTorch, and 16.52 MiB is reserved by PyTorch "
                "but unallocated.")["cause"] == "device_edge");
}

TEST_CASE("reconcile an out-of-memory error: what the rank needed against its stage's estimate, and the calibration") {
    // stanford_alpaca #223: LLaMA-7B (Llama-2-7B's shape) fine-tuned with FSDP full_shard on 5 V100-32GB, fp16,
    // micro-batch 1 of 512 tokens (its README's command, train.py's model_max_length).
    const std::string alpaca = R"({"framework":"fsdp","model":{"preset":"llama-2-7b"},"hardware":{"preset":"v100-sxm-32gb"},
        "training":{"seq_len":512,"micro_batch":1,"global_batch":40,"dtype":"fp16"},"parallel":{"dp":5,"zero":3}})";
    const auto r = reconciled(alpaca, test::repo_file("tests/data/logs/pytorch-oom-alpaca-issue223.log"));
    const auto& o = r["ranks"][0]["out_of_memory"];
    CHECK(r["ranks"][0]["rank"] == 3);
    CHECK_FALSE(r["ranks"][0].contains("peak_allocated"));  // no peaks in an error
    CHECK(o["needed"]["log"].get<double>() == doctest::Approx(28.42 * kGiB + 388 * kMiB));
    CHECK(o["needed"]["gap"].get<double>() ==
          doctest::Approx(o["needed"]["estimate"].get<double>() - o["needed"]["log"].get<double>()));
    // The request that failed is FSDP's gathered layer: one LLaMA layer's 202,383,360 fp16 parameters (386.02 MiB),
    // which the allocator asks for as a 388 MiB segment; the estimate's largest request is that layer.
    CHECK(o["estimated_largest_request"].get<double>() == doctest::Approx(202383360.0 * 2));
    CHECK(allocation_size(o["estimated_largest_request"].get<double>()) == 388 * kMiB);
    CHECK(has_finding(r, "is the estimate's largest single request for its stage (386.02 MiB, 388.00 MiB as the allocator rounds it)"));
    // Where the run needed more than the estimate's peak of a plan the estimate passes, the finding says the estimate
    // is short; where it needed less, that the failure lies outside the estimate's peak.
    const bool short_of = o["needed"]["gap"].get<double>() < 0;
    CHECK(has_finding(r, "the estimate is short for this run") == short_of);
    CHECK(has_finding(r, "the run failed on what the estimate's peak leaves out") == !short_of);
    // The device's capacity as CUDA reports it, a scenario field to keep; the message names no process, so nothing
    // tells the memory outside the allocator.
    CHECK(r["calibration"]["hardware.memory_gib"] == doctest::Approx(31.75));
    CHECK_FALSE(r["calibration"].contains("hardware.overhead_gib"));
    // stanford_alpaca #189: the same model on one A100 80GB, which the estimate calls "does_not_fit" too.
    const std::string one = R"({"framework":"fsdp","model":{"preset":"llama-2-7b"},"hardware":{"preset":"a100-sxm-80gb"},
        "training":{"seq_len":512,"micro_batch":1,"global_batch":8,"dtype":"bf16"},"parallel":{"zero":3}})";
    CHECK(has_finding(reconciled(one, test::repo_file("tests/data/logs/pytorch-oom-alpaca-issue189.log")),
                      "which calls the plan \"does_not_fit\" too"));
    // This process's device memory beyond PyTorch's reserve is the memory outside the allocator (TRL #3436).
    const auto trl = reconciled(alpaca, test::repo_file("tests/data/logs/pytorch-oom-trl-issue3436.log"));
    CHECK(trl["calibration"]["hardware.overhead_gib"].get<double>() == doctest::Approx(9.54 - 6.61 - 2.57));
    CHECK(has_finding(trl, "where the scenario's hardware has 32.00 GiB: is the scenario the run's device?"));
    CHECK(has_finding(trl, "rank 0 needed at least 6.99 GiB (allocated + request) when it failed, within the estimate's"));
    // Inside a container NVML's PID is the host's: the one process named, holding more than PyTorch's reserve, is
    // this one (vLLM #16712), not another process sharing the device.
    const auto vllm = reconciled(R"({"model":{"preset":"gpt2"},"hardware":{"preset":"h100-sxm-80gb"},"parallel":{"dp":2}})",
                                 test::repo_file("tests/data/logs/vllm-oom-issue16712.log"));
    const auto& v = vllm["ranks"][0]["out_of_memory"];
    CHECK(v["process_used"].get<double>() == doctest::Approx(91.82 * kGiB));
    CHECK(v["other_processes"] == 0);
    CHECK(vllm["calibration"]["hardware.overhead_gib"].get<double>() == doctest::Approx(91.82 - 90.63 - 120.54 / 1024));
    CHECK_FALSE(has_finding(vllm, "other processes held"));
    // Two processes besides this one on its device: a shared device, said as such.
    const auto shared = reconciled(R"({"model":{"preset":"gpt2"}})",
        "CUDA out of memory. Tried to allocate 30.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 193.56 MiB is "
        "free. Process 2733578 has 3.97 GiB memory in use. Process 2733829 has 3.43 GiB memory in use. Including "
        "non-PyTorch memory, this process has 12.85 GiB memory in use. Of the allocated memory 12.01 GiB is allocated by "
        "PyTorch, and 100.00 MiB is reserved by PyTorch but unallocated.");
    CHECK(has_finding(shared, "other processes held 7.40 GiB of rank 0's device (the error names 2 by PID)"));
    // The text format: a table of the errors, the calibration lines.
    TextRequest table{"reconcile", "table"};
    table.log = test::repo_file("tests/data/logs/pytorch-oom-alpaca-issue223.log");
    const std::string text = nlohmann::json::parse(text_answer(alpaca, table))["text"].get<std::string>();
    CHECK(text.find("out of memory: rank") != std::string::npos);
    CHECK(text.find("hardware.memory_gib = 31.75") != std::string::npos);
}

TEST_CASE("the caching allocator's segment for one request (get_allocation_size)") {
    CHECK(allocation_size(512) == 2 * kMiB);
    CHECK(allocation_size(kMiB) == 2 * kMiB);
    CHECK(allocation_size(kMiB + 1) == 20 * kMiB);
    CHECK(allocation_size(10 * kMiB - 1) == 20 * kMiB);
    CHECK(allocation_size(10 * kMiB) == 10 * kMiB);
    CHECK(allocation_size(11 * kMiB + 1) == 12 * kMiB);
}
