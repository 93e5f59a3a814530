// What the page's WebAssembly core leaves out, for its size (docs/performance.md): LSTMs (their rules and
// builder) and TPUs (the TPU device, XLA's program and its report object). Defining these functions here keeps the
// linker from taking engine/scenario/lstm_rules.cpp's, engine/graph/lstm.cpp's, engine/device/tpu.cpp's,
// engine/memory/xla_program.cpp's and engine/io/contract/xla_json.cpp's objects out of the engine library (an archive member is linked only for a symbol
// still undefined); such a scenario is answered {"ok": false, "whole_engine": true} and
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
