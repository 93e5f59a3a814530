#pragma once
// The width of an fp8 or FP4 GEMM operand, one rule for the GEMM's traffic and tiles (compute/roofline.cpp) and for
// the tensors and casts the recipe keeps (graph/blocks.h users: memory and op costs).
#include "scenario/adapter_rules.h"
#include "scenario/resolve.h"

namespace shardcalc {

// Bytes of one element without its scales: fp8 (E4M3/E5M2) one, NVFP4's E2M1 half (Transformer Engine
// NVFP4BlockScaling). A GEMM's operand traffic counts these only: the scales are at most 1/16 more.
inline double fp8_data_bytes(const Config& c) { return c.s.training.fp8 == Fp8Recipe::Nvfp4 ? 0.5 : 1; }

// Bytes of one fp8 element with its share of the recipe's scales: one fp32 per tensor for delayed and current
// scaling (none per element); for blockwise, one fp32 per 1x128 block of an activation and per 128x128 block of a
// weight (DeepSeek-V3 sec. 3.3.2); for MXFP8 one E8M0 byte per 32 elements along the GEMM's inner dimension
// (OCP Microscaling Formats v1.0, sec. 5.3; Transformer Engine's MXFP8BlockScaling); for NVFP4 one E4M3 byte per
// 16 elements of an activation and per 16x16 block of a weight (Transformer Engine's NVFP4BlockScaling,
// transformer_engine/common/recipe/__init__.py; its per-tensor fp32 scale aside).
inline double fp8_element_bytes(const Config& c, bool weight) {
    double scales = 0;
    switch (c.s.training.fp8) {
        case Fp8Recipe::Blockwise: scales = weight ? 4.0 / (128 * 128) : 4.0 / 128; break;
        case Fp8Recipe::Mx: scales = 1.0 / 32; break;
        case Fp8Recipe::Nvfp4: scales = weight ? 1.0 / (16 * 16) : 1.0 / 16; break;
        case Fp8Recipe::None:
        case Fp8Recipe::Delayed:
        case Fp8Recipe::Current: break;
    }
    return fp8_data_bytes(c) + scales;
}

// Bytes per parameter a ZeRO-3 / FSDP gather moves and holds: the compute dtype (FSDP's MixedPrecision casts the
// shard before gathering; DeepSpeed's parameters are in it), the fp8 parameters themselves where they are fp8
// primary weights (Megatron-FSDP with --fp8-param-gather; the few norms and biases beside them are counted as fp8),
// or QLoRA's packed 4-bit weights (FSDP-QLoRA gathers them packed and dequantizes each at its GEMM; the layers' norms
// beside them are counted as packed).
inline double gathered_bytes_per_param(const Config& c) {
    if (c.s.adapter.method == AdapterMethod::Qlora) return quantized_weight_bytes(c.s.adapter);
    return c.s.training.param_dtype == Dtype::Fp8 ? fp8_element_bytes(c, true) : bytes_of(c.s.training.dtype);
}

}  // namespace shardcalc
