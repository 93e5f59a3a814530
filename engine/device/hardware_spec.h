#pragma once
// The hardware a scenario names: its memory, links, peaks and the achievable shares of them (presets/hardware carry
// each figure with its source). Plain data; the device models that read it are device/device.h's implementations.
#include <cstdint>
#include <string>

namespace shardcalc {

// Which implementation of the device interface (device/device.h) a hardware spec describes.
enum class DeviceKind { Gpu, Tpu };

struct HardwareSpec {
    std::string preset;
    bool preset_defaulted = false;  // no preset named: the default accelerator was assumed
    std::string name;
    DeviceKind kind = DeviceKind::Gpu;
    double memory_gib = 0;
    int64_t gpus_per_node = 8;    // devices per host (a TPU host: its chips or cores)
    // Devices joined by one scale-up fabric (NVLink/NVSwitch): 8 on a DGX, 72 on an NVL72 rack of 18 hosts. Groups
    // inside it run at intra_node_gbps; groups leaving it use the NICs. 0: one host (gpus_per_node).
    int64_t nvlink_domain = 0;
    int64_t matrix_unit = 0;      // a TPU's MXU side (128 x 128 systolic array; 256 on v6e): XLA pads matmul dims to it
    double overhead_gib = 0;      // device memory outside the allocator: CUDA context and handles; a TPU runtime's reserved HBM
    double workspace_mib = 0;     // cuBLAS workspace held by the allocator from the first GEMM
    double hbm_gbps = 0;
    double l2_mib = 0;
    double shared_memory_kib = 0;  // of one SM: the thread block's GEMM tile (0: cuBLAS's 128 rows)
    double gemm_fill_k = 0;        // inner dimension a GEMM thread block spends filling its pipeline (0: hidden)
    double intra_node_gbps = 0;
    double inter_node_gbps = 0;
    double peak_tflops_fp32 = 0, peak_tflops_tf32 = 0, peak_tflops_fp16 = 0,
           peak_tflops_bf16 = 0, peak_tflops_fp8 = 0, peak_tflops_int8 = 0;
    double peak_tflops_mxfp8 = 0;  // fp8 with a scale per 32 elements in the tensor cores (Blackwell); 0: none
    double peak_tflops_nvfp4 = 0;  // 4-bit E2M1 with an E4M3 scale per 16 elements (Blackwell's NVFP4); 0: none
    // Achievable-performance figures for the roofline and the alpha-beta model (each sourced in
    // the preset): fraction of peak a large GEMM / attention kernel / streaming kernel reaches,
    // streaming multiprocessors (wave quantization), kernel launch cost, collective latency and
    // the fraction of link bandwidth NCCL reaches as bus bandwidth.
    int64_t sm_count = 0;
    double matmul_efficiency = 0, attention_efficiency = 0, hbm_efficiency = 0;
    double matmul_efficiency_fp8 = 0;  // of the fp8 peak, where measured apart (0: matmul_efficiency)
    double kernel_launch_us = 0;
    double intra_node_latency_us = 0, inter_node_latency_us = 0;
    double intra_node_efficiency = 0, inter_node_efficiency = 0;
    double price_per_gpu_hour = 0;  // user input; 0: no cost figures
    // The host side of offload, per device: its PCIe link (one direction) and its share of the host's
    // DRAM bandwidth. 0: not known (an offloaded optimizer step is then not timed).
    double host_link_gbps = 0, host_memory_gbps = 0;
};

// The devices one scale-up fabric joins: the NVLink domain, or one host where none is given.
inline int64_t nvlink_domain_of(const HardwareSpec& h) { return h.nvlink_domain > 0 ? h.nvlink_domain : h.gpus_per_node; }

}  // namespace shardcalc
