#pragma once
// A device as every model sees it: which unit runs a dtype's matmuls and how much of it a matmul's shape uses,
// how an array is laid out in its memory, what its links give a collective group, and what its runtime holds
// outside the program. One implementation per kind (device/gpu.cpp, device/tpu.cpp); the roofline, memory and
// communication models ask the device instead of reading its constants.
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "device/hardware_spec.h"

namespace shardcalc {

struct MatmulUnit {
    double tflops = 0;  // 0: the device cannot run this dtype's matmuls
    std::string how;    // empty when the dtype runs on its own units; else what runs it instead
};

// An array as it sits in device memory: padded bytes, the bytes of its elements, and the layout as the
// device's compiler prints it (XLA on TPU: "{3,2,1,0:T(8,128)}"; empty where arrays are dense).
struct ArrayLayout {
    double bytes = 0, unpadded = 0;
    std::string text;
};

// What one member of a collective group gets from the links it runs over.
struct Link {
    double bytes_per_s = 0;  // achievable bus bandwidth
    double latency_s = 0;    // per step of the algorithm
    bool tree = false;       // a double binary tree is offered for all-reduce (NCCL across nodes)
    double call_latency_s = 0;  // once per ring or tree collective, whatever its steps (NCCL's baseLat)
};

// Which of a GEMM's dimensions are its operands' leading dimensions, the rows cuBLAS's loads run along (row-major
// tensors, PyTorch's): [m, k] by [k, n] reads along k and writes along n; a weight gradient reads its first operand as a
// transposed activation [k, m] whose rows run along m (the activation's features). The tokens a GEMM sums over or
// produces are never one (cuBLAS's leading-dimension rule, cublasLtMatmul).
enum class GemmLayout { RowMajor, TransposedA };

class Device {
public:
    virtual ~Device() = default;
    virtual MatmulUnit matmul_unit(const HardwareSpec& h, Dtype dtype, bool tf32) const = 0;
    // The share of the unit's rate an [m, k] x [k, n] matmul keeps for its shape (tiles, waves, padding, alignment);
    // `matrix_units`: the dtype runs on the matrix units (not an fp32 fallback onto vector cores); `groups`: one
    // grouped kernel runs that many such problems at once (a MoE layer's experts), their tiles sharing the waves.
    virtual double shape_efficiency(const HardwareSpec& h, double m, double k, double n, double elem_bytes,
                                    bool matrix_units, double groups = 1, GemmLayout layout = GemmLayout::RowMajor) const = 0;
    virtual ArrayLayout layout(const std::vector<int64_t>& shape, Dtype dtype) const = 0;
    // A group inside one scale-up fabric (NVLink domain) or leaving it (`scale_out`); `members_per_domain`: how many of
    // its members share one domain's network.
    virtual Link link(const HardwareSpec& h, bool scale_out, int64_t members_per_domain) const = 0;
    // What hardware.overhead_gib holds, in words for the verdict and the report.
    virtual const char* reserve_name() const = 0;
};

const Device& device_of(const HardwareSpec& h);

// The one rule of each kind, exposed for tests.
MatmulUnit matmul_unit(const HardwareSpec& h, Dtype dtype, bool tf32);
// GPU: loads narrower than 16 bytes where a leading dimension (`lead_a`, `lead_b`: GemmLayout's) is not a multiple of it.
double alignment_factor(double lead_a, double lead_b, double elem_bytes);

}  // namespace shardcalc
