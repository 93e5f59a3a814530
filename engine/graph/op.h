#pragma once
// The model graph: modules (the tree of seed 002's table) holding ops. Each op declares
// its parameter tensors and the tensors it saves for backward, together with the
// dimension that each kind of parallelism splits. Memory is the sum over ops.
#include <cstdint>
#include <string>
#include <vector>

namespace shardcalc {

// How tensor parallelism splits a parameter (Megatron column/row-parallel linears,
// megatron/core/tensor_parallel/layers.py).
enum class ParamSplit {
    Replicated,  // norms, biases of row-parallel linears, position tables: full copy on every rank
    Sharded,     // split by tp: column-parallel weight and bias, row-parallel weight, vocab-parallel embedding
};

struct ParamTensor {
    std::string name;              // "w", "b"
    std::vector<int64_t> shape;    // full (unsharded) shape
    ParamSplit split = ParamSplit::Replicated;
    bool tied = false;             // shares storage with the word embedding (counted once)

    int64_t numel() const {
        int64_t n = 1;
        for (int64_t d : shape) n *= d;
        return n;
    }
};

// Storage format of a saved tensor.
enum class SavedKind {
    Activation,  // the training dtype (2 bytes in bf16)
    Mask,        // dropout mask, 1 byte per element (torch bool mask)
    Fp32,        // kept in fp32 regardless of the training dtype (softmax statistics, CE logits)
};

// Which parallelism splits a saved tensor.
enum class SavedSplit {
    Sequence,  // [s, b, width] outside the tensor-parallel region: split by cp and ulysses, and by tp under sp
    Tensor,    // [s, b, width] inside the tensor-parallel region: split by tp, cp and ulysses
    Scores,    // [b, heads, s, s] attention scores: split by tp and ulysses (heads)
};

struct SavedTensor {
    std::string name;
    SavedKind kind = SavedKind::Activation;
    SavedSplit split = SavedSplit::Sequence;
    int64_t width = 0;              // per token (Sequence/Tensor) or number of heads (Scores)
    bool dropped_by_selective = false;  // recomputed under selective recompute (Korthikanti et al. 2022, sec. 5)
};

struct Op {
    std::string name;
    std::vector<ParamTensor> params;
    std::vector<SavedTensor> saved;
    bool is_loss = false;  // its saved tensors are reported as the "logits" line, not activations
};

struct Module {
    std::string name;
    std::vector<Op> ops;
    std::vector<Module> children;
};

// A run of identical layers; pipeline stages cut through the concatenation of all groups.
struct LayerGroup {
    Module layer;
    int64_t count = 0;
    bool shared_weights = false;  // ALBERT: one set of weights serves every layer of the group
};

struct ModelGraph {
    Module pre;                      // embeddings: first pipeline stage
    std::vector<LayerGroup> groups;  // transformer layers in execution order
    Module post;                     // final norm, heads and loss: last pipeline stage
    int64_t total_layers() const {
        int64_t n = 0;
        for (const auto& g : groups) n += g.count;
        return n;
    }
};

}  // namespace shardcalc
