// Bad input gets an error naming the field by JSON pointer and what is allowed; never a crash.
#include "helpers.h"

namespace {

const std::string kGood = R"({"model":{"preset":"llama-2-7b"},"training":{"seq_len":4096},"parallel":{"tp":8}})";

std::string path_of(const std::string& json) { return test::error_of(json)["path"]; }
std::string message_of(const std::string& json) { return test::error_of(json)["message"]; }

}  // namespace

TEST_CASE("the good scenario evaluates") {
    const auto r = nlohmann::json::parse(shardcalc::evaluate_scenario_text(kGood));
    CHECK(r["ok"] == true);
}

TEST_CASE("unknown and misspelled keys") {
    CHECK(path_of(R"({"model":{"preset":"gpt2","hiden":5}})") == "/model/hiden");
    CHECK(message_of(R"({"model":{"preset":"gpt2","hiden":5}})").find("hidden") != std::string::npos);
    CHECK(path_of(R"({"modle":{}})") == "/modle");
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"parallel":{"tensor":2}})") == "/parallel/tensor");
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"hardware":{"peak_tflops":{"bf32":1}}})") == "/hardware/peak_tflops/bf32");
}

TEST_CASE("wrong types and out-of-range values") {
    CHECK(path_of(R"({"model":{"preset":"gpt2","layers":"12"}})") == "/model/layers");
    CHECK(path_of(R"({"model":{"preset":"gpt2","layers":0}})") == "/model/layers");
    CHECK(path_of(R"({"model":{"preset":"gpt2","hidden":-768}})") == "/model/hidden");
    CHECK(path_of(R"({"model":{"preset":"gpt2","hidden":768.5}})") == "/model/hidden");
    CHECK(path_of(R"({"model":{"preset":"gpt2","bias":"yes"}})") == "/model/bias");
    CHECK(path_of(R"({"model":{"preset":"gpt2","mlp_bias":"yes"}})") == "/model/mlp_bias");
    CHECK(path_of(R"({"model":{"preset":"gpt2","output_bias":1}})") == "/model/output_bias");
    // A bias on the output layer belongs to a decoder's language-model head.
    CHECK(path_of(R"({"model":{"preset":"bert-base","output_bias":true}})") == "/model/output_bias");
    CHECK(path_of(R"({"model":{"preset":"mixtral-8x7b"},"parallel":{"moe_dispatcher":3}})") == "/parallel/moe_dispatcher");
    CHECK(path_of(R"({"model":{"preset":"gpt2","mlp":"swish"}})") == "/model/mlp");
    CHECK(message_of(R"({"model":{"preset":"gpt2","mlp":"swish"}})").find("gelu|relu|swiglu|geglu") != std::string::npos);
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"training":{"dropout":1.5}})") == "/training/dropout");
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"parallel":{"zero":4}})") == "/parallel/zero");
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"parallel":{"dp":0}})") == "/parallel/dp");
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"hardware":{"memory_gib":-1}})") == "/hardware/memory_gib");
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"training":"long"})") == "/training");
    CHECK(path_of(R"([1,2])") == "");
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"a/b~":1})") == "/a~1b~0");
    CHECK(path_of(R"({"version":0,"model":{"preset":"gpt2"}})") == "/version");
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"training":{"param_dtype":"fp8"}})") == "/training/param_dtype");
}

TEST_CASE("missing and unknown presets") {
    CHECK(path_of(R"({})") == "/model");
    CHECK(path_of(R"({"model":{"hidden":1024}})") == "/model/layers");
    CHECK(path_of(R"({"model":{"preset":"gpt5"}})") == "/model/preset");
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"hardware":{"preset":"h900"}})") == "/hardware/preset");
}

TEST_CASE("invalid JSON text") {
    const auto e = test::error_of("{\"model\": ");
    CHECK(e["path"] == "");
    CHECK(e["message"].get<std::string>().find("invalid JSON") == 0);
}

