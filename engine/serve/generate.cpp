// transformers' model.generate as a server (serving.engine transformers): one static batch of `concurrency` prompts,
// padded on the left to the longest, prefilled in one forward and decoded step by step, each step one forward of the
// model's own modules launched from Python (docs/serving.md "transformers' generate").
#include <algorithm>
#include <cmath>

#include "comm/collective_time.h"
#include "compute/op_cost.h"
#include "compute/roofline.h"
#include "graph/build.h"
#include "memory/model_states.h"
#include "serve/served_weights.h"
#include "serve/serving_parts.h"

namespace shardcalc {
namespace {

// The decode loop's own kernels per step (transformers generation/utils.py GenerationMixin._sample): the last
// position's logits copied to fp32, argmax, the finished rows' padding (two products and a sum), the token appended to
// input_ids, the attention mask extended, cache_position advanced, the end-of-sequence test (isin), the unfinished
// rows' update and their max: 12 launches. `unfinished_sequences.max() == 0` read as a Python bool waits for the
// device every step, so the host never runs a step ahead.
constexpr double kLoopLaunches = 12;

// The kernels one forward launches as generate runs the model: its weights loaded in their dtype (no autocast casts),
// no dropout, no backward; under torch.compile inductor's fused kernels (graph/compiled_kernels.h).
double forward_launches(const Config& c) {
    Scenario inference = given_form(c.s);
    inference.training.param_dtype = inference.training.dtype;
    inference.training.dropout = 0;
    inference.training.recompute = Recompute::None;
    const Config ic = resolve(std::move(inference), Rules::ModelAndDevice);
    const ModelGraph g = build_graph(ic);
    const auto launches = [&](const Module& m) {
        double n = 0;
        for_each_op(m, [&](const Op& op) {
            for (const Work& w : op.work) {
                const WorkKernels k = work_kernels(w, ic);
                for (int i = 0; i < k.count; ++i)
                    if (k.list[i].pass == Pass::Forward) n += k.list[i].kernel.launches * k.list[i].repeat;
            }
        });
        return n;
    };
    double n = launches(g.pre) + launches(g.post);
    for (const LayerGroup& grp : g.groups) n += static_cast<double>(grp.count) * launches(grp.layer);
    return n;
}

// The embedding's parameters on one rank beyond the graph's share: tp_plan="auto" leaves embed_tokens whole on every
// rank (the model's base_model_tp_plan names only the layers' projections; the output layer is split by vocabulary,
// colwise_gather_output), where the graph splits it over tp as Megatron and vLLM do.
double whole_embedding(const Config& c, const ModelGraph& g) {
    if (c.s.parallel.tp == 1) return 0;
    Config one = c;
    one.s.parallel.tp = 1;
    return tally_module(g.pre, one, false).params - tally_module(g.pre, c, false).params;
}

}  // namespace

ServingEstimate generate_estimate(const Config& c, const ModelGraph& g, const ServingSpec& s) {
    const ResolvedModel& m = c.s.model;
    const HardwareSpec& h = c.s.hardware;
    const ResolvedImplementation& im = c.s.implementation;
    const double a = bytes_of(c.s.training.dtype);
    const double tp = static_cast<double>(c.s.parallel.tp);
    const double batch = static_cast<double>(s.concurrency);
    const double prompt = static_cast<double>(std::max(s.prompt_tokens, s.max_prompt_tokens));  // padded to the longest
    const double output = static_cast<double>(s.output_tokens);
    const double length = static_cast<double>(s.longest_request());
    ServingEstimate e;

    // Memory, on each of the tp ranks (tp_plan="auto": the layers' projections split column- and row-wise, their heads
    // and the KV cache's over the ranks): the weights (the layers' GEMM weights at the served format's bytes, the rest
    // in the model's dtype, the embedding whole), and everything else the batch allocates itself: no reservation ahead
    // (no gpu_memory_utilization).
    const ServedParams p = served_params(c, g).whole();
    const double wq = weight_bytes(c, s);
    e.weights = p.quantized * wq + (p.all - p.quantized + whole_embedding(c, g)) * a;
    e.capacity = h.memory_gib * 1073741824.0;
    e.budget = e.capacity;
    e.non_torch = h.overhead_gib * 1073741824.0;
    // The prefill's forward over every padded prompt token, and the last position's logits only (generate passes
    // logits_to_keep=1), in the model's dtype and their fp32 copy; under tensor parallelism each rank's vocabulary
    // shard beside the gathered logits.
    const double vocab = static_cast<double>(c.d.vocab_padded);
    const double logits = vocab * (a + 4) + (tp > 1 ? vocab / tp * a : 0);
    const double prefill_per_row = forward_peak(c, prompt) + logits;
    e.activation_peak = batch * prefill_per_row;
    e.kv_available = std::max(0.0, e.budget - e.weights - e.activation_peak - e.non_torch);

    // The cache (cache_utils.py): a row holds the padded prompt and its output in every layer, a sliding-window layer
    // its window. StaticCache allocates the whole length before the prefill; DynamicCache grows each layer by torch.cat,
    // whose new tensor (keys, then values) is allocated while the old one lives: one full-attention layer's cache more.
    const LayerKinds kinds = layer_kinds(m);
    const bool dynamic = s.cache == KvCacheImpl::Dynamic;
    e.kv_bytes_per_token = request_kv(c, s, kinds, 1, false);
    e.kv_bytes_per_request = request_kv(c, s, kinds, length, false);
    const double transient_per_row = dynamic ? layer_kv_bytes(c, s) * (kinds.full > 0 ? length : window_of(m, length)) : 0;
    e.cache_transient = batch * transient_per_row;
    // The two moments that can peak: the prefill (its forward beside the cache as it then is) and the last step (the
    // whole cache and, dynamic, one layer's copy).
    const double prefill_cache = dynamic ? request_kv(c, s, kinds, prompt, false) : e.kv_bytes_per_request;
    const double per_row = std::max(prefill_cache + prefill_per_row, e.kv_bytes_per_request + transient_per_row);
    const double room = std::max(0.0, e.capacity - e.weights - e.non_torch);
    e.max_concurrency = per_row > 0 ? static_cast<int64_t>(std::floor(room / per_row)) : 0;
    const double positions = m.max_positions > 0 ? static_cast<double>(m.max_positions) : 1e18;
    const double per_token = e.kv_bytes_per_token + (dynamic ? layer_kv_bytes(c, s) : 0);
    e.max_model_len = static_cast<int64_t>(std::min(positions, per_token > 0 ? std::floor(room / per_token) : positions));
    e.fits = e.max_concurrency >= s.concurrency && e.max_model_len >= s.longest_request();

    // Time. The device's roofline for the forward and, under tensor parallelism, its collectives in the same stream
    // (an all-reduce after each layer's attention and MLP, and the output layer's logits gathered: colwise_gather_output,
    // the last position's only); the host's launches (the model's at its per-launch time, eager or compiled, the
    // loop's and each collective call eager), each pass taking the longer of the device's and the host's.
    const double flop_rate = served_flop_rate(c, s), hbm = hbm_bytes_per_s(c);
    const double launches = forward_launches(c);
    const double layers = static_cast<double>(m.layers);
    const double calls = tp > 1 ? 2 * layers + 1 : 0;
    const double model_us = im.compile != CompileMode::None ? *im.host_compiled_us : im.host_forward_us;
    const double host = (launches * model_us + (kLoopLaunches + calls) * im.host_forward_us) * 1e-6;
    const Group group = make_group(c.s.parallel.tp, 1, c);
    const auto collectives = [&](double tokens) {
        if (tp == 1) return 0.0;
        return tensor_parallel_seconds(c, tokens, layers, TpAllReduce::Nccl) +
               collective_time(CollectiveKind::AllGather, batch * vocab * a, group, c).seconds;
    };
    e.decode_host_seconds = host;
    const double k_of_e = m.experts > 0 ? static_cast<double>(*m.experts_per_token) / static_cast<double>(m.experts) : 0;
    const auto weights_read = [&](double tokens) {
        const double all = e.weights;
        return m.experts == 0 ? all : all - p.experts * wq * std::pow(1 - k_of_e, tokens);
    };
    // The weights one token multiplies: the dense part and k of E routed experts (ServedParams::active counts them so).
    const double active = p.active;
    // Prefill: every row's padded prompt at once, causal attention within it.
    const double prefill_flops = 2 * batch * prompt * active + batch * attention_flops(c, kinds, prompt, 0, true);
    e.prefill_seconds = std::max(std::max(prefill_flops / flop_rate, weights_read(batch * prompt) / hbm) + collectives(batch * prompt), host);
    // A decode step: each row's new token over its cache, at the middle of the output on average (dynamic), or over the
    // whole allocated length, masked (static: SDPA reads every slot); DynamicCache's torch.cat copies each layer's
    // cache every step (read and write).
    const double context = dynamic ? prompt + output / 2 : length;
    const double kv_read = batch * request_kv(c, s, kinds, context, false);
    e.decode_bytes = weights_read(batch) + kv_read + (dynamic ? 2 * kv_read : 0);
    e.decode_flops = 2 * batch * active + attention_flops(c, kinds, batch, context, false);
    const double compute = e.decode_flops / flop_rate, memory = e.decode_bytes / hbm;
    e.decode_memory_bound = memory >= compute;
    e.tp_seconds = collectives(batch);
    e.decode_step_seconds = std::max(std::max(compute, memory) + e.tp_seconds, host);
    e.tpot_seconds = e.decode_step_seconds;
    e.request_seconds = e.prefill_seconds + output * e.tpot_seconds;
    // One batch at a time: its prefill, then its output's steps.
    e.tokens_per_second = batch * output / e.request_seconds;
    e.replica_gpus = c.s.parallel.tp;
    e.tokens_per_second_per_gpu = e.tokens_per_second / static_cast<double>(e.replica_gpus);
    if (h.price_per_gpu_hour > 0 && e.tokens_per_second_per_gpu > 0)
        e.cost_per_million_tokens = h.price_per_gpu_hour / 3600 / e.tokens_per_second_per_gpu * 1e6;
    return e;
}

}  // namespace shardcalc
