// The plan search (engine/search): its figures are the engine's own for each plan, its pruning never
// loses the best plan or a Pareto point that a brute-force walk finds, the one-question searches answer
// at the boundary, and bad search input is a field error.
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "helpers.h"
#include "io/api.h"
#include "io/contract/search_json.h"
#include "scenario/dimension.h"
#include "search/search.h"

using namespace shardcalc;

namespace {

nlohmann::json run(const std::string& text) { return nlohmann::json::parse(search_scenario_text(text)); }

// A small model on 8 devices: every dimension, every framework, small enough to walk by brute force.
const char* kSmall = R"({"framework":"megatron",
  "model":{"layers":8,"hidden":1024,"heads":16,"kv_heads":8,"vocab":32000,"mlp":"swiglu","norm":"rmsnorm",
           "position_embedding":"rope","tied_embeddings":false},
  "training":{"seq_len":4096,"global_batch":32},
  "hardware":{"preset":"a100-sxm-40gb","memory_gib":6}})";

SearchSpec small_spec() {
    SearchSpec spec;
    spec.devices = {8};
    spec.frameworks = {Framework::Megatron, Framework::DeepSpeed, Framework::Fsdp, Framework::Pytorch};
    spec.max_micro_batch = 8;
    spec.top = 1000;
    return spec;
}

struct Brute {
    double best_step = 1e300;
    std::vector<std::pair<double, double>> fitting;  // (step seconds, peak bytes)
    int64_t plans = 0;
};

// Every plan of the space through evaluate(), without pruning.
Brute brute_force(const Scenario& base, const SearchSpec& spec) {
    Brute b;
    Scenario one = base;
    one.training.global_batch.reset();
    const Config shape = resolve(one);
    for (const Structure& st : structures(base, shape, spec, spec.devices[0], 1000000)) {
        Scenario s = base;
        s.framework = st.framework;
        s.parallel = st.parallel;
        for (Recompute rc : recomputes(base, spec, st.framework))
            for (int64_t mb : micro_batches(base, spec, *base.training.global_batch / st.parallel.dp)) {
                s.training.recompute = rc;
                s.training.micro_batch = mb;
                ++b.plans;
                try {
                    const Report r = evaluate(s);
                    if (!r.fits()) continue;
                    b.fitting.emplace_back(r.metrics.step_seconds, r.peak().total());
                    b.best_step = std::min(b.best_step, r.metrics.step_seconds);
                } catch (const InputError&) {
                }
            }
    }
    return b;
}

}  // namespace

TEST_CASE("search: pruning loses neither the best plan nor a Pareto point; figures are evaluate()'s") {
    const Scenario base = test::scenario(kSmall);
    const SearchSpec spec = small_spec();
    const SearchResult r = search(base, spec);
    const Brute b = brute_force(base, spec);
    INFO("brute force: " << b.plans << " plans, " << b.fitting.size() << " fit; search: " << r.candidates << " candidates, "
                          << r.fitting << " fit, " << r.pruned.count << " pruned");
    REQUIRE(!r.plans.empty());
    REQUIRE(b.fitting.size() > 10);
    CHECK(r.candidates == b.plans);
    CHECK(r.pruned.count > 0);  // the walk did skip plans
    CHECK(r.plans[0].step_seconds == doctest::Approx(b.best_step).epsilon(1e-12));
    CHECK(r.fitting == static_cast<int64_t>(b.fitting.size()));  // no fitting plan was pruned
    // Every plan listed reproduces through the full report, from the scenario the search gives for it.
    for (const auto& p : r.plans) {
        const Report full = evaluate(*p.scenario);
        CHECK(full.fits());
        CHECK(full.metrics.step_seconds == doctest::Approx(p.step_seconds).epsilon(1e-12));
        CHECK(full.peak().total() == doctest::Approx(p.peak_bytes).epsilon(1e-12));
        CHECK(!p.launch.empty());
    }
    // The Pareto front: nothing the brute force found is both faster and smaller than a front point.
    REQUIRE(!r.pareto.empty());
    for (const auto& p : r.pareto)
        for (const auto& [step, peak] : b.fitting) CHECK_FALSE((step < p.step_seconds && peak < p.peak_bytes));
    // Ranked by step time, ties by fewer devices then memory.
    for (size_t i = 1; i < r.plans.size(); ++i) CHECK(r.plans[i - 1].step_seconds <= r.plans[i].step_seconds);
}

