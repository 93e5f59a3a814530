#pragma once
// An adapter's rules (scenario/adapter.h): its defaults, its relations to the other fields and the bytes of a 4-bit
// base weight. A file of its own so that the page's WebAssembly core, which leaves adapters to the whole engine,
// leaves these out too (wasm/core_features.cpp).
#include <vector>

#include "core/error.h"
#include "scenario/resolve.h"

namespace shardcalc {

// Bytes of an adapter's weight, gradient and optimizer-state element (adapter.dtype; torch.optim keeps its states in
// the parameters' dtype).
inline double adapter_bytes(const AdapterSpec& a) { return bytes_of(a.dtype); }

// Fills what an adapter decides before the framework's defaults: Hugging Face model code, the base in the compute
// dtype, the adapters' gradients in their dtype and no master copy.
void apply_adapter_defaults(Scenario& s);

std::vector<Problem> adapter_problems(const Config& c);

// Bytes per element of a QLoRA base weight: 4-bit codes plus one fp32 absmax per block of 64, or with double
// quantization one 8-bit absmax per block and an fp32 constant per 256 of them (Dettmers et al. 2023, sec. 3:
// 0.5 bits per parameter of scales, 0.127 with double quantization). GPTQ: 4-bit codes (qweight) plus, per group of
// input rows and output column, an fp16 scale and a 4-bit zero packed eight to an int32 (auto_gptq's QuantLinear
// scales and qzeros; its g_idx, an int32 per input row, is left out: 4 bytes per row of thousands of weights).
inline double quantized_weight_bytes(const AdapterSpec& a) {
    if (a.quantization == AdapterQuant::Gptq) return 0.5 + (2 + 0.5) / static_cast<double>(a.group_size);
    const double block = 64, blocks_per_constant = 256;
    return 0.5 + (a.double_quant ? 1 / block + 4 / (block * blocks_per_constant) : 4 / block);
}

}  // namespace shardcalc
