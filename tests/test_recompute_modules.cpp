// Per-module recompute (training.recompute_modules, Megatron-Core's --recompute-modules; docs/memory.md
// "Per-module recompute"): what each module drops, what runs again, the collectives repeated, the errors.
#include <string>

#include "helpers.h"
#include "io/api.h"

namespace {

using nlohmann::json;

// A small MoE decoder (every layer MoE) and a small dense one, one device, flash attention (core_attn drops nothing).
std::string moe(const std::string& training, const std::string& parallel = R"({"dp":1})") {
    return R"({"framework":"megatron","model":{"arch":"decoder","layers":2,"hidden":256,"heads":4,"vocab":1024,
        "max_positions":128,"experts":8,"experts_per_token":2,"expert_ffn_hidden":512,"ffn_hidden":1024,"mlp":"gelu"},
        "training":)" + training + R"(,"parallel":)" + parallel + "}";
}
std::string dense(const std::string& training, const std::string& parallel = R"({"dp":1})") {
    return R"({"framework":"megatron","model":{"arch":"decoder","layers":2,"hidden":256,"heads":4,"vocab":1024,
        "max_positions":128,"ffn_hidden":1024,"mlp":"gelu"},"training":)" + training + R"(,"parallel":)" + parallel + "}";
}
std::string training(const std::string& modules) {
    return R"({"seq_len":128,"micro_batch":1,"global_batch":2,"recompute":"selective","recompute_modules":)" + modules + "}";
}
const std::string kNone = R"({"seq_len":128,"micro_batch":1,"global_batch":2,"recompute":"none"})";  // 2 microbatches on dp 1

json report(const std::string& scenario) {
    const json r = json::parse(shardcalc::evaluate_scenario_text(scenario));
    REQUIRE_MESSAGE(r["ok"] == true, r.dump());
    return r["report"];
}
double activations(const json& r) { return r["memory"]["stages"][0]["activations"].get<double>(); }
double module_bytes(const json& r, const std::string& path) {
    for (const auto& m : r["modules"])
        if (m["path"] == path) return m["activation_bytes"].get<double>();
    FAIL("no module " << path);
    return 0;
}
double count_of(const json& r, const std::string& dimension, const std::string& purpose) {
    for (const auto& c : r["communication"])
        if (c["dimension"] == dimension && c["purpose"] == purpose) return c["count_per_iteration"].get<double>();
    FAIL("no " << dimension << " collective " << purpose);
    return 0;
}
constexpr double kTokenRow = 128.0 * 256 * 2;  // one sequence, hidden wide, bf16

}  // namespace

TEST_CASE("recompute_modules: core_attn is selective recompute as it was, and the default") {
    const std::string eager = R"({"seq_len":128,"micro_batch":1,"global_batch":2,"recompute":"selective","attention":"eager",
        "dropout":0.1)";
    const json plain = report(dense(eager + "}"));
    const json named = report(dense(eager + R"(,"recompute_modules":["core_attn"]})"));
    CHECK(activations(named) == activations(plain));
    CHECK(named["time"]["step_seconds"] == plain["time"]["step_seconds"]);
    CHECK(plain["time"]["breakdown"]["recompute"].get<double>() > 0);  // the eager scores run again
}

TEST_CASE("recompute_modules: moe_act drops the experts' activation output and runs the activation again") {
    const json none = report(moe(kNone));
    const json act = report(moe(training(R"(["moe_act"])")));
    // fc2's saved input: the routed rows (128 tokens x top-2) at the expert width 512, bf16, in each of 2 layers.
    CHECK(activations(none) - activations(act) == doctest::Approx(2 * (128.0 * 2) * 512 * 2));
    const double recompute = act["time"]["breakdown"]["recompute"].get<double>();
    CHECK(recompute > 0);
    CHECK(recompute < act["time"]["breakdown"]["forward_compute"].get<double>() / 4);  // an activation, not a layer
}

TEST_CASE("recompute_modules: moe keeps only the router's input, runs the layer again and repeats its all-to-alls") {
    const json none = report(moe(kNone, R"({"dp":2,"ep":2})"));
    const json whole = report(moe(training(R"(["moe"])"), R"({"dp":2,"ep":2})"));
    CHECK(module_bytes(whole, "layer/moe") == kTokenRow);
    CHECK(module_bytes(none, "layer/moe") > 4 * kTokenRow);
    const std::string dispatch = "tokens to their experts (forward dispatch)";
    CHECK(count_of(whole, "ep", dispatch) == 2 * count_of(none, "ep", dispatch));
    CHECK(count_of(whole, "ep", "output gradients to the experts (backward)") ==
          count_of(none, "ep", "output gradients to the experts (backward)"));
    CHECK(whole["time"]["breakdown"]["ep_exposed"].get<double>() > none["time"]["breakdown"]["ep_exposed"].get<double>());
}

