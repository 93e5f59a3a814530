// NVIDIA and AMD GPUs: tensor cores per dtype, cuBLAS's tiles and waves, dense arrays, NVLink inside a node and
// one NIC per GPU across nodes, the CUDA context outside PyTorch's allocator.
#include <algorithm>
#include <cmath>

#include "device/device.h"

namespace shardcalc {
namespace {

constexpr double kCtaTile = 128;  // output tile of one thread block in cuBLAS's large-GEMM kernels
// A ring or tree collective's latency before its first step: NCCL's baseLat for the Simple protocol, 8.4 us for ring in
// every version from 2.7.5 to master and for tree from 2.23.4 (src/graph/tuning.cc; validation/nccl_facts.md, sec. 1).
constexpr double kNcclBaseLatency = 8.4e-6;

// The share of a thread block's time spent on products rather than on filling its pipeline: k / (k + fill), `fill`
// the inner dimension the pipeline's first stages load before the first product (hardware.gemm_fill_k). A GEMM with
// a short inner dimension (a row-parallel linear at high tp: k = hidden / tp) runs well below the large-GEMM rate
// that matmul_efficiency was measured at, where k is thousands and the share about 1.
double pipeline_fill(double k, double fill) { return fill > 0 ? k / (k + fill) : 1; }

class Gpu final : public Device {
public:
    MatmulUnit matmul_unit(const HardwareSpec& h, Dtype dtype, bool tf32) const override {
        switch (dtype) {
            case Dtype::Bf16:
                if (h.peak_tflops_bf16 > 0) return {h.peak_tflops_bf16, ""};
                return {h.peak_tflops_fp32, "bf16 has no matrix peak here: timed at the fp32 peak"};
            case Dtype::Fp16:
                if (h.peak_tflops_fp16 > 0) return {h.peak_tflops_fp16, ""};
                return {0, "this device has no fp16 matrix peak"};
            case Dtype::Fp8:
                if (h.peak_tflops_fp8 > 0) return {h.peak_tflops_fp8, ""};
                return {0, "this device has no fp8 matrix units"};
            case Dtype::Fp32:
                // torch.backends.cuda.matmul.allow_tf32 (off in PyTorch, on in Megatron) sends fp32 matmuls to the
                // TF32 tensor cores.
                if (tf32 && h.peak_tflops_tf32 > 0) return {h.peak_tflops_tf32, ""};
                if (h.peak_tflops_fp32 > 0) return {h.peak_tflops_fp32, ""};
                if (h.peak_tflops_bf16 > 0)
                    return {h.peak_tflops_bf16, "no fp32 peak given: fp32 matmuls timed at the bf16 peak"};
                return {0, "this device has no matrix peak for fp32"};
        }
        return {0, "unknown dtype"};
    }

    // Wave and tile quantization (NVIDIA, "Matrix Multiplication Background User's Guide"): a GEMM runs in
    // 128 x 128 output tiles, one per SM at a time; the last wave and partial tiles waste work. A dimension under
    // one tile gets a narrower kernel instead. Tensor-core kernels also need 16-byte-aligned leading dimensions
    // (device.h GemmLayout: never the token count).
    double shape_efficiency(const HardwareSpec& h, double m, double k, double n, double elem_bytes,
                            bool matrix_units, double groups, GemmLayout layout) const override {
        double efficiency = 1;
        if (h.sm_count > 0) {
            const double sms = static_cast<double>(h.sm_count);
            // A grouped GEMM tiles each problem apart and schedules all their tiles over the SMs in one launch
            // (CUTLASS's GroupProblemShape kernels, torch._grouped_mm): each group pads its own rows to the tile.
            const double tiles = groups * std::ceil(m / kCtaTile) * std::ceil(n / kCtaTile);
            const double waves = std::ceil(tiles / sms);
            auto used = [](double d) { return d < kCtaTile ? 1.0 : d / (std::ceil(d / kCtaTile) * kCtaTile); };
            efficiency *= tiles / (waves * sms) * used(m) * used(n);
        }
        const double lead_a = layout == GemmLayout::TransposedA ? m : k;
        if (matrix_units) efficiency *= alignment_factor(lead_a, n, elem_bytes) * pipeline_fill(k, h.gemm_fill_k);
        return efficiency;
    }

    ArrayLayout layout(const std::vector<int64_t>& shape, Dtype dtype) const override {
        double elements = 1;
        for (int64_t d : shape) elements *= static_cast<double>(d);
        const double bytes = elements * bytes_of(dtype);
        return {bytes, bytes, ""};
    }

    // Inside an NVLink domain (a DGX node, an NVL72 rack) the group runs over NVLink; between domains each domain's
    // members share their NICs, one per GPU on the reference systems (DGX A100/H100/B200, GB200 NVL72), so a ring
    // leaving a domain gets inter_node_gbps times the members it has there. Between domains NCCL may run all-reduce
    // as a double binary tree; inside one it uses rings (NCCL src/graph/tuning.cc).
    Link link(const HardwareSpec& h, bool scale_out, int64_t members_per_domain) const override {
        const double nvlink = h.intra_node_gbps * h.intra_node_efficiency;
        if (!scale_out) return {1e9 * nvlink, h.intra_node_latency_us * 1e-6, false, kNcclBaseLatency};
        const double nics = h.inter_node_gbps * h.inter_node_efficiency * static_cast<double>(members_per_domain);
        return {1e9 * std::min(nvlink, nics), h.inter_node_latency_us * 1e-6, true, kNcclBaseLatency};
    }

    const char* reserve_name() const override { return "the CUDA context and library handles"; }
};

}  // namespace

// cuBLAS runs its fast kernels only when every leading dimension is a multiple of 16 bytes; otherwise it
// falls back to kernels loading 2, 4 or 8 bytes at a time (CUTLASS ..._align1/2/4 in the profiles of
// validation/measured: GPT-2's unpadded 50257-row vocabulary), whose throughput scales with the load width.
double alignment_factor(double lead_a, double lead_b, double elem_bytes) {
    auto pow2 = [](double d) {
        const auto v = static_cast<int64_t>(std::llround(d));
        return v > 0 ? static_cast<double>(v & -v) : 1.0;  // largest power of two dividing v
    };
    const double width = std::min(pow2(lead_a), pow2(lead_b)) * elem_bytes;
    return std::min(16.0, width) / 16.0;
}

const Device& gpu_device() {
    static const Gpu gpu;
    return gpu;
}

}  // namespace shardcalc
