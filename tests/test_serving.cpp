// Serving (`shardcalc serve`, docs/serving.md): the KV cache per token as vLLM's cache spec sizes it, the memory of one
// GPU and the requests it holds, the decode and prefill steps on the roofline, and the errors.
#include <cmath>
#include <cstdio>
#include <string>

#include "helpers.h"
#include "io/api.h"

namespace {

using nlohmann::json;

json serve(const std::string& model, const std::string& parallel, const std::string& serving,
           const std::string& hardware = "h100-sxm-80gb") {
    const std::string text = R"({"model":)" + model + R"(,"hardware":{"preset":")" + hardware + R"("},"parallel":)" + parallel +
                             R"(,"serving":)" + serving + "}";
    const json r = json::parse(shardcalc::serve_scenario_text(text));
    REQUIRE_MESSAGE(r["ok"] == true, r.dump());
    return r["serving"];
}
json serve_error(const std::string& text) {
    const json r = json::parse(shardcalc::serve_scenario_text(text));
    REQUIRE(r["ok"] == false);
    return r["error"];
}
double kv_per_token(const json& s) { return s["memory"]["kv_bytes_per_token"].get<double>(); }

const std::string k8b = R"({"preset":"llama-3.1-8b"})", k70b = R"({"preset":"llama-3.1-70b"})";
const std::string kTp1 = R"({"tp":1})", kRequest = R"({"prompt_tokens":1024,"output_tokens":256,"concurrency":64})";

}  // namespace

TEST_CASE("serving: the KV cache per token is vLLM's: K and V of the rank's key/value heads, or MLA's latent, per layer") {
    // Llama 3.1 8B: 32 layers x 2 x 8 heads x 128 x 2 bytes.
    CHECK(kv_per_token(serve(k8b, kTp1, kRequest)) == 32 * 2 * 8 * 128 * 2);
    CHECK(kv_per_token(serve(k8b, kTp1, R"({"kv_cache_dtype":"fp8"})")) == 32 * 2 * 8 * 128 * 1);
    // 70B over tp 4: 2 of its 8 key/value heads per rank; over tp 16 each rank keeps one (replicated: max(1, 8 // 16)).
    CHECK(kv_per_token(serve(k70b, R"({"tp":4})", kRequest)) == 80 * 2 * 2 * 128 * 2);
    CHECK(kv_per_token(serve(k70b, R"({"tp":16})", kRequest, "gb200-nvl72")) == 80 * 2 * 1 * 128 * 2);
    // DeepSeek-V3: one latent of 512 + 64 per layer, on every rank whatever tp.
    const std::string ds = R"({"preset":"deepseek-v3"})";
    CHECK(kv_per_token(serve(ds, R"({"tp":8})", kRequest, "b200-sxm-180gb")) == 61 * (512 + 64) * 2);
    // gpt-oss-120b: its 18 sliding-window layers keep 128 tokens of a request, the 18 others all of it (in 16-token
    // blocks): 8 key/value heads of 64 per rank at tp 1.
    const json oss = serve(R"({"preset":"gpt-oss-120b"})", kTp1, R"({"prompt_tokens":1000,"output_tokens":24})", "b200-sxm-180gb");
    const double layer = 2 * 8 * 64 * 2;
    CHECK(oss["memory"]["kv_bytes_per_request"].get<double>() == 18 * layer * 1024 + 18 * layer * 128);
}

TEST_CASE("serving: a GPU's memory, what is left for the KV cache, and how many requests it holds") {
    const json s = serve(k8b, kTp1, kRequest);
    const json& m = s["memory"];
    const double left = m["budget_bytes"].get<double>() - m["weights_bytes"].get<double>() -
                        m["activation_peak_bytes"].get<double>() - m["non_torch_bytes"].get<double>();
    CHECK(m["kv_available_bytes"].get<double>() == doctest::Approx(left).epsilon(1e-9));
    CHECK(m["budget_bytes"].get<double>() == doctest::Approx(0.9 * m["capacity_bytes"].get<double>()).epsilon(1e-9));
    // Llama 3.1 8B's weights in bf16 (vLLM logs about 15 GiB).
    CHECK(m["weights_bytes"].get<double>() / 1073741824.0 == doctest::Approx(14.96).epsilon(0.01));
    // 1,280 tokens a request: 80 blocks of 16 tokens of 128 KiB.
    CHECK(m["kv_bytes_per_request"].get<double>() == 80 * 16 * 131072.0);
    const int64_t most = m["max_concurrency"].get<int64_t>();
    CHECK(most == static_cast<int64_t>(std::floor(m["kv_available_bytes"].get<double>() / (80 * 16 * 131072.0))));
    CHECK(m["fits"] == true);
    CHECK(m["max_model_len"].get<int64_t>() == 131072);  // the KV cache would hold more; the model's positions stop it
    // More requests than the cache holds do not fit; a lower utilization leaves less; int4 weights leave more.
    CHECK(serve(k8b, kTp1, R"({"concurrency":)" + std::to_string(most + 1) + "}")["memory"]["fits"] == false);
    CHECK(serve(k8b, kTp1, R"({"gpu_memory_utilization":0.5})")["memory"]["max_concurrency"].get<int64_t>() < most);
    const json q = serve(k8b, kTp1, R"({"weights":"int4"})");
    CHECK(q["memory"]["weights_bytes"].get<double>() < 0.45 * m["weights_bytes"].get<double>());
    CHECK(q["memory"]["max_concurrency"].get<int64_t>() > most);
    // The CUDA graphs' pool vLLM 0.21 and later reserve in the budget comes out of the KV cache, byte for byte.
    const json graphs = serve(k8b, kTp1, R"({"cuda_graph_gib":1.5})");
    CHECK(graphs["memory"]["cuda_graphs_bytes"].get<double>() == 1.5 * 1073741824.0);
    CHECK(m["kv_available_bytes"].get<double>() - graphs["memory"]["kv_available_bytes"].get<double>() == doctest::Approx(1.5 * 1073741824.0));
    CHECK(m["cuda_graphs_bytes"].get<double>() == 0);
    // A vLLM setting: transformers' generate has none.
    const json refused = json::parse(shardcalc::serve_scenario_text(R"({"framework":"pytorch","model":{"preset":"llama-3.1-8b"},
        "serving":{"engine":"transformers","cuda_graph_gib":1}})"));
    CHECK(refused["ok"] == false);
    CHECK(refused["error"]["path"] == "/serving/cuda_graph_gib");
}