TEST_CASE("search: frameworks only get the dimensions they run") {
    const SearchResult r = search(test::scenario(kSmall), small_spec());
    bool megatron_cp = false;
    for (const auto& p : r.plans) {
        if (p.framework == Framework::Fsdp || p.framework == Framework::Pytorch) CHECK(p.parallel.pp == 1);
        if (p.framework != Framework::Megatron) CHECK((p.parallel.cp == 1 && p.parallel.vpp == 1 && !p.parallel.sp));
        if (p.framework != Framework::DeepSpeed) CHECK(p.parallel.ulysses == 1);
        if (p.framework == Framework::Pytorch) CHECK(p.parallel.tp == 1);
        if (p.framework == Framework::DeepSpeed && p.parallel.pp > 1) CHECK(p.parallel.zero <= 1);
        if (p.framework != Framework::Megatron && p.framework != Framework::DeepSpeed)
            CHECK(p.recompute != Recompute::Selective);
        megatron_cp = megatron_cp || (p.framework == Framework::Megatron && p.parallel.cp > 1);
    }
    CHECK(megatron_cp);
}

TEST_CASE("search: a mixture-of-experts model's expert parallelism is searched, as the brute force finds it") {
    // 8 experts on 8 devices: ep from 1 to 8 where ep * etp divides the non-pipeline ranks.
    const Scenario base = test::scenario(R"({"framework":"megatron",
      "model":{"layers":4,"hidden":1024,"heads":16,"kv_heads":8,"vocab":32000,"mlp":"swiglu","norm":"rmsnorm",
               "position_embedding":"rope","tied_embeddings":false,"experts":8,"experts_per_token":2,
               "expert_ffn_hidden":2048},
      "training":{"seq_len":4096,"global_batch":32},
      "hardware":{"preset":"a100-sxm-40gb","memory_gib":8}})");
    SearchSpec spec = small_spec();
    spec.frameworks = {Framework::Megatron, Framework::Fsdp};
    const SearchResult r = search(base, spec);
    const Brute b = brute_force(base, spec);
    REQUIRE(!r.plans.empty());
    CHECK(r.candidates == b.plans);
    CHECK(r.plans[0].step_seconds == doctest::Approx(b.best_step).epsilon(1e-12));
    std::set<int64_t> eps;
    for (const auto& p : r.plans) {
        const ParallelSpec& q = p.parallel;
        eps.insert(q.ep);
        CHECK((q.dp * q.tp * q.cp * q.ulysses) % (q.ep * expert_tp(q)) == 0);
        if (p.framework == Framework::Fsdp) CHECK(q.ep == 1);  // FSDP has no expert parallelism
        const bool flag = std::any_of(p.launch.begin(), p.launch.end(), [](const LaunchCommand& l) {
            return std::any_of(l.lines.begin(), l.lines.end(), [](const std::string& x) { return x.rfind("--expert-model-parallel-size", 0) == 0; });
        });
        CHECK(flag == (p.framework == Framework::Megatron && q.ep > 1));
    }
    CHECK(eps.size() > 1);  // plans with and without expert parallelism were ranked
    // Without "ep" among the dimensions, the scenario's own ep is kept.
    spec.dims = {SearchDim::Tp, SearchDim::Pp, SearchDim::Zero};
    for (const auto& p : search(base, spec).plans) CHECK(p.parallel.ep == 1);
}

