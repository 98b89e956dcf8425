#pragma once
// What memory.cpp (language models) and memory_vision.cpp (vision, image generation) share; internal to core.
#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise::memory_detail {

// Bytes of an activation element for the compute precision: fp32/tf32 keep fp32 activations; 16-bit,
// fp8 (Transformer Engine keeps bf16 activations between layers) and weight-only formats compute in 16-bit.
inline double activation_bytes(Precision p) { return (p == Precision::fp32 || p == Precision::tf32) ? 4.0 : 2.0; }
inline bool is_16bit_or_lower(Precision p) { return p != Precision::fp32 && p != Precision::tf32; }

// Optimizer state bytes per trainable parameter (method.md §3.1).
double optimizer_state_bytes(Optimizer o, double elem, double factored);
// Memory outside the framework's allocator (method.md §6.4).
void set_runtime(MemoryEstimate& e, const Workload& w, const GpuSpec* gpu, bool cuda_graphs);
// Serving engines (memory_serving.cpp): the pool replaces the activations, KV cache and device peak.
struct ServingShape {
  double f, h, act_b, V, tp, pp, s;  // FFN width and hidden size per rank, activation bytes, vocabulary, tp, pp, sequence
};
void apply_serving_pool(MemoryEstimate& e, const Workload& w, const ModelSpec& m, const GpuSpec* gpu, const ServingShape& sh);
// Vision models and image-generation pipelines (memory_vision.cpp).
MemoryEstimate estimate_vision_memory(const Workload& w, const ModelSpec& m, const GpuSpec* gpu);

}  // namespace gpuadvise::memory_detail
