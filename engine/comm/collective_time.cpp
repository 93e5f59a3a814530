#include "comm/collective_time.h"

#include <algorithm>
#include <cmath>

namespace shardcalc {

const char* collective_name(CollectiveKind k) {
    switch (k) {
        case CollectiveKind::AllReduce: return "all-reduce";
        case CollectiveKind::AllGather: return "all-gather";
        case CollectiveKind::ReduceScatter: return "reduce-scatter";
        case CollectiveKind::AllToAll: return "all-to-all";
        case CollectiveKind::SendRecv: return "send/recv";
    }
    return "?";
}

Group make_group(int64_t size, int64_t stride, const Config& c) {
    const int64_t gpn = c.s.hardware.gpus_per_node;
    Group g;
    g.size = size;
    g.stride = stride;
    const int64_t shown = std::min<int64_t>(size, 16);
    for (int64_t i = 0; i < shown; ++i) {
        const int64_t rank = i * stride;
        g.first.push_back("n" + std::to_string(rank / gpn) + "_g" + std::to_string(rank % gpn));
    }
    if (size > shown) g.first.push_back("... (" + std::to_string(size - shown) + " more)");
    const int64_t span = (size - 1) * stride + 1;  // ranks from the first member to the last
    g.crosses_nodes = size > 1 && span > gpn;
    g.members_per_node = g.crosses_nodes ? std::max<int64_t>(1, gpn / std::min(stride, gpn)) : size;
    return g;
}

CollectiveTime collective_time(CollectiveKind kind, double bytes, const Group& g, const Config& c) {
    const HardwareSpec& h = c.s.hardware;
    const double n = static_cast<double>(g.size);
    if (g.size <= 1 || bytes <= 0) return {0, "none"};
    // Inside a node the group runs over NVLink; across nodes each node's members share their NICs,
    // one per GPU on the reference systems (DGX A100/H100), so the ring crossing a node gets
    // inter_node_gbps times the members it has there.
    const double bw = 1e9 * (g.crosses_nodes ? std::min(h.intra_node_gbps * h.intra_node_efficiency,
                                                        h.inter_node_gbps * h.inter_node_efficiency * g.members_per_node)
                                             : h.intra_node_gbps * h.intra_node_efficiency);
    const double alpha = (g.crosses_nodes ? h.inter_node_latency_us : h.intra_node_latency_us) * 1e-6;
    switch (kind) {
        case CollectiveKind::AllReduce: {
            // Ring: 2(n-1) steps moving 2(n-1)/n of the buffer. Across nodes NCCL may use its double binary
            // tree: 2 log2(n) latency steps at the same bus bandwidth, which wins for small messages;
            // inside a node it uses rings (NCCL src/graph/tuning.cc).
            const double ring = 2 * (n - 1) * alpha + 2 * (n - 1) / n * bytes / bw;
            const double tree = 2 * std::ceil(std::log2(n)) * alpha + 2 * (n - 1) / n * bytes / bw;
            return !g.crosses_nodes || ring <= tree ? CollectiveTime{ring, "ring"} : CollectiveTime{tree, "tree"};
        }
        case CollectiveKind::AllGather:
        case CollectiveKind::ReduceScatter:
            return {(n - 1) * alpha + (n - 1) / n * bytes / bw, "ring"};
        case CollectiveKind::AllToAll:
            return {(n - 1) * alpha + (n - 1) / n * bytes / bw, "pairwise"};
        case CollectiveKind::SendRecv:
            return {alpha + bytes / bw, "p2p"};
    }
    return {0, "none"};
}

}  // namespace shardcalc
