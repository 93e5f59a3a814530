// The page's WebAssembly core without the LSTM and TPU models, adapters, torch.compile's kernels, explicit pipeline layouts
// and a misspelled preset's suggestions, for its size (docs/performance.md): the core's engine library (wasm/CMakeLists.txt) holds the engine's
// common objects but not SHARDCALC_WHOLE_ONLY_SOURCES (engine/CMakeLists.txt: an LSTM's rules and builder, the TPU
// device, XLA's program, its stage memory and its report object, an adapter's fields, rules, graph and model states,
// inductor's fused kernels, the "did you mean" of an unknown preset id, every stage's layers given or the embedding and
// loss counted as layers); these are their entry points in the core. Such
// a scenario is answered {"ok": false, "whole_engine": true} and web/src/js/engine-worker.js asks the whole engine.
#include "core/error.h"
#include "graph/adapter.h"
#include "graph/build.h"
#include "graph/compiled_kernels.h"
#include "io/contract/adapter_json.h"
#include "io/contract/xla_json.h"
#include "memory/xla_stage.h"
#include "device/device.h"
#include "memory/model_states.h"
#include "scenario/adapter_rules.h"
#include "scenario/lstm_rules.h"
#include "scenario/pipeline_split.h"
#include "io/presets.h"

namespace shardcalc {

namespace {
const char* const kLstm = "LSTM models are evaluated by the whole engine";
const char* const kTpu = "TPU plans are evaluated by the whole engine";
const char* const kAdapter = "adapters are evaluated by the whole engine";
const char* const kCompile = "torch.compile plans are evaluated by the whole engine";
const char* const kMisspelled = "a misspelled preset id is answered by the whole engine";
const char* const kLayout = "explicit pipeline layouts (parallel.stage_layers, embedding_as_layer, loss_as_layer) are "
                            "evaluated by the whole engine";
}  // namespace

std::vector<Problem> lstm_problems(const Config&) { throw WholeEngineOnly(kLstm); }
ModelGraph build_lstm(const Config&) { throw WholeEngineOnly(kLstm); }
// Reached first by any TPU plan (resolve asks the device which unit runs its dtype).
const Device& tpu_device() { throw WholeEngineOnly(kTpu); }
XlaStage xla_stage_parts(const Config&, const ModelGraph&, const StagePlan&, StageParts&) { throw WholeEngineOnly(kTpu); }
XlaProgram xla_program(const Config&, const XlaStage&, const StageMemory&) { throw WholeEngineOnly(kTpu); }
MemoryVerdict xla_verdict(const XlaProgram&, double, const char*) { throw WholeEngineOnly(kTpu); }
std::string xla_reason_words(const MemoryVerdict&) { throw WholeEngineOnly(kTpu); }
void xla_program_json(JsonWriter&, const XlaProgram&) { throw WholeEngineOnly(kTpu); }
std::string xla_shape(const XlaBuffer&) { throw WholeEngineOnly(kTpu); }
// Reached first by any scenario with an adapter (its object is read before anything is resolved).
void parse_adapter(const nlohmann::json&, Scenario&) { throw WholeEngineOnly(kAdapter); }
FieldList adapter_fields() { return {}; }
void apply_adapter_defaults(Scenario&) { throw WholeEngineOnly(kAdapter); }
std::vector<Problem> adapter_problems(const Config&) { throw WholeEngineOnly(kAdapter); }
void apply_adapter(ModelGraph&, const Config&) { throw WholeEngineOnly(kAdapter); }
StateBytes adapter_state_bytes(const ParamTally&, const Config&) { throw WholeEngineOnly(kAdapter); }
// Reached by any plan with parallel.stage_layers, embedding_as_layer or loss_as_layer (scenario/pipeline_split.cpp).
PipelineSplit explicit_split(const ParallelFields&, int64_t) { throw WholeEngineOnly(kLayout); }
PipelineSplit accounted_split(const ParallelFields&, int64_t) { throw WholeEngineOnly(kLayout); }
// Reached by an unknown preset id's error, for its "did you mean" (io/preset_suggestions.cpp).
std::vector<std::string> similar_preset_ids(const char*, const std::string&) { throw WholeEngineOnly(kMisspelled); }
// Reached by any compiled graph's first norm, residual add or linear (graph/blocks.cpp).
namespace compiled {
Work weight_cast(const BuildContext&, int64_t, bool) { throw WholeEngineOnly(kCompile); }
Work norm(const BuildContext&, int64_t) { throw WholeEngineOnly(kCompile); }
Work input_cast(const BuildContext&, SavedSplit, int64_t) { throw WholeEngineOnly(kCompile); }
Work grad_sum(const BuildContext&, int64_t, int) { throw WholeEngineOnly(kCompile); }
Work residual_add(const BuildContext&, int64_t) { throw WholeEngineOnly(kCompile); }
Work activation(const BuildContext&, int64_t, bool) { throw WholeEngineOnly(kCompile); }
Work output_layout(const BuildContext&, int64_t) { throw WholeEngineOnly(kCompile); }
Work rope(const BuildContext&, int64_t) { throw WholeEngineOnly(kCompile); }
Work score_softmax(const BuildContext&) { throw WholeEngineOnly(kCompile); }
Work score_softcap(const BuildContext&) { throw WholeEngineOnly(kCompile); }
Work cross_entropy(const BuildContext&) { throw WholeEngineOnly(kCompile); }
}  // namespace compiled

}  // namespace shardcalc