TEST_CASE("search: the one-question searches answer at the boundary") {
    const std::string plan = R"({"framework":"megatron","model":{"preset":"llama-3.1-8b"},
        "training":{"seq_len":8192,"global_batch":256,"recompute":"selective"},
        "parallel":{"dp":4,"tp":2,"sp":true,"distributed_optimizer":true},)";
    // The largest micro-batch: it fits, the next value up does not.
    auto j = run(plan + R"("search":{"question":"max_micro_batch"}})");
    REQUIRE(j["ok"] == true);
    const auto& a = j["search"]["answer"];
    REQUIRE(a.contains("value"));
    CHECK(a["plan"]["memory"]["verdict"] == "fits");
    CHECK(a["next_up"]["memory"]["verdict"] != "fits");
    CHECK(a["next_up"]["micro_batch"].get<int64_t>() > a["value"].get<int64_t>());
    // The same through evaluate: the answer fits, the next does not.
    auto at = [&](int64_t mb) {
        return test::report(R"({"framework":"megatron","model":{"preset":"llama-3.1-8b"},"training":{"seq_len":8192,
            "global_batch":256,"recompute":"selective","micro_batch":)" + std::to_string(mb) +
                            R"(},"parallel":{"dp":4,"tp":2,"sp":true,"distributed_optimizer":true}})");
    };
    CHECK(at(a["value"].get<int64_t>()).fits());
    CHECK_FALSE(at(a["next_up"]["micro_batch"].get<int64_t>()).fits());

    // The longest sequence.
    j = run(plan + R"("search":{"question":"max_seq_len"}})");
    const auto& s = j["search"]["answer"];
    REQUIRE(s.contains("value"));
    CHECK(s["field"] == "seq_len");
    CHECK(s["plan"]["memory"]["verdict"] == "fits");
    CHECK(s["next_up"]["seq_len"].get<int64_t>() == 2 * s["value"].get<int64_t>());
    CHECK(s["next_up"]["memory"]["verdict"] != "fits");

    // The fewest devices for a 70B model: some plan fits there, none on the count before it.
    const std::string big = R"({"framework":"megatron","model":{"preset":"llama-3.1-70b"},
        "training":{"seq_len":4096,"global_batch":64},"search":{"question":"min_devices","devices":{"min":1,"max":64},
        "dimensions":["tp","pp","sp","zero","recompute"]}})";
    j = run(big);
    REQUIRE(j["ok"] == true);
    const auto& d = j["search"]["answer"];
    REQUIRE(d.contains("value"));
    const int64_t n = d["value"];
    CHECK(j["search"]["counts"]["fitting"].get<int64_t>() > 0);
    const auto devices = j["search"]["devices"];
    const auto it = std::find(devices.begin(), devices.end(), nlohmann::json(n));
    REQUIRE(it != devices.end());
    REQUIRE(it != devices.begin());
    std::string before = big;
    before.replace(before.find(R"("question":"min_devices","devices":{"min":1,"max":64})"),
                   std::string(R"("question":"min_devices","devices":{"min":1,"max":64})").size(),
                   R"("devices":)" + std::prev(it)->dump());
    const auto none = run(before);
    REQUIRE(none["ok"] == true);
    CHECK(none["search"]["counts"]["fitting"] == 0);
}

TEST_CASE("search: bad search input is a field error") {
    const std::string model = R"({"model":{"preset":"gpt2"},"training":{"global_batch":8},"search":)";
    CHECK(nlohmann::json::parse(search_scenario_text(R"({"model":{"preset":"gpt2"},"search":{}})"))["error"]["path"] ==
          "/training/global_batch");
    CHECK(nlohmann::json::parse(search_scenario_text(model + R"({"devices":0}})"))["error"]["path"] == "/search/devices");
    CHECK(nlohmann::json::parse(search_scenario_text(model + R"({"devices":[8,"x"]}})"))["error"]["path"] == "/search/devices/1");
    CHECK(nlohmann::json::parse(search_scenario_text(model + R"({"dimensions":["tp","warp"]}})"))["error"]["path"] ==
          "/search/dimensions/1");
    CHECK(nlohmann::json::parse(search_scenario_text(model + R"({"rank":"fast"}})"))["error"]["path"] == "/search/rank");
    CHECK(nlohmann::json::parse(search_scenario_text(model + R"({"devices":{"min":8,"max":4}}})"))["error"]["path"] ==
          "/search/devices/min");
    CHECK(nlohmann::json::parse(search_scenario_text(R"({"model":{"preset":"gpt2"},"search":{"global_batch_tokens":1000}})"))
              ["error"]["path"] == "/search/global_batch_tokens");
    CHECK(nlohmann::json::parse(search_scenario_text("[]"))["error"]["path"] == "");
    // A space too large to search in bounded time is refused before any plan is evaluated.
    const auto huge = nlohmann::json::parse(search_scenario_text(R"({"model":{"layers":65536,"hidden":65536,"heads":65536,
        "vocab":1000,"max_positions":67108864},"training":{"seq_len":67108864,"global_batch":1},
        "search":{"devices":1073741824,"tp_within_node":false,"dimensions":["tp","pp","vpp","sp","cp","zero"]}})"));
    CHECK(huge["error"]["path"] == "/search");
    CHECK(huge["error"]["message"].get<std::string>().find("narrow") != std::string::npos);
}

