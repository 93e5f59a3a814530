// Model states under an adapter (scenario/adapter.h): the frozen base holds weights only, in its dtype or in 4 bits
// with block scales (QLoRA); the adapters hold weights, gradients and optimizer states in adapter.dtype (fp32 as PEFT's
// get_peft_model keeps them; torch.optim keeps its states in the parameters' dtype).
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
    const double base = (t.frozen - t.quantized) * bytes_of(*c.s.training.param_dtype) +
                        t.quantized * quantized_weight_bytes(c.s.adapter);
    StateBytes s;
    s.weights = partition(base + adapter_bytes(c.s.adapter) * trained, zero >= 3);
    s.gradients = partition(trained, zero >= 2) * bytes_of(*c.s.training.grad_dtype);
    const double updated = partition(trained, zero >= 1);
    s.optimizer = optimizer_state_element_bytes(c) * partition(t.optimizer_elems, zero >= 1);
    s.step_transient = optimizer_temporaries(t, c, updated);
    return s;
}

}  // namespace shardcalc
