#pragma once
// llama.cpp's partial offload (--offload layers, its -ngl; method.md §8.3): how many layers one GPU keeps.
#include <algorithm>
#include <cstdint>

#include "gpuadvise/gpu.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

// The margin -ngl is settled at where no --min-headroom is in play (estimate, check without one): the ranking's default.
inline constexpr double k_default_margin_pct = 5.0;

// A workload llama.cpp serves: asked for, or a GGUF precision with no engine named.
inline bool runs_on_llamacpp(const Workload& w) {
  return w.effective_framework() == Framework::llamacpp || (!w.framework && is_gguf(w.precision));
}

// --offload layers without --gpu-layers: the count still to settle (most_gpu_layers) before the workload is evaluated.
inline bool gpu_layers_unsettled(const Workload& w) { return w.offload == Offload::layers && w.gpu_layers == 0; }

// The share of the layers on the GPU: N of L with --offload layers, 1 without it.
inline double gpu_layer_share(const Workload& w, const ModelSpec& m) {
  return w.offload == Offload::layers && w.gpu_layers > 0 ? std::min(1.0, static_cast<double>(w.gpu_layers) / static_cast<double>(m.layers)) : 1.0;
}

// The most of the model's layers one GPU holds with `min_headroom_pct` of its memory free (the device peak grows with
// each layer kept on it), at least 1: the one that then does not fit says by how much.
std::int64_t most_gpu_layers(Workload w, const ModelSpec& m, const GpuSpec& g, double min_headroom_pct);

}  // namespace gpuadvise
