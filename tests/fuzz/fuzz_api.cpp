// libFuzzer target over shardcalc::evaluate_scenario_text, the JSON API shared by the CLI and the
// WebAssembly page: byte-level mutations guided by the dictionary tests/fuzz/make_dict.py writes. Any sanitizer report
// (ASan, UBSan without recovery), uncaught exception or broken output contract (check_output.h) is
// a crash. Build and run: scripts/fuzz.sh [seconds].
#include <cstddef>
#include <cstdint>

#include "check_output.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz::evaluate_and_check(data, size);
    return 0;
}
