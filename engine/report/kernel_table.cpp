#include "report/kernel_table.h"

#include "core/error.h"
#include "graph/build.h"

namespace shardcalc {
namespace {

KernelPass table_pass(Pass p) {
    switch (p) {
        case Pass::Forward: return KernelPass::Forward;
        case Pass::BackwardData: return KernelPass::BackwardData;
        case Pass::BackwardWeight: return KernelPass::BackwardWeight;
    }
    return KernelPass::Forward;
}

struct Walker {
    const Config& c;
    double microbatches;
    std::vector<KernelRow>& rows;
    double rematerialized = 0;  // the share of the layers' forward XLA reruns in backward (schedule/step.cpp)

    void add(const std::string& module, const PassKernel& k, KernelPass pass, double count) {
        KernelRow r;
        r.module = module;
        r.name = k.name;
        r.pass = pass;
        r.count = count;
        r.runs = microbatches;
        r.gemm = k.gemm;
        if (k.gemm.m > 0) r.traffic = gemm_traffic(k.gemm.m, k.gemm.k, k.gemm.n, c, k.gemm.precision);
        r.kernel = k.kernel;
        rows.push_back(r);
    }

    void op(const Op& o, const std::string& path, bool in_layer, double count) {
        const bool again = recomputed(o, c, in_layer);
        for (const Work& w : o.work) {
            const WorkKernels wk = work_kernels(w, c);
            for (int i = 0; i < wk.count; ++i) {
                const PassKernel& k = wk.list[i];
                add(path, k, table_pass(k.pass), count * k.repeat);
                if (again && k.pass == Pass::Forward) add(path, k, KernelPass::Recompute, count * k.repeat);
                if (in_layer && rematerialized > 0 && k.pass == Pass::Forward)
                    add(path, k, KernelPass::Recompute, count * k.repeat * rematerialized);
            }
        }
        const Kernel acc = grad_accumulation(o, c);
        if (acc.launches > 0) add(path, {Pass::BackwardWeight, "gradient accumulation", acc, {}, 1}, KernelPass::BackwardWeight, count);
    }

    void module(const Module& m, const std::string& prefix, bool in_layer, double count) {
        const std::string path = prefix + m.name;
        for (const Op& o : m.ops) op(o, o.name == m.name ? path : path + "/" + o.name, in_layer, count);
        for (const Module& child : m.children) module(child, path + "/", in_layer, count);
    }
};

KernelTable stage_table(const Estimate& e, const ModelGraph& g, size_t i) {
    const Config& c = e.config;
    const StagePlan& st = e.plan.stages[i];
    KernelTable t;
    t.stage = st.rank;
    t.inflection_point = inflection_point(c);
    Walker w{c, static_cast<double>(c.d.microbatches), t.rows,
             e.stages[i].compiled ? e.stages[i].xla.rematerialized_share : 0.0};
    if (st.has_pre) w.module(g.pre, "", false, 1);
    std::vector<double> layers(g.groups.size(), 0);
    for_each_layer_run(st, g, [&](const Chunk&, const ChunkLayers& cl, const LayerGroup&) {
        layers[static_cast<size_t>(cl.group)] += static_cast<double>(cl.count);
    });
    for (size_t k = 0; k < g.groups.size(); ++k)
        if (layers[k] > 0) w.module(g.groups[k].layer, "", true, layers[k]);
    if (st.has_post) w.module(g.post, "", false, 1);
    const OptimizerKernels opt = stage_optimizer(c, e.stages[i]);
    auto step_kernel = [&](const char* name, const Kernel& k) {
        if (k.seconds <= 0) return;
        KernelRow r;
        r.module = "optimizer";
        r.name = name;
        r.pass = KernelPass::Optimizer;
        r.kernel = k;
        t.rows.push_back(r);
    };
    step_kernel("gradient clipping", opt.clip);
    step_kernel("optimizer update", opt.apply);
    t.stages = static_cast<int64_t>(e.plan.stages.size());
    t.device = c.s.hardware.name;
    t.dtype = c.s.training.dtype;
    t.microbatches = w.microbatches;
    for (const auto& r : t.rows) {
        t.pass_seconds[static_cast<int>(r.pass)] += r.step_seconds();
        t.seconds += r.step_seconds();
    }
    return t;
}

}  // namespace

const char* pass_name(KernelPass p) {
    switch (p) {
        case KernelPass::Forward: return "forward";
        case KernelPass::BackwardData: return "backward_data";
        case KernelPass::BackwardWeight: return "backward_weight";
        case KernelPass::Recompute: return "recompute";
        case KernelPass::Optimizer: return "optimizer";
    }
    return "forward";
}

KernelTable kernel_table(const Estimate& e, const ModelGraph& g, int64_t stage) {
    const auto stages = static_cast<int64_t>(e.plan.stages.size());
    if (stage >= stages)
        throw InputError("/stage", "pipeline rank " + std::to_string(stage) + " does not exist: allowed 0 to " +
                                       std::to_string(stages - 1) + " (parallel.pp - 1)");
    if (stage >= 0) return stage_table(e, g, static_cast<size_t>(stage));
    KernelTable best;
    double longest = -1;
    for (size_t i = 0; i < e.plan.stages.size(); ++i) {
        KernelTable t = stage_table(e, g, i);
        if (t.seconds > longest) {
            longest = t.seconds;
            best = std::move(t);
        }
    }
    return best;
}

KernelTable kernel_table(const Scenario& s, int64_t stage) {
    Config c = resolve(s);
    const ModelGraph g = build_graph(c);
    return kernel_table(estimate(std::move(c), g, Detail::Numbers), g, stage);
}

}  // namespace shardcalc
