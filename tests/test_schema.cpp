// The scenario's schema (io/contract/scenario_schema.h): one entry per field drives the parser, the echo and `shardcalc schema`.
#include <set>
#include <stdexcept>

#include "helpers.h"
#include "io/api.h"
#include "io/contract/field_types.h"
#include "io/presets.h"
#include "memory/allocator.h"
#include "memory/memory_terms.h"
#include "schedule/step_parts.h"
#include "io/contract/scenario_json.h"
#include "io/contract/scenario_schema.h"

using namespace shardcalc;
using nlohmann::json;

namespace {

std::string none_required(const Field&) { return {}; }

// The first problem an object's fields raise, as "path: message".
std::string problem_of(FieldList fields, const json& j, const char* path) {
    Scenario s;
    ObjectReader r(j, path);
    read_fields(r, s, fields, &none_required);
    try {
        r.finish();
    } catch (const InputError& e) {
        return e.path() + ": " + e.message();
    }
    return "";
}

}  // namespace

TEST_CASE("a new scenario field is one schema entry: read, range-checked, listed, echoed and described from it") {
    // A field the engine does not have, added to a copy of the training object's entries (its value kept outside the
    // Scenario: the test cannot add a member).
    static double label_smoothing = 0;
    const FieldList training = schema_fields("/training");
    std::vector<Field> fields(training.begin(), training.end());
    fields.push_back({"label_smoothing", schema::type_of<double>(), 0, 1,
                      [](Scenario&) -> void* { return &label_smoothing; }, Echo::WhenOn, Applies::Always,
                      Presence::Optional});

    Scenario s;
    const json given = {{"label_smoothing", 0.1}, {"micro_batch", 2}};
    ObjectReader r(given, "/training");
    read_fields(r, s, fields, &none_required);
    r.finish();
    CHECK(label_smoothing == doctest::Approx(0.1));
    CHECK(s.training.micro_batch == 2);

    CHECK(problem_of(fields, {{"label_smoothing", 2}}, "/training") ==
          "/training/label_smoothing: must be a number from 0.0 to 1.0, got 2");
    CHECK(problem_of(fields, {{"label_smothing", 0.1}}, "/training").find("label_smoothing") != std::string::npos);
    CHECK(problem_of(schema_fields("/training"), {{"label_smoothing", 0.1}}, "/training").rfind("/training/label_smoothing: unknown", 0) == 0);

    json echo = json::object();
    write_fields(echo, s, fields, nullptr);
    CHECK(echo["label_smoothing"] == 0.1);
    CHECK(echo["micro_batch"] == 2);
    label_smoothing = 0;  // off: the WhenOn rule leaves it out of the echo
    echo = json::object();
    write_fields(echo, s, fields, nullptr);
    CHECK_FALSE(echo.contains("label_smoothing"));
}

TEST_CASE("the schema's entries: unique keys, closed ranges, a member for every echoed field") {
    for (const SchemaObject& o : scenario_schema()) {
        std::set<std::string> keys;
        for (const Field& f : o.fields) {
            CAPTURE(std::string(o.path) + "/" + f.key);
            CHECK(keys.insert(f.key).second);
            CHECK(f.min <= f.max);
            CHECK((f.at != nullptr || f.echo == Echo::Never));
            const std::string type = f.type->name;
            CHECK((f.type->choices != nullptr) == (type == "enum" || type == "enum list"));
        }
    }
    // `shardcalc schema` lists the same entries, each with its type and, for an enum, its spellings.
    const json exported = schema_to_json();
    size_t n = 0;
    for (const json& o : exported["objects"]) n += o["fields"].size();
    size_t entries = 0;
    for (const SchemaObject& o : scenario_schema()) entries += o.fields.size();
    CHECK(n == entries);
    const json& model = exported["objects"][1];
    CHECK(model["path"] == "/model");
    CHECK(model["fields"][1]["key"] == "arch");
    CHECK(model["fields"][1]["choices"] == json({"decoder", "encoder", "lstm"}));
    CHECK(model["fields"][2]["required"] == true);
}

TEST_CASE("the echo of every model preset reads back as the same scenario") {
    for (const json& preset : all_presets()["models"]) {
        const std::string id = preset["id"];
        CAPTURE(id);
        json scenario = {{"model", {{"preset", id}}}, {"training", {{"seq_len", 256}}}};
        if (preset["model"].value("arch", "") == "lstm") scenario["implementation"] = {{"rnn", "unrolled"}};
        const json echo = scenario_to_json(scenario_from_json(scenario));
        CHECK(scenario_to_json(scenario_from_json(echo)) == echo);
    }
}

// The echo writes the defaults one field takes from another; each must read back (the generated scenarios found a
// 2^22-wide single-head model whose head_dim and ffn_hidden defaults were past those fields' own ranges).
TEST_CASE("the echo's derived defaults read back, at the widest model the schema takes") {
    const json first = json::parse(shardcalc::evaluate_scenario_text(
        R"({"model":{"layers":2,"hidden":4194304,"heads":1,"vocab":100,"max_positions":512},"training":{"seq_len":128}})"));
    REQUIRE(first["ok"] == true);
    const json echo = first["report"]["scenario"];
    CHECK(echo["model"]["head_dim"] == 4194304);
    CHECK(echo["model"]["ffn_hidden"] == 16777216);
    const json again = json::parse(shardcalc::evaluate_scenario_text(echo.dump()));
    REQUIRE_MESSAGE(again["ok"] == true, again.dump());
    CHECK(again["report"]["memory"]["per_device"]["total"] == first["report"]["memory"]["per_device"]["total"]);
}

