#pragma once
// A serving benchmark run step by step on one vLLM replica: `concurrency` clients each send a request, wait for its last
// token and send the next at once, until `benchmark_requests` are served, all clients starting together (`vllm bench
// serve --max-concurrency C --num-prompts N --request-rate inf`). Each request's prompt and output lengths are drawn
// uniformly between 2 x mean - longest and the longest (the benchmarks' random dataset with a range ratio: the mean
// and `max_*_tokens` of the serving object), by a fixed generator, so that a run is reproducible. vLLM V1's scheduler
// fills each step (vllm/v1/core/sched/scheduler.py): the running requests first, a token each or their prompt's next
// chunk, then waiting requests in arrival order while the step's token budget (max_num_batched_tokens), max_num_seqs
// and the KV cache allow; a running request that finds no room for its next block preempts the newest one (itself when
// it is the newest), which recomputes its prompt and output so far when it runs again, and a step that preempted
// admits no waiting request. Each step takes ServedForward's time for what it holds.
// Not priced: the server's own path (HTTP, tokenization, detokenization), prefix caching, speculative decoding.
#include <cstdint>
#include <string>

#include "serve/served_forward.h"
#include "serve/serving.h"

namespace shardcalc {

struct ClosedLoopRun {
    bool finished = false;  // false: cut short at kMaxClosedLoopWork, and no figure below is the run's
    int64_t requests = 0, steps = 0, preemptions = 0;
    double duration_seconds = 0;   // the first request sent to the last token
    double mean_ttft_seconds = 0, median_ttft_seconds = 0, p99_ttft_seconds = 0;
    double median_tpot_seconds = 0, mean_tpot_seconds = 0;  // (end to end - first token) / (output - 1), per request
    double mean_e2e_seconds = 0;
    double output_tokens_per_second = 0, output_tokens_per_second_per_gpu = 0;
};

// The most requests times the longest output a run may be asked for (its steps' work is about their product), and the
// most steps times running requests it computes before it stops unfinished (whatever the prompts' chunks and the
// concurrency make of it): about half a second natively at one request a step.
constexpr double kMaxClosedLoopTokens = 8e6;
constexpr double kMaxClosedLoopWork = 6e6;

// `kv_room`: the KV cache one GPU holds for the requests (bytes). Throws std::logic_error on a plan it does not run
// (validate_serving refuses those with the field's path).
// Why a run asked for (serving.benchmark_requests) gave no figures: vLLM would not start (`run` absent: the longest
// request does not fit the KV cache) or the run stopped unfinished; empty when it ran.
std::string closed_loop_skipped(const ServingSpec& s, const ClosedLoopRun* run);

// `max_work`: where it stops unfinished (kMaxClosedLoopWork; a test gives less).
ClosedLoopRun closed_loop(const Config& c, const ServingSpec& s, const ServedForward& f, double kv_room,
                          double max_work = kMaxClosedLoopWork);

}  // namespace shardcalc
