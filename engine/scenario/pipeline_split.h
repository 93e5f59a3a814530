#pragma once
// How many layers each pipeline stage holds: evenly by default, or with the first and/or last stage given
// their own count and the stages between sharing the rest evenly (Megatron-LM core
// transformer_block.py get_num_layers_to_build with --decoder-first/last-pipeline-num-layers), or with the
// embedding and loss counted as layers (--account-for-embedding/loss-in-pipeline-split), or every stage's count
// given (--pipeline-model-parallel-layout). Each stage's
// layers are cut into vpp equal model chunks, but for the embedding and loss counted as layers with vpp > 1: then
// every chunk holds the same places and the first chunk (the embedding's) and the last (the loss's) one layer fewer. The one copy of this rule: the plan, the validation and the
// launch command read it here.
#include <cstdint>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace shardcalc {

struct PipelineSplit {
    std::vector<int64_t> stage_layers;  // per pipeline rank; empty when the split is impossible
    std::vector<int64_t> chunk_layers;  // per model chunk, in model order (chunk k * pp + r is rank r's k-th)
    std::string problem;                // why it is impossible (for the field in `path`)
    std::string path;                   // "/parallel/pp", "/parallel/first_stage_layers", ...
};

PipelineSplit pipeline_split(const ParallelFields& p, int64_t layers);

// The parts pipeline_split is made of (scenario/pipeline_layouts.cpp holds the explicit layouts, whole engine only).
PipelineSplit split_problem(const char* path, std::string why);
// Model chunks in model order (chunk k * pp + r is rank r's k-th) and each stage's sum of its chunks.
PipelineSplit chunk_split(std::vector<int64_t> chunks, int64_t pp);
// Each stage's layers cut into vpp equal chunks (the caller has checked that vpp divides them), in model order.
PipelineSplit equal_chunks(std::vector<int64_t> stages, int64_t vpp);
// Every stage's count given (parallel.stage_layers).
PipelineSplit explicit_split(const ParallelFields& p, int64_t layers);
// The embedding and/or the loss counted as a layer in an even split (parallel.embedding_as_layer, loss_as_layer).
PipelineSplit accounted_split(const ParallelFields& p, int64_t layers);

}  // namespace shardcalc
