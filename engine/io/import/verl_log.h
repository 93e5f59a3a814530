#pragma once
// Reads verl's per-step metrics lines (rl/rl_reconcile.h MeasuredRl). verl prints one a step from its console logger
// (verl/utils/logger/aggregate_logger.py: "step:{step} - " then each "key:value" joined by " - "), behind Ray's
// "(TaskRunner pid=…)" prefix, with three decimals in older versions (verl-project/verl#1208) and Python's full repr in
// newer ones (verl-project/verl#7412):
//   (TaskRunner pid=16292) step:2 - global_seqlen/min:538646.000 - … - perf/max_memory_allocated_gb:25.921 -
//   perf/max_memory_reserved_gb:61.611 - … - response_length/mean:324.958 - … - timing_s/gen:74.020 -
//   timing_s/old_log_prob:3.566 - timing_s/ref:3.420 - timing_s/adv:1.167 - timing_s/update_actor:14.302 -
//   timing_s/step:96.551 - …
// Read: timing_s/{gen, update_weights, old_log_prob, ref, values, update_actor, update_critic, step}, the allocator
// peaks perf/max_memory_{allocated,reserved}_gb (GiB: verl divides by 1024**3; newer versions prefix "actor/"),
// response_length/{mean, max} and prompt_length/mean. A "step:N - " line with none of these (verl's validation
// metrics) and every other line are skipped. Throws InputError at "/log" when no step is found, or naming the line
// where a metric read is not a number of at least zero.
#include <string>

#include "rl/rl_reconcile.h"

namespace shardcalc {

MeasuredRl read_verl_log(const std::string& text);

}  // namespace shardcalc
