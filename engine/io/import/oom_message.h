#pragma once
// Reads PyTorch's CUDA out-of-memory error (report/reconcile.h OutOfMemory), as its caching allocator words it
// (c10/cuda/CUDACachingAllocator.cpp, the OutOfMemoryError raised by malloc) in the three wordings it has had:
//   PyTorch 2.1 and later:
//     CUDA out of memory. Tried to allocate 3.91 GiB. GPU 2 has a total capacity of 14.61 GiB of which 1.99 GiB is free.
//     [Process 123 has 3.97 GiB memory in use. ][Including non-PyTorch memory, this process has 12.62 GiB memory in use. ]
//     [800.55 MiB allowed; ]Of the allocated memory 8.50 GiB is allocated by PyTorch, [with 1.00 GiB allocated in
//     private pools (e.g., CUDA Graphs), ]and 3.96 GiB is reserved by PyTorch but unallocated. ...
//   PyTorch 1.5 to 2.0:
//     CUDA out of memory. Tried to allocate 388.00 MiB (GPU 3; 31.75 GiB total capacity; 28.42 GiB already allocated;
//     340.94 MiB free; [30.00 GiB allowed; ]30.39 GiB reserved in total by PyTorch) ...
//   Earlier: the same with "30.96 MiB cached)", the cache beyond the allocated, for the reserved in total.
// Sizes as its format_size prints them: "N bytes", else two decimals of KiB, MiB or GiB (2^10, 2^20, 2^30 bytes).
// The rank is the "[rankN]:" prefix torchrun puts before each line of a rank's output, else the message's GPU index
// (one process per device).
#include <cstdint>
#include <optional>
#include <string>

#include "memory/out_of_memory.h"

namespace shardcalc {

struct OomMessage {
    int64_t rank = 0;
    OutOfMemory oom;
};

// The message on `text` (one line of a log), or nothing where the line holds none. Throws InputError at "/log",
// naming line `line`, where a message lacks a figure its wording always has.
std::optional<OomMessage> read_oom_message(const std::string& text, size_t line);

}  // namespace shardcalc
