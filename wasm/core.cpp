// The core module's surface (wasm/CMakeLists.txt): evaluate, presets, choices and version as plain C
// functions of a standalone WebAssembly module, which web/src/js/core-engine.js instantiates without
// Emscripten's JavaScript glue or embind (the page's first download: docs/performance.md).
// Text crosses as UTF-8: the page copies its request into memory from sc_alloc and passes pointer and
// length; each answer is a NUL-terminated string from malloc (JSON text, which never holds a raw NUL)
// that the page reads and hands back to sc_free.
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>

#include "guard.h"
#include "io/api.h"
#include "version.h"

namespace {

using shardcalc::wasm::never_throws;

// The answer in memory the page frees, or null where even that cannot be allocated.
char* answer(const std::string& text) {
    auto* out = static_cast<char*>(std::malloc(text.size() + 1));
    if (out) std::memcpy(out, text.c_str(), text.size() + 1);
    return out;
}

template <std::string (*F)(const std::string&)>
char* text_call(const char* text, std::size_t length) {
    return answer(never_throws([&] { return F(std::string(text, length)); }));
}

}  // namespace

extern "C" {

char* sc_evaluate(const char* text, std::size_t length) { return text_call<&shardcalc::evaluate_scenario_text>(text, length); }
char* sc_choices(const char* text, std::size_t length) { return text_call<&shardcalc::choices_text>(text, length); }
char* sc_presets() { return answer(never_throws([] { return shardcalc::presets_text(); })); }
const char* sc_version() { return shardcalc::kEngineVersion; }
void* sc_alloc(std::size_t size) { return std::malloc(size); }
void sc_free(void* memory) { std::free(memory); }

}  // extern "C"
