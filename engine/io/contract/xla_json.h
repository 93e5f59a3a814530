#pragma once
// The report's "xla" object: XLA's program for a stage it compiles (framework xla, a TPU), as XLA's out-of-memory
// report gives it. A file of its own so that the page's core engine, which leaves TPUs to the whole engine, leaves
// it out too (wasm/core_features.cpp).
#include <string>

#include "io/codec/json_writer.h"
#include "memory/xla_program.h"

namespace shardcalc {

void xla_program_json(JsonWriter& w, const XlaProgram& x);
// A buffer's shape as XLA writes it: its element type, dimensions and layout ("f32[8,512,1024]{2,1,0}").
std::string xla_shape(const XlaBuffer& b);

}  // namespace shardcalc
