#pragma once
// One forward of a vLLM replica as a function of what its batch holds: the weights its tokens touch at the served
// format's bytes, the KV cache it reads, its FLOPs on the roofline, and vLLM's own kernels and all-reduces
// (serve/vllm_step.cpp). serve/serving.cpp sizes its decode step and prefill with it; serve/closed_loop.cpp times the
// steps of a simulated benchmark run.
#include "graph/op.h"
#include "scenario/resolve.h"
#include "serve/served_weights.h"

namespace shardcalc {

// What one step's batch holds: its tokens (one per decoding request, a chunk per prompt being prefilled), the rows
// that go through the output layer (vLLM computes logits at each scheduled request's last token only:
// gpu_model_runner.py logits_indices), attention's FLOPs and the KV cache bytes its queries read.
struct ForwardBatch {
    double tokens = 0, logits = 0, attention_flops = 0, kv_bytes = 0;
};

class ServedForward {
  public:
    ServedForward(const Config& c, const ModelGraph& g, const ServingSpec& s);
    const ServedModel& model() const { return model_; }
    // Bytes of `q` as one GPU stores it: the layers' GEMM weights at the served format's bytes, the rest in the
    // model's dtype.
    double held(const ServedParams& q) const;
    // The weights a forward of `tokens` tokens reads: all but the routed experts, and of those the ones its tokens
    // chose (each token picks k of E uniformly: 1 - (1 - k/E)^tokens of them), of the experts this GPU holds
    // (`expert_share` of q's: 1/dp under data-parallel attention, where `tokens` are the whole expert-parallel group's).
    double weights_read(const ServedParams& q, double tokens, double expert_share = 1) const;
    // Of a routed expert layer's experts, the share one token runs through (k of E; 0 for a dense model).
    double expert_fraction() const { return k_of_e_; }
    // The kernels' gaps of one forward (serve/vllm_step.cpp): over every layer, and the step's own beside them.
    double layer_gaps() const { return layer_gaps_; }
    double step_gaps() const { return step_gaps_; }
    // One forward of the whole model on a replica without pipeline stages or attention ranks: the slower of its
    // FLOPs and its bytes, its kernels' gaps and its tensor-parallel all-reduces.
    double seconds(const ForwardBatch& b) const;

  private:
    const Config& c_;
    ServedModel model_;
    ServedParams whole_;
    double weight_bytes_ = 0, k_of_e_ = 0, flop_rate_ = 0, hbm_ = 0, layer_gaps_ = 0, step_gaps_ = 0;
};

}  // namespace shardcalc
