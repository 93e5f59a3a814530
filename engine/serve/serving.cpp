#include "serve/serving.h"

#include <algorithm>
#include <cmath>

#include "comm/collective_time.h"
#include "compute/roofline.h"
#include "graph/build.h"
#include "serve/served_forward.h"
#include "serve/served_weights.h"
#include "serve/serving_parts.h"

namespace shardcalc {
namespace {

// The drafter's own decoder layers: the multi-token prediction modules (each of the last layer's kind:
// graph/decoder.cpp), an EAGLE head's one layer (full attention), none for n-gram lookup.
double draft_layers(const ModelFields& m, const Speculation& sp) {
    return sp.method == SpeculativeMethod::Mtp ? static_cast<double>(m.mtp_layers) : sp.method == SpeculativeMethod::Eagle ? 1 : 0;
}
// Whether the drafter's layers keep a sliding window (the MTP modules take the last layer's kind).
bool draft_local(const ModelFields& m, const Speculation& sp) {
    return sp.method == SpeculativeMethod::Mtp && is_local_layer(m, m.layers - 1);
}

// The layers that keep a KV cache: the model's, and the drafter's, which vLLM gives cache blocks in the same pool as
// the target's.
LayerKinds cached_layers(const Config& c, const ServingSpec& s) {
    const ResolvedModel& m = c.s.model;
    LayerKinds k = layer_kinds(m);
    (draft_local(m, s.speculative) ? k.local : k.full) += draft_layers(m, s.speculative);
    return k;
}

// Tokens a step yields per request with `tokens` drafts each accepted with probability `a` once the ones before it
// were: the accepted run and the target's own next token, (1 - a^(tokens+1)) / (1 - a) (Leviathan et al. 2023,
// "Fast Inference from Transformers via Speculative Decoding", eq. 1).
double tokens_per_step(const Speculation& sp) {
    if (sp.method == SpeculativeMethod::None) return 1;
    const double a = sp.acceptance;
    return (1 - std::pow(a, static_cast<double>(sp.tokens + 1))) / (1 - a);
}

}  // namespace

std::vector<CurvePoint> latency_throughput(const Config& c, const ModelGraph& g, const ServingSpec& s, int64_t max_concurrency) {
    std::vector<CurvePoint> out;
    ServingSpec at = s;
    at.request_rate = 0;  // each point at its own concurrency
    for (int64_t b = 1; b <= max_concurrency; b = b * 2 > max_concurrency && b < max_concurrency ? max_concurrency : b * 2) {
        at.concurrency = b;
        const ServingEstimate e = serving_estimate(c, g, at);
        out.push_back({b, e.tpot_seconds, e.tokens_per_second_per_gpu});
        if (b == max_concurrency) break;
    }
    return out;
}

namespace {

ServingEstimate estimate_at(const Config& c, const ModelGraph& g, const ServingSpec& s) {
    if (s.engine == ServingEngine::Transformers) return generate_estimate(c, g, s);
    const ResolvedModel& m = c.s.model;
    const HardwareSpec& h = c.s.hardware;
    const double tp = static_cast<double>(c.s.parallel.tp), a = bytes_of(c.s.training.dtype);
    ServingEstimate e;
    const SpeculativeMethod method = s.speculative.method;
    const ServedForward forward_model(c, g, s);
    const ServedModel& model = forward_model.model();
    const ServedParams p = model.whole();
    const ServedParams draft = method == SpeculativeMethod::Mtp     ? mtp_params(c, g)
                               : method == SpeculativeMethod::Eagle ? eagle_params(c, g)
                                                                    : ServedParams{};
    const double wq = weight_bytes(c, s);
    // Pipeline parallelism (vLLM --pipeline-parallel-size): each stage holds its share of the layers, the first the
    // embedding, the last the output layer (vllm/distributed/utils.py get_pp_indices splits the layers evenly, the
    // remainder one each to some stages). The most loaded GPU, whose memory sets the KV cache: ceil(layers / pp) of
    // them and the larger end.
    const double pp = static_cast<double>(c.s.parallel.pp), all_layers = static_cast<double>(m.layers);
    const double share = std::ceil(all_layers / pp) / all_layers;
    // The ends the most loaded GPU holds (and reads each step): both without pipeline stages, else the larger.
    const double ends = pp > 1 ? std::max(forward_model.held(model.pre), forward_model.held(model.post))
                                 : forward_model.held(model.pre) + forward_model.held(model.post);
    // Data-parallel attention (serving.dp_attention: SGLang --enable-dp-attention, vLLM's data parallelism of an MoE
    // model with --enable-expert-parallel): dp ranks of tp GPUs each run the attention and dense layers on their own
    // requests, and the routed experts are spread over all dp x tp GPUs (expert parallelism): a GPU holds 1/dp of the
    // experts it would hold at tp alone, and its rank's requests' cache only.
    const double ranks = s.dp_attention ? static_cast<double>(c.s.parallel.dp) : 1;
    const double wq_experts = model.layers.experts * wq;
    e.weights = forward_model.held(model.layers) * share - wq_experts * (1 - 1 / ranks) + ends + forward_model.held(draft);

    // vLLM sizes the KV cache after a profile run (vllm/v1/worker/gpu_worker.py determine_available_memory):
    // gpu_memory_utilization x the device, less the weights, the profile's activation peak and the memory outside
    // PyTorch; the profile runs one forward of max_num_batched_tokens tokens and a sampler over max_num_seqs rows of
    // fp32 logits (gpu_model_runner.py profile_run). The forward's peak taken here: the residual stream and a layer's
    // input, with the larger of attention's q, k, v and the MLP's intermediates (fused MoE: its three caches over
    // the routed rows) -- an estimate of what the profile measures, not validated against a measured run.
    e.capacity = h.memory_gib * 1073741824.0;
    e.budget = s.gpu_memory_utilization * e.capacity;
    const double t = static_cast<double>(s.max_num_batched_tokens), hid = static_cast<double>(m.hidden);
    const double forward = forward_peak(c, t);
    const double sampler = 2.0 * static_cast<double>(s.max_num_seqs) * static_cast<double>(c.d.vocab_padded) * 4;
    e.activation_peak = std::max(forward, sampler);
    e.non_torch = h.overhead_gib * 1073741824.0;
    // vLLM 0.21 and later also take the CUDA graphs' estimated pool out of the budget (gpu_worker.py
    // determine_available_memory with VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, vllm-project/vllm#30515).
    e.cuda_graphs = s.cuda_graph_gib * 1073741824.0;
    e.kv_available = std::max(0.0, e.budget - e.weights - e.activation_peak - e.non_torch - e.cuda_graphs);

    // Automatic prefix caching (vLLM's default): a prompt's leading full blocks whose content is cached are reused, not
    // computed, and running requests share them (vllm/v1/core/kv_cache_manager.py: blocks found by the hashes of full
    // blocks; at least the prompt's last token is always computed). The shared prefix's full blocks are held once.
    const double block = static_cast<double>(s.block_size), prompt = static_cast<double>(s.prompt_tokens);
    e.prefix_cached_tokens = std::floor(std::min(static_cast<double>(s.shared_prefix_tokens), prompt - 1) / block) * block;
    const LayerKinds cached = scaled(cached_layers(c, s), share);
    e.kv_shared_prefix = cached.full * layer_kv_bytes(c, s) * e.prefix_cached_tokens;
    // A request holds its prompt, its output and, under speculative decoding, the draft tokens of a step in flight
    // (vLLM's lookahead slots: num_speculative_tokens).
    const double lookahead = s.speculative.method == SpeculativeMethod::None ? 0 : static_cast<double>(s.speculative.tokens);
    const double request = static_cast<double>(s.prompt_tokens + s.output_tokens) + lookahead;
    e.kv_bytes_per_token = request_kv(c, s, cached, 1, false);
    e.kv_bytes_per_request = request_kv(c, s, cached, request, true, e.prefix_cached_tokens);
    const double room = std::max(0.0, e.kv_available - e.kv_shared_prefix);
    e.max_concurrency = e.kv_bytes_per_request > 0 ? static_cast<int64_t>(std::floor(room / e.kv_bytes_per_request) * ranks) : 0;
    // The longest request: the windowed layers' share stops growing at their window, the others' grows block by block.
    const double per_block = cached.full * layer_kv_bytes(c, s) * block;
    const double windows = cached.local * layer_kv_bytes(c, s) * std::ceil(static_cast<double>(m.sliding_window) / block) * block;
    // vLLM's max_model_len stops at the model's positions too.
    const double positions = m.max_positions > 0 ? static_cast<double>(m.max_positions) : 1e18;
    const double by_cache = per_block > 0 ? std::max(0.0, std::floor((e.kv_available - windows) / per_block)) * block : positions;
    e.max_model_len = static_cast<int64_t>(e.kv_available > windows || per_block == 0 ? std::min(by_cache, positions) : 0.0);
    // vLLM refuses to start when one request of --max-model-len tokens does not fit its KV cache.
    e.fits = e.kv_available > 0 && e.max_concurrency >= s.concurrency && e.max_model_len >= s.longest_request();

    const double flop_rate = served_flop_rate(c, s);
    const double hbm = hbm_bytes_per_s(c);
    // One token's multiplied weights of the layers on this GPU: the dense part, and the routed experts' (k of E).
    const double expert_active = model.layers.experts * forward_model.expert_fraction();
    const double dense_active = model.layers.active - expert_active;
    // Under data-parallel attention each MoE layer dispatches its tokens to their experts' GPUs and combines them back:
    // two all-to-alls over the dp x tp GPUs, each GPU sending its share of its rank's tokens, k copies each.
    const Group expert_group = make_group(c.s.parallel.dp * c.s.parallel.tp, 1, c);
    double moe_layers = 0;
    for (int64_t i = 0; i < m.layers; ++i) moe_layers += is_moe_layer(m, i) ? 1 : 0;
    auto all_to_all_seconds = [&](double rank_tokens) {
        if (!s.dp_attention || m.experts == 0) return 0.0;
        const double bytes = rank_tokens / tp * static_cast<double>(*m.experts_per_token) * hid * a;
        return 2 * moe_layers * collective_time(CollectiveKind::AllToAll, bytes, expert_group, c).seconds;
    };
    // The tensor-parallel all-reduces of a rank's tokens: after attention in every layer and after the MLP in every layer
    // (in the dense layers only under data-parallel attention, whose MoE layers combine by all-to-all instead).
    auto rank_tp_seconds = [&](double tokens, double layers) {
        const double both = tensor_parallel_seconds(c, tokens, layers, TpAllReduce::Vllm);
        return s.dp_attention ? both / 2 * (2 - moe_layers / all_layers) : both;
    };

    // Decode: every running request adds one token (with speculative decoding, its drafts and one more: the target
    // verifies them in one forward), reading the weights it touches and its whole KV cache (at the middle of its output
    // on average); each verified token sees that context. Under pipeline parallelism vLLM keeps pp batches in flight
    // (its batch queue), each of concurrency / pp requests: a request's token takes one round through every stage, and
    // each hop sends the microbatch's hidden states to the next stage.
    const double batch = static_cast<double>(s.concurrency);
    const double micro = std::ceil(batch / (pp * ranks));  // the requests one pipeline batch, or one attention rank, decodes
    const double queries = micro * (1 + lookahead);
    const double group_queries = batch * (1 + lookahead) / pp;  // the tokens the experts of one GPU may see
    const double context = prompt + static_cast<double>(s.output_tokens) / 2;
    const LayerKinds model_layers = layer_kinds(m), stage_layers = scaled(model_layers, share);
    // vLLM's kernels (serve/vllm_step.cpp), each the device's gap between kernels beyond the roofline: a forward's over
    // every layer, and a stage's over its layers and the step's own (the ends and the sampler: the most loaded stage's).
    const double gap = h.kernel_launch_us * 1e-6;
    const double forward_gaps = forward_model.layer_gaps() + forward_model.step_gaps();
    const double stage_gaps = forward_model.layer_gaps() * share + forward_model.step_gaps();
    e.decode_bytes = forward_model.weights_read(model.layers, group_queries, 1 / ranks) * share + ends +
                     micro * request_kv(c, s, stage_layers, context, false);
    e.decode_flops = 2 * queries * (dense_active * share + model.post.active) + 2 * group_queries * expert_active * share / ranks +
                     attention_flops(c, stage_layers, queries, context, false);
    const double compute = e.decode_flops / flop_rate, memory = e.decode_bytes / hbm;
    e.decode_memory_bound = memory >= compute;
    const double layers = all_layers * share;
    const Group stages = make_group(c.s.parallel.pp, c.s.parallel.tp, c);
    const auto hop = [&](double tokens) { return collective_time(CollectiveKind::SendRecv, tokens * hid * a, stages, c).seconds; };
    e.tp_seconds = pp * rank_tp_seconds(queries, layers);
    e.all_to_all_seconds = all_to_all_seconds(queries);
    // A drafter on the device (multi-token prediction modules, an EAGLE head) drafts one token per forward, `tokens`
    // forwards in a row (vLLM reuses the model's MTP module for drafts past its count), each over the running requests:
    // its weights, the output layer and its layers' cache.
    if (const double drafting = draft_layers(m, s.speculative); drafting > 0) {
        const bool local = draft_local(m, s.speculative);
        const LayerKinds one{local ? 0.0 : 1.0, local ? 1.0 : 0.0};
        const double bytes = forward_model.weights_read(draft, batch) + batch * drafting * request_kv(c, s, one, context, false);
        const double flops = 2 * batch * draft.active + drafting * attention_flops(c, one, batch, context, false);
        const double draft_gaps = vllm_draft_kernels(m, s.speculative.method == SpeculativeMethod::Mtp) * gap;
        e.draft_seconds = static_cast<double>(s.speculative.tokens) *
                          (std::max(flops / flop_rate, bytes / hbm) + draft_gaps +
                           tensor_parallel_seconds(c, batch, drafting, TpAllReduce::Vllm));
    }
    e.decode_launch_seconds = pp * stage_gaps;
    e.decode_step_seconds = pp * (std::max(compute, memory) + stage_gaps + hop(queries)) + e.tp_seconds + e.all_to_all_seconds +
                            e.draft_seconds;
    e.tokens_per_step = tokens_per_step(s.speculative);

    // Prefill of one prompt's uncached tokens, in chunks of max_num_batched_tokens (vLLM's chunked prefill): each chunk
    // reads the weights again; the new tokens attend to the cached prefix and causally to each other. Through a
    // pipeline the chunk visits the stages one after another: the whole model's work and a hop between stages.
    const double fresh = prompt - e.prefix_cached_tokens;
    const double chunks = std::ceil(fresh / t);
    // Under data-parallel attention one rank prefills it, the experts of every GPU taking their share. The output layer
    // multiplies one row a chunk: its last token's (vLLM's logits_indices).
    const double prefill_flops = 2 * (fresh * (p.active - model.post.active - expert_active * (1 - 1 / ranks)) +
                                      chunks * model.post.active) +
                                 attention_flops(c, model_layers, fresh, e.prefix_cached_tokens, true);
    const double chunk = std::min(fresh, t);
    e.prefill_seconds = std::max(prefill_flops / flop_rate, chunks * forward_model.weights_read(p, chunk, 1 / ranks) / hbm) +
                        chunks * (forward_gaps + rank_tp_seconds(chunk, all_layers) + all_to_all_seconds(chunk) + (pp - 1) * hop(chunk));

    const double output = static_cast<double>(s.output_tokens);
    // Continuous batching in its steady state: while the running requests decode their output_tokens (in
    // output_tokens / tokens_per_step steps), each of them is replaced by a new one whose prompt is prefilled on the same
    // GPUs (vLLM's chunked prefill shares the steps), so that cycle also holds `concurrency` prefills, each stage of a
    // pipeline doing its share of each, the data-parallel attention ranks theirs side by side.
    const double prefill_share = e.prefill_seconds / (pp * ranks);
    e.tokens_per_second = batch * output / (output * e.decode_step_seconds / e.tokens_per_step + batch * prefill_share);
    // A request's time per output token as serving benchmarks measure it ((end to end - first token) / (output - 1),
    // vLLM's benchmarks/serve): its decode steps, lengthened by the prefills of the other running requests' successors
    // that the same steps carry, concurrency - 1 of them over its output (its own prefill is its time to first token).
    e.tpot_seconds = e.decode_step_seconds / e.tokens_per_step + (batch - 1) * prefill_share / output;
    e.request_seconds = e.prefill_seconds + output * e.tpot_seconds;
    e.attention_ranks = static_cast<int64_t>(ranks);
    e.replica_gpus = static_cast<int64_t>(tp * pp * ranks);
    e.tokens_per_second_per_gpu = e.tokens_per_second / static_cast<double>(e.replica_gpus);
    // A million output tokens take 10^6 / (tokens/s per GPU) GPU-seconds at the device's hourly price.
    if (h.price_per_gpu_hour > 0 && e.tokens_per_second_per_gpu > 0)
        e.cost_per_million_tokens = h.price_per_gpu_hour / 3600 / e.tokens_per_second_per_gpu * 1e6;
    return e;
}

}  // namespace

// Under an arrival rate, continuous batching settles where the requests in the system equal the rate times the time
// one spends there (Little's law, L = lambda W): the smallest concurrency B with B >= rate x request_seconds(B). The
// replica's requests per second, B / W(B), grow with B (a larger batch reads the weights once for more tokens), so
// the concurrencies that keep up form an interval and a bisection finds its start; beyond what the KV cache holds the
// replica does not keep up (the queue grows without bound), and B / W(B) there is the most it sustains.
ServingEstimate serving_estimate(const Config& c, const ModelGraph& g, const ServingSpec& s) {
    if (s.request_rate <= 0) return estimate_at(c, g, s);
    ServingSpec at = s;
    at.concurrency = 1;
    const ServingEstimate one = estimate_at(c, g, at);
    const int64_t most = std::max<int64_t>(1, one.max_concurrency);
    const auto keeps_up = [&](int64_t b) {
        at.concurrency = b;
        const ServingEstimate e = estimate_at(c, g, at);
        return static_cast<double>(b) >= s.request_rate * e.request_seconds;
    };
    int64_t lo = 1, hi = most;
    const bool possible = one.max_concurrency >= 1 && keeps_up(most);
    if (possible) {
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (keeps_up(mid)) hi = mid;
            else lo = mid + 1;
        }
    }
    at.concurrency = possible ? lo : most;
    ServingEstimate e = estimate_at(c, g, at);
    at.concurrency = most;
    const ServingEstimate full = estimate_at(c, g, at);
    e.settled_concurrency = possible ? lo : most;
    e.keeps_up = possible;
    e.max_request_rate = one.max_concurrency >= 1 ? static_cast<double>(most) / full.request_seconds : 0;
    return e;
}

}  // namespace shardcalc
