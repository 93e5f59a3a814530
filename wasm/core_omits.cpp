// What the page's WebAssembly core leaves out, for its size (README.md "Page budget"): the LSTM builder. Defining
// build_lstm here keeps the linker from taking engine/graph/lstm.cpp's object out of the engine library (an
// archive member is linked only for a symbol still undefined); an LSTM scenario is answered
// {"ok": false, "whole_engine": true} and web/src/js/engine-worker.js asks the whole engine.
#include "core/error.h"
#include "graph/build.h"

namespace shardcalc {

ModelGraph build_lstm(const Config&) { throw WholeEngineOnly("LSTM models are evaluated by the whole engine"); }

}  // namespace shardcalc