TEST_CASE("a key repeated in one object is refused at the repeated member, in every entry point") {
    // Once silently read as its last value (nlohmann's rule): {"tp":8,...,"tp":3} evaluated tp 3.
    const auto e = test::error_of(R"({"model":{"preset":"llama-2-7b"},"parallel":{"tp":8,"dp":2,"tp":3}})");
    CHECK(e["path"] == "/parallel/tp");
    CHECK(e["message"].get<std::string>().rfind("duplicate key \"tp\" at line 1, column 60 (byte 59): a key may appear once", 0) == 0);
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"model":{"preset":"gpt2"}})") == "/model");
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"hardware":{"peak_tflops":{"bf16":1,"bf16":2}}})") == "/hardware/peak_tflops/bf16");
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"x":[{}, {"a/b~":1,"a/b~":1}]})") == "/x/1/a~1b~0");
    // The same value twice is still two keys; keys differing only in case or escapes are not the same key.
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"training":{"seq_len":512,"seq_len":512}})") == "/training/seq_len");
    CHECK(nlohmann::json::parse(shardcalc::evaluate_scenario_text(R"({"model":{"preset":"gpt2","Preset":1}})"))["error"]["path"] ==
          "/model/Preset");  // unknown field, not a duplicate
    CHECK(path_of(R"({"model":{"preset":"gpt2","pre\u0073et":"gpt2"}})") == "/model/preset");
    // Every API that reads JSON text: kernels, search, choices, and the Hugging Face import.
    auto path_in = [](const std::string& answer) { return nlohmann::json::parse(answer)["error"]["path"].get<std::string>(); };
    const std::string dup = R"({"model":{"preset":"gpt2"},"parallel":{"dp":1,"dp":1}})";
    CHECK(path_in(shardcalc::kernels_scenario_text(dup)) == "/parallel/dp");
    CHECK(path_in(shardcalc::search_scenario_text(dup)) == "/parallel/dp");
    CHECK(path_in(shardcalc::choices_text(R"({"scenario":{},"scenario":{}})")) == "/scenario");
    CHECK(path_in(shardcalc::import_config_text(R"({"model_type":"gpt2","n_layer":12,"n_embd":768,"n_layer":24})")) == "/n_layer");
}

TEST_CASE("non-divisible and inconsistent plans name the field that fails") {
    // LLaMA-2-7B: 32 heads, 32 layers, seq 4096
    CHECK(path_of(R"({"model":{"preset":"llama-2-7b"},"parallel":{"tp":3}})") == "/parallel/tp");
    CHECK(path_of(R"({"model":{"preset":"llama-3.1-8b"},"parallel":{"tp":16}})") == "/parallel/tp");  // 8 kv heads
    CHECK(path_of(R"({"model":{"preset":"llama-2-7b"},"parallel":{"pp":3}})") == "/parallel/pp");
    CHECK(path_of(R"({"model":{"preset":"llama-2-7b"},"parallel":{"pp":4,"vpp":3}})") == "/parallel/pp");
    CHECK(path_of(R"({"model":{"preset":"llama-2-7b"},"parallel":{"vpp":2}})") == "/parallel/vpp");
    CHECK(path_of(R"({"model":{"preset":"llama-2-7b"},"training":{"global_batch":6},"parallel":{"pp":4,"vpp":2}})") ==
          "/training/global_batch");
    CHECK(path_of(R"({"model":{"preset":"llama-2-7b"},"parallel":{"ulysses":3}})") == "/parallel/ulysses");
    CHECK(path_of(R"({"model":{"preset":"llama-2-7b"},"training":{"seq_len":4095},"parallel":{"cp":2}})") == "/parallel/cp");
    CHECK(path_of(R"({"model":{"preset":"llama-2-7b"},"training":{"attention":"eager"},"parallel":{"cp":2}})") == "/parallel/cp");
    CHECK(path_of(R"({"model":{"preset":"llama-2-7b"},"training":{"seq_len":4097},"parallel":{"tp":2,"sp":true}})") == "/parallel/sp");
    CHECK(path_of(R"({"model":{"preset":"llama-2-7b"},"training":{"global_batch":10,"micro_batch":4}})") == "/training/global_batch");
    CHECK(path_of(R"({"model":{"preset":"llama-2-7b"},"parallel":{"tp":2,"dp":2,"world_size":8}})") == "/parallel/world_size");
    // each split divides 4100 (= 4 * 1025) on its own, together 2*cp*ulysses = 8 does not
    CHECK(path_of(R"({"framework":"deepspeed","model":{"preset":"llama-2-7b"},
      "training":{"seq_len":4100},"parallel":{"cp":2,"ulysses":2}})") == "/training/seq_len");
    CHECK(path_of(R"({"framework":"fsdp","model":{"preset":"gpt2"},"parallel":{"zero":3,"offload_params":"cpu","offload_optimizer":"nvme"}})") ==
          "/parallel/offload_optimizer");
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"training":{"seq_len":2048}})") == "/training/seq_len");
    CHECK(path_of(R"({"model":{"preset":"gpt2","kv_heads":5}})") == "/model/kv_heads");
    CHECK(path_of(R"({"model":{"preset":"gpt2","head_dim":null,"heads":7}})") == "/model/head_dim");
}

