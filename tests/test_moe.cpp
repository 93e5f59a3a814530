// Mixture-of-experts models and expert parallelism (issue 11): parameter counts, Megatron-LM's theoretical
// weight-and-optimizer memory and its FLOPs formula for MoE, expert sharding and the all-to-all traffic,
// and the plan rules. Sources of the published figures: validation/moe_facts.md.
#include <algorithm>
#include <cmath>

#include "comm/communication.h"
#include "comm/moe_overlap.h"
#include "report/kernel_table.h"
#include "helpers.h"

using namespace shardcalc;

namespace {

double active_of(const char* preset) {
    const nlohmann::json s = {{"framework", "pytorch"}, {"model", {{"preset", preset}}}, {"training", {{"seq_len", 128}}}};
    return test::report(s.dump()).parameters.active;
}

// Megatron's plan for Mixtral 8x7B in the tests below: tp 2 with sequence parallelism, pp 4, ep 4, dp 8 (64 GPUs),
// distributed optimizer; etp defaults to tp.
const char* kMixtralPlan = R"({"framework": "megatron", "model": {"preset": "mixtral-8x7b"},
    "training": {"seq_len": 4096, "micro_batch": 1, "global_batch": 64},
    "parallel": {"dp": 8, "tp": 2, "sp": true, "pp": 4, "ep": 4, "distributed_optimizer": true}})";

const CommEntry* entry(const Report& r, Dim d, const char* purpose) {
    for (const auto& e : r.perf.comm[0].entries)
        if (e.dimension == d && e.purpose == purpose) return &e;
    return nullptr;
}

// A small Llama-style MoE (2 layers, 8 experts of 3,584, top-2) in bf16 under transformers on an H100, its experts run
// by `impl` (implementation.experts).
std::string small_hf_moe(const char* impl, int seq_len, int micro_batch) {
    return std::string(R"({"framework": "pytorch", "model": {"layers": 2, "hidden": 1024, "heads": 16, "kv_heads": 4,
        "ffn_hidden": 3584, "mlp": "swiglu", "vocab": 32000, "max_positions": 4096, "position_embedding": "rope",
        "norm": "rmsnorm", "bias": false, "tied_embeddings": false, "experts": 8, "experts_per_token": 2},
        "training": {"seq_len": )") + std::to_string(seq_len) + R"(, "micro_batch": )" + std::to_string(micro_batch) +
           R"(, "param_dtype": "bf16"}, "implementation": {"experts": ")" + impl + R"("}, "hardware": {"preset": "h100-sxm-80gb"}})";
}

}  // namespace

TEST_CASE("active parameters as the model cards publish them (embeddings included)") {
    CHECK(active_of("mixtral-8x7b") == 12879925248.0);   // "12.9B"
    CHECK(active_of("qwen3-30b-a3b") == 3353032704.0);   // "3.3B activated"
    CHECK(active_of("qwen3-235b-a22b") == 22190763520.0);  // "22B activated"
    CHECK(active_of("llama-4-scout") == 17172894720.0);  // "17B active"
    CHECK(active_of("llama-3.1-8b") == 8030261248.0);    // dense: active = total
}

TEST_CASE("Llama 4 Maverick alternates dense and MoE layers (interleave step 2): 24 of each") {
    const Config c = test::config(R"({"model": {"preset": "llama-4-maverick"}, "training": {"seq_len": 128}})");
    const ModelGraph g = build_graph(c);
    REQUIRE(g.groups.size() == 2);  // one group per kind of layer
    int64_t moe = 0;
    for (const auto& grp : g.groups) moe += grp.moe ? grp.count : 0;
    CHECK(moe == 24);
    CHECK_FALSE(g.groups[static_cast<size_t>(g.layer_group[0])].moe);  // layer 0 dense, layer 1 MoE: (i + 1) % step == 0
    CHECK(g.groups[static_cast<size_t>(g.layer_group[1])].moe);
    const Config d = test::config(R"({"model": {"layers": 8, "hidden": 64, "heads": 4, "vocab": 100, "position_embedding": "rope", "experts": 4,
        "first_dense_layers": 3}, "training": {"seq_len": 16}})");
    const ModelGraph gd = build_graph(d);
    REQUIRE(gd.groups.size() == 2);  // DeepSeek's first_k_dense_replace: 3 dense, then 5 MoE
    CHECK(gd.groups[0].count == 3);
    CHECK_FALSE(gd.groups[0].moe);
    CHECK(gd.groups[1].count == 5);
}

// megatron/training/theoretical_memory_usage.py compute_weight_and_optimizer_memory at NVIDIA/Megatron-LM
// d98e8a6 (expert parallelism since a7c9e8c, #4687), on the most loaded shard, the first pipeline stage:
// tp-sharded (attention, embedding) and replicated (norms, router) parameters at 6 + 12/dp bytes, routed
// experts over etp * ep at 6 + 12/edp with edp = world / (etp * ep * pp).
TEST_CASE("Mixtral weights, gradients and optimizer equal Megatron-LM's theoretical memory with ep") {
    const Report r = test::report(kMixtralPlan);
    const double h = 4096, L = 32, E = 8, ffn = 14336, V = 32000, tp = 2, pp = 4, ep = 4, etp = 2, dp = 8;
    const double edp = 64 / (etp * ep * pp);
    CHECK(r.config.d.expert_replica_degree == 2);
    const double attention = 2 * h * h * ((1 + 8.0 / 32) * (128 * 32 / h));
    const double routed = 2 * h * ffn * E * 1.5;
    const double norms = 2 * h, router = h * E, final_norm = h;
    const double tp_sharded = L * attention / pp / tp + V * h / tp;
    const double replicated = (L * (norms + router) + final_norm) / pp;
    const double expert = L * routed / pp / (etp * ep);
    auto bytes = [](double d) { return 6 + 12 / d; };
    const double megatron = (tp_sharded + replicated) * bytes(dp) + expert * bytes(edp);
    // Megatron spreads the final norm over the stages (the block / pp); it lives on the last stage.
    const double ours_expected = megatron - final_norm / pp * bytes(dp);
    const StageMemory& first = r.stages[0];
    CHECK(first.weights + first.gradients + first.optimizer == doctest::Approx(ours_expected).epsilon(1e-12));
    CHECK(first.expert_params == doctest::Approx(expert).epsilon(1e-12));
}

// megatron/training/training.py num_floating_point_operations (transformer_flops) at d98e8a6: 3 (fwd + bwd)
// x 2 (FMA) per weight per token for the MLP (dense, top-k routed experts, shared experts), attention
// projections and logits, plus the causal core attention; it leaves out the router GEMM, which we count.
TEST_CASE("Mixtral model FLOPs equal Megatron-LM's num_floating_point_operations plus the router") {
    const Report r = test::report(kMixtralPlan);
    const double h = 4096, L = 32, E = 8, k = 2, moe_ffn = 14336, V = 32000, s = 4096, B = 64;
    const double T = B * s, Q = 128 * 32, K = 128 * 8;
    const double megatron = T * (6 * h * (moe_ffn * k * 3 * L) + L * 6 * (h * (Q + K + K) + Q * h) + 6 * h * V) +
                            B * s * s * 6 * Q * L;
    const double router = 6 * T * h * E * L;
    CHECK(r.perf.model_flops == doctest::Approx(megatron + router).epsilon(1e-12));
}

