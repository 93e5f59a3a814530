// What the page's WebAssembly core leaves out, for its size (README.md "Page budget"): LSTMs, their rules and
// their builder. Defining these functions here keeps the linker from taking engine/scenario/lstm_rules.cpp's and
// engine/graph/lstm.cpp's objects out of the engine library (an archive member is linked only for a symbol still
// undefined); an LSTM scenario is answered {"ok": false, "whole_engine": true} and web/src/js/engine-worker.js
// asks the whole engine.
#include "core/error.h"
#include "graph/build.h"
#include "scenario/lstm_rules.h"

namespace shardcalc {

namespace {
const char* const kLstm = "LSTM models are evaluated by the whole engine";
}  // namespace

std::vector<Problem> lstm_problems(const Config&) { throw WholeEngineOnly(kLstm); }
ModelGraph build_lstm(const Config&) { throw WholeEngineOnly(kLstm); }

}  // namespace shardcalc
