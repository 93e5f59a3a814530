// The whole engine's embind surface (wasm/CMakeLists.txt): strings in, strings out (decoded by js_text). Errors are
// values ({"ok":false,"error":{path,message}}); no C++ exception crosses into JavaScript. The page's first
// module, the core, has a C surface instead (core.cpp).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "guard.h"
#include "io/api.h"
#include "version.h"

namespace {

using emscripten::val;
using shardcalc::wasm::never_throws;

// An answer as a JavaScript string, decoded by the browser's TextDecoder straight from the module's memory: embind's
// std::string return walks the bytes twice in JavaScript (a search for NUL bytes, then the UTF-8 decoding), a quarter
// of a report's time under Node (docs/performance.md). Invalid UTF-8 cannot occur (the writers replace it).
val js_text(const std::string& s) {
    static const val decoder = val::global("TextDecoder").new_(std::string("utf-8"));
    return decoder.call<val>("decode", val(emscripten::typed_memory_view(s.size(), reinterpret_cast<const unsigned char*>(s.data()))));
}

template <std::string (*F)(const std::string&)>
val guarded(const std::string& text) {
    return js_text(never_throws([&] { return F(text); }));
}

val presets() { return js_text(never_throws([] { return shardcalc::presets_text(); })); }
// The scenario's schema (`shardcalc schema`): web/build.mjs derives the page's field choices and defaults from it.
val schema() { return js_text(never_throws([] { return shardcalc::schema_text(); })); }

// The plan search in slices: the page's worker steps it, posting progress, and can stop between steps.
// SearchSession never throws (io/api.h).
using shardcalc::SearchSession;
std::string version() { return shardcalc::kEngineVersion; }
val search_result(SearchSession& s) { return js_text(s.result()); }
val search_findings(SearchSession& s) { return js_text(s.findings()); }

// The per-kernel table of pipeline rank `stage` (negative: the slowest stage), io/api.h.
val kernels(const std::string& text, int stage) {
    return js_text(never_throws([&] { return shardcalc::kernels_scenario_text(text, stage); }));
}

// How to launch the scenario's own plan (io/api.h launch_scenario_text): `tool` "all" (the plan framework's own
// generator) or megatron-lm, megatron-deepspeed, hf-trainer, xla-mesh; {"ok":true,"framework","generator",
// "launch":[{"tool","lines"}]} or the error value (/framework, /tool, or the scenario's field).
val launch(const std::string& text, const std::string& tool) {
    return js_text(never_throws([&] { return shardcalc::launch_scenario_text(text, tool); }));
}

// A run's log against the scenario's estimate (io/api.h reconcile_text): {"ok":true,"reconciliation":{...}} or the
// error value (the log's at /log).
val reconcile(const std::string& text, const std::string& log) {
    return js_text(never_throws([&] { return shardcalc::reconcile_text(text, log); }));
}

// Serving the scenario's model (io/api.h serve_scenario_text, docs/serving.md); with a vLLM server's log, that log set
// against the estimate (serve_reconcile_text): {"ok":true,"serving"|"serving_reconciliation":{...}} or the error value.
val serve(const std::string& text, const std::string& log) {
    return js_text(never_throws([&] { return log.empty() ? shardcalc::serve_scenario_text(text) : shardcalc::serve_reconcile_text(text, log); }));
}

// RL post-training of the scenario's model (io/api.h rl_scenario_text, docs/rl.md); with verl's log, that log set
// against the estimate (rl_reconcile_text): {"ok":true,"rl"|"rl_reconciliation":{...}} or the error value.
val rl(const std::string& text, const std::string& log) {
    return js_text(never_throws([&] { return log.empty() ? shardcalc::rl_scenario_text(text) : shardcalc::rl_reconcile_text(text, log); }));
}

// The report as Markdown (io/api.h text_answer), amounts in `unit` (GiB or GB): the page's "Copy Markdown"
// exports the same document as `shardcalc estimate --format markdown`.
val markdown(const std::string& text, const std::string& unit) {
    return js_text(never_throws([&] { return shardcalc::text_answer(text, {"estimate", "markdown", unit}); }));
}

}  // namespace

EMSCRIPTEN_BINDINGS(shardcalc) {
    emscripten::function("evaluate", &guarded<&shardcalc::evaluate_scenario_text>);
    emscripten::function("presets", &presets);
    emscripten::function("schema", &schema);
    emscripten::function("choices", &guarded<&shardcalc::choices_text>);
    emscripten::function("version", &version);
    // A Hugging Face config.json read as the model fields (io/import/hf_config.h), or the refusal with its reason.
    emscripten::function("importConfig", &guarded<&shardcalc::import_config_text>);
    emscripten::function("kernels", &kernels);
    emscripten::function("launch", &launch);
    emscripten::function("reconcile", &reconcile);
    emscripten::function("serve", &serve);
    emscripten::function("rl", &rl);
    emscripten::function("markdown", &markdown);
    // A search, or one of its parts (text, part, parts): the page's helper workers run the others and the first
    // joins their findings (web/src/js/search-run.js).
    emscripten::class_<SearchSession>("SearchSession")
        .constructor<std::string>()
        .constructor<std::string, int, int>()
        .function("done", &SearchSession::done)
        .function("progress", &SearchSession::progress)
        .function("step", &SearchSession::step)
        .function("result", &search_result)
        .function("findings", &search_findings)
        .function("join", &SearchSession::join);
}