TEST_CASE("recompute_modules: layernorm drops the router's input before a MoE layer; fused norms are left alone") {
    const json none = report(moe(kNone));
    const json norm = report(moe(training(R"(["layernorm"])")));
    const double probabilities = 128.0 * 8 * 4;  // the router's fp32 routing probabilities, kept
    CHECK(module_bytes(none, "layer/moe/router") == kTokenRow + probabilities);
    CHECK(module_bytes(norm, "layer/moe/router") == probabilities);
    CHECK(module_bytes(norm, "layer/post_attention_layernorm") == kTokenRow);  // the norm keeps its input
    CHECK(norm["time"]["breakdown"]["recompute"].get<double>() > 0);
    // A dense GPT's norms are fused into the next linear by Transformer Engine: nothing changes, and a note says so.
    const json dense_none = report(dense(kNone));
    const json dense_norm = report(dense(training(R"(["layernorm"])")));
    CHECK(activations(dense_norm) == activations(dense_none));
    bool noted = false;
    for (const auto& n : dense_norm["notes"]) noted = noted || n.get<std::string>().find("layernorm recomputes") != std::string::npos;
    CHECK(noted);
}

TEST_CASE("recompute_modules: mlp checkpoints a dense MLP and repeats its tensor-parallel collective") {
    const json none = report(dense(kNone, R"({"tp":2})"));
    const json mlp = report(dense(training(R"(["mlp"])"), R"({"tp":2})"));
    CHECK(module_bytes(none, "layer/mlp") > 0);
    CHECK(module_bytes(mlp, "layer/mlp") == 0);
    CHECK(module_bytes(mlp, "layer/post_attention_layernorm") == module_bytes(none, "layer/post_attention_layernorm"));
    // Two forward all-reduces in each of 2 layers and 2 microbatches, and the MLP's again in backward.
    const std::string forward = "attention and MLP outputs (forward)";
    CHECK(count_of(none, "tp", forward) == 8);
    CHECK(count_of(mlp, "tp", forward) == 12);
}

TEST_CASE("recompute_modules: mla_up_proj drops latent attention's q, k and v and runs the up projections again") {
    // Multi-head latent attention (DeepSeek-V3's shape, scaled down): 4 heads of 32 + 16 (rope) for q and k, 32 for v.
    const auto mla = [](const std::string& t) {
        return R"({"framework":"megatron","model":{"arch":"decoder","layers":2,"hidden":256,"heads":4,"vocab":1024,
            "max_positions":128,"ffn_hidden":1024,"mlp":"swiglu","head_dim":32,"q_lora_rank":64,"kv_lora_rank":32,
            "qk_rope_head_dim":16,"v_head_dim":32},"training":)" + t + R"(,"parallel":{"dp":1}})";
    };
    const json none = report(mla(kNone));
    const json up = report(mla(training(R"(["mla_up_proj"])")));
    // q and k at 4 x 48, v at 4 x 32 per token, bf16, 128 tokens, 2 layers.
    CHECK(activations(none) - activations(up) == doctest::Approx(2 * 128.0 * (2 * 4 * 48 + 4 * 32) * 2));
    CHECK(up["time"]["breakdown"]["recompute"].get<double>() > 0);
    // A model without latent attention: accepted, nothing recomputed, a note says so.
    const json plain = report(dense(training(R"(["mla_up_proj"])")));
    CHECK(plain["time"]["breakdown"]["recompute"].get<double>() == 0);
    CHECK(plain["notes"].dump().find("mla_up_proj") != std::string::npos);
}

TEST_CASE("recompute_modules: errors name the field and what is allowed") {
    const auto message = [](const std::string& scenario, const std::string& path) {
        const json e = test::error_of(scenario);
        CHECK(e["path"] == path);
        return e["message"].get<std::string>();
    };
    CHECK(message(dense(R"({"recompute":"full","recompute_modules":["mlp"]})"), "/training/recompute_modules") ==
          "needs training.recompute selective (Megatron's --recompute-granularity selective)");
    std::string deepspeed = dense(training(R"(["mlp"])"));
    deepspeed.replace(deepspeed.find("megatron"), 8, "deepspeed");
    CHECK(message(deepspeed, "/training/recompute_modules").find("Megatron-Core's (framework megatron)") != std::string::npos);
    CHECK(message(dense(training(R"(["mlp","attn"])")), "/training/recompute_modules/1") ==
          "must be one of core_attn|layernorm|mlp|moe_act|moe|shared_experts|mla_up_proj");
    CHECK(message(dense(training(R"(["mlp","mlp"])")), "/training/recompute_modules/1") == "\"mlp\" is listed twice");
    CHECK(message(dense(training("[]")), "/training/recompute_modules").find("at least one module") != std::string::npos);
    CHECK(message(dense(training(R"("mlp")")), "/training/recompute_modules").find("must be a list of names") != std::string::npos);
}

TEST_CASE("recompute_modules: the echo and the Megatron-LM launch line carry the modules") {
    const std::string s = moe(training(R"(["moe_act","layernorm"])"));
    const json r = report(s);
    CHECK(r["scenario"]["training"]["recompute_modules"] == json::array({"layernorm", "moe_act"}));
    CHECK(report(r["scenario"].dump())["memory"]["stages"][0]["activations"] == r["memory"]["stages"][0]["activations"]);
    const json launch = json::parse(shardcalc::launch_scenario_text(s, "megatron-lm"));
    bool found = false;
    for (const auto& cmd : launch["launch"])
        for (const auto& line : cmd["lines"])
            found = found || line == "--recompute-granularity selective --recompute-modules layernorm moe_act";
    CHECK(found);
}
