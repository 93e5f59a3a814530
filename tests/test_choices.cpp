// The values the page's menus and steppers offer come from the engine's own rules (io/contract/choices.h).
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "io/api.h"

namespace {

using nlohmann::json;

json ask(const json& request) { return json::parse(shardcalc::choices_text(request.dump())); }

json step(const json& scenario, const char* path, int64_t from, int direction) {
    return ask({{"scenario", scenario}, {"step", {{"path", path}, {"from", from}, {"direction", direction}}}})["value"];
}

// The validity of each candidate, in order.
std::vector<bool> valid(const json& scenario, const char* path, const json& candidates) {
    const json r = ask({{"scenario", scenario}, {"options", {{path, candidates}}}});
    REQUIRE(r["ok"] == true);
    std::vector<bool> out;
    for (const auto& o : r["options"][path]) out.push_back(o["valid"].get<bool>());
    return out;
}

const json kLlama8b = {{"model", {{"preset", "llama-3.1-8b"}}}, {"training", {{"seq_len", 8192}, {"global_batch", 64}}},
                       {"parallel", {{"dp", 2}, {"tp", 4}, {"sp", true}}}};

}  // namespace

TEST_CASE("steppers go to the next value the plan allows, in either direction") {
    // tp must divide 32 heads, 8 KV heads and 14,336: from 4, up is 8, then nothing within reach; down is 2.
    CHECK(step(kLlama8b, "/parallel/tp", 4, 1) == 8);
    CHECK(step(kLlama8b, "/parallel/tp", 8, 1).is_null());
    CHECK(step(kLlama8b, "/parallel/tp", 4, -1) == 2);
    CHECK(step(kLlama8b, "/parallel/tp", 1, -1).is_null());  // 0 is outside the field's range
    // From an invalid value (tp = 3, the error the user is looking at) both ways lead to valid ones.
    json bad = kLlama8b;
    bad["parallel"]["tp"] = 3;
    CHECK(step(bad, "/parallel/tp", 3, 1) == 4);
    CHECK(step(bad, "/parallel/tp", 3, -1) == 2);
    // pp must divide the 32 layers; dp must divide the global batch of 64 samples (micro-batch 1).
    CHECK(step(kLlama8b, "/parallel/pp", 8, 1) == 16);
    CHECK(step(kLlama8b, "/parallel/dp", 2, 1) == 4);
    CHECK(step(kLlama8b, "/training/micro_batch", 2, 1) == 4);  // 64 / (mb * dp 2) must be whole
    // A candidate that breaks a rule elsewhere is skipped too: with sp, tp must also divide the sequence.
    json odd = kLlama8b;
    odd["training"]["seq_len"] = 8190;  // 2 * 3^2 * 5 * 7 * 13
    odd["parallel"]["tp"] = 2;
    CHECK(step(odd, "/parallel/tp", 2, 1).is_null());  // 4 and 8 do not divide 8190
    // The scenario's own problem there (tp = 4 with sp) is not a licence for tp = 8, which has one like it.
    odd["parallel"]["tp"] = 4;
    CHECK(step(odd, "/parallel/tp", 4, 1).is_null());
    CHECK(step(odd, "/parallel/tp", 4, -1) == 2);
}

TEST_CASE("menus offer only what the framework allows, with the engine's reason for the rest") {
    json s = kLlama8b;
    s["framework"] = "megatron";
    CHECK(valid(s, "/parallel/zero", {0, 1, 2, 3}) == std::vector<bool>{true, false, false, false});
    s["framework"] = "fsdp";
    CHECK(valid(s, "/parallel/zero", {0, 1, 2, 3}) == std::vector<bool>{true, false, true, true});
    s["framework"] = "pytorch";
    CHECK(valid(s, "/parallel/zero", {0, 1, 2, 3}) == std::vector<bool>{true, true, false, false});
    s["framework"] = "deepspeed";
    CHECK(valid(s, "/parallel/zero", {0, 1, 2, 3}) == std::vector<bool>{true, true, true, true});
    s["parallel"]["pp"] = 2;  // DeepSpeed's pipeline engine takes ZeRO 0 or 1 only
    CHECK(valid(s, "/parallel/zero", {0, 1, 2, 3}) == std::vector<bool>{true, true, false, false});
    // The reason is the engine's own message for that value.
    s["framework"] = "megatron";
    const json r = ask({{"scenario", s}, {"options", {{"/parallel/offload_params", {"none", "cpu", "nvme"}}}}});
    CHECK(r["options"]["/parallel/offload_params"][0]["valid"] == true);
    CHECK(r["options"]["/parallel/offload_params"][1]["reason"].get<std::string>().find("megatron does not offload") !=
          std::string::npos);
}

TEST_CASE("a bad choices request is an error value naming what is wrong") {
    CHECK(ask({{"options", json::object()}})["ok"] == false);
    CHECK(ask({{"scenario", kLlama8b}, {"step", {{"path", "/parallel/tp"}, {"from", 1}, {"direction", 0}}}})["error"]["path"] ==
          "/step/direction");
    CHECK(ask({{"scenario", kLlama8b}, {"options", {{"no-slash", {1}}}}})["error"]["path"] == "no-slash");
    CHECK(ask({{"scenario", kLlama8b}, {"options", {{"/parallel/tp", 4}}}})["error"]["path"] == "/parallel/tp");
}
