#pragma once
// The engine's JSON API, shared by the CLI and the WebAssembly bindings. Errors come back
// as values: {"ok": false, "error": {"path": "/parallel/tp", "message": "..."}, "errors": [every problem]}.
#include <nlohmann/json.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/workers.h"

namespace shardcalc {

nlohmann::json evaluate_scenario(const nlohmann::json& scenario);  // {"ok": true, "report": {...}} or error
std::string evaluate_scenario_text(const std::string& scenario_json);
// A command's answer for people, written by the engine from its result (io/text_answer.cpp, io/render/): `format` table,
// markdown or csv where the command writes it; estimate's Markdown in `unit` (GiB or GB: the table is in GiB, the CSV in
// bytes); `stage` the pipeline rank of kernels; `log` set against the estimate.
// {"ok": true, "format", "text"} (estimate: and its "verdict") or the error value.
struct TextRequest {
    std::string command = "estimate";  // estimate | kernels | reconcile | rl | search | serve
    std::string format = "table";      // reconcile, rl and a log against serve: table only
    std::string unit = "GiB";
    int64_t stage = -1;
    std::optional<std::string> log;  // reconcile: the run's log; rl: verl's (optional); serve: vLLM's (optional)
    Workers workers;                 // search: split over them (search/search.h)
};
std::string text_answer(const std::string& scenario_json, const TextRequest& request);
nlohmann::json error_value(const std::string& path, const std::string& message);
nlohmann::json error_value(const std::vector<Problem>& problems);  // not empty
std::string presets_text();  // all_presets() serialised
std::string schema_text();   // the scenario's schema (io/contract/scenario_schema.h schema_to_json) serialised

// The plan search over a scenario with a "search" object (docs/search.md): {"ok": true, "search": {...}}.
std::string search_scenario_text(const std::string& scenario_json, const Workers& workers = {});

// Serving the scenario's model with a "serving" object (docs/serving.md): {"ok": true, "serving": {...}}.
std::string serve_scenario_text(const std::string& scenario_json);
// RL post-training of the scenario's model (its "rl" object; rl/rl.h): {"ok": true, "rl": {...}} (io/contract/rl_json.h).
std::string rl_scenario_text(const std::string& scenario_json);
// verl's per-step metrics lines (io/import/verl_log.h) set against the scenario's RL estimate (rl/rl_reconcile.h):
// {"ok": true, "rl_reconciliation": {...}} (io/contract/rl_json.h), or the error value (the log's at "/log").
std::string rl_reconcile_text(const std::string& scenario_json, const std::string& log_text);
// A vLLM server's start-up log (io/import/vllm_log.h) set against the scenario's serving estimate
// (serve/serving_reconcile.h): {"ok": true, "serving_reconciliation": {...}} (io/contract/serving_json.h), or the
// error value (the log's at "/log"). A "search" object in the serving object is not allowed here.
std::string serve_reconcile_text(const std::string& scenario_json, const std::string& log_text);

// The values fields may take in a plan (io/contract/choices.h), for menus and steppers that only offer valid ones:
// {"scenario": {...}, "options": {"/parallel/zero": [0, 1, 2, 3], ...}} or
// {"scenario": {...}, "step": {"path": "/parallel/tp", "from": 4, "direction": 1}}.
std::string choices_text(const std::string& request_json);

// A Hugging Face config.json read as the scenario's model fields (io/import/hf_config.h):
// {"ok": true, "family", "label", "model": {...}, "unknown": [...], "notes": [...]}, or the error value
// with each refusal at its config key ("/num_local_experts").
std::string import_config_text(const std::string& config_json);

// The per-kernel table of pipeline rank `stage` (report/kernel_table.h; negative: the stage whose kernels take
// longest): {"ok": true, "kernels": {...}} or the error value.
std::string kernels_scenario_text(const std::string& scenario_json, int64_t stage = -1);

// How to launch the scenario's own plan with its framework's tools (search/launch.h), the lines `shardcalc search`
// prints for a ranked plan: {"ok": true, "framework": "megatron", "generator": "megatron-lm",
// "launch": [{"tool": "torchrun", "lines": [...]}, {"tool": "Megatron-LM arguments (pretrain_gpt.py)", "lines": [...]}]}
// or the error value. `tool` picks a generator: megatron-lm (framework megatron), megatron-deepspeed (deepspeed),
// hf-trainer (fsdp, pytorch), xla-mesh (xla), or all (the framework's own); one that does not launch the plan's
// framework, or torchtitan (none is written), is an error at /framework, an unknown name one at /tool. A "search"
// object in the scenario is ignored.
std::string launch_scenario_text(const std::string& scenario_json, const std::string& tool = "all");

// A run's log set against the scenario's estimate (io/import/run_log.h reads the log, report/reconcile.h compares):
// {"ok": true, "reconciliation": {"source", "ranks": [{"rank", "stage", "peak_allocated": {"log", "estimate", "gap"},
// "allocator_reserve": {...}, "peak_reserved": {...}, "ooms"?, "alloc_retries"?}], "step_seconds": {"log", "log_reports",
// "estimate", "error"}, "findings": [...], "unknowns": [...], "calibration": {"implementation.fragmentation"?}}} (bytes and seconds), or the error value (the log's at "/log").
std::string reconcile_text(const std::string& scenario_json, const std::string& log_text);

class Searcher;
// A search run in slices, so that the page's worker can report progress and stop between them; `part` of `parts`
// (search/search.h SearchPart: the page's workers each run one, and the first joins the others' findings).
// Never throws: an input that cannot be searched is done at once, its result the error value.
class SearchSession {
public:
    explicit SearchSession(const std::string& scenario_json, int part = 0, int parts = 1);
    ~SearchSession();
    bool done() const;
    double progress() const;       // 0..1
    void step(int budget);         // about `budget` plans
    std::string result() const;    // the ranking so far, or the error
    // Once done: what this part found, {"ok": true, "findings": {...}} (io/contract/search_json.h), or the error.
    std::string findings() const;
    // Joins another part's findings (its findings() text) into this done part; an error value (the other part's
    // own, or of its text) ends the session with it: result() then answers that error.
    void join(const std::string& findings_json);

private:
    std::unique_ptr<Searcher> searcher_;
    std::string error_;
};
std::string to_text(const nlohmann::json& j);  // compact, invalid UTF-8 replaced

}  // namespace shardcalc