TEST_CASE("search: a session in slices reaches the same result as one call") {
    const std::string text = std::string(kSmall).substr(0, std::string(kSmall).size() - 1) +
                             R"(,"search":{"devices":8,"frameworks":["megatron","deepspeed"]}})";
    SearchSession session(text);
    double last = -1;
    int slices = 0;
    while (!session.done()) {
        session.step(50);
        CHECK(session.progress() >= last);
        last = session.progress();
        ++slices;
    }
    CHECK(slices > 2);
    CHECK(last == 1.0);
    CHECK(session.result() == search_scenario_text(text));
}

TEST_CASE("search: a max_seq_len answer on an LSTM reproduces with estimate (its graph unrolls the sequence)") {
    // Issue 30: the search reused the graph built for the scenario's own sequence length, whose LSTM Works are
    // unrolled over 35 time steps, for every length it tried: its answer's step time was 127x what estimate gives.
    const nlohmann::json answer = nlohmann::json::parse(shardcalc::search_scenario_text(R"({"framework":"pytorch",
        "model":{"arch":"lstm","layers":2,"hidden":1024,"vocab":10000},"training":{"seq_len":35,"micro_batch":20,
        "global_batch":20},"hardware":{"preset":"h100-sxm-80gb"},"search":{"question":"max_seq_len"}})"))["search"]["answer"];
    REQUIRE(answer.contains("plan"));
    CHECK(answer["value"].get<int64_t>() > 35);
    const nlohmann::json& plan = answer["plan"];
    const nlohmann::json again = nlohmann::json::parse(shardcalc::evaluate_scenario_text(plan["scenario"].dump()))["report"];
    CHECK(plan["time"]["step_seconds"].get<double>() == doctest::Approx(again["time"]["step_seconds"].get<double>()).epsilon(1e-12));
    CHECK(plan["memory"]["peak_bytes"].get<double>() == doctest::Approx(again["memory"]["per_device"]["total"].get<double>()));
}

TEST_CASE("search: tensor-parallel overlap asked for in the scenario goes with the plans that can run it") {
    // Megatron with tp > 1 and sequence parallelism; every other plan runs without it instead of being invalid.
    const nlohmann::json r = nlohmann::json::parse(shardcalc::search_scenario_text(R"({"framework":"megatron",
        "model":{"preset":"llama-3.1-8b"},"training":{"seq_len":8192,"global_batch":64},
        "parallel":{"tp":2,"sp":true,"tp_comm_overlap":true},"hardware":{"preset":"h100-sxm-80gb"},
        "search":{"devices":8,"frameworks":["megatron","deepspeed"],"top":50}})"))["search"];
    CHECK(r["counts"]["invalid"] == 0);
    bool with = false, without = false;
    for (const auto& p : r["plans"]) {
        const bool runs = p["framework"] == "megatron" && p["parallel"]["tp"].get<int>() > 1 && p["parallel"]["sp"] == true;
        CHECK(p["scenario"]["parallel"].value("tp_comm_overlap", false) == runs);
        (runs ? with : without) = true;
    }
    CHECK(with);
    CHECK(without);
}

