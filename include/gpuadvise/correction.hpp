#pragma once
// Which local correction applies to a workload (docs/method.md §15). A probe measures one workload; its ratio
// of measured to estimated peak and throughput holds for workloads like it: the same mode, precision,
// recompute and layout, a model within a factor of its size and a step within a factor of its elements
// (include/gpuadvise/bounds.hpp). Any other workload is estimated as if no correction were saved, and says why.
#include <cstdint>
#include <optional>
#include <string>

#include "gpuadvise/cost.hpp"
#include "gpuadvise/gpu.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

// One formula for a workload being estimated and for the estimate a probe result names (calibrate reads its
// JSON): per_sample is the sequence length (language) or width x height (vision).
CorrectionScope make_correction_scope(const std::string& mode, const std::string& precision, const std::string& checkpointing,
                                      const std::string& sharding, std::int64_t gpus, std::int64_t tp, std::int64_t pp, double params,
                                      double batch, double per_sample);
CorrectionScope correction_scope(const Workload& w, const ModelSpec& m, double params);

// Why `asked` is not like `measured` ("measured on lora, this is finetune"), or nothing when it is.
std::optional<std::string> scope_difference(const CorrectionScope& measured, const CorrectionScope& asked);
// The workloads a scope covers, for the notes: "lora in bf16 without recompute, data parallel, models of
// 4.02B-16.1B parameters, 512-8,192 elements per step".
std::string scope_text(const CorrectionScope& s);

struct CorrectionMatch {
  const LocalCorrection* applied = nullptr;
  std::string skipped;  // a correction saved for this GPU, framework and kind that does not apply, and why
};
CorrectionMatch find_correction(const CostOptions& cost, const GpuSpec& g, Framework fw, bool training, const CorrectionScope& asked);

}  // namespace gpuadvise
