#pragma once
// Vision models: classification, detection, segmentation (docs/method.md §12). Activation memory and
// FLOPs come from the architecture (stage widths, strides, blocks, heads); one coefficient for backward
// transients and cuDNN workspaces is fitted on detectron2's published rows.
#include <optional>
#include <string>
#include <vector>

namespace gpuadvise {

struct VisionArch {
  std::string task = "classification";  // classification, detection, instance-segmentation, keypoints, panoptic, segmentation
  std::string backbone;                 // resnet18/34/50/101/152, resnext101-32x8d/-32x4d/-64x4d, vit, cspdarknet, generic
  std::string neck = "none";            // none, fpn, c4, dc5
  std::string head = "cls";             // cls, rpn-box, fast-box, retinanet, mask, keypoint, panoptic, yolo, seg
  std::int64_t cascade_stages = 1;
  std::int64_t classes = 1000;
  bool dconv = false;
  bool gn = false;                      // GroupNorm in FPN and heads
  bool syncbn = false;                  // trainable (synchronised) batch norm
  bool scratch = false;                 // every stage trained, nothing frozen
  // Published size and compute at a reference resolution (torchvision/timm count multiply-adds,
  // Ultralytics counts FLOPs); 0 when derived from the architecture.
  double params = 0;
  double gmacs = 0;
  std::string flops_unit = "macs";
  std::int64_t ref_w = 224, ref_h = 224;
  // Transformers (ViT): layers, width, heads, MLP width, patch size.
  std::int64_t vit_layers = 0, vit_hidden = 0, vit_heads = 0, vit_mlp = 0, patch = 16;
  // YOLO (CSP-Darknet): width and depth multiples of the family.
  double width_mult = 1.0, depth_mult = 1.0;
};

}  // namespace gpuadvise