TEST_CASE("serving: decode reads the weights and the KV cache; one request is bandwidth-bound, a batch amortises it") {
    const json one = serve(k8b, kTp1, R"({"concurrency":1})");
    const json many = serve(k8b, kTp1, R"({"concurrency":64})");
    const json& t1 = one["time"];
    CHECK(t1["decode_bound"] == "memory");
    // One token at a time: the weights and a context's cache over the HBM (3.35 TB/s at the preset's efficiency).
    CHECK(t1["tpot_seconds"].get<double>() == doctest::Approx(t1["decode_bytes"].get<double>() / (3350e9 * 0.8)).epsilon(0.15));
    CHECK(many["time"]["tpot_seconds"].get<double>() > t1["tpot_seconds"].get<double>());
    CHECK(many["time"]["tokens_per_second"].get<double>() > 20 * t1["tokens_per_second"].get<double>());
    // A longer prompt takes longer to its first token; tensor parallelism adds its all-reduces to every decode step.
    CHECK(serve(k8b, kTp1, R"({"prompt_tokens":8192})")["time"]["ttft_seconds"].get<double>() >
          4 * serve(k8b, kTp1, R"({"prompt_tokens":1024})")["time"]["ttft_seconds"].get<double>());
    const json tp = serve(k70b, R"({"tp":4})", kRequest);
    CHECK(tp["time"]["decode_tp_seconds"].get<double>() > 0);
    CHECK(tp["time"]["tokens_per_second_per_gpu"].get<double>() ==
          doctest::Approx(tp["time"]["tokens_per_second"].get<double>() / 4));
}

TEST_CASE("serving: errors name the field and what is allowed") {
    const auto path = [](const std::string& text) { return serve_error(text)["path"].get<std::string>(); };
    CHECK(path(R"({"model":{"preset":"bert-base"},"serving":{}})") == "/model/arch");
    CHECK(path(R"({"model":{"preset":"llama-3.1-8b"},"parallel":{"cp":2},"serving":{}})") == "/parallel/cp");
    CHECK(path(R"({"model":{"preset":"llama-3.1-8b"},"parallel":{"pp":33},"serving":{}})") == "/parallel/pp");
    CHECK(path(R"({"model":{"preset":"llama-3.1-8b"},"parallel":{"tp":3},"serving":{}})") == "/parallel/tp");
    CHECK(path(R"({"model":{"preset":"gpt2"},"serving":{"prompt_tokens":1000,"output_tokens":100}})") == "/serving/output_tokens");
    CHECK(path(R"({"model":{"preset":"llama-3.1-8b"},"serving":{"concurency":4}})") == "/serving/concurency");
    CHECK(path(R"({"model":{"preset":"llama-3.1-8b"},"serving":{"weights":"int3"}})") == "/serving/weights");
    CHECK(path(R"({"model":{"preset":"llama-3.1-8b"},"serving":{"gpu_memory_utilization":1.5}})") == "/serving/gpu_memory_utilization");
    CHECK(path(R"({"model":{"preset":"llama-3.1-8b"},"hardware":{"preset":"a100-sxm-80gb"},"serving":{"weights":"fp8"}})") ==
          "/serving/weights");
}

// Against vLLM's own start-up logs in public issues (docs/serving.md "Checked against"): Llama 3.1 8B Instruct
// (vllm-project/vllm#10517: "Loading model weights took 14.9888 GB", profile peaks of 17.06 and 17.98 GiB with
// max_model_len 20,000 and 29,000, so 2.07 and 2.99 GiB of activations) and Qwen3-235B-A22B-FP8 on 4 H100s
// (vllm-project/vllm#21348: "Available KV cache memory: 8.11 GiB", "GPU KV cache size: 178,880 tokens").
TEST_CASE("serving: weights, the profile's activations and the KV cache per token against vLLM's logs") {
    const auto peak = [](int tokens) {
        return serve(k8b, kTp1, R"({"max_num_batched_tokens":)" + std::to_string(tokens) + "}")["memory"];
    };
    const json m20 = peak(20000), m29 = peak(29000);
    CHECK(m20["weights_bytes"].get<double>() / 1073741824.0 == doctest::Approx(14.9888).epsilon(0.005));
    CHECK(m20["activation_peak_bytes"].get<double>() / 1073741824.0 == doctest::Approx(2.07).epsilon(0.10));
    CHECK(m29["activation_peak_bytes"].get<double>() / 1073741824.0 == doctest::Approx(2.99).epsilon(0.10));
    // 8.11 GiB held 178,880 tokens: 48,681 bytes a token as logged; 94 layers x 2 x 1 head x 128 x 2 = 48,128.
    const json q = serve(R"({"preset":"qwen3-235b-a22b"})", R"({"tp":4})", R"({"weights":"fp8"})");
    CHECK(kv_per_token(q) == doctest::Approx(8.11 * 1073741824.0 / 178880).epsilon(0.02));
}

TEST_CASE("serving: vLLM's and SGLang's flags for the replica sized") {
    const json s = serve(k70b, R"({"tp":4,"dp":2})",
                         R"({"prompt_tokens":3000,"output_tokens":1000,"concurrency":32,"kv_cache_dtype":"fp8","weights":"fp8",
                             "gpu_memory_utilization":0.85})");
    const auto lines = [&](size_t i) {
        std::string all;
        for (const auto& l : s["launch"][i]["lines"]) all += l.get<std::string>() + "\n";
        return all;
    };
    const std::string vllm = lines(0), sglang = lines(1);
    for (const char* flag : {"--tensor-parallel-size 4\n", "--data-parallel-size 2\n", "--max-model-len 4000\n",
                             "--gpu-memory-utilization 0.85\n", "--max-num-seqs 32\n", "--kv-cache-dtype fp8\n", "--quantization fp8\n"})
        CHECK_MESSAGE(vllm.find(flag) != std::string::npos, flag);
    for (const char* flag : {"--tp-size 4\n", "--dp-size 2\n", "--context-length 4000\n", "--mem-fraction-static 0.85\n",
                             "--max-running-requests 32\n", "--kv-cache-dtype fp8_e4m3\n"})
        CHECK_MESSAGE(sglang.find(flag) != std::string::npos, flag);
    // TensorRT-LLM sizes its KV cache as a share of the memory the weights and buffers leave: the share that gives
    // the KV cache sized here.
    const std::string trtllm = lines(2);
    for (const char* flag : {"trtllm-serve ", "--tp_size 4\n", "--max_batch_size 32\n", "--max_seq_len 4000\n", "--max_num_tokens 8192\n"})
        CHECK_MESSAGE(trtllm.find(flag) != std::string::npos, flag);
    const json& m = s["memory"];
    const double free = m["capacity_bytes"].get<double>() - m["weights_bytes"].get<double>() - m["activation_peak_bytes"].get<double>() -
                        m["non_torch_bytes"].get<double>();
    const double share = std::floor(m["kv_available_bytes"].get<double>() / free * 100) / 100;
    char expected[64];
    std::snprintf(expected, sizeof expected, "--kv_cache_free_gpu_memory_fraction %.2f\n", share);
    CHECK_MESSAGE(trtllm.find(expected) != std::string::npos, trtllm);
}

