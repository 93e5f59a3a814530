// embind surface of the engine: strings in, strings out. Errors are values
// ({"ok":false,"error":{path,message}}); no C++ exception crosses into JavaScript.
#include <emscripten/bind.h>

#include <string>

#include "io/api.h"
#include "version.h"

namespace {

std::string internal_error() { return shardcalc::to_text(shardcalc::error_value("", "internal error")); }

// Every string-in, string-out entry point goes through this guard: the API answers errors as values and
// does not throw, but nothing thrown may ever reach JavaScript, whatever happens.
template <std::string (*F)(const std::string&)>
std::string guarded(const std::string& text) {
    try {
        return F(text);
    } catch (...) {
        return internal_error();
    }
}

std::string presets() {
    try {
        return shardcalc::presets_text();
    } catch (...) {
        return internal_error();
    }
}

// The plan search in slices: the page's worker steps it, posting progress, and can stop between steps.
// SearchSession never throws (io/api.h).
using shardcalc::SearchSession;
std::string version() { return shardcalc::kEngineVersion; }

}  // namespace

EMSCRIPTEN_BINDINGS(shardcalc) {
    emscripten::function("evaluate", &guarded<&shardcalc::evaluate_scenario_text>);
    emscripten::function("presets", &presets);
    emscripten::function("choices", &guarded<&shardcalc::choices_text>);
    emscripten::function("version", &version);
#ifndef SHARDCALC_WASM_CORE  // the core module has no search and no config import (wasm/CMakeLists.txt)
    // A Hugging Face config.json read as the model fields (io/hf_config.h), or the refusal with its reason.
    emscripten::function("importConfig", &guarded<&shardcalc::import_config_text>);
    emscripten::class_<SearchSession>("SearchSession")
        .constructor<std::string>()
        .function("done", &SearchSession::done)
        .function("progress", &SearchSession::progress)
        .function("step", &SearchSession::step)
        .function("result", &SearchSession::result);
#endif
}
