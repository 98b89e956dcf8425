#pragma once
// Counting a vision model's parameters, multiply-adds and saved activations at a resolution.
#include <array>
#include <string>

#include "gpuadvise/vision.hpp"

namespace gpuadvise {

struct VisionPolicy {
  int freeze_at = 0;            // stages frozen from the stem (detectron2 FREEZE_AT = 2: stem and res2)
  bool norm_trainable = true;   // batch norm that trains and keeps its inputs (PyTorch, MMDetection)
  bool eager_attention = false; // ViT attention materialising the scores
  bool mask_per_cascade_stage = false;  // MMDetection's Cascade Mask R-CNN has a mask head per stage (detectron2: last only)
  bool fused_focal_loss = false;
  bool norm_fp32 = false;        // mmcv fp16 (MMDetection 2.x) runs norm layers in fp32: their kept inputs are fp32 // mmcv's CUDA sigmoid focal loss keeps its logits only (detectron2's jit version ~6 temporaries)
};

struct VisionCounts {
  double params = 0;           // parameters
  double macs = 0;             // multiply-adds per image, forward
  double frozen_macs = 0;      // part of `macs` in frozen stages (no backward)
  double grouped_macs = 0;     // part of `macs` in grouped 3x3 convolutions (ResNeXt), of the trained stages
  double saved_elements = 0;   // elements kept for backward per image (training), at the activation precision
  double saved_fp32_elements = 0;  // kept in fp32 even under mixed precision (autocast runs LayerNorm and softmax in fp32)
  bool complete_count = false;  // every kept tensor counted (YOLO): no fitted transient factor on top
  double transient_elements = 0;  // per image, live only during backward (complete counts)
  // Per image, forward: the elements of the dense (not depthwise) convolutions' inputs and outputs, counted for
  // the classifier CNNs (ResNet family, EfficientNet): what cuDNN transposes when they are channels-first (§12.3).
  double conv_io_elements = 0;
};

struct YoloCounts {
  double saved = 0;          // elements kept per image at the activation precision
  double saved_fp32 = 0;     // pool indices and fp32 loss inputs, in fp32 elements
  double biggest = 0;        // largest single kept map (elements): its gradient is the backward transient
  double anchor_points = 0;  // output cells over all levels
  double loss_fp32_per_anchor = 0;  // batch-wide assigner and loss work tensors (included in saved_fp32)
};

// Swin Transformer's shapes (Liu et al. 2021 Table 7): the first stage's channels (C, doubled per stage) and the
// blocks of its four stages, for swin-t, swin-s and swin-b.
struct SwinShape {
  double base = 96;
  std::array<double, 4> depths{2, 2, 18, 2};
};
inline SwinShape swin_shape(const std::string& backbone) {
  return {backbone == "swin-b" ? 128.0 : 96.0, backbone == "swin-t" ? std::array<double, 4>{2, 2, 6, 2} : std::array<double, 4>{2, 2, 18, 2}};
}

// ConvNeXt (Liu et al. 2022): the first stage's width (T 96, B 128, L 192) and the blocks per stage (3-3-9-3 for T,
// 3-3-27-3 for B and L).
inline SwinShape convnext_shape(const std::string& backbone) {
  const bool tiny = backbone == "convnext-t";
  return {tiny ? 96.0 : backbone == "convnext-l" ? 192.0 : 128.0, tiny ? std::array<double, 4>{3, 3, 9, 3} : std::array<double, 4>{3, 3, 27, 3}};
}

// Layer-by-layer count for the YOLO families (method.md §12.5).
YoloCounts yolo_counts(const VisionArch& a, double width, double height);

VisionCounts vision_counts(const VisionArch& a, double width, double height, bool training, const VisionPolicy& pol);

// ResNet and ResNeXt backbones (vision.cpp's resnet_backbone counts them).
inline bool resnet_family(const std::string& backbone) { return backbone.rfind("resnet", 0) == 0 || backbone.rfind("resnext", 0) == 0; }

// A classifier CNN whose dense convolutions cuDNN runs in NHWC (ResNet family, EfficientNet): its memory format
// (--channels-last, --no-channels-last) sets whether they are transposed around every call (method.md §12.3).
inline bool layout_sensitive_classifier(const VisionArch& a) {
  return a.task == "classification" && (resnet_family(a.backbone) || a.backbone.rfind("efficientnet", 0) == 0);
}

}  // namespace gpuadvise