TEST_CASE("serving search: each plan at the largest concurrency that fits and meets the targets, best per GPU first") {
    const std::string text = R"({"model":{"preset":"llama-3.1-70b"},"hardware":{"preset":"h100-sxm-80gb","price_per_gpu_hour":2.5},
        "serving":{"prompt_tokens":2000,"output_tokens":500,"search":{"weights":["model","fp8"],"tpot_ms":50,"ttft_ms":1000,"top":100}}})";
    const json r = json::parse(shardcalc::serve_scenario_text(text));
    REQUIRE(r["ok"] == true);
    const json& s = r["serving"];
    // tp 1, 2, 4, 8 (the H100's NVLink domain) x 2 weight formats; 70B in bf16 does not fit one H100.
    CHECK(s["counts"]["tried"] == 8);
    CHECK(s["counts"]["does_not_fit"].get<int64_t>() >= 1);
    double last = 1e30;
    for (const auto& p : s["plans"]) {
        const double per_gpu = p["time"]["tokens_per_second_per_gpu"].get<double>();
        CHECK(per_gpu <= last);
        last = per_gpu;
        CHECK(p["time"]["tpot_seconds"].get<double>() <= 0.050);
        CHECK(p["time"]["ttft_seconds"].get<double>() <= 1.0);
        CHECK(p["memory"]["fits"] == true);
        CHECK(p["cost_per_million_tokens"].get<double>() == doctest::Approx(2.5 / 3600 / per_gpu * 1e6));
        // One request more would not fit or would miss the target.
        const int64_t tp = p["replica"]["tp"].get<int64_t>(), b = p["request"]["concurrency"].get<int64_t>();
        const json more = serve(k70b, R"({"tp":)" + std::to_string(tp) + "}",
                                R"({"prompt_tokens":2000,"output_tokens":500,"weights":")" + p["serving"]["weights"].get<std::string>() +
                                    R"(","concurrency":)" + std::to_string(b + 1) + "}");
        CHECK((more["memory"]["fits"] == false || more["time"]["tpot_seconds"].get<double>() > 0.050));
    }
    CHECK(s["plans"].size() >= 4);
    // Its own errors name their path.
    CHECK(serve_error(R"({"model":{"preset":"llama-3.1-8b"},"serving":{"search":{"weights":["int5"]}}})")["path"] ==
          "/serving/search/weights/0");
}

// A published vLLM benchmark (docs/serving.md): Llama 3.1 8B Instruct, bf16, one A100 40GB, 1,024 prompt and 128 output
// tokens one request at a time, about 75 output tokens/s (13.3 ms a token; johnmusgrave.com, vLLM 0.23.0).
TEST_CASE("serving: one request's time per output token against a published vLLM run") {
    const json s = serve(k8b, kTp1, R"({"prompt_tokens":1024,"output_tokens":128,"concurrency":1})", "a100-sxm-40gb");
    CHECK(s["time"]["tpot_seconds"].get<double>() == doctest::Approx(1 / 75.0).epsilon(0.10));
}

TEST_CASE("serving: the latency-throughput curve, from one request to what the KV cache holds") {
    const json s = serve(k8b, kTp1, kRequest);
    const json& curve = s["curve"];
    REQUIRE(curve.size() >= 3);
    CHECK(curve.front()["concurrency"] == 1);
    CHECK(curve.back()["concurrency"] == s["memory"]["max_concurrency"]);
    for (size_t i = 1; i < curve.size(); ++i) {
        CHECK(curve[i]["concurrency"].get<int64_t>() > curve[i - 1]["concurrency"].get<int64_t>());
        CHECK(curve[i]["tpot_seconds"].get<double>() >= curve[i - 1]["tpot_seconds"].get<double>());
        CHECK(curve[i]["tokens_per_second_per_gpu"].get<double>() > curve[i - 1]["tokens_per_second_per_gpu"].get<double>());
    }
    // The point at the request's own concurrency (64) is the estimate itself.
    for (const auto& p : curve)
        if (p["concurrency"] == 64) CHECK(p["tpot_seconds"].get<double>() == s["time"]["tpot_seconds"].get<double>());
    // Nothing fits: no curve.
    CHECK_FALSE(serve(k8b, kTp1, R"({"gpu_memory_utilization":0.05})").contains("curve"));
}

TEST_CASE("serving search: a model or request it cannot serve is an error with its path, not an empty list") {
    CHECK(serve_error(R"({"model":{"preset":"bert-base"},"serving":{"search":{}}})")["path"] == "/model/arch");
    CHECK(serve_error(R"({"model":{"preset":"gpt2"},"serving":{"prompt_tokens":2000,"search":{}}})")["path"] ==
          "/serving/output_tokens");
}

namespace {

const std::string kDeepSeek = R"({"preset":"deepseek-v3"})", kTp8 = R"({"tp":8})";
// DeepSeek-V3 on 8 H200s, fp8 weights, 64 requests of 1,000 + 1,000 tokens: a batch that reads most experts each step.
json deepseek(const std::string& extra) {
    return serve(kDeepSeek, kTp8, R"({"prompt_tokens":1000,"output_tokens":1000,"concurrency":64,"weights":"fp8")" + extra + "}",
                 "h200-sxm-141gb");
}

}  // namespace

TEST_CASE("serving: a shared prefix is prefilled once and its full blocks are held once") {
    const json none = serve(k8b, kTp1, kRequest);
    const json shared = serve(k8b, kTp1, R"({"prompt_tokens":1024,"output_tokens":256,"concurrency":64,"shared_prefix_tokens":1000})");
    const json& m = shared["memory"];
    // Whole blocks of 16 only: 992 of the 1,000 shared tokens.
    CHECK(m["prefix_cached_tokens"] == 992);
    CHECK(m["kv_shared_prefix_bytes"].get<double>() == 992 * 131072.0);
    CHECK(m["kv_bytes_per_request"].get<double>() == (1024 + 256 - 992) * 131072.0);
    CHECK(m["max_concurrency"].get<int64_t>() > 4 * none["memory"]["max_concurrency"].get<int64_t>());
    // Only 32 of the prompt's tokens are prefilled: time to first token falls; decoding reads every request's whole cache.
    CHECK(shared["time"]["ttft_seconds"].get<double>() < none["time"]["ttft_seconds"].get<double>() / 2);
    CHECK(shared["time"]["decode_step_seconds"].get<double>() == none["time"]["decode_step_seconds"].get<double>());
    // The steps carry the successors' prefills, 32 tokens each instead of 1,024: a shorter time per output token.
    CHECK(shared["time"]["tpot_seconds"].get<double>() < none["time"]["tpot_seconds"].get<double>());
    // At least the prompt's last token is computed: a prefix as long as the prompt caches one block less.
    CHECK(serve(k8b, kTp1, R"({"prompt_tokens":1024,"shared_prefix_tokens":1024})")["memory"]["prefix_cached_tokens"] == 1008);
    CHECK(serve_error(R"({"model":{"preset":"llama-3.1-8b"},"serving":{"prompt_tokens":100,"shared_prefix_tokens":101}})")["path"] ==
          "/serving/shared_prefix_tokens");
}

