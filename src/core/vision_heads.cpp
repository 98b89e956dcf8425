// Vision necks and heads: parameters, FLOPs and saved activations of DeepLabv3, feature pyramids, DETR, RetinaNet
// and the two-stage R-CNN heads (docs/method.md §12.2).
#include <algorithm>
#include <cmath>

#include "vision_common.hpp"

namespace gpuadvise::vision_detail {

// DeepLabv3 ASPP at stride 8: five 256-channel branches (1x1, three dilated 3x3, image pooling), a 1x1
// projection, a 3x3 conv and the classifier, upsampled to the input (Chen et al. 2017; torchvision).
void deeplab_head(Tally& t) {
  const double px = t.px, C = t.C;
  const bool training = t.training;
  double &params = t.params, &macs = t.macs, &saved = t.saved, &saved_fp32 = t.saved_fp32;
  const double p8 = px / 64.0;
  const double aspp = 2048.0 * 256 + 3.0 * 9.0 * 2048 * 256 + 5.0 * 256 * 256 + 9.0 * 256 * 256 + 256.0 * C;
  params += aspp;
  macs += aspp * p8;
  saved += (2048.0 + 5.0 * 256 * 2.0 + 256.0 * 4.0 + C) * p8;
  saved_fp32 += seg_loss_elements(C, px);
  // Training adds the auxiliary FCN head on res4 (3x3 conv 1024 -> 256, norm, ReLU, dropout, classifier) with
  // its own full-resolution loss (torchvision's reference recipe --aux-loss; MMSegmentation's auxiliary_head).
  if (training) {
    params += 9.0 * 1024 * 256 + 256.0 * C;
    macs += (9.0 * 1024 * 256 + 256.0 * C) * p8;
    saved += (2.0 * 256 + 2.0 * 256 + C) * p8;
    saved_fp32 += seg_loss_elements(C, px);
  }
}

// Feature pyramid necks: RetinaNet's (C3..C5, P6 and P7) and the R-CNN one (P2..P5).
void fpn_neck(Tally& t) {
  const VisionArch& a = t.a;
  const bool head_norm = t.head_norm;
  double &params = t.params, &macs = t.macs, &saved = t.saved;
  std::vector<double>& stage_out = t.stage_out;
  const auto [p2, p3, p4, p5, p6, p7] = pyramid_levels(t.px);
  if (a.neck == "fpn" && a.head == "retinanet") {
    // RetinaNet's FPN starts at C3 (no P2) and adds P6 and P7 by strided 3x3 convs (Lin et al. 2017).
    const double* o = stage_out.data();
    params += (o[1] + o[2] + o[3]) * 256.0 + 3.0 * 9.0 * 256 * 256 + 9.0 * o[3] * 256 + 9.0 * 256 * 256;
    macs += 256.0 * (o[1] * p3 + o[2] * p4 + o[3] * p5) + 9.0 * 256 * 256 * (p3 + p4 + p5 + p7) + 9.0 * o[3] * 256 * p6;
    saved += 256.0 * 2.0 * (p3 + p4 + p5 + p6 + p7) * (head_norm ? 2.0 : 1.0);
  } else if (a.neck == "fpn") {
    const double* o = stage_out.data();
    params += (o[0] + o[1] + o[2] + o[3]) * 256.0 + 4.0 * 9.0 * 256 * 256;
    macs += 256.0 * (o[0] * p2 + o[1] * p3 + o[2] * p4 + o[3] * p5) + 9.0 * 256 * 256 * (p2 + p3 + p4 + p5);
    saved += 256.0 * 2.0 * (p2 + p3 + p4 + p5) * (head_norm ? 2.0 : 1.0) + 256.0 * p2;
  }
}

// DETR's transformer head.
void detr_head(Tally& t) {
  const double C = t.C;
  double &params = t.params, &macs = t.macs, &saved = t.saved;
  const auto [p2, p3, p4, p5, p6, p7] = pyramid_levels(t.px);
  // DETR (Carion et al. 2020): a 1x1 projection of res5 to 256, 6 encoder layers over the stride-32
  // tokens and 6 decoder layers over 100 queries (8 heads, FFN 2048). nn.MultiheadAttention keeps the
  // softmax output, and with DETR's attention dropout (0.1) the dropped copy and its byte mask as well:
  // 2.25 probability maps per attention; the FFN keeps its ReLU output and the dropout's copy and mask.
  const double T = p5, d = 256.0, f = 2048.0, q = 100.0, probs = 2.25;
  const double layer = 4.0 * d * d + 2.0 * d * f;
  params += 2048.0 * d + 6.0 * layer + 6.0 * (layer + 4.0 * d * d) + q * d + d * (C + 1) + 3.0 * d * d;
  macs += 2048.0 * d * T + 6.0 * (layer * T + 2.0 * T * T * d) + 6.0 * ((layer + 4.0 * d * d) * q + 2.0 * q * T * d);
  saved += 6.0 * (T * (7.0 * d + 2.25 * f) + probs * 8.0 * T * T) + 6.0 * (q * (10.0 * d + 2.25 * f) + probs * 8.0 * (q * q + q * T)) +
           2048.0 * T;
}

// RetinaNet's class and box subnets and its focal loss.
void retinanet_head(Tally& t) {
  const VisionPolicy& pol = t.pol;
  const double C = t.C;
  const bool training = t.training;
  double &params = t.params, &macs = t.macs, &saved = t.saved, &saved_fp32 = t.saved_fp32;
  const auto [p2, p3, p4, p5, p6, p7] = pyramid_levels(t.px);
  params += 8.0 * 9.0 * 256 * 256 + 9.0 * 256 * 9 * (C + 4);
  const double lv = p3 + p4 + p5 + p6 + p7;
  macs += (8.0 * 9.0 * 256 * 256 + 9.0 * 256 * 9 * (C + 4)) * lv;
  // Four 3x3 convs of 256 per branch, each followed by a ReLU that keeps its result (the conv output is
  // not kept), and the class and box outputs.
  saved += (8.0 * 256 + 9.0 * (C + 4)) * lv;
  // Sigmoid focal loss over every anchor and class, in fp32: detectron2 concatenates the permuted logits,
  // selects the valid anchors, builds one-hot targets (int64, then a float copy) and its
  // sigmoid_focal_loss_jit keeps about six temporaries (sigmoid, BCE, p_t, the modulating power, alpha
  // weighting, the product): about twelve [anchors x classes] tensors; mmcv's CUDA kernel keeps the
  // reshaped logits it was given (two).
  if (training) saved_fp32 += 9.0 * lv * C * (pol.fused_focal_loss ? 2.0 : 12.0);
}

// Two-stage heads: the RPN, the box head(s), and the mask, keypoint and panoptic heads.
void rcnn_heads(Tally& t) {
  const VisionArch& a = t.a;
  const VisionPolicy& pol = t.pol;
  const double C = t.C, rois = t.rois, pos_rois = t.pos_rois, fg_mean = t.fg_mean;
  const bool head_norm = t.head_norm;
  double &params = t.params, &macs = t.macs, &saved = t.saved;
  const auto [p2, p3, p4, p5, p6, p7] = pyramid_levels(t.px);
  // RPN: on every FPN level, or on res4 (C4) / res5 (DC5).
  if (a.head != "fast-box") {
    const double ch = a.neck == "fpn" ? 256.0 : (a.neck == "dc5" ? 2048.0 : 1024.0);
    const double lv = a.neck == "fpn" ? p2 + p3 + p4 + p5 + p6 : p4;
    params += 9.0 * ch * ch + ch * 15.0;
    macs += (9.0 * ch * ch + ch * 15.0) * lv;
    saved += 2.0 * ch * lv;
  }
  // Box head(s): ROIAlign 7x7 then two fc 1024 (FPN, DC5), or res5 on the ROI (C4, counted above).
  const double stages = a.head == "rpn" ? 0.0 : static_cast<double>(a.cascade_stages);
  if (a.head == "rpn") {
  } else if (a.neck != "c4" && a.box_convs > 0) {
    // FastRCNNConvFCHead with NUM_CONV 4, NUM_FC 1 (detectron2's GN and SyncBN configs): 3x3 convs of 256 on
    // the 7x7 ROI features, each keeping its output for the norm and its ReLU output, then one fc 1024.
    const double n = static_cast<double>(a.box_convs), roi_in = 256.0 * 49.0;
    const double head = n * 9.0 * 256 * 256 + roi_in * 1024.0 + 1024.0 * (C + 1) + 1024.0 * 4.0 * (stages > 1 ? 1.0 : C);
    params += stages * head;
    macs += stages * rois * (n * 9.0 * 256 * 256 * 49 + roi_in * 1024.0 + 1024.0 * (C + 1));
    saved += stages * rois * (roi_in + n * roi_in * (head_norm ? 2.0 : 1.0) + 2.0 * 1024.0);
  } else if (a.neck != "c4") {
    const double roi_in = (a.neck == "dc5" ? 2048.0 : 256.0) * 49.0;
    const double head = roi_in * 1024.0 + 1024.0 * 1024.0 + 1024.0 * (C + 1) + 1024.0 * 4.0 * (stages > 1 ? 1.0 : C);
    params += stages * head;
    macs += stages * head * rois;
    saved += stages * rois * (roi_in + 3.0 * 1024.0);
  } else {
    params += 2048.0 * (C + 1) + 2048.0 * 4.0 * C;
  }
  saved += stages * rois * (C + 1) * 5.0;
  if ((a.head == "mask" || a.head == "panoptic") && a.neck == "c4") {
    // C4: the mask head reuses the box head's res5 features of the positive ROIs (2048 x 7x7 gathered,
    // a new tensor), a 2x2 deconvolution to 256 x 14x14 and the per-class predictor.
    params += 4.0 * 2048 * 256 + 256.0 * C;
    macs += fg_mean * (4.0 * 2048 * 256 * 49 + 256.0 * C * 196);
    saved += pos_rois * (2048.0 * 49 + 256.0 * 196 + 2.0 * C * 196 + 2.0 * 196);
  } else if (a.head == "mask" || a.head == "panoptic") {
    const double nc = static_cast<double>(a.mask_convs);
    const double heads = pol.mask_per_cascade_stage ? std::max(1.0, stages) : 1.0;
    const double mp = heads * (nc * 9.0 * 256 * 256 + 4.0 * 256 * 256 + 256.0 * C);
    params += mp;
    macs += heads * fg_mean * (nc * 9.0 * 256 * 256 * 196 + 4.0 * 256 * 256 * 196 + 256.0 * C * 784);
    // Kept per positive ROI: the ROIAlign output (first conv's input), each conv's ReLU output (ReLU keeps its
    // result; the conv output itself is only kept when a norm sits between), the deconvolution's
    // ReLU output, the per-class logits (alive until the loss gathers the ground-truth class, and again as
    // the scattered gradient at the start of backward), and that class's 28x28 logits and sigmoid.
    const double per_conv = head_norm ? 2.0 : 1.0;
    saved += heads * pos_rois * (256.0 * 196 + per_conv * (nc * 256 * 196 + 256.0 * 784) + 2.0 * C * 784 + 2.0 * 784);
  }
  if (a.head == "keypoint") {
    const double kp = 9.0 * 256 * 512 + 7.0 * 9.0 * 512 * 512 + 16.0 * 512 * 17;
    params += kp;
    macs += fg_mean * kp * 196.0;
    saved += pos_rois * (8.0 * 512 * 196 * 2.0 + 17.0 * 56 * 56 * 3.0);
  }
  if (a.head == "panoptic") saved += 128.0 * 3.0 * (p2 * 4.0 + p3 * 4.0 + p4 * 4.0 + p5 * 4.0) / 4.0;
}

}  // namespace gpuadvise::vision_detail
