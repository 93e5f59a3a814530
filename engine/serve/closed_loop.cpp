#include "serve/closed_loop.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "core/median.h"
#include "serve/serving_parts.h"

namespace shardcalc {
namespace {

// splitmix64 (Steele, Lea and Flood 2014): a fixed stream of draws, so that every run of a scenario is the same.
struct Draws {
    uint64_t state = 0x5eed5eed5eed5eedULL;
    uint64_t next() {
        uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    // An integer uniform in [lo, hi].
    int64_t between(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1)); }
};

// A length with mean `mean` and longest `longest` (0: the mean): uniform over [2 mean - longest, longest].
struct Lengths {
    int64_t lo = 1, hi = 1;
    Lengths(int64_t mean, int64_t longest) {
        hi = std::max(mean, longest);
        lo = std::max<int64_t>(1, 2 * mean - hi);
    }
};

// A request as vLLM V1 tracks it: its tokens (prompt and sampled output) and how many of them the KV cache holds. Each
// step computes the rest, or a chunk of them; when all are computed the step samples one more token. Decoding is the
// case of one token to compute; a preempted request computes all of them again.
struct Request {
    int64_t prompt = 0, output = 0;
    int64_t generated = 0, computed = 0;
    double arrival = 0, first_token = -1, finish = 0;
    int64_t tokens() const { return prompt + generated; }
};

// numpy.percentile's linear interpolation (what vllm bench serve reports).
double percentile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    const double at = q / 100 * static_cast<double>(v.size() - 1);
    const size_t i = static_cast<size_t>(at);
    return i + 1 < v.size() ? v[i] + (at - static_cast<double>(i)) * (v[i + 1] - v[i]) : v.back();
}

}  // namespace

