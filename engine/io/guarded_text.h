#pragma once
// The API's one rule for failures (io/api.h): whatever a request's work throws comes back as the error value, so that
// no exception leaves the API and the CLI and the WebAssembly page get a value either way.
#include <exception>
#include <string>

#include "core/error.h"
#include "io/api.h"

namespace shardcalc {

// Runs `f`; every exception becomes the API's error value, so none leaves the API (the CLI and the
// WebAssembly page get a value either way). Anything but an InputError is an engine defect.
template <class F>
std::string guarded_text(F&& f) {
    try {
        return f();
    } catch (const InputError& e) {
        return to_text(error_value(e.problems()));
    } catch (const WholeEngineOnly& e) {
        std::string answer = to_text(error_value("", e.what()));
        return answer.insert(answer.size() - 1, ",\"whole_engine\":true");
    } catch (const std::exception& e) {
        return to_text(error_value("", std::string("internal error: ") + e.what()));
    } catch (...) {
        return to_text(error_value("", "internal error"));
    }
}


}  // namespace shardcalc
