// Vision models: parameters, FLOPs and saved activations from the architecture (docs/method.md §12).
#include "gpuadvise/vision_model.hpp"
#include "vision_common.hpp"

#include <algorithm>
#include <cmath>

namespace gpuadvise {

using namespace vision_detail;

namespace {

struct Stage {
  double stride, blocks, out, width, groups;
};

// torchvision / detectron2 ResNet and ResNeXt stage tables (He et al. 2015 Table 1; Xie et al. 2017).
std::vector<Stage> resnet_stages(const std::string& b, bool& basic) {
  basic = b == "resnet18" || b == "resnet34";
  std::vector<double> blocks{3, 4, 6, 3};
  if (b == "resnet18") blocks = {2, 2, 2, 2};
  if (b == "resnet101" || b.rfind("resnext101", 0) == 0) blocks = {3, 4, 23, 3};
  if (b == "resnet152" || b == "resnext152-32x8d") blocks = {3, 8, 36, 3};
  double base = 64, groups = 1;  // bottleneck width of the first stage
  if (b == "resnext101-32x8d" || b == "resnext152-32x8d") base = 256, groups = 32;
  if (b == "resnext101-32x4d") base = 128, groups = 32;
  if (b == "resnext101-64x4d") base = 256, groups = 64;
  std::vector<Stage> s;
  for (int i = 0; i < 4; ++i) {
    const double f = std::pow(2.0, i);
    s.push_back({4.0 * f, blocks[static_cast<std::size_t>(i)], basic ? 64.0 * f : 256.0 * f, base * f, groups});
  }
  return s;
}

// ResNet and ResNeXt (He et al. 2015; Xie et al. 2017): stem, bottleneck or basic stages, frozen stages, C4 res5 on the ROIs.
void resnet_backbone(Tally& t) {
  const VisionArch& a = t.a;
  const VisionPolicy& pol = t.pol;
  const double px = t.px, C = t.C, rois = t.rois;
  const bool training = t.training;
  VisionCounts& c = t.c;
  double &params = t.params, &macs = t.macs, &saved = t.saved, &saved_fp32 = t.saved_fp32;
  std::vector<double>& stage_out = t.stage_out;
  bool basic = false;
  const std::vector<Stage> st = resnet_stages(a.backbone, basic);
  for (std::size_t i = 0; i < 4; ++i) stage_out[i] = st[i].out;
  // Stages 1 (stem) .. 5 (res5) frozen by detection frameworks; segmentation recipes (torchvision references,
  // MMSegmentation) train every stage.
  const int freeze_at = a.scratch || a.task == "segmentation" ? 0 : pol.freeze_at;
  const bool norm_saves = a.syncbn || a.gn || a.scratch || pol.norm_trainable;
  // Stem: 7x7 conv 3 -> 64 at stride 2, norm, ReLU, max-pool.
  params += 147.0 * 64;
  macs += 147.0 * 64 * px / 4.0;
  double frozen = freeze_at >= 1 ? 147.0 * 64 * px / 4.0 : 0.0;
  // Per position of the input: the image (conv input), the norm's input, the pooling's input and indices.
  if (freeze_at < 1) saved += (3.0 + (norm_saves ? 2.0 : 1.0) * 64.0 / 4.0 + 2.0 * 64.0 / 16.0) * px;
  c.conv_io_elements += (3.0 + 64.0 / 4.0) * px;
  double in = 64;
  for (std::size_t i = 0; i < st.size(); ++i) {
    const Stage& s = st[i];
    const int stage_no = static_cast<int>(i) + 2;
    const bool c4_head = a.neck == "c4" && stage_no == 5;  // res5 runs on the ROIs, not the image
    double stride = s.stride;
    if (a.neck == "dc5" && stage_no == 5) stride = 16.0;   // dilated res5
    if (a.neck == "dilated8" && stage_no >= 4) stride = 8.0;  // DeepLab: output stride 8
    const double p = px / (stride * stride);
    for (int k = 0; k < static_cast<int>(s.blocks); ++k) {
      const double bin = k == 0 ? in : s.out;
      double bp;
      if (basic) bp = 9.0 * bin * s.out + 9.0 * s.out * s.out + (k == 0 && bin != s.out ? bin * s.out : 0.0);
      else bp = bin * s.width + 9.0 * s.width * s.width / s.groups + s.width * s.out + (k == 0 ? bin * s.out : 0.0);
      params += bp;
      if (c4_head && a.head == "rpn") break;  // RPN-only C4 models stop at res4
    if (c4_head) {
        macs += bp * 49.0 * rois;  // 7x7 on every ROI; its saved tensors are counted below
        continue;
      }
      // ResNet v1.5 strides in the 3x3 conv: the first block's 1x1 reduction runs at the previous
      // (4x larger) resolution.
      const double extra = (!basic && k == 0 && stage_no > 2) ? 3.0 * bin * s.width * p : 0.0;
      macs += bp * p + extra;
      // The convolutions' inputs and outputs: the block's input at the previous resolution (4x the positions
      // where the stage strides), the shortcut projection on the first block.
      const double p_in = k == 0 && stage_no > 2 ? 4.0 * p : p;
      const double shortcut = k == 0 && (!basic || bin != s.out) ? bin * p_in + s.out * p : 0.0;
      c.conv_io_elements += shortcut + (basic ? bin * p_in + 3.0 * s.out * p : (bin + 2.0 * s.width) * p_in + 2.0 * s.width * p + s.out * p);
      if (stage_no <= freeze_at) frozen += bp * p + extra;
      else if (s.groups > 1) c.grouped_macs += 9.0 * s.width * s.width / s.groups * p;
      if (stage_no > freeze_at) {
        // Conv inputs (block input and two ReLU outputs); trainable norms also keep their inputs (a basic block
        // has two norms, a bottleneck three).
        const double e = bin + (basic ? 1.0 : 2.0) * s.width;
        const double norm_in = norm_saves ? (basic ? 2.0 * s.out : 2.0 * s.width + s.out) : 0.0;
        saved += (e + (pol.norm_fp32 ? 0.0 : norm_in)) * p;
        if (pol.norm_fp32) saved_fp32 += norm_in * p;
      }
    }
    in = s.out;
  }
  c.frozen_macs = frozen;
  if (a.neck == "c4" && training && a.head != "rpn") {
    const Stage& s = st[3];
    // res5 on every ROI: its input is the 1024 x 14x14 ROIAlign output (POOLER_RESOLUTION 14), the blocks run
    // at 7x7.
    saved += rois * (1024.0 * 196.0 + 49.0 * (2.0 * s.width + (s.blocks - 1.0) * (s.out + 2.0 * s.width))) + rois * 2048.0;
  }
  if (a.task == "classification") {
    params += 2048.0 * C / (basic ? 4.0 : 1.0) + C;
    macs += 2048.0 * C / (basic ? 4.0 : 1.0);
  }
}

// ViT (Dosovitskiy et al. 2021): patch embedding and L encoder layers over the tokens.
void vit_backbone(Tally& t) {
  const VisionArch& a = t.a;
  const VisionPolicy& pol = t.pol;
  const double width = t.width, height = t.height, C = t.C;
  double &params = t.params, &macs = t.macs, &saved = t.saved, &saved_fp32 = t.saved_fp32;
  const double T = std::floor(width / static_cast<double>(a.patch)) * std::floor(height / static_cast<double>(a.patch)) + 1.0;
  const double h = static_cast<double>(a.vit_hidden), m = static_cast<double>(a.vit_mlp), L = static_cast<double>(a.vit_layers);
  params += L * (4.0 * h * h + 2.0 * h * m + 9.0 * h + m) + 3.0 * a.patch * a.patch * h + T * h + h * C;
  macs += L * (T * (4.0 * h * h + 2.0 * h * m) + 2.0 * T * T * h) + 3.0 * a.patch * a.patch * h * T;
  // Per token per layer: two LayerNorm inputs and outputs, QKV, attention output, MLP in and GELU out.
  saved += L * T * (5.0 * h + 2.0 * m);
  saved_fp32 += L * T * 2.0 * h + (pol.eager_attention ? L * T * T * static_cast<double>(a.vit_heads) : L * T * 1.0);
}

// Swin Transformer (Liu et al. 2021 Table 7): patch 4, window 7 (49 tokens), dims C·2^i, heads C/32·2^i,
// depths (2,2,6,2) for T and (2,2,18,2) for S and B; MLP ratio 4; patch merging between stages.
void swin_backbone(Tally& t) {
  const VisionArch& a = t.a;
  const double px = t.px, C = t.C;
  double &params = t.params, &macs = t.macs, &saved = t.saved, &saved_fp32 = t.saved_fp32;
  std::vector<double>& stage_out = t.stage_out;
  const auto [base, depths] = swin_shape(a.backbone);
  params += 48.0 * base;
  macs += 48.0 * base * px / 16.0;
  for (int i = 0; i < 4; ++i) {
    const double d = base * std::pow(2.0, i), heads = d / 32.0, p = px / std::pow(4.0 * std::pow(2.0, i), 2.0);
    params += depths[static_cast<std::size_t>(i)] * (12.0 * d * d + 169.0 * heads) + (i > 0 ? 8.0 * (d / 2) * (d / 2) * 2.0 : 0.0);
    macs += depths[static_cast<std::size_t>(i)] * (12.0 * d * d + 98.0 * d) * p;
    // Per token per block: two LayerNorm inputs and outputs, QKV, attention output, MLP 4d in and out,
    // and the window-attention probabilities (heads x 49).
    // Under autocast the LayerNorms run in fp32 and the residual stream is promoted to fp32, so their
    // inputs and outputs (4d) stay fp32 with the softmax probabilities; QKV, the projection input and
    // the MLP's 4d in and out (12d) are 16-bit.
    saved += depths[static_cast<std::size_t>(i)] * 12.0 * d * p;
    saved_fp32 += depths[static_cast<std::size_t>(i)] * (4.0 * d + heads * 49.0) * p;
    stage_out[static_cast<std::size_t>(i)] = d;
  }
  if (a.task == "classification") params += 8.0 * base * C;
}

// ConvNeXt (Liu et al. 2022): stem 4x4 stride 4, stages at strides 4..32 with dims (96..768) for T and
// (128..1024) for B, (192..1536) for L, depths 3-3-9-3 and 3-3-27-3; a block is a 7x7 depthwise conv, LayerNorm, 1x1 to 4d,
// GELU, 1x1 back to d and a layer scale.
void convnext_backbone(Tally& t) {
  const VisionArch& a = t.a;
  const double px = t.px, C = t.C;
  double &params = t.params, &macs = t.macs, &saved = t.saved, &saved_fp32 = t.saved_fp32;
  std::vector<double>& stage_out = t.stage_out;
  const auto [base, depths] = convnext_shape(a.backbone);
  params += 48.0 * base;
  macs += 48.0 * base * px / 16.0;
  for (int i = 0; i < 4; ++i) {
    const double d = base * std::pow(2.0, i), p = px / std::pow(4.0 * std::pow(2.0, i), 2.0);
    const double n = depths[static_cast<std::size_t>(i)];
    params += n * (49.0 * d + 8.0 * d * d + 8.0 * d) + (i > 0 ? 4.0 * (d / 2) * d : 0.0);
    macs += n * (49.0 * d + 8.0 * d * d) * p + (i > 0 ? 4.0 * (d / 2) * d * p : 0.0);
    // Depthwise input, LayerNorm input, 1x1 inputs (d and 4d), GELU input, layer-scale input; the
    // LayerNorm output stays fp32 under autocast.
    saved += n * (3.0 * d + 8.0 * d) * p;
    saved_fp32 += n * d * p;
    stage_out[static_cast<std::size_t>(i)] = d;
  }
  if (a.task == "classification") params += 8.0 * base * C;
}

// EfficientNet (Tan & Le 2019 Table 1): MBConv stages (expansion, channels, repeats, stride, kernel)
// scaled by width and depth multipliers (B4: 1.4, 1.8); each block keeps its input, the expanded map
// before and after its norm and SiLU (x2), the depthwise output likewise, the squeeze-excite product and
// the projection's norm input.
void efficientnet_backbone(Tally& t) {
  const VisionArch& a = t.a;
  const double px = t.px, C = t.C;
  double &params = t.params, &macs = t.macs, &saved = t.saved;
  const bool b4 = a.backbone == "efficientnet-b4";
  const double wm = b4 ? 1.4 : 1.0, dm = b4 ? 1.8 : 1.0;
  auto ch = [&](double x) { return std::max(8.0, std::floor(x * wm / 8.0 + 0.5) * 8.0); };
  struct MB { double e, c, n, s, k; };
  const MB stages[] = {{1, 16, 1, 1, 3}, {6, 24, 2, 2, 3}, {6, 40, 2, 2, 5}, {6, 80, 3, 2, 3}, {6, 112, 3, 1, 5}, {6, 192, 4, 2, 5}, {6, 320, 1, 1, 3}};
  double in = ch(32), stride = 2;
  VisionCounts& c = t.c;
  c.conv_io_elements += (3.0 + in / 4.0) * px;  // the stem; the depthwise convolutions are not counted (§12.3)
  params += 27.0 * in;
  macs += 27.0 * in * px / 4.0;
  saved += (3.0 + 2.0 * in / 4.0) * px;  // the image and the stem's norm input and activation, per input position
  for (const MB& st : stages) {
    const double out = ch(st.c), n = std::ceil(st.n * dm);
    for (double r = 0; r < n; ++r) {
      const double s_ = r == 0 ? st.s : 1.0;
      const double p_in = px / (stride * stride);
      stride *= s_;
      const double p = px / (stride * stride), e = in * st.e;
      const double bp = (st.e > 1 ? in * e : 0.0) + st.k * st.k * e + e * out + 2.0 * e * (e / 24.0);
      params += bp;
      macs += (st.e > 1 ? in * e * p_in : 0.0) + st.k * st.k * e * p + e * out * p;
      saved += in * p_in + (st.e > 1 ? 2.0 * e * p_in : 0.0) + 3.0 * e * p + out * p;
      c.conv_io_elements += (st.e > 1 ? (in + e) * p_in : 0.0) + (e + out) * p;  // expansion and projection
      in = out;
    }
  }
  c.conv_io_elements += (in + 1280.0) * px / (stride * stride);  // the head's 1x1 convolution
  params += in * 1280.0 + 1280.0 * C;
  macs += in * 1280.0 * px / (stride * stride);
}

// SegFormer's Mix Transformer (Xie et al. 2021 Table 6): overlapping patch embeddings to strides
// 4..32, dims (32,64,160,256) and depths (2,2,2,2) for B0, (64,128,320,512) and (3,6,40,3) for B5, heads
// (1,2,5,8), attention keys and values reduced by R = (8,4,2,1) per side, Mix-FFN (4d with a 3x3
// depthwise conv); an all-MLP decoder of 256 (B0) or 768 (B5) channels at stride 4.
void mit_backbone(Tally& t) {
  const VisionArch& a = t.a;
  const double px = t.px, C = t.C;
  double &params = t.params, &macs = t.macs, &saved = t.saved, &saved_fp32 = t.saved_fp32;
  std::vector<double>& stage_out = t.stage_out;
  const bool b0 = a.backbone == "mit-b0";
  const double dims0[] = {32, 64, 160, 256}, dims5[] = {64, 128, 320, 512};
  const double dep0[] = {2, 2, 2, 2}, dep5[] = {3, 6, 40, 3};
  const double heads[] = {1, 2, 5, 8}, sr[] = {8, 4, 2, 1};
  double in = 3;
  for (int i = 0; i < 4; ++i) {
    const double d = b0 ? dims0[i] : dims5[i], depth = b0 ? dep0[i] : dep5[i];
    const double stride = 4.0 * std::pow(2.0, i), p = px / (stride * stride), k = i == 0 ? 49.0 : 9.0;
    const double nkv = p / (sr[i] * sr[i]);  // key/value tokens of the stage
    params += k * in * d + depth * (4.0 * d * d + (sr[i] > 1 ? sr[i] * sr[i] * d * d : 0.0) + 8.0 * d * d + 36.0 * d);
    macs += k * in * d * p + depth * ((2.0 * d * d + 8.0 * d * d + 36.0 * d) * p + 2.0 * d * d * nkv +
                                        (sr[i] > 1 ? d * d * nkv * sr[i] * sr[i] : 0.0) + 2.0 * p * nkv * d);
    saved += depth * (2.0 * d + 2.0 * d * nkv / p + 16.0 * d) * p;
    saved_fp32 += depth * (4.0 * d + heads[i] * nkv) * p;
    stage_out[static_cast<std::size_t>(i)] = d;
    in = d;
  }
  const double dec = b0 ? 256.0 : 768.0, p4 = px / 16.0;
  params += (stage_out[0] + stage_out[1] + stage_out[2] + stage_out[3]) * dec + 4.0 * dec * dec + dec * C;
  macs += (stage_out[0] + stage_out[1] + stage_out[2] + stage_out[3]) * dec * p4 + (4.0 * dec * dec + dec * C) * p4;
  saved += (4.0 * dec + 2.0 * dec + C) * p4;
  saved_fp32 += seg_loss_elements(C, px);
}

// U-Net (Ronneberger et al. 2015) with padded 3x3 convs and batch norm: encoder levels 64..512 and a
// 1024 bottleneck, two conv-norm-ReLU per level, 2x2 up-convolutions and skip concatenation.
void unet_backbone(Tally& t) {
  const double px = t.px, C = t.C;
  double &params = t.params, &macs = t.macs, &saved = t.saved, &saved_fp32 = t.saved_fp32;
  double in = 1.0;  // single-channel medical images
  for (int i = 0; i < 5; ++i) {
    const double cch = 64.0 * std::pow(2.0, i), p = px / std::pow(4.0, i);
    params += 9.0 * in * cch + 9.0 * cch * cch;
    macs += (9.0 * in * cch + 9.0 * cch * cch) * p;
    saved += (in + 3.0 * cch + 2.0 * cch) * p;  // conv inputs, norm inputs, ReLU outputs
    if (i < 4) {
      // Decoder at this level: up-conv from 2c, concat (2c), two convs to c.
      params += 4.0 * 2.0 * cch * cch + 9.0 * 2.0 * cch * cch + 9.0 * cch * cch;
      macs += (4.0 * 2.0 * cch * cch / 4.0 + 9.0 * 2.0 * cch * cch + 9.0 * cch * cch) * p;
      saved += (2.0 * cch + 3.0 * cch + 2.0 * cch) * p;
    }
    in = cch;
  }
  params += 64.0 * C;
  saved_fp32 += seg_loss_elements(C, px);
}

// YOLO families: counted layer by layer from their published structure (yolo.cpp, method.md §12.5).
void yolo_backbone(Tally& t) {
  const VisionArch& a = t.a;
  const double width = t.width, height = t.height;
  VisionCounts& c = t.c;
  double &saved = t.saved, &saved_fp32 = t.saved_fp32;
  const YoloCounts y = yolo_counts(a, width, height);
  saved += y.saved;
  saved_fp32 += y.saved_fp32;
  c.complete_count = true;
  c.transient_elements = 2.0 * y.biggest;  // gradients of the largest map and of its input
}

}  // namespace

VisionCounts vision_counts(const VisionArch& a, double width, double height, bool training, const VisionPolicy& pol) {
  VisionCounts c;
  if (a.task == "generation") {  // pipelines: sized by their components (memory.cpp, perf.cpp)
    c.params = a.denoiser_params + a.text_encoder_params + a.vae_params;
    return c;
  }
  const double px = width * height;
  const bool det = a.task != "classification" && a.task != "segmentation";
  const double rois = training ? 512.0 : 1000.0;      // detectron2 ROI_HEADS.BATCH_SIZE_PER_IMAGE / test proposals
  const double pos_rois = training ? 128.0 : 100.0;   // 25 % positives; 100 detections at test time
  // Memory peaks when a batch fills the 128 positives; time follows the mean: 64 foreground ROIs per image,
  // fitted on detectron2's Mask and Keypoint R-CNN training-time rows (method.md §12.3).
  const double fg_mean = training ? 64.0 : 100.0;
  // GN and SyncBN configs put a norm after every FPN and head conv too (detectron2 FPN.NORM, ROI_*_HEAD.NORM).
  const bool head_norm = a.gn || a.syncbn;
  Tally t{a, pol, width, height, px, static_cast<double>(a.classes), rois, pos_rois, fg_mean, training, head_norm, c};

  if (resnet_family(a.backbone)) resnet_backbone(t);
  else if (a.backbone == "vit") vit_backbone(t);
  else if (a.backbone.rfind("swin", 0) == 0) swin_backbone(t);
  else if (a.backbone.rfind("convnext", 0) == 0) convnext_backbone(t);
  else if (a.backbone == "efficientnet-b0" || a.backbone == "efficientnet-b4") efficientnet_backbone(t);
  else if (a.backbone == "mit-b0" || a.backbone == "mit-b5") mit_backbone(t);
  else if (a.backbone == "unet2d") unet_backbone(t);
  else if (a.backbone == "cspdarknet") yolo_backbone(t);
  if (a.head == "seg" && a.neck == "dilated8") deeplab_head(t);
  if (det) {
    fpn_neck(t);
    if (a.head == "detr") detr_head(t);
    else if (a.head == "retinanet") retinanet_head(t);
    else if (a.head != "cls" && a.head != "yolo" && a.head != "seg") rcnn_heads(t);
  }
  double& saved = t.saved;
  double& macs = t.macs;
  if (a.dconv) saved *= 1.05, macs *= 1.05;  // deformable convs add offset branches in res3-res5
  c.params = a.params > 0 ? a.params : t.params;
  // Published compute at the reference size wins over the derived count; both scale with pixels.
  if (a.gmacs > 0) {
    const double ref = static_cast<double>(a.ref_w * a.ref_h);
    const double f = a.flops_unit == "flops" ? 0.5 : 1.0;
    c.macs = a.gmacs * 1e9 * f * (a.backbone == "vit" ? 1.0 : px / ref);
    c.frozen_macs = 0;
    if (a.backbone == "vit") c.macs = macs;  // ViT compute is quadratic in tokens: use the formula
  } else {
    c.macs = macs;
  }
  c.saved_elements = training ? saved : 0.0;
  c.saved_fp32_elements = training ? t.saved_fp32 : 0.0;
  return c;
}

}  // namespace gpuadvise
