#pragma once
// What vision.cpp (backbones) and vision_heads.cpp (necks and heads) share; internal to core.
#include <vector>

#include "gpuadvise/vision_model.hpp"

namespace gpuadvise::vision_detail {

// What vision_counts adds up, backbone then neck then heads: parameters, MACs and the elements kept for backward
// (16-bit and fp32), with the inputs every part reads.
struct Tally {
  const VisionArch& a;
  const VisionPolicy& pol;
  double width, height, px, C;
  double rois, pos_rois, fg_mean;  // ROIs per image, positive ROIs at the memory peak, mean foreground ROIs
  bool training, head_norm;
  VisionCounts& c;
  double params = 0, macs = 0, saved = 0, saved_fp32 = 0;
  std::vector<double> stage_out{256, 512, 1024, 2048};  // channels at strides 4..32, for the FPN
};

struct Levels {
  double p2, p3, p4, p5, p6, p7;
};
// Pixels of the pyramid levels P2..P7 (strides 4..128).
inline Levels pyramid_levels(double px) { return {px / 16.0, px / 64.0, px / 256.0, px / 1024.0, px / 4096.0, px / 16384.0}; }

// Per-pixel cross-entropy over C classes at the input resolution, in fp32 (autocast runs log_softmax in fp32): the
// log-softmax output kept for backward, and at the start of backward the dense gradient of the loss and of the
// logits (3 x C per pixel).
inline double seg_loss_elements(double C, double px) { return 3.0 * C * px; }

// vision_heads.cpp (method.md §12.2): the heads and necks on top of a backbone.
void deeplab_head(Tally& t);
void fpn_neck(Tally& t);
void detr_head(Tally& t);
void retinanet_head(Tally& t);
void rcnn_heads(Tally& t);

}  // namespace gpuadvise::vision_detail