TEST_CASE("expert parallelism: expert weights over ep * etp, tokens all-to-all, expert gradients over edp") {
    const Report r = test::report(kMixtralPlan);
    const Report one = test::report(R"({"framework": "megatron", "model": {"preset": "mixtral-8x7b"},
        "training": {"seq_len": 4096, "micro_batch": 1, "global_batch": 64},
        "parallel": {"dp": 8, "tp": 2, "sp": true, "pp": 4, "ep": 1, "distributed_optimizer": true}})");
    CHECK(one.stages[0].expert_params == doctest::Approx(4 * r.stages[0].expert_params));
    // Dispatch: each rank's 4096 / 2 tokens (sp) copied to 2 experts, 4096 wide in bf16, per MoE layer and microbatch.
    const CommEntry* dispatch = entry(r, Dim::Ep, "tokens to their experts (forward dispatch)");
    REQUIRE(dispatch);
    CHECK(dispatch->kind == CollectiveKind::AllToAll);
    CHECK(dispatch->bytes == doctest::Approx(2048.0 * 2 * 4096 * 2));
    CHECK(dispatch->count == doctest::Approx(8 * 8));  // 8 MoE layers on the stage x 8 microbatches
    CHECK(dispatch->group.size == 4);
    CHECK(entry(r, Dim::Ep, "dispatched tokens over the expert-tensor group (forward)"));  // etp = tp = 2
    const CommEntry* grads = entry(r, Dim::ExpertDp, "expert gradients");
    REQUIRE(grads);
    CHECK(grads->group.size == 2);
    CHECK(grads->kind == CollectiveKind::ReduceScatter);  // the distributed optimizer
    CHECK(grads->bytes == doctest::Approx(r.stages[0].expert_params * 4));  // fp32 gradients in Megatron
    CHECK_FALSE(entry(one, Dim::Ep, "tokens to their experts (forward dispatch)"));
    // The busiest rank under imbalance holds and moves more.
    const Report skewed = test::report(R"({"framework": "megatron", "model": {"preset": "mixtral-8x7b"},
        "training": {"seq_len": 4096, "micro_batch": 1, "global_batch": 64, "expert_imbalance": 1.5},
        "parallel": {"dp": 8, "tp": 2, "sp": true, "pp": 4, "ep": 4, "distributed_optimizer": true}})");
    CHECK(entry(skewed, Dim::Ep, "tokens to their experts (forward dispatch)")->bytes == doctest::Approx(1.5 * dispatch->bytes));
    CHECK(skewed.stages[0].activations > r.stages[0].activations);
    CHECK(skewed.perf.model_flops == doctest::Approx(r.perf.model_flops));  // model FLOPs count the mean top-k
    const Report capped = test::report(R"({"framework": "megatron", "model": {"preset": "mixtral-8x7b"},
        "training": {"seq_len": 4096, "micro_batch": 1, "global_batch": 64, "expert_imbalance": 1.5, "capacity_factor": 1.25},
        "parallel": {"dp": 8, "tp": 2, "sp": true, "pp": 4, "ep": 4, "distributed_optimizer": true}})");
    CHECK(entry(capped, Dim::Ep, "tokens to their experts (forward dispatch)")->bytes == doctest::Approx(1.25 * dispatch->bytes));
}

TEST_CASE("routed activations: the top-k copies of the tokens, hidden wide into the experts and f wide inside") {
    const Config c = test::config(R"({"framework": "megatron", "model": {"preset": "mixtral-8x7b"},
        "training": {"seq_len": 4096}, "parallel": {"dp": 8, "ep": 8}})");
    const double tokens = 4096;
    const SavedTensor routed{"x", SavedKind::Activation, SavedSplit::Routed, 4096, false};
    const SavedTensor inside{"x", SavedKind::Activation, SavedSplit::Expert, 2 * 14336, false};
    CHECK(saved_tensor_bytes(routed, c) == doctest::Approx(tokens * 2 * 4096 * 2));
    CHECK(saved_tensor_bytes(inside, c) == doctest::Approx(tokens * 2 * 2 * 14336 * 2));
}

TEST_CASE("MoE plan rules name the field and what would work") {
    const auto ep3 = test::error_of(R"({"model": {"preset": "mixtral-8x7b"}, "parallel": {"dp": 6, "ep": 3}})");
    CHECK(ep3["path"] == "/parallel/ep");
    CHECK(ep3["message"].get<std::string>().find("model.experts (8") != std::string::npos);
    const auto fsdp = test::error_of(R"({"framework": "fsdp", "model": {"preset": "mixtral-8x7b"}, "parallel": {"dp": 8, "ep": 8}})");
    CHECK(fsdp["path"] == "/parallel/ep");
    const auto dense = test::error_of(R"({"model": {"preset": "llama-3.1-8b"}, "parallel": {"dp": 8, "ep": 8}})");
    CHECK(dense["path"] == "/parallel/ep");
    const auto stray = test::error_of(R"({"model": {"preset": "llama-3.1-8b", "experts_per_token": 2}})");
    CHECK(stray["path"] == "/model/experts_per_token");
    const auto topk = test::error_of(R"({"model": {"preset": "mixtral-8x7b", "experts_per_token": 9}})");
    CHECK(topk["path"] == "/model/experts_per_token");
    const auto fold = test::error_of(R"({"model": {"preset": "mixtral-8x7b"}, "parallel": {"dp": 2, "ep": 8}})");
    CHECK(fold["path"] == "/parallel/ep");  // ep * etp must fit in the 2 non-pipeline ranks
    const auto sp = test::error_of(R"({"framework": "megatron", "model": {"preset": "mixtral-8x7b"}, "parallel": {"tp": 2}})");
    CHECK(sp["path"] == "/parallel/sp");
}

TEST_CASE("DeepSeek-V3: the 671B main model and the MTP module, exact; 37.55B active in the main model") {
    const Report r = test::report(R"({"framework": "pytorch", "model": {"preset": "deepseek-v3"}, "training": {"seq_len": 128}})");
    CHECK(r.parameters.total - r.parameters.mtp == 671026419200.0);  // DeepSeek's "671B" (validation/moe_facts.md 1.3)
    CHECK(r.parameters.mtp == 11610068224.0);                        // "11.5B unique" MTP parameters
    // Active: 3 dense layers, 58 MoE layers with 8 of 256 experts and the shared one, embedding and head.
    const double attention = 187107328, h = 7168, expert = 3 * h * 2048;
    const double dense = attention + 2 * h + 3 * h * 18432;
    const double moe_active = attention + 2 * h + (8 + 1) * expert + 256 * h + 256;
    const double main_active = 3 * dense + 58 * moe_active + 2 * 129280 * h + h;
    const double mtp_active = moe_active + 2 * h + 2 * h * h + h;
    CHECK(r.parameters.active == main_active + mtp_active);
    CHECK(main_active == doctest::Approx(37.55e9).epsilon(1e-3));
}

