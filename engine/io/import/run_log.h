#pragma once
// Reads what a training log says about memory and step time (report/reconcile.h MeasuredRun). Formats read, each from
// the framework's own printing code:
//   Megatron-LM, megatron/training/training.py report_memory and training_log:
//     [Rank 0] (after 20 iterations) memory (MB) | allocated: 3270.16 | max allocated: 5670.39 | reserved: 6406.00 | max reserved: 6406.00
//     after 5 iterations memory (MB) | allocated: 10250.5 | max allocated: 12606.0 | reserved: 17482.0 | max reserved: 17482.0
//     [2026-07-10 05:46:31] iteration 20/ 20 | consumed samples: 320 | elapsed time per iteration (ms): 744.0 | ...
//     Theoretical memory footprints: weight and optimizer=46983.28 MB, activation=8989.01 MB, total=55972.29 MB
//       (megatron/training/theoretical_memory_usage.py report_theoretical_memory, with any prefix before it)
//   ("MB" there is 2^20 bytes: report_memory divides by 1024 * 1024, the theoretical memory by 1024 ** 2.)
//   DeepSpeed, deepspeed/runtime/utils.py see_memory_usage (rank 0 only; GB = 2^30 bytes):
//     [INFO] [utils.py:827:see_memory_usage] MA 4.96 GB         Max_MA 5.09 GB         CA 6.39 GB         Max_CA 6 GB
//   PyTorch, torch/cuda/memory.py memory_summary (sizes in B, KiB, MiB, GiB as _format_size prints them; the device ID
//   read as the rank, one process per device):
//     |                  PyTorch CUDA memory summary, device ID 0                 |
//     |            CUDA OOMs: 0            |        cudaMalloc retries: 0         |
//     | Allocated memory      |  32711 MiB |  52084 MiB | 142756 GiB | 142724 GiB |
//     | GPU reserved memory   |  49552 MiB |  52188 MiB |  86354 MiB |  36802 MiB |
//   A summary completes the Megatron-LM report of its rank (the out-of-memory and retry counters) or stands alone.
//   nvidia-smi's GPU table (from its "NVIDIA-SMI … Driver Version" line to its process list), each GPU's memory in use,
//   the GPU index read as the rank:
//     |   0  A100-SXM-80GB       On   | 00000000:10:00.0 Off |                    0 |
//     | N/A   61C    P0   175W / 400W |  33717MiB / 81252MiB |     84%      Default |
//   DeepSpeed's throughput timer, deepspeed/utils/timer.py (rank 0; the whole job's samples per second):
//     [INFO] [timer.py:198:stop] 0/20, RunningAvgSamplesPerSec=232.73, CurrSamplesPerSec=227.48, MemAllocated=0.36GB, ...
//   Hugging Face's Trainer's final metrics, transformers trainer_utils.py speed_metrics (the training's samples over its
//   runtime):
//     {'train_runtime': 5162.7837, 'train_samples_per_second': 10.072, 'train_steps_per_second': 0.157, ...}
//   PyTorch's out-of-memory error, in each wording it has had (io/import/oom_message.h):
//     [rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 2 has a total capacity of ...
//   each rank's last one, beside its memory lines or alone.
// Other lines are skipped. Throws InputError at "/log" when no line of a known format is found, or a known line
// holds a number that does not read.
#include <string>

#include "report/reconcile.h"

namespace shardcalc {

MeasuredRun read_run_log(const std::string& text);

}  // namespace shardcalc