// DeepSeek-V3 technical report (arXiv 2412.19437) sec. 5.4.3: its MTP module's second token is accepted 85-90% of the
// time, "delivering 1.8 times TPS". Here, drafting one token with the model's MTP module at 64 requests, the time per
// output token falls 1.65-1.69x (about 7% under the report's 1.8x: verification reads the experts of twice the
// tokens, and the report's deployment is not described).
TEST_CASE("serving: speculative decoding with the model's MTP module against DeepSeek-V3's report") {
    const json plain = deepseek("");
    // The decode's own time per token (the report's TPS is decoding's; the prefills the steps carry are the same).
    const double tpot = plain["time"]["decode_step_seconds"].get<double>();
    for (double a : {0.85, 0.9}) {
        const json mtp = deepseek(R"(,"speculative":{"method":"mtp","tokens":1,"acceptance":)" + std::to_string(a) + "}");
        const json& t = mtp["time"];
        CHECK(t["tokens_per_step"].get<double>() == doctest::Approx(1 + a));
        const double decode = t["decode_step_seconds"].get<double>() / (1 + a);
        CHECK(t["tpot_seconds"].get<double>() > decode);
        CHECK(t["draft_seconds"].get<double>() > 0);
        CHECK(tpot / decode == doctest::Approx(1.8).epsilon(0.12));
        // The MTP module's weights are served and its layer keeps a cache: one more layer's latent (576 x 2 bytes).
        CHECK(mtp["memory"]["weights_bytes"].get<double>() > plain["memory"]["weights_bytes"].get<double>());
        CHECK(kv_per_token(mtp) == kv_per_token(plain) + 576 * 2);
    }
}

TEST_CASE("serving: n-gram drafts cost the device nothing; the step verifies them and yields (1 - a^(k+1)) / (1 - a) tokens") {
    const json plain = serve(k8b, kTp1, kRequest);
    const json ngram = serve(k8b, kTp1, R"({"prompt_tokens":1024,"output_tokens":256,"concurrency":64,
                                            "speculative":{"method":"ngram","tokens":3,"acceptance":0.5}})");
    const json& t = ngram["time"];
    CHECK(t["draft_seconds"].get<double>() == 0);
    CHECK(t["tokens_per_step"].get<double>() == doctest::Approx((1 - std::pow(0.5, 4)) / 0.5));
    // Verifying 4 tokens per request costs no less than decoding one (here the same: the step stays bound by reading the
    // weights and caches), and less than four steps.
    CHECK(t["decode_step_seconds"].get<double>() >= plain["time"]["decode_step_seconds"].get<double>());
    CHECK(t["tpot_seconds"].get<double>() < plain["time"]["tpot_seconds"].get<double>());
    CHECK(t["decode_step_seconds"].get<double>() < 4 * plain["time"]["decode_step_seconds"].get<double>());
    // Each request holds its drafts' lookahead slots: 3 tokens more, one block more here.
    CHECK(ngram["memory"]["kv_bytes_per_request"].get<double>() == plain["memory"]["kv_bytes_per_request"].get<double>() + 16 * 131072.0);
    std::string vllm;
    for (const auto& l : ngram["launch"][0]["lines"]) vllm += l.get<std::string>() + "\n";
    CHECK(vllm.find(R"(--speculative-config '{"method": "ngram", "num_speculative_tokens": 3}')") != std::string::npos);
    // A method needs its acceptance; MTP needs the model's modules.
    CHECK(serve_error(R"({"model":{"preset":"llama-3.1-8b"},"serving":{"speculative":{"method":"ngram"}}})")["path"] ==
          "/serving/speculative/acceptance");
    CHECK(serve_error(R"({"model":{"preset":"llama-3.1-8b"},"serving":{"speculative":{"method":"mtp","acceptance":0.8}}})")["path"] ==
          "/serving/speculative/method");
    CHECK(serve_error(R"({"model":{"preset":"llama-3.1-8b"},"serving":{"speculative":{"method":"ngram","acceptance":1}}})")["path"] ==
          "/serving/speculative/acceptance");
}

TEST_CASE("serving: an EAGLE head drafts with one layer of the target's shape, the [2h, h] fusion and the target's output layer") {
    const json plain = serve(k8b, kTp1, kRequest);
    const json eagle = serve(k8b, kTp1, R"({"prompt_tokens":1024,"output_tokens":256,"concurrency":64,
                                            "speculative":{"method":"eagle","tokens":3,"acceptance":0.7}})");
    // Its weights: one Llama-3.1-8B layer (218,112,000 parameters with its two norms) and the 4,096 x 8,192 fusion, in bf16;
    // the output layer is the target's (read, not held again).
    const double layer = 4096.0 * 4096 * 2 + 4096.0 * 1024 * 2 + 3 * 4096.0 * 14336 + 2 * 4096;
    CHECK(eagle["memory"]["weights_bytes"].get<double>() - plain["memory"]["weights_bytes"].get<double>() ==
          doctest::Approx(2 * (layer + 2 * 4096.0 * 4096)));
    // One more layer's K and V per token in the pool (8 KV heads of 128, bf16).
    CHECK(kv_per_token(eagle) == kv_per_token(plain) + 2 * 8 * 128 * 2);
    const json& t = eagle["time"];
    CHECK(t["draft_seconds"].get<double>() > 0);
    CHECK(t["tokens_per_step"].get<double>() == doctest::Approx((1 - std::pow(0.7, 4)) / 0.3));
    CHECK(t["tpot_seconds"].get<double>() < plain["time"]["tpot_seconds"].get<double>());
    std::string flags;
    for (const auto& tool : eagle["launch"])
        for (const auto& l : tool["lines"]) flags += l.get<std::string>() + "\n";
    CHECK(flags.find(R"(--speculative-config '{"method": "eagle", "model": "<EAGLE head>", "num_speculative_tokens": 3}')") != std::string::npos);
    CHECK(flags.find("--speculative-algorithm EAGLE --speculative-draft-model-path <EAGLE head>") != std::string::npos);
}

// NVFP4 (an E4M3 scale per 16 values) and MXFP4 (an E8M0 scale per 32): their bytes per weight, and NVFP4's fp4 GEMMs on
// a device with an NVFP4 peak (B200) against weight-only elsewhere (H100).
TEST_CASE("serving: 4-bit floating-point weights, NVFP4 and MXFP4") {
    const std::string request = R"({"prompt_tokens":1024,"output_tokens":256,"concurrency":8)";
    const auto weights = [&](const std::string& format, const std::string& device) {
        return serve(k70b, kTp1, request + R"(,"weights":")" + format + R"("})", device);
    };
    const json bf16 = weights("model", "b200-sxm-180gb"), nv = weights("nvfp4", "b200-sxm-180gb"), mx = weights("mxfp4", "b200-sxm-180gb");
    const json int4 = weights("int4", "b200-sxm-180gb");
    // Only the layers' GEMM weights change format: the difference from bf16 is (2 - bytes) per quantized weight.
    const double quantized_nv = (bf16["memory"]["weights_bytes"].get<double>() - nv["memory"]["weights_bytes"].get<double>()) / (2 - 0.5625);
    const double quantized_mx = (bf16["memory"]["weights_bytes"].get<double>() - mx["memory"]["weights_bytes"].get<double>()) / (2 - 0.53125);
    CHECK(quantized_nv == doctest::Approx(quantized_mx).epsilon(1e-9));
    // Prefill is compute-bound: NVFP4's fp4 GEMMs run at B200's 9,000 TFLOP/s against 2,250 in bf16 (4x); MXFP4 is
    // weight-only, like int4, at the bf16 rate. Both launch the same kernels (one chunk: a decode step's gaps).
    const double gaps = bf16["time"]["decode_launch_seconds"].get<double>();
    CHECK(gaps == nv["time"]["decode_launch_seconds"].get<double>());
    CHECK((bf16["time"]["ttft_seconds"].get<double>() - gaps) / (nv["time"]["ttft_seconds"].get<double>() - gaps) ==
          doctest::Approx(4).epsilon(0.05));
    CHECK(mx["time"]["ttft_seconds"].get<double>() == doctest::Approx(int4["time"]["ttft_seconds"].get<double>()));
    // On a device without an NVFP4 peak NVFP4 is weight-only too.
    CHECK(weights("nvfp4", "h100-sxm-80gb")["time"]["ttft_seconds"].get<double>() ==
          doctest::Approx(weights("int4", "h100-sxm-80gb")["time"]["ttft_seconds"].get<double>()));
}