TEST_CASE("the report's terms: every part of the step's time and every moment of its memory, in the listed order") {
    const Report r = test::report(R"({"model":{"preset":"llama-3.1-8b"},"training":{"seq_len":4096},"parallel":{"tp":2,"pp":2}})");
    REQUIRE(r.perf.breakdown.size() == kStepOrder.size());
    for (size_t i = 0; i < r.perf.breakdown.size(); ++i) CHECK(r.perf.breakdown[i].first == kStepOrder[i].term.key);
    // The order the reports have always shown: the passes, each dimension's per-microbatch part (kCommRules' rows), the
    // bubble, each dimension's per-step part, the optimizer.
    const char* shown[] = {"forward_compute", "forward_host_wait", "backward_compute", "recompute", "backward_host_wait",
                           "activation_offload", "tp_exposed", "cp_exposed", "ulysses_exposed", "ep_exposed", "pp_p2p",
                           "pipeline_bubble", "dp_exposed", "zero3_exposed", "expert_dp_exposed", "embedding_sync",
                           "optimizer_step"};
    REQUIRE(kStepOrder.size() == std::size(shown));
    for (size_t i = 0; i < kStepOrder.size(); ++i) CHECK(std::string(kStepOrder[i].term.key) == shown[i]);
    // A stage's moments are listed terms, in the list's order (a stage without the loss has no loss_backward).
    for (const StageMemory& s : r.stages) {
        size_t next = 0;
        for (const MemoryPhase& ph : s.timeline) {
            while (next < std::size(kMemoryPhases) && ph.name != kMemoryPhases[next].key) ++next;
            CHECK(next < std::size(kMemoryPhases));
        }
    }
    // `shardcalc schema` carries them for the page (web/schema-module.mjs).
    const json terms = schema_to_json()["report_terms"];
    REQUIRE(terms["step_parts"].size() == kStepOrder.size());
    CHECK(terms["step_parts"][6] == json({{"key", "tp_exposed"}, {"label", "Tensor-parallel comm (exposed)"}}));
    CHECK(terms["memory_lines"][5] == json({{"key", "comm_buffers"}, {"label", "Comm buffers"}}));
    CHECK(terms["verdicts"][2] == json({{"key", "does_not_fit"}, {"label", "Does not fit"}}));
    CHECK(std::string(verdict_name(r.verdict.verdict)) == kVerdicts[static_cast<size_t>(r.verdict.verdict)].key);
}

// The scenario in its two forms (scenario/scenario.h): as given, a defaulted field may be unset; once resolved it is a
// plain value, and the echo writes it back.
TEST_CASE("resolve() fills every defaulted field once; the given form it echoes has each engaged with the same value") {
    for (const char* s : {R"({"model":{"preset":"llama-3.1-8b"},"parallel":{"tp":2,"dp":4}})",
                          R"({"framework":"deepspeed","model":{"preset":"gpt2"},"parallel":{"zero":3,"dp":8}})",
                          R"({"framework":"pytorch","model":{"preset":"bert-large"},"training":{"seq_len":512}})",
                          R"({"model":{"preset":"mixtral-8x7b"},"parallel":{"ep":8,"dp":8}})"}) {
        CAPTURE(s);
        const Config c = test::config(s);
        Scenario given = given_form(c.s);
        auto same = [](auto& g, const auto& f) {
            REQUIRE(g.has_value());
            CHECK(*g == f);
        };
        pair_defaults(given.model, c.s.model, same);
        pair_defaults(given.training, c.s.training, same);
        pair_defaults(given.parallel, c.s.parallel, same);
        pair_defaults(given.implementation, c.s.implementation, same);
        CHECK(scenario_to_json(resolve(given).s) == scenario_to_json(c.s));
    }
    // A defaulted field left unset reaches the resolved form only through the engine's own mistake: refused, not read.
    Scenario unresolved = test::scenario(R"({"model":{"preset":"gpt2"}})");
    ResolvedScenario out;
    CHECK_THROWS_AS(fill(std::move(unresolved), out), std::logic_error);
}

// What a resolved scenario leaves out of its echo: only the optional fields whose absence means something. A defaulted
// field added without its entry in pair_defaults would be missing here too.
TEST_CASE("the echo of a resolved scenario leaves out only the fields whose absence means something") {
    const Config c = test::config(R"({"model":{"preset":"llama-3.1-8b"},"parallel":{"tp":2,"dp":4}})");
    const json echo = scenario_to_json(c.s);
    std::set<std::string> absent;
    const Scenario given = given_form(c.s);
    for (const SchemaObject& o : scenario_schema()) {
        if (std::string(o.path) == "/adapter") continue;
        for (const Field& f : o.fields) {
            if (!f.type->optional || f.echo != Echo::Value || !applies(f.applies, given)) continue;
            const json* object = &echo;
            for (const char* part : {"/model", "/training", "/parallel", "/hardware", "/implementation"})
                if (std::string(o.path).rfind(part, 0) == 0) object = &echo[part + 1];
            if (std::string(o.path) == "/hardware/peak_tflops") object = &echo["hardware"]["peak_tflops"];
            if (!object->contains(f.key)) absent.insert(std::string(o.path) + "/" + f.key);
        }
    }
    // Unset: no world size to check against, even pipeline stages, the caching allocator's measured fragmentation, no
    // ZeRO bucket (not DeepSpeed), and what only an LSTM, a Hugging Face MoE or a compiled plan reads.
    CHECK(absent == std::set<std::string>{"/implementation/cudnn_tf32", "/implementation/experts",
                                          "/implementation/fragmentation", "/implementation/host_compiled_us",
                                          "/implementation/rnn", "/parallel/first_stage_layers",
                                          "/parallel/last_stage_layers", "/parallel/reduce_bucket_size",
                                          "/parallel/world_size"});
}
