// Input that once crashed, overflowed or misled (issue 8), each a regression test: numbers beyond
// double range, nesting deeper than any scenario, sizes whose byte counts pass 64 bits, the
// resolved-scenario echo read back (max_positions 0 and zero peaks used to be rejected or replaced by
// the preset's values), headroom.
#include <cmath>
#include <functional>
#include <set>
#include <utility>
#include <vector>
#include <string>

#include "helpers.h"
#include "io/codec/json_text.h"
#include "core/decimal.h"
#include "io/codec/json_writer.h"

using namespace shardcalc;

namespace {

nlohmann::json result(const std::string& text) { return nlohmann::json::parse(evaluate_scenario_text(text)); }

// A fixed-seed xorshift64 generator: the random texts of the JSON tests, the same on every run.
struct Xorshift {
    uint64_t state;
    uint64_t operator()() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    }
};

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

namespace {

// Every number anywhere in a report is finite (Infinity and NaN would be written as null).
void require_all_finite(const nlohmann::json& j, const std::string& path) {
    INFO("at report" << path);
    REQUIRE(!j.is_null());
    if (j.is_number_float()) REQUIRE(std::isfinite(j.get<double>()));
    if (j.is_object())
        for (auto it = j.begin(); it != j.end(); ++it) require_all_finite(it.value(), path + "/" + it.key());
    if (j.is_array())
        for (size_t i = 0; i < j.size(); ++i) require_all_finite(j[i], path + "/" + std::to_string(i));
}

std::string with(const std::string& section, const std::string& field) {
    return R"({"model":{"preset":"gpt2"},")" + section + R"(":{)" + field + "}}";
}

}  // namespace

TEST_CASE("hardware and implementation figures are bounded so every derived figure stays finite") {
    // Each once gave null (Infinity) times or rates, or a step time of 0 (finite() hid the Infinity).
    const std::vector<std::pair<std::string, std::string>> outside = {
        {"hardware", R"("hbm_gbps":1e308)"},           {"hardware", R"("hbm_gbps":1e-300)"},
        {"hardware", R"("intra_node_gbps":1e300)"},    {"hardware", R"("matmul_efficiency":1e-300)"},
        {"hardware", R"("kernel_launch_us":1e300)"},   {"hardware", R"("price_per_gpu_hour":1e300)"},
        {"hardware", R"("peak_tflops":{"bf16":5e-324})"}, {"hardware", R"("peak_tflops":{"fp32":1e300})"},
        {"implementation", R"("host_forward_us":1e308)"}, {"implementation", R"("host_backward_us":1e7)"},
        {"training", R"("train_tokens":1e19)"},
    };
    for (const auto& [section, field] : outside) {
        const auto e = test::error_of(with(section, field));
        INFO(section << " " << field << " -> " << e.dump());
        const std::string key = field.substr(field.find('"') + 1, field.find('"', 1) - 1);
        CHECK(e["path"].get<std::string>().rfind("/" + section + "/" + key, 0) == 0);
        CHECK(e["message"].get<std::string>().find(" to ") != std::string::npos);  // says the range
    }
    // At the edges of the ranges every number of the report is finite.
    for (const auto& [section, field] : std::vector<std::pair<std::string, std::string>>{
             {"hardware", R"("hbm_gbps":0.001,"intra_node_gbps":0.001,"inter_node_gbps":0.001,"matmul_efficiency":0.001,
                 "attention_efficiency":0.001,"hbm_efficiency":0.001,"kernel_launch_us":1e6,
                 "peak_tflops":{"fp32":0.001,"bf16":0.001,"fp16":0.001,"tf32":0}, "gpus_per_node":1)"},
             {"hardware", R"("hbm_gbps":1e9,"intra_node_gbps":1e9,"inter_node_gbps":1e9,"kernel_launch_us":0,
                 "intra_node_latency_us":0,"inter_node_latency_us":0,"peak_tflops":{"fp32":1e9,"bf16":1e9,"fp16":1e9})"},
             {"implementation", R"("host_forward_us":1e6,"host_backward_us":1e6)"}}) {
        std::string text = with(section, field);
        text.insert(text.size() - 1, R"(,"parallel":{"dp":2,"pp":2},"training":{"train_tokens":1e12})");
        const auto j = result(text);
        INFO(text << " -> " << j.dump().substr(0, 400));
        REQUIRE(j["ok"] == true);
        require_all_finite(j["report"], "");
        CHECK(j["report"]["time"]["step_seconds"].get<double>() > 0);
    }
    // At the top of every range the run's cost past 2^62 is a field error, not an overflow.
    CHECK(test::error_of(with("hardware", R"("price_per_gpu_hour":1e9,"hbm_gbps":0.001},"training":{"train_tokens":1e18)"))
              ["path"] == "/hardware/price_per_gpu_hour");
    // null drops the preset's value (docs/scenario.md); a bandwidth left at 0 once divided by zero (fuzz finding).
    const auto gone = test::error_of(with("hardware", R"("hbm_gbps":null)"));
    CHECK(gone["path"] == "/hardware/hbm_gbps");
    CHECK(gone["message"].get<std::string>().find("required") != std::string::npos);
    // A peak is 0 (no such unit) or a real rate.
    CHECK(test::error_of(with("hardware", R"("peak_tflops":{"fp8":1e-9})"))["path"] == "/hardware/peak_tflops/fp8");
    CHECK(result(with("hardware", R"("peak_tflops":{"fp8":0})"))["ok"] == true);
}

