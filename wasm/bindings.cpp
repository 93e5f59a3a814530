// embind surface of the engine: strings in, strings out. Errors are values
// ({"ok":false,"error":{path,message}}); no C++ exception crosses into JavaScript.
#include <emscripten/bind.h>

#include <string>

#include "io/api.h"
#include "version.h"

namespace {

std::string guarded(std::string (*f)()) {
    try {
        return f();
    } catch (...) {
        return shardcalc::to_text(shardcalc::error_value("", "internal error"));
    }
}

std::string evaluate(const std::string& scenario_json) {
    try {
        return shardcalc::evaluate_scenario_text(scenario_json);
    } catch (...) {
        return shardcalc::to_text(shardcalc::error_value("", "internal error"));
    }
}

std::string presets() { return guarded(&shardcalc::presets_text); }

std::string choices(const std::string& request_json) {
    try {
        return shardcalc::choices_text(request_json);
    } catch (...) {
        return shardcalc::to_text(shardcalc::error_value("", "internal error"));
    }
}

// A Hugging Face config.json read as the model fields (io/hf_config.h), or the refusal with its reason.
std::string import_config(const std::string& config_json) {
    try {
        return shardcalc::import_config_text(config_json);
    } catch (...) {
        return shardcalc::to_text(shardcalc::error_value("", "internal error"));
    }
}

// The plan search in slices: the page's worker steps it, posting progress, and can stop between steps.
// SearchSession never throws (io/api.h).
using shardcalc::SearchSession;
std::string version() { return shardcalc::kEngineVersion; }

}  // namespace

EMSCRIPTEN_BINDINGS(shardcalc) {
    emscripten::function("evaluate", &evaluate);
    emscripten::function("presets", &presets);
    emscripten::function("choices", &choices);
    emscripten::function("version", &version);
#ifndef SHARDCALC_WASM_CORE  // the core module has no search and no config import (wasm/CMakeLists.txt)
    emscripten::function("importConfig", &import_config);
    emscripten::class_<SearchSession>("SearchSession")
        .constructor<std::string>()
        .function("done", &SearchSession::done)
        .function("progress", &SearchSession::progress)
        .function("step", &SearchSession::step)
        .function("result", &SearchSession::result);
#endif
}