// Pipeline parallelism (vLLM --pipeline-parallel-size): each stage holds half the layers and their cache; a prompt
// visits the stages in turn; pp batches in flight each take one round through the stages per token.
TEST_CASE("serving: pipeline parallelism splits the layers, their cache and the decode round") {
    const json one = serve(k8b, kTp1, kRequest), two = serve(k8b, R"({"tp":1,"pp":2})", kRequest);
    CHECK(two["replica"]["pp"] == 2);
    CHECK(kv_per_token(two) == kv_per_token(one) / 2);
    // The layers halve; the embedding and the final norm with the output layer (untied) stay whole on their stage.
    const double w1 = one["memory"]["weights_bytes"].get<double>(), w2 = two["memory"]["weights_bytes"].get<double>();
    const double pre = 128256.0 * 4096 * 2, post = pre + 4096 * 2;
    CHECK(w2 == doctest::Approx((w1 - pre - post) / 2 + post).epsilon(1e-12));
    // A prompt's time is the whole model's plus a hop between the stages.
    const double ttft1 = one["time"]["ttft_seconds"].get<double>(), ttft2 = two["time"]["ttft_seconds"].get<double>();
    CHECK(ttft2 > ttft1);
    CHECK(ttft2 < 1.01 * ttft1);
    // Two GPUs read the weights and caches for 32 requests each per stage: a token comes sooner than on one GPU, and
    // each GPU yields fewer tokens than one GPU alone (the hops, the second copy of the ends).
    CHECK(two["time"]["tpot_seconds"].get<double>() < one["time"]["tpot_seconds"].get<double>());
    CHECK(two["time"]["tokens_per_second_per_gpu"].get<double>() < one["time"]["tokens_per_second_per_gpu"].get<double>());
    std::string vllm, sglang;
    for (const auto& l : two["launch"][0]["lines"]) vllm += l.get<std::string>() + "\n";
    for (const auto& l : two["launch"][1]["lines"]) sglang += l.get<std::string>() + "\n";
    CHECK(vllm.find("--pipeline-parallel-size 2\n") != std::string::npos);
    CHECK(sglang.find("--pp-size 2\n") != std::string::npos);
    // Llama 3.1 405B in bf16 on two nodes of 8 H100s (tp 8 within a node, pp 2 across): it fits, where tp 8 alone does not.
    const std::string k405 = R"({"preset":"llama-3.1-405b"})";
    CHECK(serve(k405, R"({"tp":8,"pp":2})", kRequest)["memory"]["max_concurrency"].get<int64_t>() > 0);
    CHECK(serve(k405, kTp8, kRequest)["memory"]["max_concurrency"] == 0);
}

// Little's law (L = lambda W): under an arrival rate the replica runs the smallest concurrency B with B >= rate x the
// time a request spends at B; past what its KV cache holds it does not keep up.
TEST_CASE("serving: a request rate settles at the concurrency Little's law gives, or does not keep up") {
    for (const double rate : {0.5, 5.0, 20.0}) {
        const json s = serve(k8b, kTp1, R"({"prompt_tokens":1024,"output_tokens":256,"request_rate":)" + std::to_string(rate) + "}");
        const json& r = s["request"];
        REQUIRE(r["keeps_up"] == true);
        const int64_t b = r["concurrency"].get<int64_t>();
        CHECK(static_cast<double>(b) >= rate * s["time"]["request_seconds"].get<double>());
        // One fewer request at once would not keep up.
        if (b > 1) {
            const json fewer = serve(k8b, kTp1, R"({"prompt_tokens":1024,"output_tokens":256,"concurrency":)" + std::to_string(b - 1) + "}");
            CHECK(static_cast<double>(b - 1) < rate * fewer["time"]["request_seconds"].get<double>());
        }
        CHECK(rate < r["max_request_rate"].get<double>());
    }
    const json over = serve(k8b, kTp1, R"({"prompt_tokens":1024,"output_tokens":256,"request_rate":1000})");
    CHECK(over["request"]["keeps_up"] == false);
    CHECK(over["request"]["concurrency"] == over["memory"]["max_concurrency"]);
    CHECK(serve_error(R"({"model":{"preset":"llama-3.1-8b"},"serving":{"request_rate":2,"search":{}}})")["path"] == "/serving/request_rate");
}

// Pipeline stages in the search: tried where no replica within one NVLink domain holds a request (Llama 3.1 405B in
// bf16 on H100s: tp 8 does not fit one node, tp 8 x pp 2 does), or up to max_pp; the latency-throughput front marked.
TEST_CASE("serving search: pipeline stages across nodes where one node does not hold the model, and the front") {
    const auto search = [](const std::string& extra) {
        const json r = json::parse(shardcalc::serve_scenario_text(
            R"({"model":{"preset":"llama-3.1-405b"},"hardware":{"preset":"h100-sxm-80gb"},"serving":{"prompt_tokens":2000,"output_tokens":500,"search":{"weights":["model"])" +
            extra + "}}}"));
        REQUIRE_MESSAGE(r["ok"] == true, r.dump());
        return r["serving"];
    };
    const json bf16 = search("");
    REQUIRE_FALSE(bf16["plans"].empty());
    for (const auto& p : bf16["plans"]) {
        CHECK(p["replica"]["tp"] == 8);
        CHECK(p["replica"]["pp"].get<int64_t>() >= 2);
    }
    // Asked for: pp up to 2 only.
    for (const auto& p : search(R"(,"max_pp":2)")["plans"]) CHECK(p["replica"]["pp"] == 2);
    // The front: no listed plan both faster per token and more productive per GPU than one marked on it.
    const json s = json::parse(shardcalc::serve_scenario_text(
        R"({"model":{"preset":"llama-3.1-70b"},"hardware":{"preset":"h100-sxm-80gb"},"serving":{"prompt_tokens":2000,"output_tokens":500,
            "search":{"weights":["model","fp8","int4"],"kv_cache_dtypes":["auto","fp8"],"top":1000}}})"))["serving"];
    int front = 0;
    for (const auto& p : s["plans"]) {
        if (!p["pareto"].get<bool>()) continue;
        ++front;
        for (const auto& o : s["plans"])
            CHECK_FALSE((o["time"]["tpot_seconds"].get<double>() < p["time"]["tpot_seconds"].get<double>() &&
                         o["time"]["tokens_per_second_per_gpu"].get<double>() > p["time"]["tokens_per_second_per_gpu"].get<double>()));
    }
    CHECK(front >= 2);
    CHECK(s["plans"][0]["pareto"] == true);  // the most productive plan is on the front
}

