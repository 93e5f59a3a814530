// The page's WebAssembly core without the LSTM and TPU models, for its size (docs/performance.md): the core's
// engine library (wasm/CMakeLists.txt) holds the engine's common objects but not SHARDCALC_LSTM_TPU_SOURCES
// (engine/CMakeLists.txt: an LSTM's rules and builder, the TPU device, XLA's program and its report object); these
// are their entry points in the core. Such a scenario is answered {"ok": false, "whole_engine": true} and
// web/src/js/engine-worker.js asks the whole engine.
#include "core/error.h"
#include "graph/build.h"
#include "io/contract/xla_json.h"
#include "memory/xla_program.h"
#include "device/device.h"
#include "scenario/lstm_rules.h"

namespace shardcalc {

namespace {
const char* const kLstm = "LSTM models are evaluated by the whole engine";
const char* const kTpu = "TPU plans are evaluated by the whole engine";
}  // namespace

std::vector<Problem> lstm_problems(const Config&) { throw WholeEngineOnly(kLstm); }
ModelGraph build_lstm(const Config&) { throw WholeEngineOnly(kLstm); }
// Reached first by any TPU plan (resolve asks the device which unit runs its dtype).
const Device& tpu_device() { throw WholeEngineOnly(kTpu); }
XlaSaved xla_saved(const Config&, const ModelGraph&, const StagePlan&) { throw WholeEngineOnly(kTpu); }
MemoryVerdict xla_verdict(const XlaProgram&, double, const char*) { throw WholeEngineOnly(kTpu); }
void xla_program_json(JsonWriter&, const XlaProgram&) { throw WholeEngineOnly(kTpu); }

}  // namespace shardcalc
