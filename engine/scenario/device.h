#pragma once
// Which unit of a device runs the matmuls of a training dtype, and at what peak. One rule for
// the roofline, MFU and the resolve-time notes and errors.
#include <string>

#include "core/dtype.h"
#include "scenario/scenario.h"

namespace shardcalc {

struct MatmulUnit {
    double tflops = 0;  // 0: the device cannot run this dtype's matmuls
    std::string how;    // empty when the dtype runs on its own units; else what runs it instead
};

MatmulUnit matmul_unit(const HardwareSpec& h, Dtype dtype, bool tf32);

}  // namespace shardcalc
