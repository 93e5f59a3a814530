// Model states under an adapter (scenario/adapter.h): the frozen base holds weights only, in its dtype or in 4 bits
// with block scales (QLoRA); the adapters hold weights, gradients and optimizer states in adapter.dtype (fp32 as PEFT's
// get_peft_model keeps them; torch.optim keeps its states in the parameters' dtype), or under DeepSpeed with 16-bit
// adapters an fp32 master partition and fp32 states (training.master_weights).
// ZeRO partitions as for full training, over the trained parameters only; stage 3 (FSDP's full sharding) partitions
// the frozen base too (FSDP's use_orig_params flat parameters hold frozen and trained parameters alike).
#include "memory/model_states.h"
#include "scenario/adapter_rules.h"

namespace shardcalc {

StateBytes adapter_state_bytes(const ParamTally& t, const Config& c) {
    const int zero = c.s.parallel.zero;
    const double n = static_cast<double>(c.d.replica_degree);
    auto partition = [&](double x, bool sharded) { return sharded ? x / n : x; };
    const double trained = t.params - t.frozen;
    // PEFT's trained copies of whole modules (modules_to_save) keep the base's dtype: their weights, their gradients
    // and (torch.optim) their states; the adapters theirs.
    const double copies = t.base_copies, adapters = trained - copies;
    const double base_bytes = bytes_of(c.s.training.param_dtype);
    const double base = (t.frozen - t.quantized) * base_bytes + t.quantized * quantized_weight_bytes(c.s.adapter);
    const bool eight_bit = c.s.training.optimizer == Optimizer::AdamW8bit;
    StateBytes s;
    s.weights = partition(base + adapter_bytes(c.s.adapter) * adapters + base_bytes * copies, zero >= 3);
    s.gradients = partition(adapters * bytes_of(c.s.training.grad_dtype) + copies * base_bytes, zero >= 2);
    const double updated = partition(trained, zero >= 1);
    // DeepSpeed's fp32 master partition of the 16-bit adapters (scenario/adapter_rules.cpp).
    const double master = c.s.training.master_weights ? 4.0 * updated : 0.0;
    s.optimizer = master + partition(optimizer_state_element_bytes(c) * (t.optimizer_elems - t.base_copy_optimizer_elems) +
                                (eight_bit ? optimizer_state_element_bytes(c) : base_bytes) * t.base_copy_optimizer_elems,
                            zero >= 1);
    s.step_transient = optimizer_temporaries(t, c, updated);
    return s;
}

}  // namespace shardcalc
