#include "compute/roofline.h"

#include "device/device.h"
#include "scenario/precision.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

namespace shardcalc {
namespace {

constexpr double kCtaTile = 128;  // output tile of one thread block in cuBLAS's large-GEMM kernels

double launch(const Config& c) { return c.s.hardware.kernel_launch_us * 1e-6; }

Kernel finish(double flops, double bytes, double flop_rate, const Config& c) {
    Kernel k;
    k.flops = flops;
    k.bytes = bytes;
    const double t_compute = flop_rate > 0 ? flops / flop_rate : 0;
    const double t_memory = bytes / hbm_bytes_per_s(c);
    k.compute_bound = t_compute >= t_memory;
    k.seconds = std::max(t_compute, t_memory) + launch(c);
    k.launches = 1;
    return k;
}

}  // namespace

Kernel scaled(const Kernel& k, double f) {
    Kernel out = k;
    out.flops *= f;
    out.bytes *= f;
    out.l2_bytes *= f;
    out.seconds *= f;
    out.launches *= f;
    out.library_launches *= f;
    out.synced_seconds *= f;
    out.synced_launches *= f;
    out.matmul_seconds *= f;
    out.attention_seconds *= f;
    out.memory_seconds *= f;
    return out;
}

double peak_flops(const Config& c, Dtype dtype, bool tf32) { return matmul_unit(c.s.hardware, dtype, tf32).tflops * 1e12; }

double peak_flops(const Config& c, Dtype dtype) { return peak_flops(c, dtype, c.s.implementation.tf32); }

double peak_flops(const Config& c) { return peak_flops(c, c.s.training.dtype); }

double fp8_peak_flops(const Config& c) {
    // MXFP8 runs on the block-scaled tensor-core path (Blackwell's tcgen05 with E8M0 scales), NVFP4 on its 4-bit one.
    const HardwareSpec& h = c.s.hardware;
    switch (c.s.training.fp8) {
        case Fp8Recipe::Mx: return h.peak_tflops_mxfp8 * 1e12;
        case Fp8Recipe::Nvfp4: return h.peak_tflops_nvfp4 * 1e12;
        default: return h.peak_tflops_fp8 * 1e12;
    }
}

double mfu_peak_flops(const Config& c) {
    const double own = peak_flops(c);
    return c.s.training.fp8 == Fp8Recipe::None ? own : std::max(own, fp8_peak_flops(c));
}

double fastest_peak_flops(const Config& c) {
    // The precisions gemm_kernel runs at: the training dtype's, the fp8 recipe's, fp32 (TF32 as implementation.tf32 or
    // cuDNN's switch says); attention runs at the training dtype's.
    return std::max({mfu_peak_flops(c), peak_flops(c, Dtype::Fp32, c.s.implementation.tf32),
                     peak_flops(c, Dtype::Fp32, c.s.implementation.cudnn_tf32.value_or(true))});
}

double hbm_bytes_per_s(const Config& c) { return c.s.hardware.hbm_gbps * 1e9 * c.s.hardware.hbm_efficiency; }

namespace {

// The largest power-of-two square tile of which three (A, B and C) fit in `bytes` (DeepFlow perf.py setTileDim,
// in DeepFlow's LSTM projection: 512 rows in its 9.2 MiB L2, 2048 in its 55.3 MiB of shared memory); at least one
// row.
double square_tile(double bytes, double elem) {
    const double side = std::sqrt(bytes / (3 * elem));
    double t = 1;
    while (t * 2 <= side) t *= 2;
    return t;
}

// Rows of the tile one thread block keeps in shared memory: from hardware.shared_memory_kib where the preset
// gives it, else cuBLAS's 128-row large-GEMM tile.
double block_tile(const Config& c, double elem) {
    const double smem = c.s.hardware.shared_memory_kib * 1024;
    return smem > 0 ? square_tile(smem, elem) : kCtaTile;
}

// Reloads of A [m, k] and B [k, n] through a level holding tiles of `t` rows: A once per column of output tiles,
// B once per row of them (DeepFlow's LSTM projection, docs/sources.md). When the inner dimension fits in one tile,
// a whole panel of one operand stays resident while the other streams past it once: whichever moves fewer bytes.
std::pair<double, double> reloads(double m, double k, double n, double t) {
    const double a = std::ceil(n / t), b = std::ceil(m / t);
    if (k > t) return {a, b};
    return m * k * a + k * n <= m * k + k * n * b ? std::pair<double, double>{a, 1.0} : std::pair<double, double>{1.0, b};
}

}  // namespace

double l2_tile(const Config& c) {
    // Three tiles (A, B and C) share half of the L2; the other half serves other streams.
    const double elem = bytes_of(c.s.training.dtype);
    const double l2 = c.s.hardware.l2_mib * 1024 * 1024;
    return l2 > 0 ? square_tile(l2 / 2, elem) : block_tile(c, elem);
}

double inflection_point(const Config& c) {
    return peak_flops(c) * c.s.hardware.matmul_efficiency / hbm_bytes_per_s(c);
}

namespace {

// Bytes of one operand element: fp8's or FP4's (scenario/precision.h), fp32 4, else the training dtype's.
double operand_bytes(GemmPrecision precision, const Config& c) {
    if (precision == GemmPrecision::Fp8) return fp8_data_bytes(c);
    return precision == GemmPrecision::Fp32 ? 4 : bytes_of(c.s.training.dtype);
}

}  // namespace

GemmTraffic gemm_traffic(double m, double k, double n, const Config& c, GemmPrecision precision) {
    // An fp8 GEMM reads 1-byte operands and writes the training dtype; an fp32 one reads and writes fp32.
    const double a = operand_bytes(precision, c);
    const double out = precision == GemmPrecision::Fp32 ? 4 : bytes_of(c.s.training.dtype);
    GemmTraffic g;
    std::tie(g.hbm_reload_a, g.hbm_reload_b) = reloads(m, k, n, l2_tile(c));
    std::tie(g.l2_reload_a, g.l2_reload_b) = reloads(m, k, n, block_tile(c, a));
    g.hbm_bytes = a * (m * k * g.hbm_reload_a + k * n * g.hbm_reload_b) + out * m * n;
    g.l2_bytes = a * (m * k * g.l2_reload_a + k * n * g.l2_reload_b) + out * m * n;
    return g;
}

Kernel gemm_kernel(double m, double k, double n, const Config& c, GemmPrecision precision, double groups, GemmLayout layout) {
    const double a = operand_bytes(precision, c);
    const GemmTraffic traffic = gemm_traffic(m, k, n, c, precision);
    // Each group reads its own operands (an expert's weight) and writes its own output.
    const double bytes = groups * traffic.hbm_bytes;
    const Dtype dtype = precision == GemmPrecision::Fp32 ? Dtype::Fp32 : c.s.training.dtype;
    // The shape's use of the matrix units is the device's rule (tiles and waves on a GPU, MXU padding on a TPU).
    // On a GPU fp32 without TF32 runs on the CUDA cores, which need no alignment.
    const bool tf32 = precision == GemmPrecision::Cudnn ? c.s.implementation.cudnn_tf32.value_or(true) : c.s.implementation.tf32;
    const bool matrix_units = dtype != Dtype::Fp32 || tf32;  // fp8 needs a 16-bit training dtype
    // fp8 GEMMs reach their own share of the fp8 peak where it was measured apart (stas00/ml-engineering MAMF
    // table: H100 70.9% in fp8 against 80.3% in bf16).
    const HardwareSpec& h = c.s.hardware;
    const double large = precision == GemmPrecision::Fp8 && h.matmul_efficiency_fp8 > 0 ? h.matmul_efficiency_fp8 : h.matmul_efficiency;
    const double efficiency = large * device_of(h).shape_efficiency(h, m, k, n, a, matrix_units, groups, layout);
    const double peak = precision == GemmPrecision::Fp8 ? fp8_peak_flops(c) : peak_flops(c, dtype, tf32);
    Kernel kernel = finish(groups * 2 * m * k * n, bytes, peak * efficiency, c);
    kernel.l2_bytes = groups * traffic.l2_bytes;
    kernel.matmul_seconds = kernel.seconds;
    return kernel;
}

Kernel attention_kernel(double flops, double bytes, const Config& c) {
    Kernel out = finish(flops, bytes, peak_flops(c) * c.s.hardware.attention_efficiency, c);
    out.attention_seconds = out.seconds;
    return out;
}

Kernel memory_kernel(double bytes, const Config& c, int kernels) {
    Kernel k = finish(0, bytes, 0, c);
    k.seconds += (kernels - 1) * launch(c);
    k.launches = kernels;
    k.memory_seconds = k.seconds;
    return k;
}

}  // namespace shardcalc
