#pragma once
// PyTorch's out-of-memory error read back: the figures its caching allocator prints when a request fails, why that
// request failed, and the failure in words. What training and serving reconciliations share (report/reconcile.h,
// serve/serving_reconcile.h); io/import/oom_message.cpp reads the message.
#include <cstdint>
#include <string>

namespace shardcalc {

// The error as the allocator words it (c10/cuda/CUDACachingAllocator.cpp, the TORCH_CHECK_WITH(OutOfMemoryError, ...)
// of malloc), in bytes: the request that failed and the device at that moment. The allocator has already returned
// every wholly free cached segment to the device and retried before it raises, so `cached` is memory held in segments
// that are partly in use.
struct OutOfMemory {
    double request = 0;          // "Tried to allocate"
    double capacity = 0;         // the device's total as CUDA reports it (cudaMemGetInfo)
    double free = 0;             // free on the device
    double allocated = 0;        // allocated by PyTorch (with its CUDA graphs' private pools)
    double cached = 0;           // reserved by PyTorch but unallocated
    double allowed = -1;         // the process's limit (torch.cuda.set_per_process_memory_fraction); -1: none
    double process_used = -1;    // this process's device memory, PyTorch's and not ("Including non-PyTorch memory, this
                                 // process has ..."); -1: the message does not say
    double other_processes = 0;  // what the processes the message names by PID hold ("Process 123 has ...")
    int64_t named_processes = 0; // how many it names
};

// Why the request failed, from the error's figures alone.
enum class OomCause {
    Shortage,       // the request exceeded the device's free memory and the allocator's cache together
    Fragmentation,  // the cache and the free memory together held the request, but no block of its size
    Limit,          // the process's memory-fraction limit refused it
    DeviceEdge,     // the device's free memory alone held it, yet the device refused it
};
const char* name_of(OomCause c);

struct OomDiagnosis {
    OutOfMemory oom;     // as read, with a container's process recognised (below)
    OomCause cause = OomCause::Shortage;
    double shortfall = 0;  // Shortage: request - free - cached; Limit: reserved + request - allowed; else 0
    double needed = 0;     // allocated + request: the least the process needed when it failed
};
// The process sentences name processes by PID as NVML lists them; inside a container NVML's PIDs are the host's, so
// PyTorch does not recognise its own process and names it "Process N" (reportProcessMemoryInfo compares them with
// getpid()). One named process holding at least PyTorch's reserved, and no "this process" sentence, is this process.
OomDiagnosis diagnose(const OutOfMemory& o);

// The failure in words, from `who` ("rank 3", "vLLM's rank 1"): what it asked for, with what allocated, and the cause.
std::string failure_words(const std::string& who, const OomDiagnosis& d);

// A size as PyTorch's allocator prints it (c10 format_size), so that words about an error show the error's own
// figures: "N bytes", else two decimals of KiB, MiB or GiB.
std::string allocator_size_text(double bytes);

}  // namespace shardcalc
