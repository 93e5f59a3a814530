#pragma once
// Binary byte units, the one definition every layer uses (GiB and MiB are 2^30 and 2^20 bytes, as PyTorch, Megatron
// and the reports count them).
namespace shardcalc {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

}  // namespace shardcalc
