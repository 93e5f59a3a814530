#include "scenario/framework.h"

#include "scenario/adapter_rules.h"

namespace shardcalc {

FrameworkTraits traits_of(const ResolvedScenario& s) {
    FrameworkTraits t;
    switch (s.framework) {
        case Framework::Megatron:
            // megatron/core/fusions/fused_bias_swiglu.py saves the 2f-wide input only;
            // megatron/core/tensor_parallel/cross_entropy.py keeps the fp32 exp-logits in place;
            // --make-vocab-size-divisible-by defaults to 128 (megatron/training/arguments.py).
            t.fused_glu = true;
            t.vocab_multiple = 128;
            t.buffers = BufferPolicy::None;
            // megatron/core/distributed/param_and_grad_buffer.py: main_grad lives in a buffer allocated at
            // model construction, so gradients are resident before the first backward.
            t.grads_persist = true;
            // --gradient-accumulation-fusion (on by default) has the weight-gradient GEMM add into main_grad; the
            // other parameters' gradients are added by the buffer's backward hook (megatron/core/distributed/
            // distributed_data_parallel.py _make_backward_post_hook: param.main_grad.add_(param.grad)).
            t.grad_accumulation = GradAccumulation::MainGradHooks;
            // Megatron-FSDP gathers one FSDP unit (a transformer layer) at a time, the next one prefetched into a
            // second buffer (fsdp_double_buffer), and reduce-scatters the unit's gradients from a buffer of its own
            // (megatron/core/distributed/fsdp/src/megatron_fsdp/param_and_grad_buffer.py): PyTorch FSDP's units.
            if (s.parallel.zero >= 2) t.buffers = BufferPolicy::FsdpUnits;
            break;
        case Framework::DeepSpeed:
            // deepspeed/runtime/zero/stage_1_and_2.py: the fp32 gradient of the local partition is
            // materialised for the step (single_partition_of_fp32_groups[i].grad).
            t.buffers = BufferPolicy::DeepSpeedZero;
            t.step_transient_bytes_per_param = 4;
            // Megatron-DeepSpeed (model_code megatron, the default here) keeps Megatron's
            // --make-vocab-size-divisible-by 128 (megatron/arguments.py in microsoft/Megatron-DeepSpeed).
            if (s.implementation.model_code == ModelCode::Megatron) t.vocab_multiple = 128;
            // ZeRO-0 leaves accumulation to autograd (AccumulateGrad adds into .grad after the first microbatch);
            // ZeRO-1/2/3 hook every parameter and copy its gradient into the reduction bucket each microbatch
            // (deepspeed/runtime/zero/stage_1_and_2.py reduce_independent_p_g_buckets_and_remove_grads,
            // stage3.py __add_grad_to_ipg_bucket).
            t.grad_accumulation = s.parallel.zero == 0 ? GradAccumulation::AutogradAdd : GradAccumulation::BucketCopy;
            t.flat_optimizer_params = s.parallel.zero >= 1 || is_16bit(s.training.dtype);
            break;
        case Framework::Fsdp:
            // torch.optim.AdamW(foreach=True) allocates one fp32 temporary per state tensor
            // (torch/optim/adamw.py _multi_tensor_adamw: exp_avg_sq_sqrt).
            t.buffers = BufferPolicy::FsdpUnits;
            t.flat_optimizer_params = s.parallel.zero >= 2;  // sharded (SHARD_GRAD_OP, FULL_SHARD); NO_SHARD keeps the tensors
            break;
        case Framework::Pytorch:
            // torch/nn/parallel/distributed.py: gradient_as_bucket_view=False by default, so the
            // reducer's buckets hold a second copy of every gradient. torch.autocast caches the
            // 16-bit copy of each fp32 weight for the backward pass.
            t.buffers = BufferPolicy::DdpBuckets;
            break;
        case Framework::Xla:
            // XLA fuses elementwise chains into their producers (a GLU saves its input, as Megatron's fused
            // kernel does), reduces gradients with an in-place all-reduce (no bucket copies), and its gradients
            // are temporaries of the step's program, consumed by the update inside it.
            t.fused_glu = true;
            t.buffers = BufferPolicy::None;
            t.xla = true;
            break;
    }
    const ResolvedTraining& tr = s.training;
    // torch.autocast with fp32 parameters. FSDP's MixedPrecision instead casts the gathered parameters to
    // 16 bits and runs the model in them (torch.distributed.fsdp.MixedPrecision param_dtype): no fp32
    // residual stream, no per-op casts.
    t.autocast = tr.param_dtype == Dtype::Fp32 && is_16bit(tr.dtype) && s.framework == Framework::Pytorch;
    t.hf_code = s.implementation.model_code == ModelCode::HuggingFace;
    if (t.hf_code) {
        // Hugging Face modules: the GLU's gate, up and product are separate tensors, the loss is
        // nn.functional.cross_entropy, no vocabulary padding beyond what tp needs.
        t.fused_glu = false;
        t.vocab_multiple = 1;
        // scaled_dot_product_attention with enable_gqa=True in fp32: the flash kernel needs 16-bit inputs and
        // the memory-efficient kernel does not take GQA (torch sdp_utils), so the math kernel runs and keeps
        // the fp32 probabilities like eager attention (validation/measured: llama-160m fp32, +128 sbh per layer).
        t.sdpa_math = tr.attention == Attention::Flash && tr.dtype == Dtype::Fp32 && s.model.kv_heads < s.model.heads;
    }
    return t;
}

namespace {

void apply_implementation_defaults(Scenario& s) {
    ImplementationSpec& im = s.implementation;
    // XLA's fusions behave like Megatron's fused kernels (one norm, one GLU, one loss kernel each).
    const bool megatron_kernels = s.framework == Framework::Megatron || s.framework == Framework::DeepSpeed ||
                                  s.framework == Framework::Xla;
    // DeepSpeed defaults to Megatron-style kernels because the published DeepSpeed runs we validate against
    // (the Bloom runs of Azure ML's training guide, Narayanan's ZeRO-3 rows) are Megatron-DeepSpeed; Hugging
    // Face + DeepSpeed users set implementation.model_code = huggingface.
    if (!im.model_code) im.model_code = megatron_kernels ? ModelCode::Megatron : ModelCode::HuggingFace;
    // Megatron and DeepSpeed ship a fused (multi-tensor) Adam; torch.optim.AdamW picks foreach on CUDA
    // when neither foreach nor fused is given (torch/optim/optimizer.py _default_to_fused_or_foreach).
    if (!im.optimizer_impl) im.optimizer_impl = megatron_kernels ? OptimizerImpl::Fused : OptimizerImpl::Foreach;
    // PyTorch leaves torch.backends.cuda.matmul.allow_tf32 off (since 1.12); Megatron turns it on
    // (megatron/training/initialize.py).
    if (!im.tf32) im.tf32 = s.framework == Framework::Megatron;
    // cuDNN's own switch is on by default (torch.backends.cudnn.allow_tf32, torch/backends/cudnn/__init__.py); only an
    // LSTM's GEMMs run inside cuDNN here, so only an LSTM's scenario states it.
    if (!im.cudnn_tf32 && s.model.arch == Arch::Lstm) im.cudnn_tf32 = true;
    // torch.nn.LSTM on a GPU calls cuDNN (aten/src/ATen/native/cudnn/RNN.cpp); an XLA program unrolls the recurrence.
    if (!im.rnn && s.model.arch == Arch::Lstm) im.rnn = s.framework == Framework::Xla ? RnnImpl::Unrolled : RnnImpl::Cudnn;
    // transformers 5 takes grouped_mm where torch has _grouped_mm (PyTorch 2.9 and later on a GPU of compute capability
    // 8.0 or more: integrations/moe.py _can_use_grouped_mm).
    if (!im.experts && s.model.experts > 0 && *im.model_code == ModelCode::HuggingFace && s.framework != Framework::Xla)
        im.experts = ExpertsImpl::GroupedMm;
    // Measured on the launch-bound GPT-2 run of validation/measured (micro-batch 1: the device idles between
    // kernels): forward 13.8 ms over its 358 kernels, backward 18.1 ms over 566 (counted as the engine counts
    // them); Python module code costs more per kernel than autograd's engine. Not re-measured for Megatron.
    // An XLA program is one launch per step: no host dispatch per op.
    const bool compiled = s.framework == Framework::Xla;
    if (!im.host_forward_us) im.host_forward_us = compiled ? 0 : 38.5;
    if (!im.host_backward_us) im.host_backward_us = compiled ? 0 : 32.0;
    // torch.compile: inductor's wrapper launches each of its kernels through CachingAutotuner.run, 6.8 to 9.1 µs a
    // kernel (0 to 19 arguments; tritonbench PR #1017, GB200); the CUDA-graph modes replay the whole pass at once.
    if (!im.host_compiled_us && im.compile != CompileMode::None) im.host_compiled_us = cuda_graphs(im.compile) ? 0 : 9.1;
    ModelSpec& m = s.model;
    if (!m.hidden_act) m.hidden_act = m.mlp == Mlp::Swiglu ? HiddenAct::Silu : m.mlp == Mlp::Relu ? HiddenAct::Relu : HiddenAct::Gelu;
    // The checkpoint's layout: Hugging Face's Llama, Mistral and BERT have three projections (q_proj/k_proj/v_proj,
    // query/key/value), GPT-2 and Bloom one (presets say so). Megatron's code fuses them whatever the checkpoint does
    // (graph/blocks.h BuildContext::fused_qkv), which leaves this field the model's own, for another framework to read.
    if (!m.fused_qkv) m.fused_qkv = false;
}

}  // namespace

void apply_framework_defaults(Scenario& s) {
    if (s.adapter.method != AdapterMethod::None) apply_adapter_defaults(s);
    TrainingSpec& t = s.training;
    switch (s.framework) {
        case Framework::Megatron:
            // Megatron mixed precision: 16-bit params, fp32 main grads (--accumulate-allreduce-grads-in-fp32
            // is implied for bf16), fp32 master copy in the optimizer (megatron/core/optimizer).
            if (!t.param_dtype) t.param_dtype = t.dtype;
            if (!t.grad_dtype) t.grad_dtype = Dtype::Fp32;
            break;
        case Framework::DeepSpeed:
            // DeepSpeed fp16/bf16 engine: gradients in the parameter dtype, fp32 master in the optimizer.
            if (!t.param_dtype) t.param_dtype = t.dtype;
            if (!t.grad_dtype) t.grad_dtype = *t.param_dtype;
            break;
        case Framework::Xla:
            // JAX/Flax, TensorFlow and PyTorch/XLA keep fp32 parameters and cast them to the compute dtype inside
            // the program; the optimizer updates the fp32 parameters themselves (no separate master copy).
        case Framework::Fsdp:
        case Framework::Pytorch:
            // FSDP MixedPrecision / torch.autocast: the parameters themselves stay fp32 and are the
            // optimizer's weights; only the compute copies are 16-bit.
            if (!t.param_dtype) t.param_dtype = Dtype::Fp32;
            if (!t.grad_dtype) t.grad_dtype = *t.param_dtype;
            break;
    }
    // Megatron clips at 1.0 unless --clip-grad 0 (megatron/training/arguments.py); DeepSpeed's gradient_clipping
    // defaults to 0 (deepspeed/runtime/constants.py), and a PyTorch or FSDP loop clips only when it calls
    // clip_grad_norm_.
    // Google's BERT and ALBERT clip by global norm 1.0 (optimization.py clip_by_global_norm), as most JAX recipes do.
    if (!t.grad_clip) t.grad_clip = s.framework == Framework::Megatron || s.framework == Framework::Xla;
    // Google's BERT gathers max_predictions_per_seq positions before the MLM head: its README sets it to about
    // max_seq_length * masked_lm_prob (0.15): 20 at 128, 77 at 512. Hugging Face and Megatron score every position.
    const bool mlm = s.model.arch == Arch::Encoder && s.model.head == Head::Lm;
    if (!t.mlm_predictions)
        t.mlm_predictions = s.framework == Framework::Xla && mlm ? (*t.seq_len * 15 + 99) / 100 : 0;
    // torch.optim keeps no fp32 master copy: pure 16-bit training updates the 16-bit weights and keeps
    // its states in their dtype (torch/optim/adamw.py: torch.zeros_like(p)).
    const bool plain_optimizer = s.framework == Framework::Pytorch || s.framework == Framework::Xla;
    if (!t.master_weights)
        t.master_weights = !plain_optimizer && (is_16bit(*t.param_dtype) || *t.param_dtype == Dtype::Fp8);
    apply_implementation_defaults(s);

    // Whether gradient reduction overlaps the backward pass by default: Megatron-LM's
    // --overlap-grad-reduce is off by default (megatron/training/arguments.py); DeepSpeed's
    // overlap_comm is off for ZeRO-1/2 and on for ZeRO-3 (deepspeed/runtime/zero/config.py);
    // PyTorch DDP and FSDP reduce buckets from backward hooks.
    ParallelSpec& p = s.parallel;
    if (!p.overlap_grad_reduce) {
        switch (s.framework) {
            case Framework::Megatron: p.overlap_grad_reduce = false; break;
            case Framework::DeepSpeed: p.overlap_grad_reduce = p.zero == 3; break;
            case Framework::Fsdp:
            case Framework::Pytorch: p.overlap_grad_reduce = true; break;
            // XLA's latency-hiding scheduler runs the gradient all-reduce asynchronously beside backward.
            case Framework::Xla: p.overlap_grad_reduce = true; break;
        }
    }
    if (s.framework == Framework::DeepSpeed && !p.reduce_bucket_size)
        p.reduce_bucket_size = static_cast<int64_t>(kDeepSpeedReduceBucket);
}

bool megatron_fused_softmax(Framework f, int64_t micro_batch, int64_t heads_per_rank, int64_t seq_len, bool causal,
                            bool float16) {
    const int64_t batches = micro_batch * heads_per_rank;
    if (!float16 || seq_len % 4 != 0 || batches % 4 != 0) return false;
    if (f == Framework::DeepSpeed) return seq_len > 16 && seq_len <= 2048;
    if (seq_len <= 16 || seq_len > 4096) return false;
    // get_batch_per_block (scaled_upper_triang_masked_softmax.h): 128 threads a block, a warp per row up to 32 keys
    // wide, two rows a warp up to 128 keys.
    const int64_t per_block = seq_len <= 128 ? 8 : 4;
    return causal ? batches % per_block == 0 : seq_len % per_block == 0;
}

bool megatron_layer_scaled_softmax(Framework f) { return f == Framework::DeepSpeed; }

bool runs_tp_comm_overlap(Framework f, const ParallelFields& p) { return f == Framework::Megatron && p.tp > 1 && p.sp; }

bool runs_param_gather_overlap(Framework f, const ParallelFields& p, bool overlap_grad_reduce) {
    return f == Framework::Megatron && p.distributed_optimizer && overlap_grad_reduce;
}

}  // namespace shardcalc