// Megatron-LM num_floating_point_operations (training.py at d98e8a6) for MLA, MoE and MTP: MLA's projections
// and core attention, 3 dense and 58 + 1 (the MTP layer) MoE layers, the MTP projection and a second logits
// GEMM. It counts the latent norms (q_lora + kv_lora per layer) and the MTP norms (3h) as FLOPs and leaves out
// the routers; we count the routers and time norms by their memory traffic.
TEST_CASE("DeepSeek-V3 model FLOPs equal Megatron-LM's num_floating_point_operations, routers and norms aside") {
    const Report r = test::report(R"({"framework": "megatron", "model": {"preset": "deepseek-v3"},
        "training": {"seq_len": 4096, "global_batch": 1}})");
    const double h = 7168, n = 128, dn = 128, dr = 64, dv = 128, ql = 1536, kl = 512, V = 129280, E = 256, k = 8;
    const double s = 4096, B = 1, T = B * s, mtp = 1, moe_layers = 58 + 1, attn_layers = 61 + 1;
    const double q_term = ql * (h + n * (dn + dr) + 1);
    const double mla_linear = 6 * (q_term + kl * (h + n * (dn + dv) + 1) + h * dr + n * dv * h);
    const double mla_core = 6 * (n * (dn + dr) / 2 + n * dv / 2);
    const double megatron = T * (6 * h * (18432 * 3 * 3 + 2048 * k * 3 * moe_layers + 2048 * 3 * moe_layers) +
                                 mla_linear * attn_layers + 6 * mtp * (3 * h + 2 * h * h) + 6 * h * V * (mtp + 1)) +
                            B * s * s * mla_core * attn_layers;
    const double routers = 6 * T * h * E * moe_layers;
    const double norms = 6 * T * ((ql + kl) * attn_layers + mtp * 3 * h);
    CHECK(r.perf.model_flops == doctest::Approx(megatron + routers - norms).epsilon(1e-12));
}

TEST_CASE("Qwen2-MoE's shared-expert gate: one [1, hidden] weight per MoE layer") {
    const std::string model = R"("layers": 24, "hidden": 2048, "heads": 16, "vocab": 151936, "position_embedding": "rope",
        "norm": "rmsnorm", "mlp": "swiglu", "bias": false, "qkv_bias": true, "tied_embeddings": false, "ffn_hidden": 5632,
        "experts": 60, "experts_per_token": 4, "expert_ffn_hidden": 1408, "shared_experts": 1, "shared_expert_ffn_hidden": 5632)";
    const Report plain = test::report(R"({"framework": "pytorch", "model": {)" + model + R"(}, "training": {"seq_len": 128}})");
    const Report gated = test::report(R"({"framework": "pytorch", "model": {)" + model +
                                      R"(, "shared_expert_gate": true}, "training": {"seq_len": 128}})");
    CHECK(gated.parameters.total - plain.parameters.total == 24 * 2048);
    // Qwen1.5-MoE-A2.7B (these fields) counts 14,315,784,192 on the Hub.
    CHECK(gated.parameters.total == 14315784192.0);
}

TEST_CASE("overlapping the token dispatcher with compute hides it up to the compute of its pass") {
    const std::string plan = R"({"framework": "megatron", "model": {"preset": "mixtral-8x7b"},
        "training": {"seq_len": 4096, "micro_batch": 1, "global_batch": 64},
        "parallel": {"dp": 8, "tp": 2, "sp": true, "pp": 4, "ep": 4, "distributed_optimizer": true)";
    const Report exposed = test::report(plan + "}}");
    const Report hidden = test::report(plan + R"(, "overlap_moe_comm": true}})");
    auto ep_exposed = [](const Report& r) {
        for (const auto& [name, seconds] : r.perf.breakdown)
            if (name == "ep_exposed") return seconds;
        return -1.0;
    };
    CHECK(ep_exposed(exposed) > 0);
    CHECK(ep_exposed(hidden) < ep_exposed(exposed));
    CHECK(hidden.perf.step_seconds < exposed.perf.step_seconds);
    // The same traffic either way.
    double a = 0, b = 0;
    for (const auto& e : exposed.perf.comm[0].entries) a += e.volume();
    for (const auto& e : hidden.perf.comm[0].entries) b += e.volume();
    CHECK(a == doctest::Approx(b));
}

// megatron/core/transformer/moe/token_dispatcher.py: permutation 2 (sort_chunks_by_idxs) and the probabilities'
// own all-to-all in MoEAlltoAllTokenDispatcher, neither in the flex dispatcher.
TEST_CASE("the alltoall dispatcher sorts rows by local expert each way, and sends the probabilities in an exchange of their own") {
    const std::string head = R"({"framework": "megatron", "model": {"preset": "mixtral-8x7b"},
        "training": {"seq_len": 4096, "micro_batch": 1, "global_batch": 64}, "parallel": {"dp": 8, "pp": 4, )";
    auto moe_bytes = [](const std::string& s, const char* op) {
        double bytes = 0;
        for (const KernelRow& r : kernel_table(test::scenario(s)).rows)
            if (r.module.find(op) != std::string::npos && r.module.find("layer") != std::string::npos) bytes += r.kernel.bytes * r.count;
        return bytes;
    };
    // Mixtral's 8 experts over ep 4: two per rank, so the dispatch and the combine each gain a read and a write of
    // the routed rows forward and backward, the same bytes each; over ep 8 one per rank, no sort. The alltoall
    // dispatcher's preprocessing (the tokens per expert, the permutation's row map) is its own: the flex one has none.
    const std::string two = head + R"("ep": 4}})", one = head + R"("ep": 8}})";
    const std::string flex = head + R"("ep": 4, "moe_dispatcher": "flex"}})";
    const double sort = moe_bytes(two, "moe/dispatch") - moe_bytes(one, "moe/dispatch");
    CHECK(sort > 0);
    CHECK(moe_bytes(two, "moe/combine") - moe_bytes(one, "moe/combine") == doctest::Approx(sort));
    CHECK(moe_bytes(one, "moe/dispatch") > moe_bytes(flex, "moe/dispatch"));
    const Report r = test::report(two);
    const CommEntry* probs = entry(r, Dim::Ep, "routing probabilities, fp32 (forward dispatch)");
    const CommEntry* tokens = entry(r, Dim::Ep, "tokens to their experts (forward dispatch)");
    REQUIRE(probs != nullptr);
    REQUIRE(tokens != nullptr);
    CHECK(probs->bytes * 4096 * 2 / 4 == doctest::Approx(tokens->bytes));  // fp32 per row against h = 4096 bf16
    CHECK(entry(test::report(flex), Dim::Ep, "routing probabilities, fp32 (forward dispatch)") == nullptr);
}

// Megatron-Core's alltoall dispatcher waits on the host for the tokens per expert before its exchange
// (token_dispatcher.py token_dispatch): the forward kernels from the sort to the combine are issued after it, so they
// overlap only with their own host work (Kernel::synced_seconds); the flex dispatcher's are not marked so.
TEST_CASE("after the alltoall dispatcher's host wait, the experts' forward kernels wait for the host") {
    const std::string head = R"({"framework": "megatron", "model": {"preset": "mixtral-8x7b"},
        "training": {"seq_len": 4096, "micro_batch": 1, "global_batch": 64}, "parallel": {"dp": 8, "pp": 4, "ep": 4)";
    auto synced = [](const std::string& s, KernelPass pass) {
        double seconds = 0;
        for (const KernelRow& r : kernel_table(test::scenario(s)).rows)
            if (r.pass == pass && r.module.find("moe/") != std::string::npos) seconds += r.kernel.synced_seconds;
        return seconds;
    };
    const std::string alltoall = head + "}}", flex = head + R"(, "moe_dispatcher": "flex"}})";
    double experts = 0;
    for (const KernelRow& r : kernel_table(test::scenario(alltoall)).rows)
        if (r.pass == KernelPass::Forward && r.module.find("moe/experts") != std::string::npos) experts += r.kernel.seconds;
    CHECK(synced(alltoall, KernelPass::Forward) > experts);  // the experts and the sorts around them
    CHECK(synced(alltoall, KernelPass::BackwardData) == 0);  // backward reuses the splits: no wait
    CHECK(synced(flex, KernelPass::Forward) == 0);
}

