#pragma once
// The weights a serving replica holds and reads (serve/serving.cpp): the served format's bytes per weight, and the
// model graph's parameters by where a pipeline puts them, with the multi-token prediction modules as a drafter.
#include "graph/op.h"
#include "scenario/resolve.h"
#include "serve/serving.h"

namespace shardcalc {

double weight_bytes(const Config& c, const ServingSpec& s);

// Parameters (elements) of a part of the model as one rank holds and one token reads them.
struct ServedParams {
    double all = 0;         // every weight the GPU holds, unique
    double quantized = 0;   // of which the layers' GEMM weights (a weight format applies to them)
    double experts = 0;     // of which routed experts'
    double active = 0;      // the weights one token's forward multiplies (for FLOPs: the output layer included)
    double borrowed = 0;    // weights a forward reads that another part holds (a drafter's output layer, the model's)
    ServedParams& operator+=(const ServedParams& o) {
        borrowed += o.borrowed;
        all += o.all;
        quantized += o.quantized;
        experts += o.experts;
        active += o.active;
        return *this;
    }
};

// The weights one rank of the tensor-parallel group holds, by where a pipeline puts them: the embedding (first stage),
// the layers, and the final norm and output layer (last stage); the multi-token prediction modules only as a drafter
// (mtp_params).
struct ServedModel {
    ServedParams pre, layers, post;
    ServedParams whole() const {
        ServedParams p = pre;
        p += layers;
        p += post;
        return p;
    }
};
ServedModel served_params(const Config& c, const ModelGraph& g);
// The multi-token prediction modules as a drafter runs them (graph/decoder.cpp): their norms, their projection of the
// hidden state and the next token's embedding, their layer, and the output layer they share with the model (read
// and multiplied by every draft step, held once: `active` and `borrowed` count it, `all` does not).
ServedParams mtp_params(const Config& c, const ModelGraph& g);
// An EAGLE head as vLLM runs it (vllm/model_executor/models/llama_eagle.py): one decoder layer of the target's first
// dense layer group, the [2h, h] projection fusing the hidden state and the token's embedding, and the target's output
// layer, read and multiplied by every draft step but held once (`borrowed`).
ServedParams eagle_params(const Config& c, const ModelGraph& g);

}  // namespace shardcalc
