#pragma once
// Binary byte units, the one definition every layer uses (GiB and MiB are 2^30 and 2^20 bytes, as PyTorch, Megatron
// and the reports count them), and the unit a reader picks for what is written for people.
namespace shardcalc {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

// Amounts of memory written for people: binary (GiB, MiB, KiB) or decimal (GB, MB, kB), as the page's unit menu
// offers them. The figures themselves are bytes either way.
enum class ByteUnit { GiB, GB };
struct ByteScale {
    const char* name;  // "GiB"
    double bytes;      // 2^30
};
// The unit's large, middle and small steps: GiB, MiB, KiB or GB, MB, kB.
inline ByteScale byte_scale(ByteUnit u, int step) {
    const bool binary = u == ByteUnit::GiB;
    if (step == 0) return binary ? ByteScale{"GiB", kGiB} : ByteScale{"GB", 1e9};
    if (step == 1) return binary ? ByteScale{"MiB", kMiB} : ByteScale{"MB", 1e6};
    return binary ? ByteScale{"KiB", 1024.0} : ByteScale{"kB", 1e3};
}
// How a table's title defines its unit: "GiB = 2^30 bytes".
inline const char* unit_definition(ByteUnit u, int step) {
    const bool binary = u == ByteUnit::GiB;
    if (step == 0) return binary ? "GiB = 2^30 bytes" : "GB = 10^9 bytes";
    return binary ? "MiB = 2^20 bytes" : "MB = 10^6 bytes";
}

}  // namespace shardcalc