// Megatron-Core's combined 1F1B layer schedule (comm/moe_overlap.cpp): each slot takes its longer node.
TEST_CASE("the expert-parallel overlap pairs each exchange with one node of the other pass, and lone passes expose theirs") {
    const std::string base = R"({"framework": "megatron", "model": {"preset": "mixtral-8x7b"},
        "training": {"seq_len": 4096, "micro_batch": 1, "global_batch": 32}, "parallel": {"dp": 4, "ep": 4, "pp": )";
    MoeCompute moe;
    moe.layers = 2;
    moe.layer.fwd.seconds = 2 * 5e-3;  // attention node 2 ms, mlp node 3 ms forward
    moe.experts.fwd.seconds = 2 * 3e-3;
    moe.layer.bwd.seconds = 2 * 10e-3;  // attention node 4 ms, mlp node 6 ms backward
    moe.experts.bwd.seconds = 2 * 6e-3;
    const MoeExchanges x{1e-3, 5e-3, 7e-3, 1e-3};  // dispatch fwd, combine fwd, dispatch bwd, combine bwd
    const Config one_stage = test::config(base + R"(1}})");
    const MoeSchedule s = moe_overlap_schedule(moe, x, one_stage, 0);
    // max(2, 1) + max(1, 6) + max(7, 3) + max(5, 4) = 20 ms against 15 ms of compute.
    CHECK(s.pair_exposed == doctest::Approx(5e-3));
    // 8 microbatches without pipelining: the first forward and the last backward have no partner.
    CHECK(s.paired == doctest::Approx(7.0 / 8));
    // 1F1B over 4 stages: the first rank's 3 warmup forwards run alone, the last rank's first one too.
    const Config pipelined = test::config(base + R"(4}})");
    CHECK(moe_overlap_schedule(moe, x, pipelined, 0).paired == doctest::Approx(5.0 / 8));
    CHECK(moe_overlap_schedule(moe, x, pipelined, 3).paired == doctest::Approx(7.0 / 8));
    // Interleaved over 2 chunks: 2 (pp - 1) + (vpp - 1) pp = 10 of 16 chunk passes in warmup on the first rank.
    const Config interleaved = test::config(base + R"(4, "vpp": 2}})");
    CHECK(moe_overlap_schedule(moe, x, interleaved, 0).paired == doctest::Approx(6.0 / 16));
    // Exchanges shorter than the node beside them are hidden whole.
    CHECK(moe_overlap_schedule(moe, {1e-3, 1e-3, 1e-3, 1e-3}, one_stage, 0).pair_exposed == doctest::Approx(0).epsilon(1e-12));
    // The flex dispatcher's DeepEP kernels hold 20 of the H100's 132 SMs while they run: the compute beside an
    // exchange runs on the rest, so a slot takes max(exchange, compute + 20/132 x exchange).
    const Config flex = test::config(base + R"(1, "moe_dispatcher": "flex"}, "hardware": {"preset": "h100-sxm-80gb"}})");
    const double f = 20.0 / 132;
    CHECK(exchange_sm_share(flex) == doctest::Approx(f));
    CHECK(exchange_sm_share(one_stage) == 0);  // NCCL's all-to-all: its SMs not modelled
    const double slots = std::max(1e-3, 2e-3 + f * 1e-3) + std::max(1e-3, 6e-3 + f * 1e-3) + std::max(7e-3, 3e-3 + f * 7e-3) +
                         std::max(5e-3, 4e-3 + f * 5e-3);
    CHECK(moe_overlap_schedule(moe, x, flex, 0).pair_exposed == doctest::Approx(slots - 15e-3));
    // Short exchanges still slow the compute beside them by their SM share.
    CHECK(moe_overlap_schedule(moe, {1e-3, 1e-3, 1e-3, 1e-3}, flex, 0).pair_exposed == doctest::Approx(4 * f * 1e-3));
}

TEST_CASE("with one microbatch the expert-parallel overlap has no partner pass and hides nothing") {
    const std::string plan = R"({"framework": "megatron", "model": {"preset": "mixtral-8x7b"},
        "training": {"seq_len": 4096, "micro_batch": 1, "global_batch": 4},
        "parallel": {"dp": 4, "tp": 2, "sp": true, "ep": 4, "distributed_optimizer": true)";
    const Report exposed = test::report(plan + "}}");
    const Report overlapped = test::report(plan + R"(, "overlap_moe_comm": true}})");
    CHECK(overlapped.perf.step_seconds == doctest::Approx(exposed.perf.step_seconds));
}

// Router z-loss (training.router_z_loss): the fp32 logits [tokens, experts] kept per MoE layer, nothing else.
TEST_CASE("router z-loss keeps each MoE layer's fp32 router logits") {
    const std::string base = R"({"framework":"megatron","model":{"preset":"mixtral-8x7b"},"training":{"seq_len":4096,"micro_batch":1,
        "global_batch":64,"recompute":"none")";
    const std::string plan = R"(},"parallel":{"tp":2,"sp":true,"pp":4,"ep":4,"dp":4},"hardware":{"preset":"h100-sxm-80gb"}})";
    const Report off = test::report(base + plan);
    const Report on = test::report(base + R"(,"router_z_loss":true)" + plan);
    // Per microbatch on stage 0: 8 layers x (4096 tokens / tp 2 under sequence parallelism) x 8 experts x 4 bytes,
    // times the microbatches stage 0 keeps in flight (pp = 4).
    const double per_mb = 8.0 * (4096 / 2) * 8 * 4;
    CHECK(on.stages[0].activations - off.stages[0].activations == doctest::Approx(4 * per_mb).epsilon(1e-9));
    CHECK(on.parameters.total == off.parameters.total);
    CHECK(test::error_of(R"({"model":{"preset":"llama-3.1-8b"},"training":{"router_z_loss":true}})")["path"] == "/training/router_z_loss");
}

