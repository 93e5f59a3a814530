#include "memory/out_of_memory.h"

#include "core/decimal.h"
#include "core/units.h"

namespace shardcalc {

const char* name_of(OomCause c) {
    switch (c) {
        case OomCause::Shortage: return "shortage";
        case OomCause::Fragmentation: return "fragmentation";
        case OomCause::Limit: return "limit";
        case OomCause::DeviceEdge: return "device_edge";
    }
    return "shortage";
}

OomDiagnosis diagnose(const OutOfMemory& read) {
    OomDiagnosis d;
    OutOfMemory& o = d.oom = read;
    const double reserved = o.allocated + o.cached;
    if (o.process_used < 0 && o.named_processes == 1 && o.other_processes >= reserved) {
        o.process_used = o.other_processes;
        o.other_processes = 0;
        o.named_processes = 0;
    }
    d.needed = o.allocated + o.request;
    // The allocator refuses past the process's limit before it asks the device (CUDACachingAllocator.cpp alloc_block).
    // Otherwise a request is served by one cached block or by one new segment from the device's free memory, never by
    // both: where the free memory and the cache left after the allocator freed every wholly free segment held it only
    // together, it failed for want of one block its size (expandable segments map pages of both into one range).
    if (o.allowed >= 0 && reserved + o.request > o.allowed) {
        d.cause = OomCause::Limit;
        d.shortfall = reserved + o.request - o.allowed;
    } else if (o.request <= o.free) {
        d.cause = OomCause::DeviceEdge;
    } else if (o.request <= o.free + o.cached) {
        d.cause = OomCause::Fragmentation;
    } else {
        d.cause = OomCause::Shortage;
        d.shortfall = o.request - o.free - o.cached;
    }
    return d;
}

std::string failure_words(const std::string& who, const OomDiagnosis& d) {
    const OutOfMemory& o = d.oom;
    const std::string asked = who + " ran out of memory asking for " + allocator_size_text(o.request) + " with " +
                              allocator_size_text(o.allocated) + " allocated by PyTorch, ";
    switch (d.cause) {
        case OomCause::Limit:
            return asked + "past the process's limit of " + allocator_size_text(o.allowed) +
                   " (torch.cuda.set_per_process_memory_fraction) by " + allocator_size_text(d.shortfall);
        case OomCause::Fragmentation:
            return asked + allocator_size_text(o.cached) + " cached by its allocator and " + allocator_size_text(o.free) +
                   " free on the device: enough in bytes, but in no block of the request's size (fragmentation; "
                   "implementation.allocator \"expandable_segments\", PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, "
                   "maps the cached pages into one range)";
        case OomCause::DeviceEdge:
            return asked + "and the device reported " + allocator_size_text(o.free) +
                   " free, more than the request, yet refused it: the free figure is read after the failure, and the last "
                   "of a device's memory is not all allocatable (other processes, the driver's own use), so the run was at "
                   "the device's edge";
        case OomCause::Shortage:
            return asked + allocator_size_text(o.cached) + " cached by its allocator and " + allocator_size_text(o.free) +
                   " free on the device: " + allocator_size_text(d.shortfall) +
                   " short even with the cache emptied, so no allocator setting saves this plan";
    }
    return asked;
}

std::string allocator_size_text(double bytes) {
    if (bytes <= 1024) return decimal(bytes, 0) + " bytes";
    if (bytes <= kMiB) return decimal(bytes / 1024, 2) + " KiB";
    if (bytes <= kGiB) return decimal(bytes / kMiB, 2) + " MiB";
    return gib_text(bytes);
}

}  // namespace shardcalc
