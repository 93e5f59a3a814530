#pragma once
// Which values a field may take in the current plan, found by asking the engine's own rules: each
// candidate is put into the scenario and read and validated exactly as an evaluation would, so the
// page's menus and steppers can never disagree with the error they would otherwise meet.
#include <nlohmann/json.hpp>
#include <string>

namespace shardcalc {

// `request`: {"/parallel/zero": [0, 1, 2, 3], "/parallel/offload_params": ["none", "cpu", "nvme"], ...}.
// Answer: {"ok": true, "options": {"/parallel/zero": [{"value": 0, "valid": true},
//          {"value": 2, "valid": false, "reason": "..."}], ...}}. A candidate is valid when it raises no
// problem at its own field and none that the scenario did not already have elsewhere.
nlohmann::json field_options(const nlohmann::json& scenario, const nlohmann::json& request);

// The nearest valid integer to `from` in `direction` (+1 or -1) for the integer field at `path`, by the same
// test: {"ok": true, "value": n} or {"ok": true, "value": null} when none lies within the search window.
nlohmann::json step_value(const nlohmann::json& scenario, const std::string& path, int64_t from, int direction);

}  // namespace shardcalc
