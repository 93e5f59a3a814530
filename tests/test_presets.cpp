// Presets are real files: every one parses, has sources, and evaluates under every framework.
#include <filesystem>
#include <fstream>

#include "helpers.h"
#include "io/presets.h"

TEST_CASE("the embedded presets are exactly the files under presets/") {
    size_t files = 0;
    for (const auto& dir : {"models", "hardware"})
        for (const auto& entry : std::filesystem::directory_iterator(std::string(SHARDCALC_PRESETS_DIR) + "/" + dir)) {
            ++files;
            std::ifstream in(entry.path());
            const nlohmann::json on_disk = nlohmann::json::parse(in);
            CAPTURE(entry.path().string());
            CHECK(on_disk["id"] == entry.path().stem().string());
            const nlohmann::json* embedded = std::string(dir) == "models" ? shardcalc::model_preset(on_disk["id"])
                                                                         : shardcalc::hardware_preset(on_disk["id"]);
            REQUIRE(embedded);
            CHECK(*embedded == on_disk);
        }
    CHECK(files == shardcalc::embedded_presets().size());
    CHECK(shardcalc::all_presets()["models"].size() >= 20);
    CHECK(shardcalc::all_presets()["hardware"].size() >= 12);
}

TEST_CASE("the preset document the page reads is the same presets, verbatim") {
    CHECK(nlohmann::json::parse(shardcalc::embedded_presets_document()) == shardcalc::all_presets());
}

TEST_CASE("every hardware preset names a source for every number") {
    for (const auto& p : shardcalc::all_presets()["hardware"]) {
        CAPTURE(p["id"].get<std::string>());
        for (const char* key : {"memory_gib", "peak_tflops", "hbm_gbps", "intra_node_gbps", "inter_node_gbps", "sm_count",
                                "matmul_efficiency", "attention_efficiency", "hbm_efficiency", "kernel_launch_us",
                                "intra_node_latency_us", "inter_node_latency_us", "intra_node_efficiency",
                                "inter_node_efficiency"}) {
            CHECK(p.contains(key));
            CHECK(p["sources"].contains(key));
        }
    }
}

TEST_CASE("every model preset evaluates on every hardware preset and framework") {
    for (const auto& m : shardcalc::all_presets()["models"])
        for (const char* fw : {"megatron", "deepspeed", "fsdp", "pytorch"})
            for (const auto& h : shardcalc::all_presets()["hardware"]) {
                const nlohmann::json s = {{"framework", fw},
                                          {"model", {{"preset", m["id"]}}},
                                          {"training", {{"seq_len", 512}}},
                                          {"hardware", {{"preset", h["id"]}}}};
                const auto r = shardcalc::evaluate_scenario(s);
                CAPTURE(s.dump());
                REQUIRE(r["ok"] == true);
                CHECK(r["report"]["memory"]["per_device"]["total"].get<int64_t>() > 0);
            }
}
