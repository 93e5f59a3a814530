// The per-module table of the Megatron analysis tool's report (docs/sources.md): a depth-first walk of
// the graph with parameter shapes, counts and bytes, and saved activations, after tensor-parallel sharding.
#include "compute/op_cost.h"
#include "graph/op.h"
#include "memory/activations.h"
#include "graph/blocks.h"
#include "memory/model_states.h"
#include "report/report.h"

namespace shardcalc {
namespace {

std::string shape_text(const ParamTensor& p) {
    std::string s = p.name + "=[";
    for (size_t i = 0; i < p.shape.size(); ++i) s += (i ? "," : "") + std::to_string(p.shape[i]);
    return s + "]" + (p.tied ? " (tied)" : p.shared ? " (shared)" : "");
}

struct Walker {
    const Config& c;
    std::vector<ModuleRow> rows;

    ModuleRow op_row(const Op& op, const std::string& prefix, int depth, bool in_layer) {
        ModuleRow r;
        r.name = op.name;
        r.path = prefix + op.name;
        r.depth = depth;
        r.is_op = true;
        for (const auto& p : op.params) {
            r.shapes.push_back(shape_text(p));
            if (p.tied || p.shared) continue;
            r.parameters += static_cast<double>(p.numel());
            r.params_per_device += local_numel(p, c);
        }
        r.weight_bytes = r.params_per_device * bytes_of(c.s.training.param_dtype);
        r.activation_bytes = op_activation_bytes(op, c, in_layer);
        const OpCost cost = op_cost(op, c, in_layer);
        r.fwd_flops = cost.fwd.flops;
        r.bwd_flops = cost.bwd.flops;
        r.fwd_bytes = cost.fwd.bytes;
        r.bwd_bytes = cost.bwd.bytes;
        r.fwd_seconds = cost.fwd.seconds;
        r.bwd_seconds = cost.bwd.seconds;
        r.compute_bound = cost.fwd.compute_bound;
        return r;
    }

    // Appends the module's row followed by its descendants; returns the module's totals.
    ModuleRow walk(const Module& m, const std::string& prefix, int depth, bool in_layer, int64_t repeat) {
        const size_t at = rows.size();
        rows.push_back(ModuleRow{});
        ModuleRow total;
        total.name = m.name;
        total.path = prefix + m.name;
        total.depth = depth;
        total.repeat = repeat;
        auto add = [&](const ModuleRow& r) {
            total.parameters += r.parameters;
            total.params_per_device += r.params_per_device;
            total.weight_bytes += r.weight_bytes;
            total.activation_bytes += r.activation_bytes;
            total.fwd_flops += r.fwd_flops;
            total.bwd_flops += r.bwd_flops;
            total.fwd_bytes += r.fwd_bytes;
            total.bwd_bytes += r.bwd_bytes;
            total.fwd_seconds += r.fwd_seconds;
            total.bwd_seconds += r.bwd_seconds;
        };
        const std::string child_prefix = total.path + "/";
        // A module that is a single op of the same name (norms, dropout-add) is shown as one row.
        if (m.children.empty() && m.ops.size() == 1 && m.ops[0].name == m.name) {
            ModuleRow r = op_row(m.ops[0], prefix, depth, in_layer);
            r.repeat = repeat;
            rows[at] = r;
            return r;
        }
        for (const auto& op : m.ops) {
            rows.push_back(op_row(op, child_prefix, depth + 1, in_layer));
            add(rows.back());
        }
        for (const auto& child : m.children) add(walk(child, child_prefix, depth + 1, in_layer, 1));
        if (in_layer && depth == 0 && c.s.training.recompute == Recompute::Full) {
            // Full recompute keeps only the layer input; the ops above show 0 saved bytes.
            ModuleRow ck;
            ck.name = "recompute_checkpoint";
            ck.path = child_prefix + ck.name;
            ck.depth = depth + 1;
            ck.is_op = true;
            ck.activation_bytes = layer_checkpoint_bytes(c);
            rows.push_back(ck);
            add(ck);
        }
        rows[at] = total;
        return total;
    }
};

}  // namespace

std::vector<ModuleRow> module_table(const Config& c, const ModelGraph& g) {
    Walker w{c, {}};
    w.walk(g.pre, "", 0, false, 1);
    for (const auto& grp : g.groups) w.walk(grp.layer, "", 0, true, grp.count);
    w.walk(g.post, "", 0, false, 1);
    return w.rows;
}

}  // namespace shardcalc