// Data-parallel attention with the experts spread over every GPU (SGLang --enable-dp-attention, vLLM's data parallelism
// with --enable-expert-parallel): for DeepSeek-V3, whose latent cache tensor parallelism copies to every GPU, each GPU
// keeps only its own rank's requests' cache and holds 1/dp of the experts, at the price of its own copy of attention.
TEST_CASE("serving: data-parallel attention holds each rank's requests once and spreads the experts over all GPUs") {
    const std::string request = R"({"prompt_tokens":1000,"output_tokens":1000,"concurrency":512,"weights":"fp8")";
    const json tp8 = serve(kDeepSeek, kTp8, request + "}", "h200-sxm-141gb");
    const json dpa = serve(kDeepSeek, R"({"tp":1,"dp":8})", request + R"(,"dp_attention":true})", "h200-sxm-141gb");
    CHECK(dpa["replica"]["dp_attention_ranks"] == 8);
    CHECK(dpa["replica"]["replicas"] == 1);
    CHECK(dpa["replica"]["gpus"] == 8);   // one replica of dp x tp GPUs
    CHECK(tp8["replica"]["gpus"] == 8);
    // The latent is the same per token; the cache of a GPU holds its rank's requests only.
    CHECK(kv_per_token(dpa) == kv_per_token(tp8));
    const double per_gpu = std::floor(dpa["memory"]["kv_available_bytes"].get<double>() / dpa["memory"]["kv_bytes_per_request"].get<double>());
    CHECK(dpa["memory"]["max_concurrency"].get<double>() == 8 * per_gpu);
    CHECK(dpa["memory"]["max_concurrency"].get<int64_t>() > 4 * tp8["memory"]["max_concurrency"].get<int64_t>());
    // Attention's weights are each GPU's own: more weights per GPU than at tp 8, far fewer than the whole model's.
    CHECK(dpa["memory"]["weights_bytes"].get<double>() > tp8["memory"]["weights_bytes"].get<double>());
    CHECK(dpa["memory"]["weights_bytes"].get<double>() < 2 * tp8["memory"]["weights_bytes"].get<double>());
    // Decode: no tensor-parallel all-reduce at tp 1; the MoE layers' dispatch and combine instead. Per GPU: of 8.
    CHECK(dpa["time"]["decode_tp_seconds"].get<double>() == 0);
    CHECK(dpa["time"]["decode_all_to_all_seconds"].get<double>() > 0);
    CHECK(dpa["time"]["tokens_per_second_per_gpu"].get<double>() * 8 == doctest::Approx(dpa["time"]["tokens_per_second"].get<double>()));
    std::string vllm, sglang, trtllm;
    for (const auto& l : dpa["launch"][0]["lines"]) vllm += l.get<std::string>() + "\n";
    for (const auto& l : dpa["launch"][1]["lines"]) sglang += l.get<std::string>() + "\n";
    for (const auto& l : dpa["launch"][2]["lines"]) trtllm += l.get<std::string>() + "\n";
    for (const char* flag : {"--tensor-parallel-size 1\n", "--data-parallel-size 8\n", "--enable-expert-parallel\n"})
        CHECK_MESSAGE(vllm.find(flag) != std::string::npos, flag);
    for (const char* flag : {"--tp-size 8\n", "--dp-size 8\n", "--enable-dp-attention\n", "--ep-size 8\n"})
        CHECK_MESSAGE(sglang.find(flag) != std::string::npos, flag);
    for (const char* flag : {"--tp_size 8\n", "--ep_size 8\n"}) CHECK_MESSAGE(trtllm.find(flag) != std::string::npos, flag);
    // A model without experts, a single rank, experts that do not divide: errors at their fields.
    CHECK(serve_error(R"({"model":{"preset":"llama-3.1-8b"},"parallel":{"dp":2},"serving":{"dp_attention":true}})")["path"] ==
          "/serving/dp_attention");
    CHECK(serve_error(R"({"model":{"preset":"deepseek-v3"},"parallel":{"tp":8},"serving":{"dp_attention":true}})")["path"] == "/parallel/dp");
    CHECK(serve_error(R"({"model":{"preset":"deepseek-v3"},"parallel":{"tp":1,"dp":3},"serving":{"dp_attention":true}})")["path"] ==
          "/serving/dp_attention");
}

// For an MoE model the search also tries data-parallel attention ranks within the GPUs a replica may take.
TEST_CASE("serving search: data-parallel attention replicas for an MoE model, none for a dense one") {
    const auto plans = [](const std::string& model) {
        const json r = json::parse(shardcalc::serve_scenario_text(R"({"model":{"preset":")" + model +
                                                                  R"("},"hardware":{"preset":"h200-sxm-141gb"},"serving":{"search":{"weights":["fp8"],"top":1000}}})"));
        REQUIRE_MESSAGE(r["ok"] == true, r.dump());
        return r["serving"]["plans"];
    };
    int with_ranks = 0;
    for (const auto& p : plans("deepseek-v3")) {
        const int64_t ranks = p["replica"]["dp_attention_ranks"].get<int64_t>();
        if (ranks > 1) ++with_ranks;
        CHECK(p["replica"]["tp"].get<int64_t>() * ranks <= 8);
        CHECK(p["serving"]["dp_attention"] == (ranks > 1));
    }
    CHECK(with_ranks >= 3);
    for (const auto& p : plans("llama-3.1-70b")) CHECK(p["replica"]["dp_attention_ranks"] == 1);
}

// Lengths vary: the averages size the running requests' caches, the longest request sizes --max-model-len, and vLLM
// refuses to start when one request that long does not fit its KV cache.
TEST_CASE("serving: the longest request sets the server's maximum length and must fit one GPU's cache") {
    const json avg = serve(k8b, kTp1, R"({"prompt_tokens":1024,"output_tokens":256,"concurrency":8})");
    const json longest = serve(k8b, kTp1, R"({"prompt_tokens":1024,"output_tokens":256,"concurrency":8,"max_prompt_tokens":32000,"max_output_tokens":4000})");
    CHECK(longest["request"]["longest_request_tokens"] == 36000);
    // The running requests' caches are the averages': the same concurrency and time.
    CHECK(longest["memory"]["max_concurrency"] == avg["memory"]["max_concurrency"]);
    CHECK(longest["time"]["tpot_seconds"].get<double>() == avg["time"]["tpot_seconds"].get<double>());
    std::string vllm;
    for (const auto& l : longest["launch"][0]["lines"]) vllm += l.get<std::string>() + "\n";
    CHECK(vllm.find("--max-model-len 36000\n") != std::string::npos);
    // A cache too small for the longest request: vLLM would not start, whatever the averages allow.
    const json small = serve(k8b, kTp1, R"({"prompt_tokens":1024,"output_tokens":256,"concurrency":8,"max_prompt_tokens":120000,
                                          "gpu_memory_utilization":0.3})");
    CHECK(small["memory"]["max_model_len"].get<int64_t>() < 121024);
    CHECK(small["memory"]["max_concurrency"].get<int64_t>() >= 8);
    CHECK(small["memory"]["fits"] == false);
    // The longest below the average, or past the model's positions: errors at their fields.
    CHECK(serve_error(R"({"model":{"preset":"llama-3.1-8b"},"serving":{"prompt_tokens":1000,"max_prompt_tokens":10}})")["path"] ==
          "/serving/max_prompt_tokens");
    CHECK(serve_error(R"({"model":{"preset":"llama-3.1-8b"},"serving":{"max_prompt_tokens":131072}})")["path"] == "/serving/max_output_tokens");
}

