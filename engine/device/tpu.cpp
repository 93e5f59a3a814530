// Google TPUs (v2-v6e) as XLA drives them: bf16 matrix units (MXUs), f32 matmuls as bf16 passes, arrays in
// XLA's tiled layouts, the inter-chip interconnect (ICI) torus across the whole slice, the runtime's reserved
// HBM. Sources: validation/xla_tpu_facts.md.
#include <algorithm>
#include <cmath>

#include "device/device.h"

namespace shardcalc {
namespace {

double round_up(double v, double multiple) { return std::ceil(v / multiple) * multiple; }

class Tpu final : public Device {
public:
    MatmulUnit matmul_unit(const HardwareSpec& h, Dtype dtype, bool) const override {
        switch (dtype) {
            case Dtype::Bf16: return {h.peak_tflops_bf16, ""};
            // The MXUs multiply bf16 (and int8 on v5e and later); XLA has no fp16 matmul on them.
            case Dtype::Fp16: return {0, "a TPU has no fp16 matrix units (its MXUs multiply bf16): use bf16 or fp32"};
            case Dtype::Fp8: return {0, "this TPU has no fp8 matrix units"};
            // XLA's default precision runs an f32 matmul as one bf16 pass with f32 accumulation (jax.lax.Precision
            // DEFAULT; HIGH is 3 passes, HIGHEST 6: jax #1856).
            case Dtype::Fp32:
                return {h.peak_tflops_bf16, "fp32 matmuls run on the MXUs as one bf16 pass (XLA's default precision)"};
        }
        return {0, "unknown dtype"};
    }

    // XLA pads a matmul to the MXU: the contracted and output feature dimensions to its side (128; 256 on v6e),
    // the streamed rows to the 8 sublanes of a vector register (Cloud TPU performance guide, "Padding").
    double shape_efficiency(const HardwareSpec& h, double m, double k, double n, double, bool, double, GemmLayout) const override {
        const double unit = h.matrix_unit > 0 ? static_cast<double>(h.matrix_unit) : 128;
        if (m <= 0 || k <= 0 || n <= 0) return 1;
        return m / round_up(m, 8) * k / round_up(k, unit) * n / round_up(n, unit);
    }

    // XLA's tiled layouts (openxla docs/tiled_layout.md): the two most-minor dimensions padded to a tile of
    // (8, 128) elements, a 16-bit array's pairs of rows packed ((8,128)(2,1)); an 8-bit array's tile is 32 rows,
    // four packed per sublane ((32,128)(4,1): JAX tpu_info.py get_sublane_tiling, XLA's default before TPU7x);
    // a 32-bit array with 1-2 or 3-4 rows takes a (2,128) or (4,128) tile; a vector a linear tile of 1024, a scalar
    // one of 256 (XLA's BERT report: f32[]{:T(256)}).
    ArrayLayout layout(const std::vector<int64_t>& shape, Dtype dtype) const override {
        const double bytes = bytes_of(dtype);
        ArrayLayout out;
        double elements = 1;
        for (int64_t d : shape) elements *= static_cast<double>(d);
        out.unpadded = elements * bytes;
        const size_t rank = shape.size();
        std::string order;
        for (size_t i = rank; i-- > 0;) order += std::to_string(i) + (i > 0 ? "," : "");
        if (rank == 0) {
            out.bytes = 256 * bytes;
            out.text = "{:T(256)}";
            return out;
        }
        if (rank == 1) {
            out.bytes = round_up(elements, 1024) * bytes;
            out.text = "{0:T(1024)}";
            return out;
        }
        const double rows = static_cast<double>(shape[rank - 2]), minor = static_cast<double>(shape[rank - 1]);
        double tile_rows = bytes == 1 ? 32 : 8;
        if (bytes == 4 && rows <= 2) tile_rows = 2;
        else if (bytes == 4 && rows <= 4) tile_rows = 4;
        const char* packing = bytes == 2 ? "(2,1)" : bytes == 1 ? "(4,1)" : "";
        out.bytes = elements / (rows * minor) * round_up(rows, tile_rows) * round_up(minor, 128) * bytes;
        out.text = "{" + order + ":T(" + std::to_string(static_cast<int>(tile_rows)) + ",128)" + packing + "}";
        return out;
    }

    // A slice's chips form one ICI torus that spans its hosts: a group's collectives run over ICI whether or not
    // it crosses a host (hosts talk over the data-center network only between slices, which is not modelled).
    Link link(const HardwareSpec& h, bool, int64_t) const override {  // one ICI torus: every group on it
        return {1e9 * h.intra_node_gbps * h.intra_node_efficiency, h.intra_node_latency_us * 1e-6};
    }

    const char* reserve_name() const override { return "the TPU runtime's reserved HBM"; }
};

}  // namespace

const Device& tpu_device() {
    static const Tpu tpu;
    return tpu;
}

}  // namespace shardcalc
