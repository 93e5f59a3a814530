#pragma once
// Internal to io/: the scenario's hardware number fields, read by io/scenario_json.cpp and written by
// io/scenario_echo.cpp.
#include <utility>

#include "scenario/scenario.h"

namespace shardcalc {

// Real-valued maxima (docs/scenario.md 2.4, 2.6):
inline constexpr double kGiB32 = 4294967296.0;  // 2^32 GiB: byte counts stay below 2^62
inline constexpr double kRate = 1e9;             // GB/s and TFLOP/s: an exa-scale device
inline constexpr double kMicros = 1e6;           // one second per launch or collective step

// The hardware's real-valued fields and the peak table, by JSON name, with the range each may take: one
// list serves the parser and the echo of the resolved scenario, so the two cannot drift apart. The ranges
// are wide (a million times beyond any device) but closed, so every time, byte count and cost the engine
// derives from them stays finite (docs/scenario.md 2.4).
struct HardwareNumber {
    const char* key;
    double HardwareSpec::*member;
    double min, max;
};
inline constexpr HardwareNumber kHardwareNumbers[] = {
    {"memory_gib", &HardwareSpec::memory_gib, 1e-6, kGiB32},
    {"overhead_gib", &HardwareSpec::overhead_gib, 0, kGiB32},
    {"workspace_mib", &HardwareSpec::workspace_mib, 0, 4398046511104.0},
    {"hbm_gbps", &HardwareSpec::hbm_gbps, 1e-3, kRate},
    {"l2_mib", &HardwareSpec::l2_mib, 0, kGiB32},
    {"shared_memory_kib", &HardwareSpec::shared_memory_kib, 0, kGiB32},
    {"gemm_fill_k", &HardwareSpec::gemm_fill_k, 0, kGiB32},
    {"intra_node_gbps", &HardwareSpec::intra_node_gbps, 1e-3, kRate},
    {"inter_node_gbps", &HardwareSpec::inter_node_gbps, 1e-3, kRate},
    {"matmul_efficiency", &HardwareSpec::matmul_efficiency, 1e-3, 1},
    {"matmul_efficiency_fp8", &HardwareSpec::matmul_efficiency_fp8, 0, 1},
    {"attention_efficiency", &HardwareSpec::attention_efficiency, 1e-3, 1},
    {"hbm_efficiency", &HardwareSpec::hbm_efficiency, 1e-3, 1},
    {"kernel_launch_us", &HardwareSpec::kernel_launch_us, 0, kMicros},
    {"intra_node_latency_us", &HardwareSpec::intra_node_latency_us, 0, kMicros},
    {"inter_node_latency_us", &HardwareSpec::inter_node_latency_us, 0, kMicros},
    {"intra_node_efficiency", &HardwareSpec::intra_node_efficiency, 1e-3, 1},
    {"inter_node_efficiency", &HardwareSpec::inter_node_efficiency, 1e-3, 1},
    {"price_per_gpu_hour", &HardwareSpec::price_per_gpu_hour, 0, kRate},
    {"host_link_gbps", &HardwareSpec::host_link_gbps, 0, kRate},
    {"host_memory_gbps", &HardwareSpec::host_memory_gbps, 0, kRate},
};
// A peak of 0 means the device lacks that unit; a positive peak is at least 10^-3 TFLOP/s (validate.cpp).
inline constexpr std::pair<const char*, double HardwareSpec::*> kPeaks[] = {
    {"fp32", &HardwareSpec::peak_tflops_fp32}, {"tf32", &HardwareSpec::peak_tflops_tf32},
    {"fp16", &HardwareSpec::peak_tflops_fp16}, {"bf16", &HardwareSpec::peak_tflops_bf16},
    {"fp8", &HardwareSpec::peak_tflops_fp8},   {"int8", &HardwareSpec::peak_tflops_int8},
    {"mxfp8", &HardwareSpec::peak_tflops_mxfp8}, {"nvfp4", &HardwareSpec::peak_tflops_nvfp4},
};

}  // namespace shardcalc