// Megatron's allgather dispatcher (parallel.moe_dispatcher): the expert group's tokens gathered on each of its ranks.
TEST_CASE("allgather dispatcher: the ep x etp group's tokens gathered, a global buffer, no all-to-all") {
    const std::string plan = R"({"framework": "megatron", "model": {"preset": "mixtral-8x7b"},
        "training": {"seq_len": 4096, "micro_batch": 1, "global_batch": 64},
        "parallel": {"dp": 8, "tp": 2, "sp": true, "pp": 4, "ep": 4, "distributed_optimizer": true)";
    const Report a2a = test::report(plan + "}}");
    const Report ag = test::report(plan + R"(, "moe_dispatcher": "allgather"}})");
    // Rows gathered: 4096 tokens / tp 2 (the sp shard) x ep 4 x etp 2 = 16384 of hidden 4096 in bf16.
    const double gathered = 16384.0 * 4096 * 2;
    const CommEntry* dispatch = entry(ag, Dim::Ep, "tokens of the expert group gathered (forward dispatch)");
    REQUIRE(dispatch != nullptr);
    CHECK(dispatch->kind == CollectiveKind::AllGather);
    CHECK(dispatch->bytes == doctest::Approx(gathered));
    CHECK(dispatch->group.size == 8);
    CHECK(dispatch->count == 8 * 8);  // 8 MoE layers on stage 0, 64 samples / dp 8 = 8 microbatches
    const CommEntry* probs = entry(ag, Dim::Ep, "routing probabilities gathered, fp32 (forward)");
    REQUIRE(probs != nullptr);
    CHECK(probs->bytes == doctest::Approx(16384.0 * 8 * 4));
    CHECK(entry(ag, Dim::Ep, "tokens to their experts (forward dispatch)") == nullptr);
    CHECK(entry(a2a, Dim::Ep, "tokens of the expert group gathered (forward dispatch)") == nullptr);
    // The gathered hidden states: a buffer of its own on every stage (all hold MoE layers).
    for (size_t s = 0; s < 4; ++s)
        CHECK(ag.stages[s].other.comm_buffers - a2a.stages[s].other.comm_buffers == doctest::Approx(gathered));
    // The same experts run the same rows: parameters and saved activations do not change.
    CHECK(ag.parameters.total == a2a.parameters.total);
    CHECK(ag.stages[0].activations == doctest::Approx(a2a.stages[0].activations));
    // Refused where it means nothing, and with the all-to-all's overlap.
    CHECK(test::error_of(R"({"model": {"preset": "llama-3.1-8b"}, "parallel": {"moe_dispatcher": "allgather"}})")["path"] ==
          "/parallel/moe_dispatcher");
    CHECK(test::error_of(plan + R"(, "moe_dispatcher": "allgather", "overlap_moe_comm": true}})")["path"] == "/parallel/overlap_moe_comm");
    CHECK(test::error_of(plan + R"(, "moe_dispatcher": "all-gather"}})")["path"] == "/parallel/moe_dispatcher");
}

// Megatron's flex dispatcher (DeepEP, HybridEP): a token crosses to another NVLink domain once, and reaches each GPU once.
TEST_CASE("flex dispatcher: one copy per GPU and per NVLink domain; with top-1 inside a domain, the all-to-all itself") {
    const auto plan = [](const std::string& model, const std::string& parallel) {
        return R"({"framework": "megatron", "model": )" + model + R"(, "training": {"seq_len": 4096, "micro_batch": 1,
            "global_batch": 256}, "parallel": {"distributed_optimizer": true, )" + parallel + "}}";
    };
    // Top-1 routing over 8 GPUs of one node: every token has one destination, as in the all-to-all.
    const std::string top1 = R"({"preset": "mixtral-8x7b", "experts_per_token": 1})";
    const Report a2a = test::report(plan(top1, R"("dp": 8, "ep": 8)"));
    const Report flex = test::report(plan(top1, R"("dp": 8, "ep": 8, "moe_dispatcher": "flex")"));
    const CommEntry* plain = entry(a2a, Dim::Ep, "tokens to their experts (forward dispatch)");
    const CommEntry* hier = entry(flex, Dim::Ep, "tokens to their experts' GPUs (forward dispatch)");
    REQUIRE(plain != nullptr);
    REQUIRE(hier != nullptr);
    CHECK(hier->bytes == doctest::Approx(plain->bytes * 7 / 8));  // what leaves the GPU
    CHECK(hier->seconds_each == doctest::Approx(plain->seconds_each));
    // DeepSeek-V3's 256 experts, top-8, over ep 32 on 4 nodes of 8 H100s: a token reaches each other node holding one
    // of its experts once, 3 x (1 - C(192, 8) / C(256, 8)) = 2.71 copies, where the all-to-all sends 8 x 24/32 = 6.
    double none = 1;
    for (int i = 0; i < 8; ++i) none *= (192.0 - i) / (256.0 - i);
    const Report ds = test::report(plan(R"({"preset": "deepseek-v3", "layers": 8, "first_dense_layers": 0, "mtp_layers": 0})",
                                        R"("dp": 32, "ep": 32, "moe_dispatcher": "flex")"));
    const Report ds_a2a = test::report(plan(R"({"preset": "deepseek-v3", "layers": 8, "first_dense_layers": 0, "mtp_layers": 0})",
                                            R"("dp": 32, "ep": 32)"));
    const CommEntry* d = entry(ds, Dim::Ep, "tokens to their experts' GPUs (forward dispatch)");
    const CommEntry* d_a2a = entry(ds_a2a, Dim::Ep, "tokens to their experts (forward dispatch)");
    REQUIRE(d != nullptr);
    REQUIRE(d_a2a != nullptr);
    CHECK(d->algorithm == CollectiveAlgorithm::Hierarchical);
    double gpu_none = 1;
    for (int i = 0; i < 8; ++i) gpu_none *= (248.0 - i) / (256.0 - i);
    // Sent: the other nodes' copies over RDMA, and over NVLink one per other GPU of a node holding one of its experts,
    // in its own node (7) and forwarded in the 3 others.
    const double copies = 3 * (1 - none) + (7 + 3 * 7) * (1 - gpu_none);
    CHECK(d->bytes == doctest::Approx(4096.0 * 7168 * 2 * copies));
    CHECK(d->seconds_each < d_a2a->seconds_each * 0.55);
    // Megatron-Core's, and modelled without expert tensor parallelism.
    CHECK(test::error_of(R"({"framework": "deepspeed", "model": {"preset": "mixtral-8x7b"}, "parallel": {"dp": 8, "ep": 8,
        "moe_dispatcher": "flex"}})")["path"] == "/parallel/moe_dispatcher");
    CHECK(test::error_of(plan(top1, R"("dp": 8, "tp": 2, "ep": 4, "etp": 2, "moe_dispatcher": "flex")"))["path"] ==
          "/parallel/moe_dispatcher");
}

TEST_CASE("layer groups are named by what sets them apart; a model of one kind keeps \"layer\"") {
    auto groups = [](const std::string& scenario) {
        std::vector<std::string> names;
        for (const auto& row : test::report(scenario).modules)
            if (row.depth == 0 && row.repeat > 1) names.push_back(row.name);
        return names;
    };
    CHECK(groups(R"({"model":{"preset":"gpt-oss-20b"},"training":{"seq_len":4096}})") ==
          std::vector<std::string>{"layer (sliding window)", "layer (full attention)"});
    CHECK(groups(R"({"model":{"preset":"deepseek-v3"},"training":{"seq_len":4096},"parallel":{"ep":8,"dp":8}})") ==
          std::vector<std::string>{"layer (dense)", "layer (MoE)"});
    CHECK(groups(R"({"model":{"preset":"llama-3.1-8b"},"training":{"seq_len":4096}})") == std::vector<std::string>{"layer"});
}

