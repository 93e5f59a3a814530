#pragma once
// Weights, gradients and optimizer states of the parameters one device holds, after
// tensor-parallel sharding and ZeRO / distributed-optimizer partitioning, and what moves
// to the host when offloading.
#include <algorithm>

#include "graph/op.h"
#include "scenario/resolve.h"

namespace shardcalc {

// Parameters on one tensor-parallel rank, before any data-parallel partitioning.
struct ParamTally {
    double params = 0;            // elements held by this tp rank
    double optimizer_elems = 0;   // optimizer-state elements for those parameters
    double largest = 0;           // elements of the largest single parameter tensor
    double matmul_weights = 0;    // elements of weight matrices that feed a matmul (what autocast casts)
    // The routed experts' share of `params` and `optimizer_elems`: replicated over the expert data-parallel
    // ranks (Derived::expert_replica_degree), not over the data-parallel ones.
    double expert_params = 0, expert_optimizer_elems = 0;
    double fp8_weights = 0;       // elements of weights whose GEMMs run in fp8 under an fp8 recipe
    // Of `params`: the frozen ones (no gradient, no optimizer state) and, of those, the ones stored in 4 bits.
    double frozen = 0, quantized = 0;
    // Of the trained ones, PEFT's trained copies of whole modules (modules_to_save), in the base's dtype, and their
    // optimizer-state elements.
    double base_copies = 0, base_copy_optimizer_elems = 0;
    // The trained tensors one by one, as an optimizer looping over them sees them: those of two or more dimensions
    // (which Adafactor factors) and their elements, and the vectors.
    double trained_matrices = 0, trained_matrix_elems = 0, trained_vectors = 0;
    ParamTally& operator+=(const ParamTally& o) {
        trained_matrices += o.trained_matrices;
        trained_matrix_elems += o.trained_matrix_elems;
        trained_vectors += o.trained_vectors;
        frozen += o.frozen;
        quantized += o.quantized;
        fp8_weights += o.fp8_weights;
        params += o.params;
        matmul_weights += o.matmul_weights;
        optimizer_elems += o.optimizer_elems;
        largest = std::max(largest, o.largest);
        expert_params += o.expert_params;
        expert_optimizer_elems += o.expert_optimizer_elems;
        base_copies += o.base_copies;
        base_copy_optimizer_elems += o.base_copy_optimizer_elems;
        return *this;
    }
    // n layers' worth (the largest tensor stays one tensor).
    ParamTally times(double n) const {
        ParamTally t = *this;
        t.params *= n;
        t.optimizer_elems *= n;
        t.matmul_weights *= n;
        t.expert_params *= n;
        t.expert_optimizer_elems *= n;
        t.fp8_weights *= n;
        t.frozen *= n;
        t.quantized *= n;
        t.trained_matrices *= n;
        t.trained_matrix_elems *= n;
        t.trained_vectors *= n;
        t.base_copies *= n;
        t.base_copy_optimizer_elems *= n;
        return t;
    }
};

ParamTally tally_op(const Op& op, const Config& c, bool include_tied);
ParamTally tally_module(const Module& m, const Config& c, bool include_tied);

struct StateBytes {
    double weights = 0, gradients = 0, optimizer = 0;   // on the device
    double host_cpu = 0, host_nvme = 0;                  // offloaded, per device
    double step_transient = 0;                           // optimizer-step temporaries on the device
};

StateBytes model_state_bytes(const ParamTally& t, const Config& c);
// The same under an adapter (memory/adapter_states.cpp): the frozen base's weights only, the adapters' weights,
// gradients and optimizer states in fp32.
StateBytes adapter_state_bytes(const ParamTally& t, const Config& c);

// Bytes of one optimizer-state element: fp32 beside a master copy or fp32 weights, else the
// parameter dtype (torch.optim's zeros_like(param) in pure 16-bit training).
double optimizer_state_element_bytes(const Config& c);

// Temporaries of the optimizer step beyond the states, per device; `updated`: the parameters this device's step
// updates.
double optimizer_temporaries(const ParamTally& t, const Config& c, double updated);

// Optimizer-state elements kept per parameter tensor (exposed for tests); `flat`: the optimizer sees it inside a 1-D
// partition (FrameworkTraits::flat_optimizer_params).
double optimizer_state_elems(const ParamTensor& p, double local, Optimizer opt, bool flat = false);

}  // namespace shardcalc
