#include "scenario/device.h"

namespace shardcalc {

MatmulUnit matmul_unit(const HardwareSpec& h, Dtype dtype, bool tf32) {
    switch (dtype) {
        case Dtype::Bf16:
            if (h.peak_tflops_bf16 > 0) return {h.peak_tflops_bf16, ""};
            return {h.peak_tflops_fp32, "bf16 has no matrix peak here: timed at the fp32 peak"};
        case Dtype::Fp16:
            if (h.peak_tflops_fp16 > 0) return {h.peak_tflops_fp16, ""};
            // TPU matrix units take bf16 (and int8) only; XLA has no fp16 matmul path on them.
            return {0, "this device has no fp16 matrix units (TPUs multiply bf16): use bf16 or fp32"};
        case Dtype::Fp8:
            if (h.peak_tflops_fp8 > 0) return {h.peak_tflops_fp8, ""};
            return {0, "this device has no fp8 matrix units"};
        case Dtype::Fp32:
            // torch.backends.cuda.matmul.allow_tf32 (off in PyTorch, on in Megatron) sends fp32 matmuls to the
            // TF32 tensor cores.
            if (tf32 && h.peak_tflops_tf32 > 0) return {h.peak_tflops_tf32, ""};
            if (h.peak_tflops_fp32 > 0) return {h.peak_tflops_fp32, ""};
            // A chip without fp32 matrix units (TPU) runs fp32 matmuls through its bf16 units: XLA's default
            // precision is one bf16 pass (jax.default_matmul_precision, Precision.DEFAULT).
            if (h.peak_tflops_bf16 > 0)
                return {h.peak_tflops_bf16, "no fp32 matrix units: fp32 matmuls run as one bf16 pass (XLA default precision)"};
            return {0, "this device has no matrix peak for fp32"};
    }
    return {0, "unknown dtype"};
}

}  // namespace shardcalc