TEST_CASE("a NUL byte ends neither the input nor an error message") {
    // nlohmann's lexer stops at a raw NUL: the text after it was once ignored.
    const std::string raw = std::string(R"({"model":{"preset":"gpt2"}})") + '\0' + "garbage";
    const auto j = result(raw);
    CHECK(j["ok"] == false);
    CHECK(j["error"]["message"].get<std::string>().find("NUL byte at line 1, column 28 (byte 27)") != std::string::npos);
    // An escaped NUL inside a string is valid JSON; the message echoing it once stopped at the NUL.
    const auto e = test::error_of(R"({"model":{"preset":"gpt\u0000-after-nul"}})");
    CHECK(e["path"] == "/model/preset");
    CHECK(e["message"].get<std::string>().find("after-nul") != std::string::npos);
    CHECK(e["message"].get<std::string>().find("presets") != std::string::npos);  // the message's tail survives
}

TEST_CASE("a decoder whose tied output layer cannot share a factorized embedding is refused, not miscounted") {
    // Once: an output layer of [vocab, hidden] tied to a [vocab, embedding_dim] table, and with pp > 1 a last
    // stage holding more parameters than the whole model.
    const auto e = test::error_of(R"({"model":{"layers":4,"hidden":256,"heads":4,"vocab":1000,"embedding_dim":64,"max_positions":2048}})");
    CHECK(e["path"] == "/model/embedding_dim");
    CHECK(e["message"].get<std::string>().find("tied_embeddings") != std::string::npos);
    // Untied, the same model is counted consistently at every pipeline depth.
    const std::string untied = R"({"model":{"layers":4,"hidden":256,"heads":4,"vocab":1000,"embedding_dim":64,
        "max_positions":2048,"tied_embeddings":false},"parallel":{"pp":)";
    const auto one = result(untied + "1}}");
    const auto two = result(untied + "2}}");
    REQUIRE(one["ok"] == true);
    REQUIRE(two["ok"] == true);
    CHECK(one["report"]["parameters"]["total"] == two["report"]["parameters"]["total"]);
    // ALBERT (an encoder) keeps its tied factorized embedding.
    CHECK(result(R"({"model":{"preset":"albert-base"}})")["ok"] == true);
}

