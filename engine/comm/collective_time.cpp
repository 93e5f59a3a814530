#include "comm/collective_time.h"

#include <algorithm>
#include <cmath>

#include "device/device.h"

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

const char* algorithm_name(CollectiveAlgorithm a) {
    switch (a) {
        case CollectiveAlgorithm::None: return "none";
        case CollectiveAlgorithm::Ring: return "ring";
        case CollectiveAlgorithm::Tree: return "tree";
        case CollectiveAlgorithm::Pairwise: return "pairwise";
        case CollectiveAlgorithm::P2p: return "p2p";
        case CollectiveAlgorithm::Hierarchical: return "hierarchical";
    }
    return "?";
}

Group make_group(int64_t size, int64_t stride, const Config& c) {
    const int64_t gpn = c.s.hardware.gpus_per_node;
    const int64_t domain = nvlink_domain_of(c.s.hardware);
    Group g;
    g.size = size;
    g.stride = stride;
    g.gpus_per_node = gpn;
    // Hosts name the members; the NVLink domain (one host, or a rack of them on NVL72) decides the links.
    const int64_t span = (size - 1) * stride + 1;  // ranks from the first member to the last
    g.scale_out = size > 1 && span > domain;
    g.members_per_domain = g.scale_out ? std::max<int64_t>(1, domain / std::min(stride, domain)) : size;
    return g;
}

std::vector<std::string> first_members(const Group& g) {
    std::vector<std::string> out;
    const int64_t shown = std::min<int64_t>(g.size, 16), gpn = std::max<int64_t>(1, g.gpus_per_node);
    for (int64_t i = 0; i < shown; ++i) {
        const int64_t rank = i * g.stride;
        out.push_back("n" + std::to_string(rank / gpn) + "_g" + std::to_string(rank % gpn));
    }
    if (g.size > shown) out.push_back("... (" + std::to_string(g.size - shown) + " more)");
    return out;
}

CollectiveTime collective_time(CollectiveKind kind, double bytes, const Group& g, const Config& c) {
    const double n = static_cast<double>(g.size);
    if (g.size <= 1 || bytes <= 0) return {0, CollectiveAlgorithm::None};
    const Device& device = device_of(c.s.hardware);
    const Link link = device.link(c.s.hardware, g.scale_out, g.members_per_domain);
    const double bw = link.bytes_per_s, alpha = link.latency_s;
    // A ring over N NVLink domains takes only some of its steps across the network: N - 1 of an all-gather's or
    // reduce-scatter's n - 1, 2(N - 1) of an all-reduce's 2(n - 1); the others are NVLink hops inside a domain, at
    // the intra-node latency (NCCL src/graph/tuning.cc ncclTopoTuneModel: nInterSteps, intraLat and interLat, with
    // an NVLink domain as NCCL's "node"; validation/nccl_facts.md).
    const double nodes = g.scale_out ? std::ceil(n / static_cast<double>(std::max<int64_t>(1, g.members_per_domain))) : 1;
    const Link intra = g.scale_out ? device.link(c.s.hardware, false, g.members_per_domain) : link;
    const double intra_alpha = intra.latency_s;
    // NCCL's latency of a ring: its base latency once, then each step's (tuning.cc: baseLat + nsteps x hwLat).
    auto ring_latency = [&](double steps, double inter_steps) {
        inter_steps = std::min(steps, inter_steps);
        return link.call_latency_s + (steps - inter_steps) * intra_alpha + inter_steps * alpha;
    };
    switch (kind) {
        case CollectiveKind::AllReduce: {
            // Ring: 2(n-1) steps moving 2(n-1)/n of the buffer. Across nodes NCCL may use its double binary
            // tree: 2 log2(n) latency steps at the same bus bandwidth, which wins for small messages;
            // inside a node it uses rings (NCCL src/graph/tuning.cc).
            const double ring = ring_latency(2 * (n - 1), 2 * (nodes - 1)) + 2 * (n - 1) / n * bytes / bw;
            const double tree = link.call_latency_s + 2 * std::ceil(std::log2(n)) * alpha + 2 * (n - 1) / n * bytes / bw;
            return !link.tree || ring <= tree ? CollectiveTime{ring, CollectiveAlgorithm::Ring} : CollectiveTime{tree, CollectiveAlgorithm::Tree};
        }
        case CollectiveKind::AllGather:
        case CollectiveKind::ReduceScatter:
            return {ring_latency(n - 1, nodes - 1) + (n - 1) / n * bytes / bw, CollectiveAlgorithm::Ring};
        case CollectiveKind::AllToAll: {
            // Each rank sends 1/n of its buffer to every other rank at once. Inside an NVLink domain that is NVLink;
            // between domains each GPU's share for other domains leaves through its own NIC (one per GPU on the
            // reference systems), unlike a ring, whose steps spread over every NIC of the domain: the two parts
            // proceed side by side and the slower sets the time. Pairwise: one exchange per peer, local - 1 of them
            // over NVLink and n - local over the network (inside one domain: local = n, all of them over NVLink).
            const double local = g.scale_out ? static_cast<double>(std::max<int64_t>(1, g.members_per_domain)) : n;
            const double remote = g.scale_out ? (n - local) / n * bytes / device.link(c.s.hardware, true, 1).bytes_per_s : 0;
            return {(local - 1) * intra_alpha + (n - local) * alpha + std::max((local - 1) / n * bytes / intra.bytes_per_s, remote),
                    CollectiveAlgorithm::Pairwise};
        }
        case CollectiveKind::SendRecv:
            return {alpha + bytes / bw, CollectiveAlgorithm::P2p};
    }
    return {0, CollectiveAlgorithm::None};
}