TEST_CASE("search: DeepSpeed's reduce_bucket_size goes with DeepSpeed's plans") {
    const nlohmann::json r = nlohmann::json::parse(shardcalc::search_scenario_text(R"({"framework":"deepspeed",
        "model":{"preset":"llama-3.1-8b"},"training":{"seq_len":8192,"global_batch":64},
        "parallel":{"zero":2,"reduce_bucket_size":100000000},"hardware":{"preset":"h100-sxm-80gb"},
        "search":{"devices":8,"frameworks":["megatron","deepspeed"],"top":50}})"))["search"];
    CHECK(r["counts"]["invalid"] == 0);
    bool megatron = false, deepspeed = false;
    for (const auto& p : r["plans"]) {
        const bool ds = p["framework"] == "deepspeed";
        CHECK(p["scenario"]["parallel"].contains("reduce_bucket_size") == ds);
        if (ds) CHECK(p["scenario"]["parallel"]["reduce_bucket_size"] == 100000000);
        (ds ? deepspeed : megatron) = true;
    }
    CHECK(megatron);
    CHECK(deepspeed);
}

TEST_CASE("search: an overlapped parameter gather asked for goes with the plans that can run it") {
    // Megatron's --overlap-param-gather needs its distributed optimizer: plans without it (or DeepSpeed's) run
    // without the overlap instead of being invalid.
    const nlohmann::json r = nlohmann::json::parse(shardcalc::search_scenario_text(R"({"framework":"megatron",
        "model":{"preset":"llama-3.1-8b"},"training":{"seq_len":8192,"global_batch":64},
        "parallel":{"distributed_optimizer":true,"overlap_grad_reduce":true,"overlap_param_gather":true},
        "hardware":{"preset":"h100-sxm-80gb"},"search":{"devices":8,"frameworks":["megatron","deepspeed"],"top":50}})"))["search"];
    CHECK(r["counts"]["invalid"] == 0);
    for (const auto& p : r["plans"])
        CHECK(p["scenario"]["parallel"].value("overlap_param_gather", false) ==
              (p["framework"] == "megatron" && p["parallel"]["distributed_optimizer"] == true));
}

// The plans of a search share their layers' figures (plan/layer_memo.h: costs and memory): keyed by the few plan fields
// a layer's kernels and saved tensors depend on. A key that missed one would give some plan another plan's figures
// (dropping sp from the key, or the microbatches from the costs of autograd-accumulating or fp8 plans, fails this
// test: checked); here every plan of searches over a dense and an fp8 MoE model, every framework and dimension (ZeRO
// stages and offload among them), two device counts, has the same figures with the memo as without it.
TEST_CASE("search: the layer figures the plans share change no plan's figures") {
    const char* moe = R"({"framework":"megatron",
      "model":{"layers":4,"hidden":1024,"heads":16,"kv_heads":8,"vocab":32000,"mlp":"swiglu","norm":"rmsnorm",
               "position_embedding":"rope","tied_embeddings":false,"experts":8,"experts_per_token":2,"ffn_hidden":2048},
      "training":{"seq_len":2048,"global_batch":32,"fp8":"delayed"},
      "hardware":{"preset":"h100-sxm-80gb","memory_gib":12}})";
    for (const char* text : {kSmall, moe}) {
        const Scenario base = test::scenario(text);
        SearchSpec spec = small_spec();
        spec.devices = {4, 8};
        spec.dims = {SearchDim::Tp, SearchDim::Pp, SearchDim::Vpp, SearchDim::Sp, SearchDim::Cp, SearchDim::Ulysses,
                     SearchDim::Ep, SearchDim::Zero, SearchDim::MicroBatch, SearchDim::Recompute, SearchDim::Offload};
        const SearchResult shared = search(base, spec);
        spec.share_layer_costs = false;
        const SearchResult alone = search(base, spec);
        REQUIRE(shared.plans.size() > 10);
        REQUIRE(shared.plans.size() == alone.plans.size());
        CHECK(shared.fitting == alone.fitting);
        for (size_t i = 0; i < shared.plans.size(); ++i) {
            CHECK(shared.plans[i].step_seconds == alone.plans[i].step_seconds);
            CHECK(shared.plans[i].peak_bytes == alone.plans[i].peak_bytes);
        }
    }
}