TEST_CASE("framework rules") {
    CHECK(path_of(R"({"framework":"megatron","model":{"preset":"gpt2"},"parallel":{"zero":1}})") == "/parallel/zero");
    // Megatron-FSDP (zero 2 or 3) runs with the distributed optimizer.
    CHECK(path_of(R"({"framework":"megatron","model":{"preset":"gpt2"},"parallel":{"zero":3}})") == "/parallel/distributed_optimizer");
    CHECK(path_of(R"({"framework":"deepspeed","model":{"preset":"gpt2"},"parallel":{"zero":3,"pp":2}})") == "/parallel/zero");
    CHECK(path_of(R"({"framework":"deepspeed","model":{"preset":"gpt2"},"parallel":{"offload_params":"cpu","zero":2}})") ==
          "/parallel/offload_params");
    CHECK(path_of(R"({"framework":"fsdp","model":{"preset":"gpt2"},"parallel":{"zero":1}})") == "/parallel/zero");
    CHECK(path_of(R"({"framework":"pytorch","model":{"preset":"gpt2"},"parallel":{"distributed_optimizer":true}})") ==
          "/parallel/distributed_optimizer");
    CHECK(path_of(R"({"framework":"megatron","model":{"preset":"gpt2"},"parallel":{"offload_optimizer":"cpu"}})") ==
          "/parallel/offload_optimizer");
    CHECK(path_of(R"({"framework":"caffe","model":{"preset":"gpt2"}})") == "/framework");
}

TEST_CASE("sizes beyond the supported range are refused before they can overflow or stall") {
    CHECK(path_of(R"({"model":{"preset":"gpt2","hidden":1099511627776}})") == "/model/hidden");
    CHECK(message_of(R"({"model":{"preset":"gpt2","hidden":1099511627776}})").find("from 1 to") != std::string::npos);
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"parallel":{"pp":1000000}})") == "/parallel/pp");
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"parallel":{"dp":1000000,"tp":1000000}})") == "/parallel");
    CHECK(path_of(R"({"model":{"preset":"gpt2"},"parallel":{"zero":18446744073709551615}})") == "/parallel/zero");
}

TEST_CASE("no report number is NaN or infinite for extreme but valid input") {
    const auto r = nlohmann::json::parse(shardcalc::evaluate_scenario_text(
        R"({"model":{"layers":1,"hidden":1,"heads":1,"vocab":1,"position_embedding":"none"},"training":{"seq_len":1}})"));
    REQUIRE(r["ok"] == true);
    CHECK(r.dump().find("null") == std::string::npos);
}

TEST_CASE("divisibility errors say which values would work") {
    auto e = test::error_of(R"({"model":{"preset":"llama-3.1-8b"},"parallel":{"tp":3}})");
    CHECK(e["path"] == "/parallel/tp");
    // tp must divide heads (32), kv_heads (8) and ffn_hidden (14336): only the common divisors work.
    CHECK(e["message"].get<std::string>().find("tp that work: 1, 2, 4, 8") != std::string::npos);
    // Only the sizes a degree fails are named: tp = 16 divides heads (32) and ffn_hidden, not kv_heads (8).
    e = test::error_of(R"({"model":{"preset":"llama-3.1-8b"},"parallel":{"tp":16}})");
    CHECK(e["message"].get<std::string>().find("model.kv_heads (8") != std::string::npos);
    CHECK(e["message"].get<std::string>().find("model.heads") == std::string::npos);
    // cp names itself, not 2*cp ("got 6" once), and lists the cp values that work.
    e = test::error_of(R"({"model":{"preset":"llama-3.1-8b"},"training":{"seq_len":4000},"parallel":{"cp":3}})");
    CHECK(e["path"] == "/parallel/cp");
    CHECK(e["message"].get<std::string>().find("got cp = 3") != std::string::npos);
    CHECK(e["message"].get<std::string>().find("cp that work: 1, 2, 4, 5, 8, 10") != std::string::npos);
}

