#pragma once
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "core/error.h"
#include "graph/build.h"
#include "io/api.h"
#include "io/contract/scenario_json.h"
#include "memory/activations.h"
#include "report/report.h"
#include "scenario/resolve.h"

namespace test {

inline shardcalc::Scenario scenario(const std::string& json) {
    return shardcalc::scenario_from_json(nlohmann::json::parse(json));
}
inline shardcalc::Config config(const std::string& json) { return shardcalc::resolve(scenario(json)); }
inline shardcalc::Report report(const std::string& json) { return shardcalc::evaluate(scenario(json)); }

// The error a scenario produces, as {path, message}; fails the test if it evaluates.
inline nlohmann::json error_of(const std::string& json) {
    const nlohmann::json r = nlohmann::json::parse(shardcalc::evaluate_scenario_text(json));
    REQUIRE_MESSAGE(r["ok"] == false, "expected an error for " << json);
    return r["error"];
}

// The memory lines of one moment of a stage's step ("forward_end", "loss_backward", ...).
inline const shardcalc::MemoryLines& phase(const shardcalc::StageMemory& m, const std::string& name) {
    for (const auto& p : m.timeline)
        if (p.name == name) return p.lines;
    FAIL("no phase " << name);
    return m;
}

// A file of the repository (examples/…, tests/data/…) as text; fails the test when it cannot be read.
inline std::string repo_file(const std::string& path) {
    std::ifstream in(std::string(SHARDCALC_PRESETS_DIR) + "/../" + path);
    REQUIRE_MESSAGE(in.good(), path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Relative error |a-b|/|b|.
inline double rel(double a, double b) { return (a - b) / b < 0 ? (b - a) / b : (a - b) / b; }

constexpr double GB = 1e9;
constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace test
