#pragma once
// `gpuadvise probe`: a short, runnable PyTorch script that measures what an estimate predicts (docs/method.md
// §15): random weights from the model's shape, a synthetic batch of the exact shape, a few steps, then
// torch.cuda.max_memory_allocated, the reserved and device views, step time and throughput, written as JSON
// that `gpuadvise calibrate` reads back.
#include <string>

#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

// Throws InputError (naming --model or --mode) for workloads the probe does not cover.
std::string probe_script(const Workload& w, const ModelSpec& m, const MemoryEstimate& predicted, const std::string& estimate_args,
                         int steps);

}  // namespace gpuadvise
