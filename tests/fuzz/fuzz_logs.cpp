// libFuzzer target over the log readers (engine/io/import: run_log, vllm_log, verl_log): the input is a run's log,
// set against fixed scenarios through the JSON API as `shardcalc reconcile`, `shardcalc serve FILE LOG` and
// `shardcalc rl FILE LOG` call it. Every answer keeps check_output.h's contract: valid JSON, an error with its path and
// message, or a reconciliation whose every number is finite. Seeded with the real samples of tests/data/logs.
#include <cstddef>
#include <cstdint>
#include <string>

#include "check_output.h"

namespace {

const char* const kTraining = R"({"framework":"pytorch","model":{"preset":"gpt2"},"training":{"seq_len":1024,"micro_batch":8}})";
const char* const kServing = R"({"model":{"preset":"llama-3.1-8b"},"hardware":{"preset":"h100-sxm-80gb"}})";
const char* const kRl = R"({"framework":"fsdp","model":{"preset":"gpt2"},"parallel":{"dp":2,"zero":3},
    "rl":{"prompts":8,"n":2,"prompt_tokens":128,"response_tokens":128}})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string log(reinterpret_cast<const char*>(data), size);
    fuzz::check_log_answer(log, shardcalc::reconcile_text(kTraining, log), "reconciliation");
    fuzz::check_log_answer(log, shardcalc::serve_reconcile_text(kServing, log), "serving_reconciliation");
    fuzz::check_log_answer(log, shardcalc::rl_reconcile_text(kRl, log), "rl_reconciliation");
    return 0;
}
