#pragma once
// Everything one evaluation produces, as plain data; io/contract/report_json.cpp and
// io/render/report_text.cpp render it.
#include <string>
#include <vector>

#include "report/estimate.h"

namespace shardcalc {

struct ParameterCounts {
    double total = 0;       // unique parameters of the model (tied and shared weights once)
    double embedding = 0;   // the pre module (word/position/type embeddings, their norm)
    double layers = 0;      // all transformer layers (shared layers once)
    double head = 0;        // final norm, pooler, heads (tied weights excluded), multi-token prediction modules
    double mtp = 0;         // of which the multi-token prediction modules (trained beside the model, not part of it)
    double active = 0;      // used per token: the total less the routed experts a token skips (= total if dense)
    double trained = 0;     // with gradients: the total, or an adapter's alone (its base frozen)
};

// One row of the per-module table (the Megatron analysis tool's report). Numbers are per device after tensor
// parallelism; `parameters` is the unsharded count; rows inside a layer are per layer.
struct ModuleRow {
    std::string path;                 // "layer/self_attention/query_key_value"
    std::string name;
    int depth = 0;
    bool is_op = false;
    int64_t repeat = 1;               // number of layers this row stands for (layer rows)
    std::vector<std::string> shapes;  // "w=[12288,4096]" (unsharded)
    double parameters = 0;
    double params_per_device = 0;
    double weight_bytes = 0;          // in the parameter dtype, before ZeRO partitioning
    double activation_bytes = 0;      // saved per microbatch under the recompute policy
    // Per microbatch on one device: hardware FLOPs, HBM bytes and roofline seconds.
    double fwd_flops = 0, bwd_flops = 0, fwd_bytes = 0, bwd_bytes = 0, fwd_seconds = 0, bwd_seconds = 0;
    bool compute_bound = false;
    // The roofline plot's coordinates of its forward kernels: FLOP per HBM byte, and achieved FLOP/s.
    double fwd_intensity() const { return fwd_bytes > 0 ? fwd_flops / fwd_bytes : 0.0; }
    double fwd_flops_per_second() const { return fwd_seconds > 0 ? fwd_flops / fwd_seconds : 0.0; }
};

struct Report : Estimate {
    ParameterCounts parameters;
    std::vector<ModuleRow> modules;
    std::vector<std::string> notes;
};

// The whole pipeline: scenario -> config -> graph -> plan -> memory -> report.
// Throws InputError for invalid scenarios.
Report evaluate(const Scenario& scenario);

std::vector<ModuleRow> module_table(const Config& c, const struct ModelGraph& g);
ParameterCounts count_parameters(const ModelGraph& g, const ModelFields& m);

}  // namespace shardcalc