// Every problem of an input comes back at once ("errors", in input order; "error" is the first), so a user
// fixes them together instead of meeting them one by one.
TEST_CASE("every error at once: field types and ranges across sections, then every plan rule") {
    auto all = [](const char* text) {
        const auto r = nlohmann::json::parse(shardcalc::evaluate_scenario_text(text));
        REQUIRE(r["ok"] == false);
        REQUIRE(r["errors"].is_array());
        CHECK(r["error"] == r["errors"][0]);
        std::vector<std::string> paths;
        for (const auto& e : r["errors"]) paths.push_back(e["path"]);
        return paths;
    };
    // Reading: a bad value in three sections and an unknown key, each named.
    CHECK(all(R"({"model":{"preset":"gpt2","layers":"twelve"},"training":{"micro_batch":0,"dtype":"fp64"},)"
              R"("parallel":{"tp":-1,"typo":1},"hardware":{"memory_gib":-5}})") ==
          std::vector<std::string>{"/model/layers", "/training/micro_batch", "/training/dtype", "/parallel/tp",
                                   "/parallel/typo", "/hardware/memory_gib"});
    // A misspelled section and the absence it causes, both.
    CHECK(all(R"({"modle":{"preset":"gpt2"}})") == std::vector<std::string>{"/modle", "/model"});
    // Plan rules: tp, the batch and the framework's ZeRO stage, all from one evaluation.
    CHECK(all(R"({"framework":"megatron","model":{"preset":"llama-3.1-8b"},"training":{"global_batch":7},)"
              R"("parallel":{"dp":2,"tp":3,"zero":1}})") ==
          std::vector<std::string>{"/training/global_batch", "/parallel/tp", "/parallel/zero"});
    // A rule that only means something once another holds is not reported on top of it (ulysses splits
    // the heads per tensor-parallel rank, which tp = 3 does not define).
    CHECK(all(R"({"model":{"preset":"llama-3.1-8b"},"parallel":{"tp":3,"ulysses":4}})") == std::vector<std::string>{"/parallel/tp"});
    // The search reads its settings and the scenario together.
    const auto r = nlohmann::json::parse(shardcalc::search_scenario_text(
        R"({"model":{"preset":"gpt2"},"parallel":{"tp":0},"search":{"top":0}})"));
    REQUIRE(r["errors"].size() == 2);
    CHECK(r["errors"][0]["path"] == "/search/top");
    CHECK(r["errors"][1]["path"] == "/parallel/tp");
}

TEST_CASE("an LSTM's tensor parallelism is refused once, in an LSTM's words: it has no attention heads to divide") {
    const auto r = nlohmann::json::parse(shardcalc::evaluate_scenario_text(
        R"({"model":{"preset":"deepflow-lstm-38b"},"training":{"seq_len":20},"parallel":{"tp":4,"sp":true}})"));
    REQUIRE(r["ok"] == false);
    std::vector<std::string> paths;
    for (const auto& e : r["errors"]) {
        paths.push_back(e["path"]);
        CHECK(e["message"].get<std::string>().find("heads") == std::string::npos);
    }
    CHECK(paths == std::vector<std::string>{"/parallel/tp", "/parallel/sp"});
}

TEST_CASE("invalid JSON is placed by line and column, as an editor shows it, with the byte offset for tools") {
    const auto e = test::error_of("{\n  \"model\": {\"preset\": \"gpt2\"},\n  \"training\": {\"seq_len\": }\n}");
    CHECK(e["path"] == "");
    CHECK(e["message"] == "invalid JSON: unexpected '}'; expected a value at line 3, column 27 (byte 59)");
    // Columns count characters: a two-byte character before the error is one column.
    const auto u = test::error_of("{\"name\": \"é\", }");
    CHECK(u["message"].get<std::string>().find("at line 1, column 15 (byte 15)") != std::string::npos);
}