// A fitting plan whose step, at the floor of its model FLOPs over the fastest rate, could neither beat the listed plans
// nor reach the Pareto front is left untimed (search_state.h needs_time), and the space is walked from the most devices
// down; the answer is the same as when every plan is timed in the space's order: the plans, their order and figures,
// the front, the counts but the timed one, and the rejected examples.
TEST_CASE("search: plans that can be neither listed nor on the front are left untimed, and the answer is unchanged") {
    const Scenario base = test::scenario(kSmall);
    for (const RankBy rank : {RankBy::StepTime, RankBy::CostPerToken}) {
        SearchSpec spec = small_spec();
        spec.devices = {1, 2, 4, 8, 16, 32};
        spec.rank_by = rank;
        spec.top = 5;
        const SearchResult bounded = search(base, spec);
        spec.time_every_plan = true;
        const SearchResult every = search(base, spec);
        REQUIRE(every.fitting > 50);
        CHECK(bounded.fitting == every.fitting);
        CHECK(every.time_evaluated == every.fitting);
        INFO("timed " << bounded.time_evaluated << " of " << every.fitting << " fitting plans");
        if (rank == RankBy::StepTime) CHECK(bounded.time_evaluated < every.time_evaluated);  // the bound leaves some untimed
        else CHECK(bounded.time_evaluated <= every.time_evaluated);
        CHECK(bounded.candidates == every.candidates);
        CHECK(bounded.memory_evaluated == every.memory_evaluated);
        CHECK(bounded.equivalent == every.equivalent);
        auto same = [](const std::vector<PlanFigures>& a, const std::vector<PlanFigures>& b) {
            REQUIRE(a.size() == b.size());
            for (size_t i = 0; i < a.size(); ++i) {
                CHECK(a[i].framework == b[i].framework);
                CHECK(a[i].devices == b[i].devices);
                CHECK(a[i].parallel.tp == b[i].parallel.tp);
                CHECK(a[i].parallel.pp == b[i].parallel.pp);
                CHECK(a[i].parallel.zero == b[i].parallel.zero);
                CHECK(a[i].micro_batch == b[i].micro_batch);
                CHECK(a[i].recompute == b[i].recompute);
                CHECK(a[i].step_seconds == b[i].step_seconds);
                CHECK(a[i].peak_bytes == b[i].peak_bytes);
                CHECK(a[i].reason == b[i].reason);
            }
        };
        same(bounded.plans, every.plans);
        same(bounded.pareto, every.pareto);
        for (auto [x, y] : {std::pair{&bounded.does_not_fit, &every.does_not_fit}, {&bounded.invalid, &every.invalid},
                            {&bounded.pruned, &every.pruned}}) {
            CHECK(x->count == y->count);
            same(x->examples, y->examples);
        }
    }
}

// A best-plan search split into parts (search.h SearchPart), each walking every n-th structure, then joined: the same
// answer as one search, every plan, figure, reason, front point, count and rejected example; only the count of timed
// plans depends on the split (each part leaves untimed what its own timed plans rule out). Each part keeps only the
// plans that could rank in the joined listing or reach the joined front (a part that dropped its own front fails this
// test: checked).
TEST_CASE("search: the parts of a search, joined, answer as the whole search") {
    const Scenario base = test::scenario(kSmall);
    for (const RankBy rank : {RankBy::StepTime, RankBy::CostPerToken, RankBy::Headroom})
        for (const int64_t top : {1, 3, 10}) {
            SearchSpec spec = small_spec();
            spec.devices = {1, 2, 4, 8, 16, 32};
            spec.rank_by = rank;
            spec.top = top;
            nlohmann::json whole = search_result_to_json(search(base, spec));
            whole["counts"].erase("time_evaluated");
            REQUIRE(whole["plans"].size() == static_cast<size_t>(top));
            for (const int parts : {2, 3, 7}) {
                CAPTURE(static_cast<int>(rank));
                CAPTURE(top);
                CAPTURE(parts);
                nlohmann::json joined = search_result_to_json(search(base, spec, Workers{parts, {}}));
                CHECK(joined["counts"]["time_evaluated"].get<int64_t>() >= 1);
                CHECK(joined["parts"] == parts);
                CHECK(whole["parts"] == 1);
                joined["counts"].erase("time_evaluated");
                joined["parts"] = 1;
                const nlohmann::json patch = nlohmann::json::diff(whole, joined);
                INFO("differences: " << patch.dump().substr(0, 600));
                CHECK(patch.empty());
            }
        }
    // The other questions are walked whole by the first part.
    SearchSpec fewest = small_spec();
    fewest.question = Question::MinDevices;
    fewest.devices = {1, 2, 4, 8};
    CHECK(search_result_to_json(search(base, fewest, Workers{3, {}})) == search_result_to_json(search(base, fewest)));
    CHECK_THROWS_AS(Searcher(base, small_spec(), SearchPart{2, 2}), InputError);
}

