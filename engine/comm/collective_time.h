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

struct Group {
    int64_t size = 1;
    int64_t stride = 1;               // rank distance between members (Megatron order tp, cp, ulysses, dp, pp)
    bool scale_out = false;          // leaves the NVLink domain: its steps between domains use the NICs
    int64_t members_per_domain = 1;  // members in one NVLink domain (they share its NICs, one per GPU)
    std::vector<std::string> first;   // members of the first group, in the Megatron analysis tool's "n0_g0" notation
};

// The group of one parallel dimension, given the sizes of the faster-varying dimensions.
Group make_group(int64_t size, int64_t stride, const Config& c);

struct CollectiveTime {
    double seconds = 0;
    std::string algorithm;  // ring | tree | pairwise | p2p
};

// `bytes`: the full buffer of one rank (all-reduce input, all-gather output, all-to-all send total).
CollectiveTime collective_time(CollectiveKind kind, double bytes, const Group& g, const Config& c);

}  // namespace shardcalc
