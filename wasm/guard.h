#pragma once
// The one guard of the WebAssembly entry points (bindings.cpp, core.cpp): the engine's API answers
// errors as values and does not throw, but nothing thrown may ever reach JavaScript, whatever happens.
#include <string>

#include "io/api.h"

namespace shardcalc::wasm {

template <class F>
std::string never_throws(F&& f) {
    try {
        return f();
    } catch (...) {
        return to_text(error_value("", "internal error"));
    }
}

}  // namespace shardcalc::wasm
