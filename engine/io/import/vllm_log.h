#pragma once
// Reads what a vLLM server's start-up log says about its memory (serve/serving_reconcile.h MeasuredServing). Formats
// read, each as vLLM printed it (samples from public vLLM issues and pull requests):
//   V0 worker (vLLM 0.7 and 0.8, worker.py, vllm-project/vllm#14447):
//     the current vLLM instance can use total_gpu_memory (23.58GiB) x gpu_memory_utilization (0.99) = 23.35GiB
//     model weights take 21.21GiB; non_torch_memory takes 0.20GiB; PyTorch activation peak memory takes 0.37GiB; the rest of the memory reserved for KV Cache is 1.57GiB.
//   The profiling table of vLLM 0.6.5 (worker.py, vllm-project/vllm#10511):
//     total_gpu_memory     79.22GiB  /  gpu_memory_utilization       0.90  /  the current vLLM instance can use    71.29GiB
//     model weights take   14.96GiB  /  non_torch_memory     1.79GiB  /  PyTorch activation peak memory       1.26GiB
//     available_kv_cache_memory    53.29GiB
//   V1 (gpu_model_runner.py, gpu_worker.py, kv_cache_utils.py; vllm-project/vllm#25340, #20707, #12569, #21348):
//     Model loading took 2.2845 GiB and 74.270197 seconds      (earlier: Loading model weights took 67.7229 GB)
//     Available KV cache memory: 112.61 GiB
//     GPU KV cache size: 922,496 tokens
//     Maximum concurrency for 40,000 tokens per request: 23.06x
//   The CUDA graphs (vllm-project/vllm#11349, #30515, #21489; gpustack/runner#251):
//     Graph capturing finished in 14 secs, took 0.21 GiB       (the pool as captured; V0 and V1)
//     Estimated CUDA graph memory: 0.36 GiB total               (0.21 and later: reserved in the budget ...)
//     CUDA graph memory profiling is enabled (default since v0.21.0). The current --gpu-memory-utilization=0.8200 is
//       equivalent to --gpu-memory-utilization=0.8048 without CUDA graph memory profiling. …
//     CUDA graph memory profiling is disabled (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0). …  (... or not)
//     CUDA graph pool memory: X GiB (actual), Y GiB (estimated)
//     Free memory on device (177.66/178.36 GiB) on startup. Desired GPU memory utilization is (0.9, 160.53 GiB). Actual
//       usage is 8.58 GiB for weight, 9.96 GiB for peak activation, 0.07 GiB for non-torch memory, and 0.65 GiB for
//       CUDAGraph memory. …
//   and the refusal to start: ValueError: No available memory for the cache blocks. …
// vLLM's "GB" in "Loading model weights took … GB" is bytes / 2^30 (a GiB figure), as its code divides. A log of
// several workers repeats the lines; the last of each is read. Other lines are skipped. Throws InputError at "/log"
// when no line of a known format is found.
#include <string>

#include "serve/serving_reconcile.h"

namespace shardcalc {

MeasuredServing read_vllm_log(const std::string& text);

}  // namespace shardcalc
