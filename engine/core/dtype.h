#pragma once
// Numeric formats a tensor can be stored in, and their width in bytes.
namespace shardcalc {

enum class Dtype { Fp32, Fp16, Bf16, Fp8 };

inline double bytes_of(Dtype d) {
    switch (d) {
        case Dtype::Fp32: return 4;
        case Dtype::Fp16: return 2;
        case Dtype::Bf16: return 2;
        case Dtype::Fp8: return 1;
    }
    return 4;
}

inline bool is_16bit(Dtype d) { return d == Dtype::Fp16 || d == Dtype::Bf16; }

}  // namespace shardcalc