// The page's workers run the parts of a search as sessions and pass their findings as text (io/api.h SearchSession,
// io/contract/search_json.h): joined, the first part's result is the CLI's whole search, but for the plans timed; a TPU
// search among them (XLA's verdicts name the device's reserve). A part's error, or findings that do not read, end the
// joined session with an error naming the field.
TEST_CASE("search: parts run as sessions and joined through their findings' text answer as the whole search") {
    const std::string dense = std::string(kSmall).substr(0, std::string(kSmall).size() - 1) +
                              R"(,"search":{"devices":[4,8,16],"frameworks":["megatron","deepspeed","fsdp"],"top":4}})";
    const std::string tpu = R"({"framework":"xla","model":{"preset":"bert-base"},"training":{"seq_len":512,
      "global_batch":256,"dtype":"fp32","attention":"eager"},"hardware":{"preset":"tpu-v3","memory_gib":4},
      "search":{"devices":[1,2,4,8],"top":3}})";
    for (const std::string& text : {dense, tpu})
        for (const int parts : {2, 3}) {
            CAPTURE(text);
            CAPTURE(parts);
            std::vector<std::unique_ptr<SearchSession>> sessions;
            for (int i = 0; i < parts; ++i) {
                sessions.push_back(std::make_unique<SearchSession>(text, i, parts));
                while (!sessions.back()->done()) sessions.back()->step(100);
            }
            for (int i = 1; i < parts; ++i) sessions[0]->join(sessions[static_cast<size_t>(i)]->findings());
            nlohmann::json joined = nlohmann::json::parse(sessions[0]->result());
            nlohmann::json whole = nlohmann::json::parse(search_scenario_text(text));
            REQUIRE(joined["ok"] == true);
            REQUIRE(!whole["search"]["plans"].empty());
            CHECK(joined["search"]["parts"] == parts);
            joined["search"]["parts"] = 1;
            for (nlohmann::json* j : {&joined, &whole}) (*j)["search"]["counts"].erase("time_evaluated");
            const nlohmann::json patch = nlohmann::json::diff(whole, joined);
            INFO("differences: " << patch.dump().substr(0, 600));
            CHECK(patch.empty());
        }
    // Another part's error becomes the search's; findings that do not read name their field.
    SearchSession first(dense, 0, 2);
    while (!first.done()) first.step(1000);
    first.join(R"({"ok":false,"error":{"path":"/training/seq_len","message":"x"}})");
    CHECK(nlohmann::json::parse(first.result())["error"]["path"] == "/training/seq_len");
    SearchSession other(dense, 0, 2);
    while (!other.done()) other.step(1000);
    other.join(R"({"ok":true,"findings":{"candidates":1,"memory_evaluated":1,"time_evaluated":0,"fitting_count":0,
      "does_not_fit":{"count":0,"examples":[]},"invalid":{"count":0,"examples":[]},"pruned":{"count":0,"examples":[]},
      "fitting":[{"walk_order":-1}]}})");
    CHECK(nlohmann::json::parse(other.result())["error"]["path"] == "/findings/fitting/0/walk_order");
}
