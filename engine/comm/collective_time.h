#pragma once
// Where a communication group sits in the cluster and how long one collective takes on it:
// the alpha-beta model (Hockney 1994) with NCCL's ring and tree costs (Thakur et al. 2005;
// nccl-tests doc/PERFORMANCE.md bus-bandwidth factors).
#include <string>
#include <vector>

#include "scenario/resolve.h"

namespace shardcalc {

enum class CollectiveKind { AllReduce, AllGather, ReduceScatter, AllToAll, SendRecv };
const char* collective_name(CollectiveKind k);
// How a collective is timed: none (a group of one, or nothing sent), NCCL's ring or double binary tree, one exchange
// per peer (all-to-all), one send (pipeline), DeepEP's two-level all-to-all (hierarchical_all_to_all).
enum class CollectiveAlgorithm { None, Ring, Tree, Pairwise, P2p, Hierarchical };
const char* algorithm_name(CollectiveAlgorithm a);  // "none", "ring", ...: the report's words

struct Group {
    int64_t size = 1;
    int64_t stride = 1;               // rank distance between members (Megatron order tp, cp, ulysses, dp, pp)
    bool scale_out = false;          // leaves the NVLink domain: its steps between domains use the NICs
    int64_t members_per_domain = 1;  // members in one NVLink domain (they share its NICs, one per GPU)
    int64_t gpus_per_node = 1;       // the host that names a member
};

// The group of one parallel dimension, given the sizes of the faster-varying dimensions.
Group make_group(int64_t size, int64_t stride, const Config& c);
// Members of the first group, at most 16 and a count of the rest, in the Megatron analysis tool's "n0_g0" notation
// (host and GPU): for the report, not the arithmetic (a search times millions of collectives).
std::vector<std::string> first_members(const Group& g);

struct CollectiveTime {
    double seconds = 0;
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::None;
};

// `bytes`: the full buffer of one rank (all-reduce input, all-gather output, all-to-all send total).
CollectiveTime collective_time(CollectiveKind kind, double bytes, const Group& g, const Config& c);

// One rank's share of a hierarchical all-to-all as DeepEP and HybridEP run a MoE dispatch or combine (Megatron's flex
// token dispatcher): each of its `tokens` (`token_bytes` each) goes once to every other NVLink domain holding one of
// its `k` experts (RDMA through the GPU's own NIC), and once to every GPU of a domain holding one of them (NVLink:
// directly inside its own domain, forwarded by the receiving GPU in the others). The group's `experts` are spread
// evenly over its ranks and chosen uniformly (a balanced router).
struct HierarchicalTraffic {
    double nic_bytes = 0, nvlink_bytes = 0;
    double sent() const { return nic_bytes + nvlink_bytes; }
};
HierarchicalTraffic hierarchical_traffic(double tokens, double token_bytes, int64_t experts, int64_t k, const Group& g);
CollectiveTime hierarchical_all_to_all(const HierarchicalTraffic& t, const Group& g, const Config& c);

}  // namespace shardcalc