// Hugging Face's experts (transformers 5, integrations/moe.py grouped_mm) under autocast with fp32 weights: torch's
// grouped_mm is not autocast-enabled and gets its input cast to the weights' dtype, so the expert GEMMs run in fp32
// on the CUDA cores and the expert path keeps fp32 tensors; with bf16 weights they run in bf16. The eager GLU keeps the activated gate too (3f, as the dense
// Hugging Face MLP). Measured: validation/measured/h100-moe-pytorch.jsonl (CI test measured_moe).
TEST_CASE("Hugging Face experts under autocast with fp32 weights run and keep fp32; with bf16 weights bf16") {
    const std::string model = R"("model": {"layers": 2, "hidden": 1024, "heads": 16, "kv_heads": 4, "ffn_hidden": 3584,
        "mlp": "swiglu", "vocab": 32000, "max_positions": 4096, "position_embedding": "rope", "norm": "rmsnorm",
        "bias": false, "tied_embeddings": false, "experts": 8, "experts_per_token": 2})";
    const auto scenario = [&](const char* param_dtype) {
        return std::string(R"({"framework": "pytorch", )") + model + R"(, "training": {"seq_len": 2048, "micro_batch": 4,
            "param_dtype": ")" + param_dtype + R"("}, "hardware": {"preset": "h100-sxm-80gb"}})";
    };
    const auto expert_gemms = [&](const char* param_dtype) {
        std::vector<KernelRow> rows;
        for (const KernelRow& r : kernel_table(test::scenario(scenario(param_dtype))).rows)
            if (r.module.find("experts/linear_fc") != std::string::npos) rows.push_back(r);
        return rows;
    };
    const auto activations = [&](const char* param_dtype, const char* path) {
        for (const ModuleRow& m : test::report(scenario(param_dtype)).modules)
            if (m.path == path) return m.activation_bytes;
        return -1.0;
    };
    const std::vector<KernelRow> amp = expert_gemms("fp32"), pure = expert_gemms("bf16");
    REQUIRE(amp.size() == 6);  // two GEMMs, three passes each
    REQUIRE(pure.size() == 6);
    for (size_t i = 0; i < amp.size(); ++i) {
        CHECK(amp[i].gemm.precision == GemmPrecision::Fp32);
        CHECK(pure[i].gemm.precision == GemmPrecision::Training);
        // fp32 on the CUDA cores (67 TFLOP/s dense on an H100 SXM) against bf16 tensor cores (989): about 15x slower.
        CHECK(amp[i].kernel.seconds > 8 * pure[i].kernel.seconds);
    }
    // Routed tokens: 8192 tokens x top-2; the eager GLU keeps gate/up (2f) and the activated gate (f).
    const double routed = 8192.0 * 2, f = 3584;
    CHECK(activations("bf16", "layer/moe/experts/glu_activation") == doctest::Approx(routed * 3 * f * 2));
    CHECK(activations("fp32", "layer/moe/experts/glu_activation") == doctest::Approx(routed * 3 * f * 4));
    CHECK(activations("fp32", "layer/moe/experts/linear_fc1") == doctest::Approx(routed * 1024 * 4));
    // Megatron's code (Transformer Engine's grouped GEMM in the training dtype, fused GLU) keeps 2f in bf16.
    nlohmann::json megatron = nlohmann::json::parse(scenario("fp32"));
    megatron["framework"] = "megatron";
    megatron["training"].erase("param_dtype");
    for (const ModuleRow& m : test::report(megatron.dump()).modules)
        if (m.path == "layer/moe/experts/glu_activation") CHECK(m.activation_bytes == doctest::Approx(routed * 2 * f * 2));
    // transformers' sentinel masks: on [S, h] one in place and one out of place (a copy and the fill), on [S, 2f] one
    // out of place, forward; backward three out-of-place fills of the gradients; in the expert path's dtype (fp32
    // here). Megatron's permutation has none.
    const auto mask_rows = [&](const std::string& s) {
        std::vector<KernelRow> rows;
        for (const KernelRow& r : kernel_table(test::scenario(s)).rows)
            if (r.module.find("sentinel_masks") != std::string::npos) rows.push_back(r);
        return rows;
    };
    const std::vector<KernelRow> masks = mask_rows(scenario("fp32"));
    REQUIRE(masks.size() == 4);  // two Works, forward and backward
    double bytes = 0;
    for (const KernelRow& r : masks) bytes += r.kernel.bytes;
    CHECK(bytes == doctest::Approx(4 * routed * ((6 + 8) * 1024 + (4 + 4) * 2 * f)));
    CHECK(mask_rows(megatron.dump()).empty());
}

// A grouped GEMM (torch._grouped_mm's CUTLASS kernel, Transformer Engine's GroupedLinear) runs every local expert's
// problem in one launch: each expert reads its own weight and pads its own rows to the tile, and the tiles of all of
// them share the waves. torch's fallback for other dtypes (fp32 under autocast) loops in C++, one GEMM per expert:
// measured, one GEMM kernel per expert and call (validation/measured/h100-moe-pytorch.jsonl: 8 experts' runs 40 GEMM
// launches a layer more than the bf16 run's 6, 16 experts' 98 more).
TEST_CASE("grouped expert GEMMs: one launch over every local expert, their tiles sharing the waves; fp32 loops per expert") {
    const Config c = test::config(kMixtralPlan);
    // 8 experts over ep 4: 2 groups of 1,024 rows, in one launch; FLOPs, bytes and L2 traffic twice one group's.
    const Kernel one = gemm_kernel(1024, 4096, 7168, c), grouped = gemm_kernel(1024, 4096, 7168, c, GemmPrecision::Training, 2);
    CHECK(grouped.launches == 1);
    CHECK(grouped.flops == doctest::Approx(2 * one.flops));
    CHECK(grouped.bytes == doctest::Approx(2 * one.bytes));
    // Few tiles per group: 8 groups of one 128-row tile by 8 columns of tiles each fill 64 of an H100's 132 SMs in
    // one wave, where 8 launches of 8 tiles each take a wave apiece.
    const Kernel small = gemm_kernel(128, 1024, 1024, c), eight = gemm_kernel(128, 1024, 1024, c, GemmPrecision::Training, 8);
    CHECK(eight.seconds < 0.25 * 8 * small.seconds);
    // The expert rows of the Mixtral plan: 2 local experts, each over its share of the routed tokens; Megatron's
    // Transformer Engine GroupedLinear launches one cuBLAS GEMM per expert (over four streams), timed as one kernel.
    for (const KernelRow& r : kernel_table(test::scenario(kMixtralPlan)).rows) {
        if (r.module.find("experts/linear_fc") == std::string::npos || r.gemm.m <= 0) continue;
        CHECK(r.gemm.groups == 2);
        CHECK(r.kernel.launches == 2);
    }
    // transformers' experts under autocast with fp32 weights: one fp32 GEMM launch per expert, one op call.
    const Scenario hf_scenario = test::scenario(R"({"framework": "pytorch", "model": {"layers": 2, "hidden": 1024, "heads": 16,
        "kv_heads": 4, "ffn_hidden": 3584, "mlp": "swiglu", "vocab": 32000, "max_positions": 4096, "position_embedding": "rope",
        "norm": "rmsnorm", "bias": false, "tied_embeddings": false, "experts": 8, "experts_per_token": 2},
        "training": {"seq_len": 2048, "micro_batch": 4}, "hardware": {"preset": "h100-sxm-80gb"}})");
    int looped = 0;
    for (const KernelRow& r : kernel_table(hf_scenario).rows) {
        if (r.module.find("experts/linear_fc") == std::string::npos || r.gemm.m <= 0) continue;
        ++looped;
        CHECK(r.gemm.groups == 8);
        if (r.pass == KernelPass::Forward) CHECK(r.gemm.m == doctest::Approx(8192.0 * 2 / 8).epsilon(1e-9));
        CHECK(r.kernel.launches == 8);
        CHECK(r.kernel.library_launches == 7);
    }
    CHECK(looped == 6);
}