TEST_CASE("the engine's JSON writer prints every value as nlohmann's dump does, invalid UTF-8 replaced the same way") {
    // The WebAssembly core writes its answers and error messages with io/codec/json_writer.cpp alone (no nlohmann
    // serializer there): byte for byte what dump(-1) with error_handler_t::replace gives, on random bytes.
    Xorshift next{0x9e3779b97f4a7c15ULL};
    const unsigned char interesting[] = {0x00, 0x1f, 0x22, 0x5c, 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed,
                                         0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xa0, 0x9f, 0x90, 0x8f, 'a', '\n', 0x08};
    for (int i = 0; i < 20000; ++i) {
        std::string s;
        const size_t n = next() % 12;
        for (size_t k = 0; k < n; ++k)
            s += static_cast<char>(next() % 3 ? interesting[next() % sizeof interesting] : static_cast<unsigned char>(next()));
        const nlohmann::json j = {{"k" + s, {s, 1.5, -3, true, nullptr, nlohmann::json::object()}}};
        REQUIRE(shardcalc::compact_json(j) == j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
    for (const char* s : {"\xe2\x28\xa1", "\xf4\x90\x80\x80", "\xed\xa0\x80", "\xe0\x80\xaf", "\xc3", "\xf0\x9f\x98\x80", "\xef\xbf\xbd"}) {
        const nlohmann::json j = s;
        CHECK(shardcalc::compact_json(j) == j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
}

TEST_CASE("the JSON writer's numbers are nlohmann's: whole numbers by their fast path, every other by Grisu2") {
    // json_number writes a whole number under 10^15 without the digit search; it must equal nlohmann's dump exactly
    // (digits and ".0" up to 15 digits, then the exponent form), so must the integers of every width and sign.
    Xorshift next{0x2545f4914f6cdd1dULL};
    auto same = [](double v) {
        REQUIRE_MESSAGE(shardcalc::json_number(v) == nlohmann::json(v).dump(), v);
    };
    for (const double v : {0.0, -0.0, 1.0, -1.0, 1e14, 1e15 - 1, 1e15, -1e15, 1e15 + 2, 1e16, 9007199254740992.0,
                           123456789012345.0, 0.5, -2.5, 1e-7, 5e-324, 1.7976931348623157e308})
        same(v);
    for (int i = 0; i < 200000; ++i) {
        const double whole = static_cast<double>(static_cast<int64_t>(next() % 2000000000000000ULL) - 1000000000000000LL);
        same(whole);
        same(std::ldexp(static_cast<double>(next() >> 11), static_cast<int>(next() % 120) - 60));
        same(-static_cast<double>(next() % 100000) / 8);
    }
    for (const int64_t v : {int64_t{0}, int64_t{-1}, INT64_MAX, INT64_MIN, int64_t{1234567890123}}) {
        shardcalc::JsonWriter w;
        w.value(v);
        CHECK(w.text() == nlohmann::json(v).dump());
    }
    shardcalc::JsonWriter w;
    w.value(nlohmann::json(UINT64_MAX));
    CHECK(w.text() == nlohmann::json(UINT64_MAX).dump());
}

TEST_CASE("numbers in messages without printf (core/decimal.h)") {
    CHECK(decimal(12.345678, 2) == "12.35");
    CHECK(decimal(-0.004, 2) == "0.00");
    CHECK(decimal(-1.5, 1) == "-1.5");
    CHECK(decimal(0.05, 2) == "0.05");
    CHECK(decimal(79.2, 0) == "79");
    CHECK(decimal(1073741825, 0) == "1073741825");
    CHECK(decimal(std::nan(""), 2) == "nan");
    CHECK(decimal(-INFINITY, 2) == "-inf");
}

// The pointer of the first member whose key repeats one before it in the same object (in document order, where
// io/codec/json_text.cpp stops), found with nlohmann's SAX parser; empty when no key repeats. Only for valid JSON.
struct FirstDuplicate : nlohmann::json_sax<nlohmann::json> {
    struct Level {
        bool array = false;
        long long index = -1;
        std::string key;
        std::set<std::string> keys;
    };
    std::vector<Level> levels;
    std::string found;
    bool any = false;

    bool value() {
        if (!levels.empty() && levels.back().array) ++levels.back().index;
        return true;
    }
    std::string pointer() const {
        std::string out;
        for (const Level& l : levels) out += "/" + (l.array ? std::to_string(l.index) : pointer_token(l.key));
        return out;
    }
    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool string(string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override {
        value();
        levels.push_back({false, -1, "", {}});
        return true;
    }
    bool key(string_t& k) override {
        levels.back().key = k;
        if (!levels.back().keys.insert(k).second && !any) {
            any = true;
            found = pointer();
        }
        return true;
    }
    bool end_object() override {
        levels.pop_back();
        return true;
    }
    bool start_array(std::size_t) override {
        value();
        levels.push_back({true, -1, "", {}});
        return true;
    }
    bool end_array() override {
        levels.pop_back();
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

TEST_CASE("the engine's JSON reader accepts and builds exactly what nlohmann's parser does, on random text") {
    // io/codec/json_text.cpp reads every input of the engine (and is the page core's only parser): on valid JSON and
    // on text a mutation broke, it must agree with nlohmann::json::parse, value types included, except that a
    // key repeated in one object (which nlohmann reads as its last value) is refused at that member's pointer.
    Xorshift next{0x243f6a8885a308d3ULL};
    const std::vector<std::string> atoms = {"0", "-0", "1", "-1", "12.5", "1e3", "1E-2", "-2.5e+10", "18446744073709551615",
                                            "18446744073709551616", "-9223372036854775808", "-9223372036854775809",
                                            "1e-400", "0.1", "123456789012345678901234567890", "true", "false", "null",
                                            "\"\"", "\"a\\n\\t\\\"\\\\\\/\"", "\"\\u00e9\\uD83D\\uDE00\"", "\"\xc3\xa9\xf0\x9f\x98\x80\"",
                                            "\"\\u0000\"", "[]", "{}"};
    std::function<std::string(int)> gen = [&](int depth) -> std::string {
        const uint64_t r = next() % 10;
        if (depth > 4 || r < 5) return atoms[next() % atoms.size()];
        std::string s;
        const int n = static_cast<int>(next() % 4);
        if (r < 8) {
            s = "[";
            for (int i = 0; i < n; ++i) s += (i ? ", " : " ") + gen(depth + 1);
            return s + "]";
        }
        s = "{";
        for (int i = 0; i < n; ++i) s += std::string(i ? "," : "") + "\"k" + std::to_string(next() % 3) + "\" : " + gen(depth + 1);
        return s + "}";
    };
    const std::string noise = "{}[],:\"\\-+.eE0123456789tfnul \n\x01\xc3\xed\xa0\xff\xef\xbb\xbf";
    int valid = 0, invalid = 0, duplicates = 0;
    for (int i = 0; i < 20000; ++i) {
        std::string text = gen(0);
        if (next() % 4 == 0) text = "\xef\xbb\xbf" + text;  // a byte-order mark
        const int mutations = next() % 2 ? 0 : 1 + static_cast<int>(next() % 3);
        for (int m = 0; m < mutations && !text.empty(); ++m) {
            const size_t at = next() % text.size();
            const uint64_t kind = next() % 3;
            if (kind == 0) text.erase(at, 1);
            else if (kind == 1) text.insert(at, 1, noise[next() % noise.size()]);
            else text[at] = noise[next() % noise.size()];
        }
        if (text.find('\0') != std::string::npos) continue;  // refused by name before either parser
        const nlohmann::json theirs = nlohmann::json::parse(text, nullptr, false);
        FirstDuplicate duplicate;
        if (!theirs.is_discarded()) REQUIRE(nlohmann::json::sax_parse(text, &duplicate));
        nlohmann::json ours;
        bool ok = true;
        std::string error_path, error_message;
        try {
            ours = parse_json_text(text);
        } catch (const InputError& e) {
            ok = false;
            error_path = e.path();
            error_message = e.message();
        }
        CAPTURE(text);
        REQUIRE(ok == (!theirs.is_discarded() && !duplicate.any));
        if (duplicate.any) {
            ++duplicates;
            CHECK(error_path == duplicate.found);
            CHECK(error_message.rfind("duplicate key \"", 0) == 0);
        }
        std::function<bool(const nlohmann::json&, const nlohmann::json&)> same_types = [&](const nlohmann::json& a, const nlohmann::json& b) {
            if (a.type() != b.type() || a.size() != b.size()) return false;
            if (a.is_array())
                for (size_t k = 0; k < a.size(); ++k)
                    if (!same_types(a[k], b[k])) return false;
            if (a.is_object())
                for (auto it = a.begin(); it != a.end(); ++it)
                    if (!b.contains(it.key()) || !same_types(it.value(), b[it.key()])) return false;
            return true;
        };
        if (ok) {
            REQUIRE(ours.dump() == theirs.dump());
            REQUIRE(ours == theirs);
            REQUIRE(same_types(ours, theirs));  // signed, unsigned and float alike
            ++valid;
        } else {
            ++invalid;
        }
    }
    CHECK(valid > 5000);
    CHECK(invalid > 2000);
    CHECK(duplicates > 500);  // the keys are k0, k1 and k2: many objects repeat one
}

TEST_CASE("thousands of problems: the first 100 listed, then how many more, not megabytes of text") {
    // Issue 30: 5,300 unknown keys were answered with 3.6 MB of errors, each repeating the keys allowed there.
    nlohmann::json training = nlohmann::json::object();
    for (int i = 0; i < 5300; ++i) training["k" + std::to_string(i)] = 1;
    const std::string answer = shardcalc::evaluate_scenario_text(
        nlohmann::json{{"model", {{"preset", "gpt2"}}}, {"training", training}}.dump());
    CHECK(answer.size() < 64 * 1024);
    const auto j = nlohmann::json::parse(answer);
    REQUIRE(j["errors"].size() == 101);
    CHECK(j["errors"][0]["path"].get<std::string>().rfind("/training/k", 0) == 0);
    CHECK(j["errors"][100]["message"] == "5200 more problems not listed (the first 100 are)");
    // A few problems are all listed, as before.
    CHECK(nlohmann::json::parse(shardcalc::evaluate_scenario_text(R"({"model":{"preset":"gpt2"},"training":{"a":1,"b":2}})"))["errors"].size() == 2);
}
