#pragma once
// Invalid input is reported as a value-carrying exception at the engine edge and
// converted into {path, message} by io/api.cpp; nothing else in the engine throws.
// One exception carries every problem found in one pass over the input, so that a user sees
// them all at once instead of fixing one to meet the next.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace shardcalc {

struct Problem {
    std::string path;     // JSON pointer of the offending field, e.g. "/parallel/tp"
    std::string message;  // what is wrong and what would be valid
};

class InputError : public std::runtime_error {
public:
    InputError(std::string path, std::string message)
        : InputError(std::vector<Problem>{{std::move(path), std::move(message)}}) {}
    // `problems` must not be empty; the first is the one path()/message() name.
    explicit InputError(std::vector<Problem> problems)
        : std::runtime_error(problems.front().message), problems_(std::move(problems)) {}
    const std::string& path() const { return problems_.front().path; }
    // The whole message: what() stops at the first NUL, and a user's string echoed here may hold one ("\u0000").
    const std::string& message() const { return problems_.front().message; }
    const std::vector<Problem>& problems() const { return problems_; }

private:
    std::vector<Problem> problems_;
};

// A part of the engine the running build leaves out (the page's WebAssembly core builds no LSTM: wasm/core_features.cpp):
// not a problem of the input; io/api.cpp answers {"ok": false, "whole_engine": true, ...} and the page asks the
// whole engine instead.
class WholeEngineOnly : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Problems gathered from checks that do not depend on each other; raise() throws them together.
class Problems {
public:
    void add(std::string path, std::string message) { list_.push_back({std::move(path), std::move(message)}); }
    void add(const InputError& e) { list_.insert(list_.end(), e.problems().begin(), e.problems().end()); }
    // Runs `f`, keeping its InputError (if any) instead of letting it end the pass.
    template <class F>
    void collect(F&& f) {
        try {
            f();
        } catch (const InputError& e) {
            add(e);
        }
    }
    bool empty() const { return list_.empty(); }
    bool has(const std::string& path) const {
        for (const Problem& p : list_)
            if (p.path == path) return true;
        return false;
    }
    void raise() const {
        if (!list_.empty()) throw InputError(list_);
    }
    const std::vector<Problem>& list() const { return list_; }

private:
    std::vector<Problem> list_;
};

}  // namespace shardcalc