// transformers' routing, op by op (graph/eager_kernels.cpp): the router's softmax and top-k, the sort of the routed
// copies by expert, the gathers and their index_put backward (each sorting its indices), the return to token order.
// Its launches do not depend on the experts or top-k (measured: the 8-expert top-2 and 16-expert top-4 runs of
// validation/measured/h100-moe-pytorch.jsonl launch the same 472 elementwise, 163 reduction and 235 copy kernels);
// Megatron-Core's router and alltoall dispatcher launch about as many (core_v0.15: graph/mlp.cpp).
TEST_CASE("Hugging Face MoE routing: its kernel launches per layer, the same for any experts and top-k") {
    const auto routing_launches = [](const char* framework, int experts, int top_k, bool fused_router = false) {
        nlohmann::json s = {{"framework", framework},
                            {"model", {{"layers", 2}, {"hidden", 1024}, {"heads", 16}, {"kv_heads", 4}, {"ffn_hidden", 3584},
                                       {"mlp", "swiglu"}, {"vocab", 32000}, {"max_positions", 4096}, {"position_embedding", "rope"},
                                       {"norm", "rmsnorm"}, {"bias", false}, {"tied_embeddings", false}, {"experts", experts},
                                       {"experts_per_token", top_k}}},
                            {"training", {{"seq_len", 2048}, {"micro_batch", 4}, {"param_dtype", "bf16"}}},
                            {"hardware", {{"preset", "h100-sxm-80gb"}}}};
        if (fused_router) s["implementation"] = {{"moe_router_fusion", true}};
        double launches = 0;
        for (const KernelRow& r : kernel_table(test::scenario(s.dump())).rows) {
            const bool routing = r.module.find("moe/router") != std::string::npos || r.module.find("moe/dispatch") != std::string::npos ||
                                 r.module.find("moe/combine") != std::string::npos;
            if (routing && r.gemm.m <= 0) launches += r.kernel.launches * r.count;
        }
        return launches / 2;  // per layer
    };
    const double hf = routing_launches("pytorch", 8, 2);
    CHECK(hf == routing_launches("pytorch", 16, 4));
    // Forward: 6 for the router, 21 for the sort and counts, the gather, the weights' product, the return and the
    // sum; backward: 9 for the router, 19 for three index sorts and a scatter, 1 for the gather, 3 for the product, 2
    // for the return, 1 for the input's gradients summed.
    CHECK(hf == 6 + 21 + 1 + 1 + 2 + 9 + 19 + 1 + 3 + 2 + 1);
    // Megatron-Core: the router's 29 kernels forward and 14 backward; the dispatcher's preprocessing 14 (its host
    // copies included), the permutation 1 each way, the sort by local expert 2 and 1, the input gradients' sum 1; the
    // combine's sort 3 and 1, the unpermutation 1 each way.
    CHECK(routing_launches("megatron", 8, 2) == 29 + 14 + 14 + (1 + 1) + (2 + 1) + 1 + (3 + 1) + (1 + 1));
    // --moe-router-fusion: Transformer Engine's fused router leaves 6 kernels each way.
    CHECK(routing_launches("megatron", 8, 2, true) == 6 + 6 + 14 + (1 + 1) + (2 + 1) + 1 + (3 + 1) + (1 + 1));
    CHECK(test::error_of(R"({"framework": "pytorch", "model": {"preset": "mixtral-8x7b"},
        "implementation": {"moe_router_fusion": true}})")["path"] == "/implementation/moe_router_fusion");
}

// gpt-oss's clamped SwiGLU (model.swiglu_limit) as transformers runs it (GptOssExperts._apply_gate, op by op): the
// gate/up output both clamps read (2f), the clamped gate, the sigmoid, up + 1 and their product (4f) are kept per
// routed row, where the plain eager GLU keeps 3f; seven kernels forward. Megatron fuses it (weighted_bias_quick_geglu):
// nothing changes there.
TEST_CASE("gpt-oss's clamped SwiGLU under transformers keeps 6f per routed row; Megatron's fused kernel 2f") {
    const auto scenario = [](const char* framework, double limit) {
        nlohmann::json s = {{"framework", framework},
                            {"model", {{"preset", "gpt-oss-20b"}, {"layers", 2}, {"swiglu_limit", limit}}},
                            {"training", {{"seq_len", 1024}, {"micro_batch", 1}, {"param_dtype", "bf16"}}},
                            {"hardware", {{"preset", "h100-sxm-80gb"}}}};
        if (std::string(framework) == "megatron") s["training"].erase("param_dtype");
        return s.dump();
    };
    const auto glu_bytes = [](const std::string& s) {
        for (const ModuleRow& m : test::report(s).modules)
            if (m.path.find("experts/glu_activation") != std::string::npos) return m.activation_bytes;
        return -1.0;
    };
    const double routed = 1024.0 * 4, f = 2880, a = 2;  // top-4, bf16
    CHECK(glu_bytes(scenario("pytorch", 7)) == doctest::Approx(routed * 6 * f * a));
    CHECK(glu_bytes(scenario("pytorch", 0)) == doctest::Approx(routed * 3 * f * a));
    CHECK(glu_bytes(scenario("megatron", 7)) == doctest::Approx(glu_bytes(scenario("megatron", 0))));
    int rows = 0;  // one per layer kind (sliding-window and full-attention layers)
    for (const KernelRow& r : kernel_table(test::scenario(scenario("pytorch", 7))).rows)
        if (r.module.find("glu_activation") != std::string::npos && r.pass == KernelPass::Forward) {
            ++rows;
            CHECK(r.kernel.launches == 7);
        }
    CHECK(rows == 2);
    // gpt-oss's experts are biased: transformers gathers each routed row's bias and adds it in place (two kernels
    // beside each grouped GEMM forward, r e w e and r 2e w e per output element); Megatron fuses it into the activation
    // (fc1) or the GEMM (fc2).
    for (const KernelRow& r : kernel_table(test::scenario(scenario("pytorch", 7))).rows)
        if (r.module.find("experts/linear_fc1") != std::string::npos && r.pass == KernelPass::Forward && r.gemm.m <= 0) {
            CHECK(r.kernel.launches == 2);
            CHECK(r.kernel.bytes == doctest::Approx(routed * 2 * f * 5 * a));
        }
    CHECK(test::error_of(R"({"model":{"preset":"llama-3.1-8b","swiglu_limit":7}})")["path"] == "/model/swiglu_limit");
}