// What a million output tokens cost: their GPU-seconds at the device's hourly price, in the estimate and in each plan
// the search lists.
TEST_CASE("serving: the cost per million output tokens at the device's price") {
    const json priced = json::parse(shardcalc::serve_scenario_text(
        R"({"model":{"preset":"llama-3.1-8b"},"hardware":{"preset":"h100-sxm-80gb","price_per_gpu_hour":2.5},"serving":{"concurrency":64}})"))["serving"];
    const json& t = priced["time"];
    CHECK(t["cost_per_million_tokens"].get<double>() == doctest::Approx(2.5 / 3600 / t["tokens_per_second_per_gpu"].get<double>() * 1e6));
    CHECK(serve(k8b, kTp1, kRequest)["time"]["cost_per_million_tokens"].get<double>() == 0);  // no price given
}

namespace {

// transformers' generate of Llama 2 7B in fp16 on an A100 80GB (framework pytorch: transformers' modules).
json generate(const std::string& serving, const std::string& implementation = "{}") {
    const std::string text = R"({"framework":"pytorch","model":{"preset":"llama-2-7b"},"training":{"dtype":"fp16"},)"
                             R"("hardware":{"preset":"a100-sxm-80gb"},"implementation":)" + implementation +
                             R"(,"serving":)" + serving + "}";
    const json r = json::parse(shardcalc::serve_scenario_text(text));
    REQUIRE_MESSAGE(r["ok"] == true, r.dump());
    return r["serving"];
}

}  // namespace

TEST_CASE("transformers' generate: the batch's own memory, a static cache allocated whole, a dynamic one's copy") {
    const double layer = 2 * 32 * 128 * 2.0;  // one layer's K and V per token: 32 heads of 128 in fp16
    const json st = generate(R"({"engine":"transformers","cache":"static","concurrency":4,"prompt_tokens":100,"max_prompt_tokens":128,"output_tokens":256})");
    const auto& m = st["memory"];
    // Every row padded to the longest prompt and allocated to the longest output: 128 + 256 tokens in all 32 layers.
    CHECK(m["kv_bytes_per_request"].get<double>() == 32 * layer * 384);
    CHECK(m["budget_bytes"] == m["capacity_bytes"]);  // no gpu_memory_utilization
    CHECK(m["cache_transient_bytes"] == 0);
    // The largest batch: weights and the overhead aside, each row needs its cache (static: whole from the start) and
    // its share of the prefill's activations beside it.
    const double room = m["capacity_bytes"].get<double>() - m["weights_bytes"].get<double>() - m["non_torch_bytes"].get<double>();
    const double per_row = 32 * layer * 384 + m["activation_peak_bytes"].get<double>() / 4;
    CHECK(m["max_concurrency"].get<double>() == std::floor(room / per_row));
    // DynamicCache: at the last step torch.cat copies one layer's keys and values at full length beside the whole cache.
    const json dy = generate(R"({"engine":"transformers","concurrency":4,"prompt_tokens":128,"output_tokens":256})");
    CHECK(dy["memory"]["cache_transient_bytes"].get<double>() == 4 * layer * 384);
    // Its largest batch: the larger of the prefill (the prompts' cache beside the activations) and the last step.
    const double act = dy["memory"]["activation_peak_bytes"].get<double>() / 4;
    const double dy_row = std::max(32 * layer * 128 + act, 32 * layer * 384 + layer * 384);
    CHECK(dy["memory"]["max_concurrency"].get<double>() == std::floor(room / dy_row));
}

TEST_CASE("transformers' generate: eager decoding is bound by the host's launches; a compiled static cache by the weights") {
    const json eager = generate(R"({"engine":"transformers","concurrency":1,"prompt_tokens":128,"output_tokens":256})");
    const auto& t = eager["time"];
    // Each step launches the model's eager kernels and the loop's at 38.5 us each, and waits for the device.
    CHECK(t["tpot_seconds"] == t["decode_host_seconds"]);
    CHECK(t["decode_host_seconds"].get<double>() > 0.03);
    // Under torch.compile's CUDA graphs with a static cache only the loop's 12 eager launches remain on the host; the
    // step reads the weights (12.6 GiB) and the cache. gpt-fast measured 107 tokens/s for Llama-2-7B in fp16 on an A100
    // so compiled (PyTorch blog, "Accelerating Generative AI with PyTorch II", 2023): here within a fifth of it.
    const json graphs = generate(R"({"engine":"transformers","cache":"static","concurrency":1,"prompt_tokens":128,"output_tokens":256})",
                                 R"({"compile":"reduce_overhead"})");
    CHECK(graphs["time"]["decode_host_seconds"].get<double>() == doctest::Approx(12 * 38.5e-6));
    CHECK(graphs["time"]["decode_bound"] == "memory");
    const double per_s = 1 / graphs["time"]["tpot_seconds"].get<double>();
    std::printf("  transformers generate, Llama-2-7B fp16 A100: eager %.1f tokens/s, compiled static cache %.1f (gpt-fast 107)\n",
                1 / t["tpot_seconds"].get<double>(), per_s);
    CHECK(std::abs(per_s - 107) / 107 < 0.2);
    // DynamicCache's steps also copy every layer's cache (torch.cat): more bytes than the static cache reads over the same
    // context.
    const json dyn = generate(R"({"engine":"transformers","concurrency":64,"prompt_tokens":1024,"output_tokens":1024})", R"({"compile":"inductor"})");
    const json sta = generate(R"({"engine":"transformers","cache":"static","concurrency":64,"prompt_tokens":1024,"output_tokens":1024})",
                              R"({"compile":"inductor"})");
    CHECK(dyn["time"]["decode_bytes"].get<double>() > sta["time"]["decode_bytes"].get<double>());
    // The launch is Python: from_pretrained in the model's dtype, the compiled forward, generate with its cache.
    const auto& lines = graphs["launch"][0]["lines"];
    CHECK(graphs["launch"].size() == 1);
    CHECK(lines.back() == "model.generate(**inputs, max_new_tokens=256, cache_implementation=\"static\")");
}

