// Input that once crashed, overflowed or misled (issue 8), each a regression test: numbers beyond
// double range, nesting deeper than any scenario, sizes whose byte counts pass 64 bits, the
// resolved-scenario echo read back (max_positions 0 and zero peaks used to be rejected or replaced by
// the preset's values), headroom.
#include <string>

#include "helpers.h"
#include "io/json_text.h"

using namespace shardcalc;

namespace {

nlohmann::json result(const std::string& text) { return nlohmann::json::parse(evaluate_scenario_text(text)); }

std::string nested(int levels) {
    std::string s = R"({"model":)";
    for (int i = 0; i < levels; ++i) s += R"({"a":)";
    s += "1";
    for (int i = 0; i < levels; ++i) s += "}";
    return s + "}";
}

}  // namespace

TEST_CASE("a number beyond the range of a double is a field error, wherever it is") {
    auto j = result(R"({"model":{"preset":"gpt2","hidden":1e400}})");
    CHECK(j["ok"] == false);
    CHECK(j["error"]["path"] == "/model/hidden");
    j = result(R"({"model":{"preset":"gpt2"},"hardware":{"peak_tflops":{"bf16":-1e999}}})");
    CHECK(j["error"]["path"] == "/hardware/peak_tflops/bf16");
    j = result(R"({"model":{"preset":"gpt2"},"x":[0, 1, 2e308]})");
    CHECK(j["error"]["path"] == "/x/2");
    CHECK(j["error"]["message"].get<std::string>().find("beyond the range") != std::string::npos);
}

TEST_CASE("nesting is limited while parsing: an error naming where, never a stack overflow") {
    const auto shallow = result(nested(kMaxJsonDepth - 2));
    CHECK(shallow["error"]["path"] != "");  // within the limit: the reader rejects the unknown key instead
    for (int levels : {kMaxJsonDepth, 5000, 200000}) {
        const auto j = result(nested(levels));
        CHECK(j["ok"] == false);
        CHECK(j["error"]["message"].get<std::string>().find("nested deeper than") != std::string::npos);
        CHECK(j["error"]["path"].get<std::string>().rfind("/model/a/a", 0) == 0);
    }
    CHECK(result("[[[[[[[[[[1]]]]]]]]]]")["error"]["path"] == "");  // not an object: the scenario reader's error
}

TEST_CASE("sizes whose byte counts pass 2^62 are input errors, never negative memory") {
    auto j = result(R"({"model":{"layers":65536,"hidden":4194304,"heads":64,"vocab":67108864,"max_positions":67108864},
        "training":{"seq_len":67108864,"micro_batch":65536}})");
    CHECK(j["error"]["path"] == "/model");
    j = result(R"({"model":{"layers":64,"hidden":8192,"heads":64,"vocab":32000,"max_positions":67108864},
        "training":{"seq_len":67108864,"micro_batch":65536}})");
    CHECK(j["error"]["path"] == "/training/micro_batch");
    j = result(R"({"model":{"preset":"gpt2"},"training":{"train_tokens":1e300}})");
    CHECK(j["error"]["path"] == "/training/train_tokens");
    // Large but reportable: every byte count is a non-negative integer.
    j = result(R"({"model":{"preset":"llama-3.1-405b"},"training":{"seq_len":131072,"micro_batch":64}})");
    REQUIRE(j["ok"] == true);
    for (const auto& [k, v] : j["report"]["memory"]["per_device"].items())
        if (v.is_number()) CHECK(v.get<double>() >= 0);
    for (const auto& [dim, d] : j["report"]["communication_summary"].items()) CHECK(d["volume_per_iteration"].get<double>() >= 0);
}

TEST_CASE("the report's scenario echo reads back to the identical report") {
    for (const char* s : {R"({"model":{"layers":2,"hidden":64,"heads":4,"vocab":100,"position_embedding":"rope"},"training":{"seq_len":32}})",
                          R"({"model":{"preset":"gpt2"},"hardware":{"preset":"tpu-v3"},"training":{"seq_len":512}})",
                          R"({"framework":"pytorch","model":{"preset":"gpt2"},"hardware":{"peak_tflops":{"fp8":0}},"training":{"seq_len":512}})"}) {
        auto first = result(s);
        REQUIRE_MESSAGE(first["ok"] == true, s);
        auto again = result(first["report"]["scenario"].dump());
        REQUIRE_MESSAGE(again["ok"] == true, again.dump());
        // Read back once more: a fixed point, notes included.
        CHECK(result(again["report"]["scenario"].dump())["report"] == again["report"]);
        // Against the original, only the notes of assumptions made explicit by the echo may go.
        first["report"].erase("notes");
        again["report"].erase("notes");
        CHECK(again["report"] == first["report"]);
    }
}

TEST_CASE("headroom is exactly capacity minus the per-device total, as printed") {
    for (const char* s : {R"({"model":{"preset":"gpt2"},"training":{"seq_len":1024,"micro_batch":3}})",
                          R"({"model":{"preset":"llama-3.1-70b"},"parallel":{"tp":8,"pp":4},"training":{"seq_len":4096,"global_batch":16}})"}) {
        const auto m = result(s)["report"]["memory"];
        CHECK(m["headroom"].get<int64_t>() == m["capacity"].get<int64_t>() - m["per_device"]["total"].get<int64_t>());
    }
}

TEST_CASE("a misspelled preset id gets suggestions") {
    auto msg = [](const char* s) { return result(s)["error"]["message"].get<std::string>(); };
    CHECK(msg(R"({"model":{"preset":"gpt-2"}})").find(R"(did you mean "gpt2"?)") != std::string::npos);
    CHECK(msg(R"({"model":{"preset":"llama-3-70b"}})").find(R"("llama-3.1-70b")") != std::string::npos);
    CHECK(msg(R"({"model":{"preset":"gpt2"},"hardware":{"preset":"h100"}})").find(R"("h100-sxm-80gb")") != std::string::npos);
    CHECK(msg(R"({"model":{"preset":"qqqqqqqq"}})").find("did you mean") == std::string::npos);
}

TEST_CASE("hardware figures that would overflow the report's 64-bit byte counts are field errors") {
    CHECK(result(R"({"model":{"preset":"gpt2"},"hardware":{"memory_gib":1e300}})")["error"]["path"] == "/hardware/memory_gib");
    CHECK(result(R"({"model":{"preset":"gpt2"},"hardware":{"overhead_gib":1e20}})")["error"]["path"] == "/hardware/overhead_gib");
    CHECK(result(R"({"model":{"preset":"gpt2"},"hardware":{"workspace_mib":1e30}})")["error"]["path"] == "/hardware/workspace_mib");
    // The largest allowed capacity still reports exactly.
    const auto j = result(R"({"model":{"preset":"gpt2"},"hardware":{"memory_gib":4294967296}})");
    REQUIRE(j["ok"] == true);
    CHECK(j["report"]["memory"]["capacity"].get<int64_t>() == int64_t{1} << 62);
}
