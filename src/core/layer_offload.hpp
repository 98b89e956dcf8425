#pragma once
// llama.cpp's partial offload (--offload layers, its -ngl; method.md §8.3): how many layers one GPU keeps.
#include <cstdint>

#include "gpuadvise/gpu.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

// The most of the model's layers one GPU holds with `min_headroom_pct` of its memory free (the device peak grows with
// each layer kept on it), at least 1: the one that then does not fit says by how much.
std::int64_t most_gpu_layers(Workload w, const ModelSpec& m, const GpuSpec& g, double min_headroom_pct);

}  // namespace gpuadvise
