#pragma once
// What memory.cpp (language models) and memory_vision.cpp (vision, image generation) share; internal to core.
#include <cstdint>
#include <string>

#include "gpuadvise/framework.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise::memory_detail {

inline double d(std::int64_t v) { return static_cast<double>(v); }

// Bytes of an activation element for the compute precision: fp32/tf32 keep fp32 activations; 16-bit,
// fp8 (Transformer Engine keeps bf16 activations between layers) and weight-only formats compute in 16-bit.
inline double activation_bytes(Precision p) { return (p == Precision::fp32 || p == Precision::tf32) ? 4.0 : 2.0; }
inline bool is_16bit_or_lower(Precision p) { return p != Precision::fp32 && p != Precision::tf32; }

// Optimizer state bytes per trainable parameter (method.md §3.1).
double optimizer_state_bytes(Optimizer o, double elem, double factored);
// Memory outside the framework's allocator (method.md §6.4): its bytes (and what they rest on, in `source`), and
// the same written into an estimate with its explanation.
double runtime_bytes(const Workload& w, const GpuSpec* gpu, bool cuda_graphs, const char** source = nullptr);
void set_runtime(MemoryEstimate& e, const Workload& w, const GpuSpec* gpu, bool cuda_graphs);
// The caching allocator's reserve over the transient tensors: activations, logits and, in training, gradients
// (method.md §6.4).
inline double allocator_reserve_bytes(const MemoryEstimate& e, const FrameworkProfile& fw, bool training) {
  return fw.reserve_fraction * (e.activations + e.logits + (training ? e.gradients : 0.0));
}
// Serving engines (memory_serving.cpp): the pool replaces the activations, KV cache and device peak.
void apply_serving_pool(MemoryEstimate& e, const Workload& w, const ModelSpec& m, const GpuSpec* gpu, const ServingShape& sh);
// Vision models and image-generation pipelines (memory_vision.cpp).
MemoryEstimate estimate_vision_memory(const Workload& w, const ModelSpec& m, const GpuSpec* gpu);

struct LayerShape {
  double h, qd, kvd, f, a;  // hidden, query width (a·d), kv width per rank (g·d), ffn, query heads
  // Training only (method.md §4.2): MLA's value width per rank (a·v_head_dim) and its two latents (q_lora_rank +
  // kv_lora_rank, per rank under sequence parallelism); a MoE layer's routed copies of each token (k·h, averaged
  // over the layers that route) and its router scores (E).
  double vd = 0, latent = 0, routed_in = 0, router = 0;
};

// Elements saved for backward per token in one transformer layer (16-bit or fp32 by the caller), with
// flash attention. method.md §4.2: norm inputs and outputs, Q, K, V, attention output, and the MLP's
// intermediates (gated: gate, up, act, product; GeLU: fc1 output and act output).
struct SavedElements {
  double act = 0;      // elements at activation precision
  double fp32 = 0;     // elements held in fp32 (quantised layers computing in fp32, LSE)
  double bytes1 = 0;   // one-byte masks (dropout)
  double scores = 0;   // per query token per key: a (eager attention), multiplied by s by the caller
  double score_bytes = 0;  // bytes per score element kept
};

// The elements one transformer layer keeps for its backward, per token (method.md §4.1, §4.2; memory_saved.cpp).
SavedElements saved_per_token(const ModelSpec& m, const Workload& w, const FrameworkProfile& fw, const LayerShape& s);

// What every part of a language model's memory is computed from.
struct MemBasis {
  const Workload& w;
  const ModelSpec& m;
  const FrameworkProfile& fw;
  ParamCounts pc;
  std::int64_t s_len;
  double s, b, tp, dp, pp, mp, act_b, V, ep, expert_elsewhere, layers_total;
  bool training, mixed;
  Sharding shard;
};

struct WeightBytes {
  double base_bits, emb_bits, per_gpu;
  double experts_per_gpu = 0;  // of per_gpu, the routed experts' bytes (MoE)
};

// memory_states.cpp (method.md §2–§3): weights resident per GPU, the trainable parameters (and LoRA's), and the
// model states for the sharding and offload in use (returns the formula for the explanation).
WeightBytes weight_bytes(const MemBasis& in, MemoryEstimate& e);
double trainable_parameters(const MemBasis& in, double& lora_params);
std::string model_states(const MemBasis& in, const WeightBytes& wb, double lora_count, MemoryEstimate& e);

}  // namespace gpuadvise::memory_detail