ClosedLoopRun closed_loop(const Config& c, const ServingSpec& s, const ServedForward& f, double kv_room, double max_work) {
    if (s.benchmark_requests <= 0 || c.s.parallel.pp != 1 || s.dp_attention || s.speculative.method != SpeculativeMethod::None)
        throw std::logic_error("closed_loop: a plan validate_serving refuses");
    const LayerKinds kinds = layer_kinds(c.s.model);
    const auto held = [&](int64_t tokens) { return request_kv(c, s, kinds, static_cast<double>(tokens), true); };
    const Lengths prompts(s.prompt_tokens, s.max_prompt_tokens), outputs(s.output_tokens, s.max_output_tokens);
    Draws draw;
    std::vector<Request> all(static_cast<size_t>(s.benchmark_requests));
    for (Request& r : all) {
        r.prompt = draw.between(prompts.lo, prompts.hi);
        r.output = draw.between(outputs.lo, outputs.hi);
    }
    size_t sent = 0;
    std::deque<size_t> waiting;
    std::vector<size_t> running;  // in the order they were admitted
    const auto send = [&](double now) {
        all[sent].arrival = now;
        waiting.push_back(sent++);
    };
    for (int64_t i = 0; i < s.concurrency && sent < all.size(); ++i) send(0);

    ClosedLoopRun run;
    run.requests = s.benchmark_requests;
    double now = 0, in_use = 0;  // KV bytes the running requests hold
    size_t done = 0;
    std::vector<int64_t> scheduled;  // tokens each running request computes this step, by its place in `running`
    // The KV bytes `n` more computed tokens of `r` take, whole blocks.
    const auto more = [&](const Request& r, int64_t n) { return held(r.computed + n) - held(r.computed); };
    double work = 0;  // steps times running requests, against max_work
    while (done < all.size()) {
        work += static_cast<double>(std::max<size_t>(1, running.size()));
        if (work > max_work) return run;
        // The running requests first, in order, each the rest of its tokens or the budget's worth; one whose tokens find
        // no room in the KV cache preempts the newest running request until they do.
        int64_t budget = s.max_num_batched_tokens;
        const int64_t preempted = run.preemptions;
        scheduled.assign(running.size(), 0);
        for (size_t i = 0; i < running.size() && budget > 0; ++i) {
            const Request& r = all[running[i]];
            const int64_t n = std::min(r.tokens() - r.computed, budget);
            const double need = more(r, n);
            bool room = true;
            while (room && in_use + need > kv_room) {
                // The newest running request is preempted, this one itself when it is the newest (scheduler.py).
                room = running.size() > i + 1;
                Request& last = all[running.back()];
                in_use -= held(last.computed);
                last.computed = 0;
                waiting.push_front(running.back());
                running.pop_back();
                scheduled.pop_back();
                ++run.preemptions;
            }
            if (!room) break;
            in_use += need;
            scheduled[i] = n;
            budget -= n;
        }
        // Then, in a step that preempted none, waiting requests in arrival order while the budget, max_num_seqs and the KV
        // cache allow (scheduler.py schedules no waiting request in a step that preempted one).
        while (run.preemptions == preempted && !waiting.empty() && budget > 0 &&
               static_cast<int64_t>(running.size()) < s.max_num_seqs) {
            const Request& r = all[waiting.front()];
            const int64_t n = std::min(r.tokens() - r.computed, budget);
            const double need = more(r, n);
            if (in_use + need > kv_room) break;
            in_use += need;
            running.push_back(waiting.front());
            waiting.pop_front();
            scheduled.push_back(n);
            budget -= n;
        }
        // Every scheduled request's new tokens attend to its cached ones and causally to each other; its last one goes
        // through the output layer.
        ForwardBatch b;
        for (size_t i = 0; i < running.size(); ++i) {
            if (scheduled[i] == 0) continue;
            const double n = static_cast<double>(scheduled[i]), past = static_cast<double>(all[running[i]].computed);
            b.tokens += n;
            b.logits += 1;
            b.attention_flops += attention_flops(c, kinds, n, past, true);
            b.kv_bytes += request_kv(c, s, kinds, past, false);
        }
        if (b.tokens == 0) throw std::logic_error("closed_loop: a step schedules nothing (validate_serving checks the cache)");
        now += f.seconds(b);
        ++run.steps;
        // The tokens land; a request with all of them computed samples its next one, and one with its whole output
        // leaves, its client sending the next request at once.
        size_t kept = 0;
        for (size_t i = 0; i < running.size(); ++i) {
            Request& r = all[running[i]];
            r.computed += scheduled[i];
            if (scheduled[i] > 0 && r.computed == r.tokens()) {
                ++r.generated;
                if (r.first_token < 0) r.first_token = now;
            }
            if (r.generated < r.output) {
                running[kept++] = running[i];
                continue;
            }
            in_use -= held(r.computed);
            r.finish = now;
            ++done;
            if (sent < all.size()) send(now);
        }
        running.resize(kept);
    }

    run.finished = true;
    std::vector<double> ttft, tpot;
    double tokens = 0, e2e = 0;
    for (const Request& r : all) {
        ttft.push_back(r.first_token - r.arrival);
        e2e += r.finish - r.arrival;
        tokens += static_cast<double>(r.output);
        if (r.output > 1) tpot.push_back((r.finish - r.first_token) / static_cast<double>(r.output - 1));
    }
    const double n = static_cast<double>(all.size());
    run.duration_seconds = now;
    run.mean_ttft_seconds = std::accumulate(ttft.begin(), ttft.end(), 0.0) / n;
    run.median_ttft_seconds = median(ttft);
    run.p99_ttft_seconds = percentile(ttft, 99);
    if (!tpot.empty()) {
        run.median_tpot_seconds = median(tpot);
        run.mean_tpot_seconds = std::accumulate(tpot.begin(), tpot.end(), 0.0) / static_cast<double>(tpot.size());
    }
    run.mean_e2e_seconds = e2e / n;
    run.output_tokens_per_second = now > 0 ? tokens / now : 0;
    run.output_tokens_per_second_per_gpu = run.output_tokens_per_second / static_cast<double>(c.s.parallel.tp);
    return run;
}

std::string closed_loop_skipped(const ServingSpec& s, const ClosedLoopRun* run) {
    if (s.benchmark_requests <= 0 || (run && run->finished)) return "";
    if (!run)
        return "vLLM would not start: one longest request (max_model_len " + std::to_string(s.longest_request()) +
               " tokens) does not fit its KV cache";
    return "the run needs more than " + std::to_string(static_cast<int64_t>(kMaxClosedLoopWork)) +
           " steps x running requests (about a second): fewer benchmark_requests, or a larger max_num_batched_tokens";
}

}  // namespace shardcalc
