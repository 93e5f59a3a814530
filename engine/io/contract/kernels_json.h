#pragma once
// The per-kernel table as JSON (docs/scenario.md "Kernels"): what `shardcalc kernels --format json` prints and
// the page's kernel table reads.
#include <nlohmann/json.hpp>

#include "report/kernel_table.h"

namespace shardcalc {

nlohmann::json kernel_table_json(const KernelTable& t);

}  // namespace shardcalc
