// The feed-forward blocks: the dense MLP (plain or gated) and the mixture-of-experts layer (router, routed and
// shared experts, the dispatch's saved tensors).
#include "graph/blocks.h"

#include <algorithm>

#include "graph/compiled_kernels.h"
#include "graph/eager_kernels.h"
#include "scenario/dimension.h"

namespace shardcalc {

Module mlp(const BuildContext& b, int64_t f, const char* name, bool save_input) {
    const ResolvedModel& m = b.m;
    const bool gated = m.mlp == Mlp::Swiglu || m.mlp == Mlp::Geglu;
    const int64_t up_width = gated ? 2 * f : f;
    Module mod{name, {}, {}};
    if (gated && b.hf_code) {
        // Hugging Face's gate_proj and up_proj: two linears on one input (one cast each under autocast).
        mod.ops.push_back(pointwise_fed(b, eager_linear(b, linear("gate_proj", f, m.hidden, m.mlp_bias, Parallel::Column,
                                                                  SavedSplit::Sequence, m.hidden, save_input), true)));
        Op up = pointwise_fed(b, eager_linear(b, linear("up_proj", f, m.hidden, m.mlp_bias, Parallel::Column,
                                                        SavedSplit::Sequence, m.hidden, b.autocast), true));
        up.work.push_back(b.compiled ? compiled::grad_sum(b, m.hidden, 1) : eager::grad_sum(b, m.hidden, 1));
        mod.ops.push_back(up);
    } else {
        mod.ops.push_back(pointwise_fed(b, eager_linear(b, linear("dense_h_to_4h", up_width, m.hidden, m.mlp_bias,
                                                                  Parallel::Column, SavedSplit::Sequence, m.hidden, save_input), true)));
    }
    Op act{gated ? "glu_activation" : "activation", {}, {}};
    // GeLU keeps its input, 8sbh for f = 4h (Korthikanti sec. 4.1). A fused GLU keeps the 2f-wide input and
    // recomputes the rest (megatron/core/fusions/fused_bias_swiglu.py); the eager form keeps the gate
    // input, the activated gate and the up projection for the product (3f).
    // Compiled, an activation keeps only its input (gate and up for a GLU) and rebuilds the rest in backward.
    const int64_t act_width = !gated ? f : (b.fused_glu || b.compiled ? 2 * f : 3 * f);
    const bool gelu_unfused = !gated && b.hf_code && !b.compiled && m.hidden_act == HiddenAct::GeluNew;
    if (gelu_unfused) {
        // Hugging Face's NewGELUActivation, 0.5*x*(1+tanh(c*(x+0.044715*x^3))), runs as separate ops: pow keeps
        // its input, tanh its output, the last product both factors. pow is on autocast's fp32 list, so under
        // autocast three of the four are fp32 (validation/measured: gpt2 inventory, 3 fp32 + 1 bf16 of width f).
        for (const char* name : {"pow_input", "tanh_output", "one_plus_tanh"})
            act.saved.push_back({name, SavedKind::Upcast, SavedSplit::Tensor, f});
        act.saved.push_back({"half_input", SavedKind::Activation, SavedSplit::Tensor, f});
    } else {
        act.saved.push_back({"input", SavedKind::Activation, SavedSplit::Tensor, act_width});
    }
    // Per output element: GeLU reads x, writes y (bwd: dy, x -> dx); a fused GLU reads 2 and writes 1
    // (bwd: dy and 2 inputs -> 2 gradients); eager GLU runs activation and product as two kernels.
    const double a = b.act_bytes;
    const double fwd = !gated ? 2 : (b.fused_glu ? 3 : 5);
    const double bwd = !gated ? 3 : (b.fused_glu ? 5 : 8);
    if (!b.hf_code) act.work.push_back(elementwise(f, SavedSplit::Tensor, fwd * a, bwd * a));
    else if (b.compiled) act.work.push_back(compiled::activation(b, f, gated));
    else act.work.push_back(gelu_unfused ? eager::gelu_new(b, f) : gated ? eager::glu(b, f) : eager::pointwise_activation(b, f));
    mod.ops.push_back(act);
    mod.ops.push_back(pointwise_fed(b, eager_linear(b, linear("dense_4h_to_h", m.hidden, f, m.mlp_bias, Parallel::Row,
                                                              SavedSplit::Tensor, f), gelu_unfused)));
    return mod;
}

// A routed expert GEMM [experts, out, in]: experts split by ep, each expert's width by etp (column: out,
// row: in), run over the tokens routed to the rank (Megatron-Core GroupedMLP / TEGroupedMLP).
// `fp32`: the GEMM and its saved input in fp32 whatever the training dtype (fp32_experts below).
Op expert_linear(const BuildContext& b, const std::string& name, int64_t out, int64_t in, bool row, SavedSplit input_split,
                 bool fp32) {
    Op op{name, {ParamTensor{"w", {b.m.experts, out, in}, ParamSplit::Expert, false}}, {}};
    // Biased experts follow model.mlp_bias (gpt-oss gate_up_proj_bias [E, 2f] and down_proj_bias [E, h]).
    if (b.m.mlp_bias) op.params.push_back(ParamTensor{"b", {b.m.experts, out}, ParamSplit::Expert, false});
    op.saved.push_back({"input", fp32 ? SavedKind::Upcast : SavedKind::GemmInput, input_split, in});
    Work w = matmul_work(in, out, row);
    w.routed = true;
    w.fp32 = fp32;
    if (b.batched_experts) {
        // batched_mm gathers each routed row's expert weight (self.gate_up_proj[expert_ids]: [S, out, in]), which
        // torch.bmm keeps for its backward, in the dtype it multiplies in (autocast casts bmm's operands): out x in
        // elements per routed row (eager_kernels.cpp weight_gather).
        w.per_row_weights = true;
        op.saved.push_back({"gathered_weight", SavedKind::Activation, SavedSplit::Expert, out * in});
        op.work.push_back(eager::weight_gather(b.up_bytes, b.act_bytes, out * in));
    }
    // transformers' grouped_mm experts call torch's grouped GEMM, whose CUTLASS kernel takes bf16 only; in fp32 it
    // loops over the experts (aten _grouped_mm_fallback). Megatron's experts run Transformer Engine's GroupedLinear.
    w.group_loop = b.hf_code && (fp32 || !b.bf16 || b.loop_experts);
    w.launch_per_group = b.megatron_core;
    w.after_sync = b.megatron_core;
    // The eager experts run each expert's F.linear from the Python loop, on its select of the parameter.
    w.expert_loop = b.loop_experts;
    op.work.push_back(w);
    if (b.loop_experts) op.work.push_back(eager::select_gradients(b.up_bytes, b.m.experts, b.m.experts * out * in));
    if (b.hf_code && b.m.mlp_bias)
        op.work.push_back(eager::expert_bias(fp32 ? b.up_bytes : b.act_bytes, row ? SavedSplit::Routed : SavedSplit::Expert, out));
    return op;
}

namespace {

// Megatron-Core's alltoall dispatcher sorts the rows it received by local expert before the experts (permutation 2,
// sort_chunks_by_idxs) and back before the combine's exchange (megatron/core/transformer/moe/token_dispatcher.py
// dispatch_postprocess, combine_preprocess): one read and one write of every routed row each way, its backward the
// reverse sort; only where a rank holds more than one expert.
Work local_expert_sort(int64_t h, double eb) {
    Work sort = elementwise(h, SavedSplit::Routed, 2 * eb, 2 * eb);
    sort.path = KernelPath::LocalExpertSort;
    return sort;
}

// Megatron-Core's MoE layer op by op (core_v0.15.0, megatron/core/transformer/moe/; Transformer Engine 2.10's fused
// permutation kernels), beyond the data movement each op above times:
// - the router's top-k softmax, routing map and load-balancing loss (router.py routing, moe_utils.py
//   topk_routing_with_score_function and switch_load_balancing_loss_func, the aux loss's own softmax and top-k, its
//   logging): 29 small kernels over [tokens, experts] forward, 14 backward (the scaler's, the two softmaxes', the
//   scatter's and top-k's gradients), each reading and writing its [tokens, experts] tensor (about 6 bytes an
//   element: a bf16 or fp32 read and write); with
//   implementation.moe_router_fusion Transformer Engine's fused kernels replace the top-k softmax and routing map, the
//   aux loss's scores and the loss itself (fused_topk_with_score_function, fused_compute_score_for_moe_aux_loss,
//   fused_moe_aux_loss: one each way), leaving 6 kernels forward (the tokens per expert, the logging) and 6 backward
//   (the loss scaler's two, the sum of the two gradients at the logits);
constexpr int kRouterFwdKernels = 29, kRouterBwdKernels = 14, kFusedRouterKernels = 6;
// - the alltoall dispatcher's preprocessing (token_dispatcher.py preprocess): the tokens per expert and the splits
//   (7 reductions and copies), their 4 copies to the host, and Transformer Engine's 3 row-id-map kernels before the
//   permutation; nothing of it runs backward (integer tensors);
constexpr int kDispatchPrepKernels = 7 + 4 + 3;
// - the sort by local expert: two kernels forward (the chunk map, then the sort; the combine's three, as it also
//   copies the transposed counts), one backward.
// Everything from the sort to the combine is issued after the dispatcher's wait for the host (Work::after_sync).
Work core_local_expert_sort(int64_t h, double eb, bool combine) {
    Work sort = local_expert_sort(h, eb);
    sort.fwd_kernels = combine ? 3 : 2;
    sort.after_sync = true;
    return sort;
}

}  // namespace

Module moe_mlp(const BuildContext& b) {
    const ResolvedModel& m = b.m;
    const int64_t h = m.hidden, f = *m.expert_ffn_hidden, experts = m.experts;
    const bool gated = m.mlp == Mlp::Swiglu || m.mlp == Mlp::Geglu;
    // Hugging Face's experts (transformers 5: experts_implementation "grouped_mm", integrations/moe.py _grouped_mm)
    // call torch.nn.functional.grouped_mm, which autocast does not cast, on the input cast to the weights' dtype:
    // under autocast with fp32 weights the expert GEMMs run in fp32 and everything on the expert path is kept in
    // fp32 (validation/measured/h100-moe-pytorch.jsonl: FFMA sgemm kernels, fp32 saved tensors).
    // batched_mm's torch.bmm and the eager loop's F.linear are on autocast's list: they multiply in the 16-bit dtype
    // like the dense layers; only torch's grouped GEMM keeps the fp32 weights' dtype.
    const bool fp32_experts = b.hf_code && b.autocast && !b.batched_experts && !b.loop_experts;
    const SavedKind expert_kind = fp32_experts ? SavedKind::Upcast : SavedKind::Activation;
    const double eb = fp32_experts ? b.up_bytes : b.act_bytes;  // bytes of an element on the expert path
    Module mod{"moe", {}, {}};
    // The router: a replicated [experts, hidden] linear (Megatron-Core TopKRouter, transformers'
    // MixtralSparseMoeBlock.gate) over the layer's tokens, keeping its input and the fp32 routing probabilities
    // (top-k softmax) for backward.
    Op router = high_precision(linear("router", experts, h, m.router_bias, Parallel::None, SavedSplit::Sequence, h));
    router.saved.push_back({"probabilities", SavedKind::Fp32, SavedSplit::Sequence, experts});
    // The z-loss, mean(logsumexp(logits)^2) (megatron/core/transformer/moe/moe_utils.py z_loss_func), keeps the
    // logits it reads in fp32 for logsumexp's backward.
    if (b.router_z_loss) router.saved.push_back({"z_loss_logits", SavedKind::Fp32, SavedSplit::Sequence, experts});
    const int64_t top_k = *m.experts_per_token;
    router.work.push_back(b.hf_code         ? eager::topk_router(b, experts)
                          : b.fused_router  ? elementwise(experts, SavedSplit::Sequence, 6.0 * kFusedRouterKernels, kFusedRouterKernels,
                                                          6.0 * kFusedRouterKernels, kFusedRouterKernels)
                          : b.megatron_core ? elementwise(experts, SavedSplit::Sequence, 6.0 * kRouterFwdKernels, kRouterFwdKernels,
                                                          6.0 * kRouterBwdKernels, kRouterBwdKernels)
                                            : elementwise(experts, SavedSplit::Sequence, 8, 8));
    mod.ops.push_back(router);
    // Dispatch: each token copied to its top-k experts' ranks (permute, all-to-all), hidden wide. transformers'
    // experts sort the copies by expert and gather them op by op (eager_kernels.h), and the layer's input feeds the
    // router, the experts and any shared experts and their gate: autograd sums their gradients.
    Op dispatch{"dispatch", {}, {}};
    if (b.loop_experts) {
        Work loop = eager::expert_loop(b, h, experts, top_k);
        loop.expert_loop = true;
        dispatch.work.push_back(loop);
        dispatch.work.push_back(eager::grad_sum(b, h, 1 + (m.shared_experts > 0 ? 1 : 0) + (m.shared_expert_gate ? 1 : 0)));
    } else if (b.hf_code) {
        if (!b.batched_experts) dispatch.work.push_back(eager::expert_sort(b));
        dispatch.work.push_back(eager::token_gather(eb, h, top_k));
        dispatch.work.push_back(eager::grad_sum(b, h, 1 + (m.shared_experts > 0 ? 1 : 0) + (m.shared_expert_gate ? 1 : 0)));
    } else if (b.megatron_core) {
        // Its preprocessing reads the routing map ([tokens, experts], one byte an element, a few passes); backward, the
        // router's input gradient and the experts' path's are summed (autograd, one kernel over [tokens, h]).
        Work prep = elementwise(experts, SavedSplit::Sequence, 3.0 * kDispatchPrepKernels, kDispatchPrepKernels, 0, 0);
        prep.path = KernelPath::AllToAllDispatch;
        dispatch.work.push_back(prep);
        dispatch.work.push_back(elementwise(h, SavedSplit::Routed, 2 * eb, 2 * eb));
        dispatch.work.push_back(core_local_expert_sort(h, eb, false));
        dispatch.work.push_back(elementwise(h, SavedSplit::Sequence, 0, 0, 3 * b.act_bytes, 1));
    } else {
        dispatch.work.push_back(elementwise(h, SavedSplit::Routed, 2 * eb, 2 * eb));
        dispatch.work.push_back(local_expert_sort(h, eb));
    }
    mod.ops.push_back(dispatch);
    Module experts_mod{"experts", {}, {}};
    experts_mod.expert_compute = true;
    experts_mod.ops.push_back(expert_linear(b, "linear_fc1", gated ? 2 * f : f, h, false, SavedSplit::Routed, fp32_experts));
    Op act{gated ? "glu_activation" : "activation", {}, {}};
    // As the dense MLP: a fused GLU keeps its 2f-wide input; the eager form (Hugging Face's experts, act_fn(gate) * up)
    // keeps the gate/up output and the activated gate for the product (3f); GeLU its f-wide input.
    const bool eager_glu = gated && !b.fused_glu;
    // gpt-oss's clamped SwiGLU in transformers keeps the gate/up output (2f, which both clamps read), the clamped
    // gate, the sigmoid, up + 1 and their product (4f more); Megatron fuses it (weighted_bias_quick_geglu_impl).
    const bool clamped = b.hf_code && m.swiglu_limit > 0;
    act.saved.push_back({"input", expert_kind, SavedSplit::Expert, clamped ? 6 * f : !gated ? f : eager_glu ? 3 * f : 2 * f});
    // Per output element as the dense MLP's kernels (eager_kernels.cpp glu: two kernels forward, three backward);
    // the eager form splits one gate/up output (chunk), whose backward is a cat of the two gradients (r 2e w 2e,
    // one kernel more: profiled, CatArrayBatchedCopy of [S, 2f] per layer).
    Work act_work = elementwise(f, SavedSplit::Expert, (!gated ? 2 : eager_glu ? 5 : 3) * eb, (!gated ? 3 : eager_glu ? 13 : 5) * eb);
    if (eager_glu) {
        // Once per expert in transformers' eager loop.
        const int loops = b.loop_experts ? static_cast<int>(experts) : 1;
        act_work.fwd_kernels = 2 * loops;
        act_work.bwd_kernels = 4 * loops;
    }
    Work activation = clamped ? eager::clamped_swiglu(eb, f) : act_work;
    if (clamped && b.loop_experts) {
        activation.fwd_kernels *= static_cast<int>(experts);
        activation.bwd_kernels *= static_cast<int>(experts);
    }
    activation.expert_loop = b.loop_experts;
    activation.after_sync = b.megatron_core;
    act.work.push_back(activation);
    // moe_act discards the activation's output, fc2's saved input, and runs the activation again before fc2's backward
    // (megatron/core/transformer/moe/experts.py, CheckpointWithoutOutput).
    act.rerun_by = bit(RecomputeModule::MoeAct);
    experts_mod.ops.push_back(act);
    Op fc2 = expert_linear(b, "linear_fc2", h, f, true, SavedSplit::Expert, fp32_experts);
    fc2.saved.front().dropped_by = bit(RecomputeModule::MoeAct);
    experts_mod.ops.push_back(fc2);
    if (b.hf_code && !b.batched_experts && !b.loop_experts) {
        // transformers 5's grouped_mm_experts_forward zeroes the rows of tokens routed to no local expert (its
        // sentinels) around the grouped GEMMs: masked_fill_ of the gathered input and masked_fill of the weighted
        // output ([routed tokens, h]), masked_fill of the gate/up output (its width).
        Op masks{"sentinel_masks", {}, {}};
        masks.work.push_back(eager::masked_fill(eb, SavedSplit::Routed, h, 1, 1));
        masks.work.push_back(eager::masked_fill(eb, SavedSplit::Expert, gated ? 2 * f : f, 0, 1));
        experts_mod.ops.push_back(masks);
    }
    mod.children.push_back(experts_mod);
    // Combine: the expert outputs weighted by their probabilities and summed back per token; the product keeps
    // the expert outputs for the probabilities' gradient (megatron/core/transformer/moe/moe_utils.py unpermute).
    Op combine{"combine", {}, {}};
    combine.saved.push_back({"expert_output", expert_kind, SavedSplit::Routed, h});
    if (b.loop_experts) {
        // The eager loop weights and adds each expert's rows in place (eager_kernels.cpp expert_loop).
    } else if (b.hf_code) {
        combine.work.push_back(eager::routing_weight_product(eb, h));
        combine.work.push_back(b.batched_experts ? eager::top_k_sum(eb, h, top_k) : eager::token_unpermute_sum(eb, h, top_k));
    } else {
        combine.work.push_back(b.megatron_core ? core_local_expert_sort(h, eb, true) : local_expert_sort(h, eb));
        Work unpermute = elementwise(h, SavedSplit::Routed, 2 * eb, 3 * eb);
        unpermute.after_sync = b.megatron_core;
        combine.work.push_back(unpermute);
    }
    mod.ops.push_back(combine);
    // Shared experts: a dense MLP every token passes through (DeepSeekMoE; Qwen2-MoE's shared_expert).
    if (m.shared_experts > 0) {
        // shared_experts checkpoints them: what they saved but their input dropped, all of them run again.
        Module shared = mlp(b, *m.shared_expert_ffn_hidden, "shared_experts");
        shared.expert_compute = true;
        // Their input is the router's (Megatron-Core's MoELayer and transformers' MoE blocks hand both the same
        // tensor): saved once, unless autocast casts it for each linear or an fp8 recipe keeps its own copy.
        if (!b.autocast) shared.ops.front().saved.front().kind = SavedKind::SharedGemmInput;
        const unsigned own = bit(RecomputeModule::SharedExperts);
        tag_recompute(shared, own, own);  // their input is set apart below
        mod.children.push_back(shared);
    }
    // Qwen2-MoE scales the shared experts' output by sigmoid(x W), W [1, h] (modeling_qwen2_moe.py shared_expert_gate);
    // its input is the router's.
    if (m.shared_expert_gate)
        mod.ops.push_back(high_precision(linear("shared_expert_gate", 1, h, false, Parallel::None, SavedSplit::Sequence, h, false)));
    // Megatron-Core's selective recompute of the layer (docs/memory.md "Per-module recompute"): moe checkpoints all of
    // it, so everything it saved is dropped but its input, the router's (which the checkpoint keeps), and all of it
    // runs again, the dispatch and combine included (megatron/core/transformer/moe/moe_layer.py). The norm before
    // the layer is a module of its own in Megatron-Core's MoE layers: under layernorm its output, the router's and
    // the shared experts' saved input, is discarded and recomputed.
    const unsigned whole = bit(RecomputeModule::Moe), norm_output = bit(RecomputeModule::LayerNorm);
    tag_recompute(mod, whole, whole);
    mod.ops.front().saved.front().dropped_by = norm_output;
    // The shared experts' input is the router's again: their own checkpoint keeps it, the layer's drops it.
    if (m.shared_experts > 0) mod.children.back().ops.front().saved.front().dropped_by = whole | norm_output;
    return mod;
}

}  // namespace shardcalc
