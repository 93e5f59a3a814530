#include "device/device.h"

namespace shardcalc {

const Device& gpu_device();
const Device& tpu_device();

const Device& device_of(const HardwareSpec& h) { return h.kind == DeviceKind::Tpu ? tpu_device() : gpu_device(); }

MatmulUnit matmul_unit(const HardwareSpec& h, Dtype dtype, bool tf32) { return device_of(h).matmul_unit(h, dtype, tf32); }

}  // namespace shardcalc
