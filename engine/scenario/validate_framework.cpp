// The rules a framework sets on a plan: what each of Megatron, DeepSpeed, FSDP, PyTorch and XLA runs, and with which
// options. Each failure names the field a user would change and says why.
#include "core/error.h"
#include "scenario/checks.h"
#include "scenario/dimension.h"
#include "scenario/framework.h"
#include "scenario/names.h"

namespace shardcalc::validation {

void validate_framework(const Config& c, Checks& check) {
    const ResolvedParallel& p = c.s.parallel;
    const Framework f = c.s.framework;
    if (p.overlap_param_gather && f != Framework::Megatron)
        check.fail("/parallel/overlap_param_gather",
                   std::string("is Megatron's --overlap-param-gather (its distributed optimizer's all-gather); framework ") +
                      name_of(f) + ": allowed false");
    // megatron/training/arguments.py: --tp-comm-overlap needs tensor and sequence parallelism (Transformer Engine's
    // userbuffers overlap the sequence-parallel all-gathers and reduce-scatters).
    if (p.tp_comm_overlap && f != Framework::Megatron)
        check.fail("/parallel/tp_comm_overlap",
                   std::string("is Megatron's --tp-comm-overlap (Transformer Engine's userbuffers); framework ") + name_of(f) +
                      ": allowed false");
    check.require(!p.tp_comm_overlap || runs_tp_comm_overlap(Framework::Megatron, p), "/parallel/tp_comm_overlap",
                  "overlaps the sequence-parallel collectives of tensor parallelism: needs tp > 1 and sp = true");
    if (p.reduce_bucket_size && f != Framework::DeepSpeed)
        check.fail("/parallel/reduce_bucket_size",
                   std::string("is DeepSpeed's zero_optimization.reduce_bucket_size; framework ") + name_of(f) +
                      ": leave it out");
    switch (f) {
        case Framework::Megatron:
            // Megatron-FSDP (megatron/core/distributed/fsdp: --use-megatron-fsdp --data-parallel-sharding-strategy
            // optim_grads|optim_grads_params, with --use-distributed-optimizer): zero 2 or 3. Its strategy "optim"
            // is the distributed optimizer itself.
            check.require(p.zero != 1, "/parallel/zero",
                    "the megatron profile shards optimizer states with distributed_optimizer (ZeRO-1 semantics); "
                    "allowed: 0, 2, 3 (Megatron-FSDP)");
            check.require(p.zero < 2 || p.distributed_optimizer, "/parallel/distributed_optimizer",
                    "Megatron-FSDP (zero 2, 3) needs distributed_optimizer = true");
            // Megatron Core's Megatron-FSDP guide names tensor, expert and context parallelism as what it composes with.
            check.require(p.zero < 2 || p.pp == 1, "/parallel/zero", "Megatron-FSDP (zero 2, 3) needs pp = 1");
            check.require(p.offload_params == Offload::None, "/parallel/offload_params",
                    "megatron does not offload parameters; allowed: none");
            check.require(p.offload_optimizer != Offload::Nvme, "/parallel/offload_optimizer",
                    "megatron offloads the optimizer to cpu only; allowed: none|cpu");
            check.require(p.offload_optimizer == Offload::None || p.distributed_optimizer, "/parallel/offload_optimizer",
                    "megatron's optimizer CPU offload needs distributed_optimizer = true");
            // megatron/training/arguments.py: --overlap-param-gather requires --use-distributed-optimizer and
            // --overlap-grad-reduce.
            check.require(!p.overlap_param_gather || runs_param_gather_overlap(f, p, p.overlap_grad_reduce),
                    "/parallel/overlap_param_gather",
                    "Megatron's --overlap-param-gather needs distributed_optimizer = true and overlap_grad_reduce = true");
            break;
        case Framework::DeepSpeed:
            check.require(!p.distributed_optimizer, "/parallel/distributed_optimizer",
                    "is a megatron option; with deepspeed use zero >= 1");
            // deepspeed/runtime/pipe/engine.py asserts ZeRO stage < 2 with pipeline parallelism.
            check.require(p.pp == 1 || p.zero <= 1, "/parallel/zero",
                    "DeepSpeed pipeline parallelism (pp > 1) supports ZeRO stage 0 or 1 only");
            check.require(p.offload_optimizer == Offload::None || p.zero >= 1, "/parallel/offload_optimizer",
                    "ZeRO-Offload needs zero >= 1");
            check.require(p.offload_params == Offload::None || p.zero == 3, "/parallel/offload_params",
                    "parameter offload (ZeRO-Infinity) needs zero = 3");
            break;
        case Framework::Fsdp:
            check.require(p.zero != 1, "/parallel/zero",
                    "FSDP sharding strategies are NO_SHARD (0), SHARD_GRAD_OP (2) and FULL_SHARD (3); allowed: 0|2|3");
            check.require(!p.distributed_optimizer, "/parallel/distributed_optimizer", "is a megatron option");
            check.require(p.offload_params != Offload::Nvme, "/parallel/offload_params", "FSDP offloads to cpu only; allowed: none|cpu");
            check.require(p.offload_optimizer != Offload::Nvme, "/parallel/offload_optimizer",
                    "FSDP offloads to cpu only; allowed: none|cpu");
            // torch.distributed.fsdp.CPUOffload(offload_params=True) moves parameters and gradients
            // to the host, so the optimizer step runs there too.
            check.require(p.offload_params == p.offload_optimizer, "/parallel/offload_optimizer",
                    "FSDP CPUOffload moves parameters, gradients and the optimizer together: set offload_params "
                    "and offload_optimizer to the same value");
            check.require(p.offload_params == Offload::None || p.zero == 3, "/parallel/offload_params",
                    "FSDP CPU offload needs FULL_SHARD (zero = 3)");
            break;
        case Framework::Pytorch:
            check.require(p.zero <= 1, "/parallel/zero",
                    "plain PyTorch DDP offers ZeroRedundancyOptimizer (1) at most; allowed: 0|1");
            check.require(!p.distributed_optimizer, "/parallel/distributed_optimizer", "is a megatron option");
            check.require(p.offload_optimizer == Offload::None, "/parallel/offload_optimizer",
                    "plain PyTorch DDP has no offload; allowed: none");
            check.require(p.offload_params == Offload::None, "/parallel/offload_params",
                    "plain PyTorch DDP has no offload; allowed: none");
            break;
        case Framework::Xla:
            // Data parallelism over a slice's cores or chips, and model (tensor) parallelism as Mesh TensorFlow
            // and GSPMD shard the layers' matmuls. Their pipeline, sequence and expert sharding is not modelled.
            for (const auto& [degree, path] : {std::pair<int64_t, const char*>{p.pp, "/parallel/pp"}, {p.cp, "/parallel/cp"},
                                               {p.ulysses, "/parallel/ulysses"}, {p.ep, "/parallel/ep"}})
                check.require(degree == 1, path, "under xla shardcalc models data and tensor (model) parallelism only; allowed: 1");
            check.require(!p.sp, "/parallel/sp", "under xla shardcalc models data and tensor (model) parallelism only; allowed: false");
            check.require(p.zero == 0, "/parallel/zero", "XLA's own weight sharding is not modelled as ZeRO; allowed: 0");
            check.require(!p.distributed_optimizer, "/parallel/distributed_optimizer", "is a megatron option");
            check.require(p.offload_optimizer == Offload::None, "/parallel/offload_optimizer", "not under xla; allowed: none");
            check.require(p.offload_params == Offload::None, "/parallel/offload_params", "not under xla; allowed: none");
            break;
    }
    // A TPU runs XLA programs only; shardcalc models XLA on TPUs only (JAX on GPUs uses another allocator).
    const bool tpu = c.s.hardware.kind == DeviceKind::Tpu;
    if (tpu && f != Framework::Xla)
        check.fail("/framework",
                   std::string("a TPU (") + c.s.hardware.preset + ") runs programs compiled by XLA, not " +
                                     name_of(f) + "; allowed: xla");
    if (!tpu && f == Framework::Xla)
        check.fail("/framework",
                   "xla is modelled on TPUs (hardware.kind tpu); on a GPU choose megatron|deepspeed|fsdp|pytorch");
}

}  // namespace shardcalc::validation
