#pragma once
// Work the caller may run side by side: the engine itself starts no thread (the page's WebAssembly has none and runs
// the same code), so a caller that can (the CLI: a thread each) hands it a runner.
#include <functional>
#include <vector>

namespace shardcalc {

// Runs every task to the end, side by side or one after another.
using TaskRunner = std::function<void(const std::vector<std::function<void()>>& tasks)>;

struct Workers {
    int count = 1;    // tasks worth running side by side
    TaskRunner run;   // empty: one after another
};

}  // namespace shardcalc
