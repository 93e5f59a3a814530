#include "io/contract/xla_json.h"

#include <cmath>
#include <string>

namespace shardcalc {
namespace {

// XLA's names of element types (xla/primitive_util.cc).
const char* xla_type(Dtype d) {
    switch (d) {
        case Dtype::Fp32: return "f32";
        case Dtype::Bf16: return "bf16";
        case Dtype::Fp16: return "f16";
        case Dtype::Fp8: return "f8e4m3fn";
    }
    return "f32";
}

}  // namespace

std::string xla_shape(const XlaBuffer& b) {
    std::string shape = std::string(xla_type(b.dtype)) + "[";
    for (size_t i = 0; i < b.shape.size(); ++i) shape += (i ? "," : "") + std::to_string(b.shape[i]);
    return shape + "]" + b.layout.text;
}

// The program as XLA's out-of-memory report gives it (XLA's BERT report, docs/sources.md), for a stage XLA compiles.
void xla_program_json(JsonWriter& w, const XlaProgram& x) {
    w.key("xla")
        .begin_object()
        .field("reserved", whole(x.reserved))
        .field("program", whole(x.program))
        .field("hlo_temp", whole(x.program))
        .field("arguments", whole(x.arguments))
        .field("total", whole(x.total))
        .field("saved_all", whole(x.saved_all))
        .field("saved_floor", whole(x.saved_floor))
        .field("rematerialized", whole(x.rematerialized))
        .field("rematerialized_share", x.rematerialized_share);
    w.key("largest_allocations").begin_array();
    for (const XlaBuffer& b : x.largest) {
        w.begin_object()
            .field("module", b.module)
            .field("tensor", b.tensor)
            .field("shape", xla_shape(b))
            .array("dims", b.shape)
            .field("dtype", xla_type(b.dtype))
            .field("layout", b.layout.text)
            .field("size", whole(b.layout.bytes))
            .field("unpadded_size", whole(b.layout.unpadded))
            .field("count", b.count)
            .field("kept", b.kept)
            .end_object();
    }
    w.end_array();
    w.end_object();
}

}  // namespace shardcalc