// from_pretrained(tp_plan="auto") under torchrun: the layers' projections split over the ranks, the embedding whole,
// the output layer split by vocabulary and its logits gathered; two all-reduces per layer.
TEST_CASE("transformers' generate over tensor parallelism: each rank's share of the layers and cache, the embedding whole") {
    const json one = generate(R"({"engine":"transformers","concurrency":16,"prompt_tokens":512,"output_tokens":256})");
    const std::string text = R"({"framework":"pytorch","model":{"preset":"llama-2-7b"},"training":{"dtype":"fp16"},)"
                             R"("hardware":{"preset":"a100-sxm-80gb"},"parallel":{"tp":4},)"
                             R"("serving":{"engine":"transformers","concurrency":16,"prompt_tokens":512,"output_tokens":256}})";
    const json r = json::parse(shardcalc::serve_scenario_text(text));
    REQUIRE_MESSAGE(r["ok"] == true, r.dump());
    const json& four = r["serving"];
    // Llama 2 7B: 32000 x 4096 embedding and output layer, 32 layers of 202,383,360 parameters (norms included).
    const double embedding = 32000.0 * 4096, layers = 32 * (4 * 4096.0 * 4096 + 3 * 4096.0 * 11008 + 2 * 4096), norm = 4096;
    CHECK(one["memory"]["weights_bytes"].get<double>() == doctest::Approx(2 * (2 * embedding + layers + norm)));
    // The layers' projections split four ways (their norms whole), the embedding whole, the output layer by vocabulary.
    CHECK(four["memory"]["weights_bytes"].get<double>() ==
          doctest::Approx(2 * (embedding + (layers - 2 * 32 * 4096) / 4 + 2 * 32 * 4096 + embedding / 4 + norm)));
    // Each rank caches its 8 of the 32 key/value heads.
    CHECK(four["memory"]["kv_bytes_per_request"].get<double>() == doctest::Approx(one["memory"]["kv_bytes_per_request"].get<double>() / 4));
    // The collectives of a decode step: an all-reduce of 16 rows of 4,096 after attention and after the MLP of each layer,
    // and the logits gathered; the host issues each call.
    CHECK(one["time"]["decode_tp_seconds"] == 0);
    CHECK(four["time"]["decode_tp_seconds"].get<double>() > 0);
    CHECK(four["time"]["decode_host_seconds"].get<double>() ==
          doctest::Approx(one["time"]["decode_host_seconds"].get<double>() + (2 * 32 + 1) * 38.5e-6).epsilon(0.02));
    // Four GPUs serve the batch: tokens per GPU a quarter of the replica's.
    CHECK(four["time"]["tokens_per_second_per_gpu"].get<double>() ==
          doctest::Approx(four["time"]["tokens_per_second"].get<double>() / 4));
    // Launched by torchrun, one process per GPU, with the model's own plan in place of device_map.
    const auto& lines = four["launch"][0]["lines"];
    CHECK(lines[0] == "# torchrun --nproc-per-node=4 this_script.py");
    CHECK(lines[1].get<std::string>().find("tp_plan=\"auto\")") != std::string::npos);
}

TEST_CASE("transformers' generate: vLLM's settings, tensor parallelism without a plan, other frameworks and CUDA graphs over a dynamic cache are refused") {
    const std::string base = R"({"framework":"pytorch","model":{"preset":"llama-2-7b"},"hardware":{"preset":"a100-sxm-80gb"},)";
    CHECK(serve_error(base + R"("serving":{"engine":"transformers","gpu_memory_utilization":0.8}})")["path"] == "/serving/gpu_memory_utilization");
    // GPT-2's fused c_attn has no tensor-parallel plan; transformers' plans for experts are not modelled; the key/value
    // heads are split, never replicated.
    const std::string request = R"("parallel":{"tp":2},"serving":{"engine":"transformers","prompt_tokens":128,"output_tokens":128}})";
    CHECK(serve_error(R"({"framework":"pytorch","model":{"preset":"gpt2"},)" + request)["path"] == "/parallel/tp");
    CHECK(serve_error(R"({"framework":"pytorch","model":{"preset":"mixtral-8x7b"},)" + request)["path"] == "/parallel/tp");
    CHECK(serve_error(R"({"framework":"pytorch","model":{"preset":"llama-3.1-8b"},"parallel":{"tp":16},"serving":{"engine":"transformers"}})")
              ["message"].get<std::string>().find("key/value heads (8)") != std::string::npos);
    CHECK(serve_error(base + R"("implementation":{"compile":"reduce_overhead"},"serving":{"engine":"transformers"}})")["path"] ==
          "/implementation/compile");
    CHECK(serve_error(base + R"("serving":{"cache":"static"}})")["path"] == "/serving/cache");
    CHECK(serve_error(R"({"model":{"preset":"llama-2-7b"},"serving":{"engine":"transformers"}})")["path"] == "/framework");
    CHECK(serve_error(base + R"("serving":{"engine":"transformers","search":{}}})")["path"] == "/serving/engine");
}

TEST_CASE("transformers' generate of a MoE model: a token multiplies its k routed experts, and reads the chosen ones") {
    const std::string text = R"({"framework":"pytorch","model":{"preset":"mixtral-8x7b"},"hardware":{"preset":"h100-sxm-80gb"},)"
                             R"("serving":{"engine":"transformers","concurrency":1,"prompt_tokens":512,"output_tokens":512,"weights":"int4"}})";
    const json r = json::parse(shardcalc::serve_scenario_text(text));
    REQUIRE(r["ok"] == true);
    const auto& t = r["serving"]["time"];
    // Mixtral 8x7B: about 12.9B parameters active per token of 46.7B (2 of 8 experts): 2 FLOPs each and attention.
    CHECK(t["decode_flops"].get<double>() > 2 * 12e9);
    CHECK(t["decode_flops"].get<double>() < 2 * 14e9);
    // One token reads 2 of the 8 experts' int4 weights in every layer, not all of them.
    CHECK(t["decode_bytes"].get<double>() < r["serving"]["memory"]["weights_bytes"].get<double>());
}

// vLLM's serving benchmark measures a request's time per output token as (end to end - first token) / (output - 1):
// under continuous batching its steps also carry the prefills of the requests that replace finished ones, concurrency -
// 1 of them over its output (validation/serving.py: vLLM 0.15.1 serving gpt-oss-120b on H100s).
TEST_CASE("serving: the time per output token carries the other requests' prefills; alone, it is the decode step") {
    const json alone = serve(k8b, kTp1, R"({"prompt_tokens":1024,"output_tokens":256,"concurrency":1})");
    CHECK(alone["time"]["tpot_seconds"].get<double>() == doctest::Approx(alone["time"]["decode_step_seconds"].get<double>()));
    const json busy = serve(k8b, kTp1, kRequest);
    const json& t = busy["time"];
    const double carried = 63 * t["ttft_seconds"].get<double>() / 256;
    CHECK(t["tpot_seconds"].get<double>() == doctest::Approx(t["decode_step_seconds"].get<double>() + carried));
    // Throughput counts every prefill of the cycle, its own included: the 64 requests' tokens over one cycle.
    CHECK(t["tokens_per_second"].get<double>() ==
          doctest::Approx(64 * 256 / (256 * t["decode_step_seconds"].get<double>() + 64 * t["ttft_seconds"].get<double>())));
}
