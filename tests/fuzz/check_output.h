#pragma once
// The check both fuzz targets run on every input: evaluate it through the public JSON API
// (engine/io/api.h, what the CLI and the WebAssembly page call), then hold the output to its contract.
// A broken contract aborts, which libFuzzer records as a crash with the input that caused it.
//
//   - the output is valid JSON (and valid UTF-8) with a boolean "ok";
//   - ok false: "error" has a string "path" ("" or a JSON pointer) and a string "message", and the
//     message is not an "internal error" (that is how the API reports an engine defect); "errors" lists
//     every problem the same way, the first being "error";
//   - ok true: "report.memory" is an object in which every byte count is >= 0 (two fields are signed by
//     definition, capacity minus use: memory.headroom and memory.verdict.margin), and every number of
//     the report is finite (NaN and Infinity are written as null, so null is a failure too).
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "io/api.h"

namespace fuzz {

using nlohmann::json;

[[noreturn]] inline void fail(const std::string& what, const std::string& input, const std::string& output) {
    std::fprintf(stderr, "\n*** shardcalc fuzz check failed: %s\n*** input (%zu bytes): %.2000s\n*** output: %.2000s\n",
                 what.c_str(), input.size(), input.c_str(), output.c_str());
    std::abort();
}

inline bool signed_by_definition(const std::string& path) {
    return path == "/headroom" || path == "/verdict/margin";
}

// Walks report.memory; `path` is relative to it.
inline void check_memory(const json& j, const std::string& path, const std::string& in, const std::string& out) {
    switch (j.type()) {
        case json::value_t::object:
            for (auto it = j.begin(); it != j.end(); ++it) check_memory(it.value(), path + "/" + it.key(), in, out);
            break;
        case json::value_t::array:
            for (size_t i = 0; i < j.size(); ++i) check_memory(j[i], path + "/" + std::to_string(i), in, out);
            break;
        case json::value_t::null:
            fail("null (NaN or Infinity) at report/memory" + path, in, out);
        case json::value_t::number_float: {
            const double v = j.get<double>();
            if (!std::isfinite(v)) fail("non-finite number at report/memory" + path, in, out);
            if (v < 0 && !signed_by_definition(path)) fail("negative number at report/memory" + path, in, out);
            break;
        }
        case json::value_t::number_integer:
            if (j.get<int64_t>() < 0 && !signed_by_definition(path))
                fail("negative number at report/memory" + path, in, out);
            break;
        default:
            break;
    }
}

// Every number of the whole report is finite (no null either): hardware and implementation figures are
// bounded (io/contract/scenario_schema.cpp), so no derived time, rate or cost can overflow.
inline void check_finite(const json& j, const std::string& path, const std::string& in, const std::string& out) {
    if (j.is_null()) fail("null (NaN or Infinity) at report" + path, in, out);
    if (j.is_number_float() && !std::isfinite(j.get<double>())) fail("non-finite number at report" + path, in, out);
    if (j.is_object())
        for (auto it = j.begin(); it != j.end(); ++it) check_finite(it.value(), path + "/" + it.key(), in, out);
    if (j.is_array())
        for (size_t i = 0; i < j.size(); ++i) check_finite(j[i], path + "/" + std::to_string(i), in, out);
}

// The envelope every answer of the API keeps: valid JSON with a boolean "ok"; ok false with an error's path and message
// (never an internal error) and every problem listed. Returns the parsed answer when ok is true, else null.
inline json checked_answer(const std::string& in, const std::string& out) {
    const json r = json::parse(out, nullptr, /*allow_exceptions=*/false);
    if (r.is_discarded()) fail("the output is not valid JSON", in, out);
    if (!r.is_object() || !r.contains("ok") || !r["ok"].is_boolean()) fail("the output has no boolean \"ok\"", in, out);
    if (!r["ok"].get<bool>()) {
        const json& e = r.contains("error") ? r["error"] : json();
        if (!e.is_object() || !e.contains("path") || !e["path"].is_string() || !e.contains("message") ||
            !e["message"].is_string())
            fail("ok false without error.path and error.message strings", in, out);
        const std::string path = e["path"].get<std::string>();
        if (!path.empty() && path[0] != '/') fail("error.path is neither \"\" nor a JSON pointer", in, out);
        if (e["message"].get<std::string>().rfind("internal error", 0) == 0) fail("internal error (an engine defect)", in, out);
        // Every problem at once: "errors" lists them all (each a path and a message), "error" is the first.
        if (!r.contains("errors") || !r["errors"].is_array() || r["errors"].empty() || r["errors"][0] != e)
            fail("ok false without an \"errors\" list whose first entry is \"error\"", in, out);
        for (const json& x : r["errors"])
            if (!x.is_object() || !x.contains("path") || !x["path"].is_string() || !x.contains("message") ||
                !x["message"].is_string() || x["message"].get<std::string>().rfind("internal error", 0) == 0)
                fail("an entry of \"errors\" is not a path and a message, or is an internal error", in, out);
        return json();
    }
    return r;
}

// A log set against a scenario (shardcalc reconcile, serve FILE LOG, rl FILE LOG): the envelope, and on success an
// object under `key` whose every number is finite.
inline void check_log_answer(const std::string& in, const std::string& out, const char* key) {
    const json r = checked_answer(in, out);
    if (r.is_null()) return;
    if (!r.contains(key) || !r[key].is_object()) fail(std::string("ok true without a ") + key + " object", in, out);
    check_finite(r[key], std::string("/") + key, in, out);
}

inline void evaluate_and_check(const uint8_t* data, size_t size) {
    const std::string in(reinterpret_cast<const char*>(data), size);
    const std::string out = shardcalc::evaluate_scenario_text(in);
    const json r = checked_answer(in, out);
    if (r.is_null()) return;
    if (!r.contains("report") || !r["report"].is_object()) fail("ok true without a report object", in, out);
    const json& report = r["report"];
    if (!report.contains("memory") || !report["memory"].is_object()) fail("report without a memory object", in, out);
    const json& memory = report["memory"];
    for (const char* key : {"per_device", "stages", "capacity"})
        if (!memory.contains(key)) fail(std::string("report.memory without ") + key, in, out);
    check_memory(memory, "", in, out);
    check_finite(report, "", in, out);
    // The same plan for people, in each format the engine writes from its report: answered, every number a number.
    for (const char* format : {"table", "markdown", "csv"}) {
        const json text = json::parse(shardcalc::text_answer(in, {"estimate", format}));
        if (!text.value("ok", false) || !text["text"].is_string()) fail(std::string("no ") + format + " for an answered plan", in, text.dump());
        const std::string t = text["text"].get<std::string>();
        // "nan" or "inf" as a word of its own: how a non-finite number would print (core/decimal.h); unless the input
        // names it (a device called "inf" shows as written).
        if (in.find("nan") != std::string::npos || in.find("inf") != std::string::npos) continue;
        const auto letter = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };
        for (const char* bad : {"nan", "inf"})
            for (size_t at = t.find(bad); at != std::string::npos; at = t.find(bad, at + 1))
                if ((at == 0 || !letter(t[at - 1])) && (at + 3 >= t.size() || !letter(t[at + 3])))
                    fail(std::string("a non-finite number in the ") + format, in, t);
    }
}

}  // namespace fuzz
