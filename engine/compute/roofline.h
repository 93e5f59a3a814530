#pragma once
// Time of one kernel on one device: the larger of its FLOPs against the achievable matrix
// peak and its HBM traffic against the achievable bandwidth (Williams et al. 2009, roofline),
// plus a launch cost. GEMM traffic follows DeepFlow's L2 tiling (the reload counts of its LSTM
// projection, docs/sources.md) and GEMM efficiency drops with wave quantization on small problems
// (NVIDIA, "Matrix Multiplication Background User's Guide", wave and tile quantization).
#include "device/device.h"
#include "scenario/resolve.h"

namespace shardcalc {

struct Kernel {
    double flops = 0;
    double bytes = 0;      // HBM traffic
    double l2_bytes = 0;   // GEMMs: traffic between L2 and the SMs' shared memory (0 for other kernels)
    double seconds = 0;    // on the device
    double launches = 0;   // kernel launches the host issues (eager PyTorch pays host time for each)
    // Of them, those a library launches from its own C++ inside one framework op (cuDNN's RNN): no framework dispatch
    // each, only the launch, which the kernel's time already holds.
    double library_launches = 0;
    // Of `seconds` and `launches`, those issued after a host-device synchronization of the same pass (transformers'
    // eager experts loop): the host cannot run ahead of them, so they overlap only with each other's host work.
    double synced_seconds = 0, synced_launches = 0;
    // `seconds` by kind of kernel, for the comparison with profiled runs (validation/measured categories).
    double matmul_seconds = 0, attention_seconds = 0, memory_seconds = 0;
    bool compute_bound = false;
    Kernel& operator+=(const Kernel& o) {
        flops += o.flops;
        bytes += o.bytes;
        l2_bytes += o.l2_bytes;
        seconds += o.seconds;
        launches += o.launches;
        library_launches += o.library_launches;
        synced_seconds += o.synced_seconds;
        synced_launches += o.synced_launches;
        matmul_seconds += o.matmul_seconds;
        attention_seconds += o.attention_seconds;
        memory_seconds += o.memory_seconds;
        compute_bound = compute_bound || o.compute_bound;
        return *this;
    }
};

// The kernels run `f` times (microbatches, layers).
Kernel scaled(const Kernel& k, double f);

double peak_flops(const Config& c, Dtype dtype, bool tf32);  // FLOP/s of the unit that runs matmuls in `dtype`
double peak_flops(const Config& c, Dtype dtype);  // the same under implementation.tf32
double peak_flops(const Config& c);      // FLOP/s of the matrix units in the training dtype
double fp8_peak_flops(const Config& c);  // FLOP/s of the fp8 GEMMs of the training.fp8 recipe (MXFP8's own path)
// The peak an MFU divides by: the fastest matrix unit the step's GEMMs run on (the training dtype's, or under an fp8
// recipe the fp8 one), so that no plan reports more than 100% of the peak it states.
double mfu_peak_flops(const Config& c);
// The fastest rate any kernel of the step computes at: the MFU peak, or an fp32 GEMM's (a router's, cuDNN's) where a
// device states a faster fp32 or TF32 unit. No plan's step is shorter than its FLOPs at this rate.
double fastest_peak_flops(const Config& c);
double hbm_bytes_per_s(const Config& c); // achievable

// How a GEMM [m, k] x [k, n] -> [m, n] streams its operands (DeepFlow's two-level tiling): A is
// read once per column of output tiles and B once per row of them, C written once. HBM -> L2 with the
// L2-resident tile (l2_tile), L2 -> shared memory with the thread block's tile.
struct GemmTraffic {
    double hbm_reload_a = 1, hbm_reload_b = 1, l2_reload_a = 1, l2_reload_b = 1;
    double hbm_bytes = 0, l2_bytes = 0;
};
// The precision a GEMM runs in: the training dtype; fp8 (training.fp8, graph Work::fp8); or fp32 whatever the
// training dtype (graph Work::fp32: Hugging Face's grouped experts under autocast with fp32 weights); or the training
// dtype inside cuDNN, whose fp32 GEMMs take cuDNN's own TF32 switch (graph Work::cudnn).
enum class GemmPrecision { Training, Fp8, Fp32, Cudnn };

GemmTraffic gemm_traffic(double m, double k, double n, const Config& c, GemmPrecision precision);
// `groups`: one grouped kernel over that many [m, k] x [k, n] problems (torch._grouped_mm, CUTLASS grouped GEMM);
// `layout`: which dimensions are leading ones (device/device.h GemmLayout: a weight gradient's first operand is transposed).
Kernel gemm_kernel(double m, double k, double n, const Config& c, GemmPrecision precision = GemmPrecision::Training,
                   double groups = 1, GemmLayout layout = GemmLayout::RowMajor);
Kernel attention_kernel(double flops, double bytes, const Config& c);
// Memory-bound work moving `bytes` through HBM in `kernels` launches.
Kernel memory_kernel(double bytes, const Config& c, int kernels = 1);

// Rows of one L2-resident square tile of the GEMM (exposed for tests).
double l2_tile(const Config& c);

// The roofline's ridge: FLOPs per HBM byte at which a large GEMM turns from memory- to compute-bound
// (achievable matrix rate over achievable bandwidth; DeepFlow's "inflection_point").
double inflection_point(const Config& c);

}  // namespace shardcalc
