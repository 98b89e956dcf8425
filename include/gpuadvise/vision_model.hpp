#pragma once
// Counting a vision model's parameters, multiply-adds and saved activations at a resolution.
#include "gpuadvise/vision.hpp"

namespace gpuadvise {

struct VisionPolicy {
  int freeze_at = 0;            // stages frozen from the stem (detectron2 FREEZE_AT = 2: stem and res2)
  bool norm_trainable = true;   // batch norm that trains and keeps its inputs (PyTorch, MMDetection)
  bool eager_attention = false; // ViT attention materialising the scores
};

struct VisionCounts {
  double params = 0;           // parameters
  double macs = 0;             // multiply-adds per image, forward
  double frozen_macs = 0;      // part of `macs` in frozen stages (no backward)
  double saved_elements = 0;   // elements kept for backward per image (training), at the activation precision
  double saved_fp32_elements = 0;  // kept in fp32 even under mixed precision (autocast runs LayerNorm and softmax in fp32)
};

VisionCounts vision_counts(const VisionArch& a, double width, double height, bool training, const VisionPolicy& pol);

}  // namespace gpuadvise