namespace {

// The chance that none of a token's k distinct experts, drawn uniformly from `experts`, is among `held` of them.
double none_of(double held, double experts, int64_t k) {
    double p = 1;
    for (int64_t i = 0; i < k; ++i) p *= std::max(0.0, (experts - held - static_cast<double>(i)) / (experts - static_cast<double>(i)));
    return p;
}

}  // namespace

HierarchicalTraffic hierarchical_traffic(double tokens, double token_bytes, int64_t experts, int64_t k, const Group& g) {
    HierarchicalTraffic t;
    const double n = static_cast<double>(g.size), e = static_cast<double>(experts);
    if (g.size <= 1 || experts <= 0) return t;
    const double local = g.scale_out ? static_cast<double>(std::max<int64_t>(1, g.members_per_domain)) : n;
    const double domains = n / local, per_rank = e / n;
    const double gpu_hit = 1 - none_of(per_rank, e, k), domain_hit = 1 - none_of(per_rank * local, e, k);
    // Expected copies per token: to the other GPUs of its own domain; to the other domains; and, per other domain hit,
    // the forwards from the receiving GPU to the others there that hold one of its experts.
    const double own = (local - 1) * gpu_hit;
    const double remote = (domains - 1) * domain_hit;
    const double forwarded = remote * (local * gpu_hit - gpu_hit) / domain_hit;
    t.nic_bytes = tokens * token_bytes * remote;
    t.nvlink_bytes = tokens * token_bytes * (own + forwarded);
    return t;
}

CollectiveTime hierarchical_all_to_all(const HierarchicalTraffic& t, const Group& g, const Config& c) {
    if (g.size <= 1 || t.sent() <= 0) return {0, CollectiveAlgorithm::None};
    const Device& device = device_of(c.s.hardware);
    const Link intra = device.link(c.s.hardware, false, g.members_per_domain);
    const double n = static_cast<double>(g.size);
    const double local = g.scale_out ? static_cast<double>(std::max<int64_t>(1, g.members_per_domain)) : n;
    double seconds = (local - 1) * intra.latency_s + t.nvlink_bytes / intra.bytes_per_s;
    if (g.scale_out) {
        const Link nic = device.link(c.s.hardware, true, 1);
        // The RDMA and the NVLink forwarding proceed side by side; the slower sets the time.
        seconds = std::max(seconds, (n / local - 1) * nic.latency_s + t.nic_bytes / nic.bytes_per_s);
    }
    return {seconds, CollectiveAlgorithm::Hierarchical};
}

}  // namespace shardcalc