// transformers' batched_mm experts (implementation.experts): each routed row gathers its expert's weights
// (self.gate_up_proj[expert_ids], [S, 2f, h]) and torch.bmm keeps them for its backward, one matrix-vector product a
// row: fine for decoding a few tokens, far over any GPU for training batches.
TEST_CASE("transformers' batched_mm experts keep every routed row's copy of its expert's weights") {
    const auto scenario = [](const char* impl) { return small_hf_moe(impl, 128, 1); };
    const auto saved = [](const std::string& s, const char* path) {
        for (const ModuleRow& m : test::report(s).modules)
            if (m.path == path) return m.activation_bytes;
        return -1.0;
    };
    const double routed = 128.0 * 2, f = 3584, h = 1024, a = 2;
    CHECK(saved(scenario("batched_mm"), "layer/moe/experts/linear_fc1") == doctest::Approx(routed * (h + 2 * f * h) * a));
    CHECK(saved(scenario("grouped_mm"), "layer/moe/experts/linear_fc1") == doctest::Approx(routed * h * a));
    // Under autocast with fp32 weights torch.bmm multiplies (and keeps) the 16-bit casts, where grouped_mm stays fp32.
    nlohmann::json amp = nlohmann::json::parse(scenario("batched_mm"));
    amp["training"].erase("param_dtype");
    CHECK(saved(amp.dump(), "layer/moe/experts/linear_fc1") == doctest::Approx(routed * (h + 2 * f * h) * a));
    // One launch of `routed` matrix-vector products per projection and pass.
    for (const KernelRow& r : kernel_table(test::scenario(scenario("batched_mm"))).rows) {
        if (r.module.find("experts/linear_fc") == std::string::npos || r.gemm.m <= 0 || r.pass != KernelPass::Forward) continue;
        CHECK(r.gemm.groups == routed);
        CHECK(r.gemm.m == 1);
        CHECK(r.kernel.launches == 1);
    }
    CHECK(test::report(scenario("batched_mm")).perf.step_seconds > test::report(scenario("grouped_mm")).perf.step_seconds);
    // Megatron's experts are Transformer Engine's; a dense model has none.
    CHECK(test::error_of(R"({"framework": "megatron", "model": {"preset": "mixtral-8x7b"}, "implementation": {"experts": "batched_mm"}})")["path"] ==
          "/implementation/experts");
    CHECK(test::error_of(R"({"framework": "pytorch", "model": {"preset": "llama-3.1-8b"}, "implementation": {"experts": "grouped_mm"}})")["path"] ==
          "/implementation/experts");
}

// transformers' eager experts (implementation.experts eager): a Python loop over the experts, each running its own
// F.linear on a select of the [experts, out, in] parameter. Each select's gradient is the whole parameter's shape
// (select_backward), summed across the loop: (4E - 1) bytes of the parameter's dtype per element of it, per
// microbatch, and a buffer of the whole gate/up gradient beside the next one in the layer's backward.
TEST_CASE("transformers' eager experts: a GEMM launch per expert from Python, whole-parameter gradients per select") {
    const auto scenario = [](const char* impl) { return small_hf_moe(impl, 2048, 4); };
    const double experts = 8, f = 3584, h = 1024, p = 2;
    int gemms = 0;
    double select_bytes = 0;
    for (const KernelRow& r : kernel_table(test::scenario(scenario("eager"))).rows) {
        if (r.module.find("experts/linear_fc") == std::string::npos) continue;
        if (r.gemm.m > 0) {
            ++gemms;
            CHECK(r.kernel.launches == experts);
            CHECK(r.kernel.library_launches == 0);  // each one a Python op
        } else if (r.pass == KernelPass::BackwardWeight) {
            select_bytes += r.kernel.bytes;
        }
    }
    CHECK(gemms == 6);
    CHECK(select_bytes == doctest::Approx((4 * experts - 1) * p * experts * 3 * f * h));
    const Report eager = test::report(scenario("eager")), grouped = test::report(scenario("grouped_mm"));
    CHECK(test::phase(eager.peak(), "layer_backward").other.transient -
              test::phase(grouped.peak(), "layer_backward").other.transient ==
          doctest::Approx(2 * experts * 2 * f * h * p).epsilon(0.01));
    CHECK(eager.perf.step_seconds > 1.3 * grouped.perf.step_seconds);
    // The loop synchronizes the host with the device for every expert: its forward kernels overlap only with their own
    // host work (38.5 us a launch), the rest of the pass with the rest.
    double device = 0, launches = 0, synced = 0, synced_launches = 0;
    for (const KernelRow& r : kernel_table(test::scenario(scenario("eager"))).rows) {
        if (r.pass != KernelPass::Forward) continue;
        device += r.kernel.seconds * r.count;
        launches += (r.kernel.launches - r.kernel.library_launches) * r.count;
        synced += r.kernel.synced_seconds * r.count;
        synced_launches += r.kernel.synced_launches * r.count;
    }
    CHECK(synced_launches > 0);
    const double host = 38.5e-6;
    const double expected = std::max(device - synced, (launches - synced_launches) * host) + std::max(synced, synced_launches * host);
    double forward = 0;
    for (const auto& [key, seconds] : eager.perf.breakdown)
        if (key == "forward_compute" || key == "forward_host_wait") forward += seconds;
    CHECK(forward == doctest::Approx(expected));
    CHECK(forward > std::max(device, launches * host));
}

// Megatron-Core's MoELayer hands the router and the shared experts the same tensor (the pre-MLP norm's output), and
// autograd saves a tensor once: the shared experts' first GEMM adds nothing to keep, unless it keeps a copy of its own
// (an fp8 recipe's quantized input, or autocast's cast for each linear).
TEST_CASE("shared experts read the router's input: saved once, or as the fp8 copy an fp8 recipe keeps") {
    const auto shared_input = [](const std::string& training, const char* framework = "megatron",
                                 const std::string& first = "dense_h_to_4h") {
        const Report r = test::report(std::string(R"({"framework":")") + framework + R"(","model":{"arch":"decoder",
            "layers":1,"hidden":256,"heads":4,"vocab":1024,"max_positions":128,"experts":8,"experts_per_token":2,
            "expert_ffn_hidden":512,"ffn_hidden":1024,"mlp":"swiglu","shared_experts":1,"shared_expert_ffn_hidden":512},
            "training":{"seq_len":128,"micro_batch":1,"global_batch":1)" + training + "}}");
        for (const ModuleRow& m : r.modules)
            if (m.path == "layer/moe/shared_experts/" + first) return m.activation_bytes;
        return -1.0;
    };
    CHECK(shared_input("") == 0);                                      // bf16: the router's tensor
    CHECK(shared_input(R"(,"fp8":"current")") == 128.0 * 256 * 1);    // fp8: its own quantized copy
    // Hugging Face under autocast (fp32 weights): each linear casts the fp32 input to bf16 and keeps its own cast.
    CHECK(shared_input(R"(,"param_dtype":"fp32")", "pytorch", "gate_proj") == 128.0 * 256 * 2);
    CHECK(shared_input(R"(,"param_dtype":"bf16")", "pytorch", "gate_proj") == 0);
}

TEST_CASE("capacity_factor below 1 drops tokens: model FLOPs count only the expert copies kept, MFU stays under HFU") {
    // Issue 30's reproducer: capacity_factor 0.001 printed an MFU of 167% (every token's expert FLOPs counted while
    // almost all were dropped). An expert keeps at most capacity_factor x its average load (GShard sec. 2.2).
    auto run = [](const char* cf) {
        return test::report(std::string(R"({"framework":"megatron","model":{"preset":"mixtral-8x7b"},
            "training":{"seq_len":4096)") + (cf ? std::string(R"(,"capacity_factor":)") + cf : "") +
                            R"(},"parallel":{"dp":8,"ep":8}})");
    };
    const Report none = run(nullptr), full = run("1.25"), half = run("0.5"), tiny = run("0.001");
    CHECK(full.perf.model_flops == doctest::Approx(none.perf.model_flops));  // nothing dropped at the average load
    CHECK(half.perf.model_flops < none.perf.model_flops);
    CHECK(tiny.perf.model_flops < half.perf.model_flops);
    for (const Report* r : {&none, &full, &half, &tiny}) {
        CHECK(r->metrics.mfu <= r->metrics.hfu * (1 + 1e-12));
        CHECK(r->metrics.mfu < 1);
    }
}
