// YOLO detectors: the tensors one training step keeps for backward, counted layer by layer from each
// family's published structure (docs/method.md §12.5). No I/O.
#include <algorithm>
#include <cmath>
#include <vector>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/vision_model.hpp"

namespace gpuadvise {

namespace {

// Accumulates saved elements per image. Every Conv-BN-activation unit keeps two tensors of its output
// size (the convolution's output for the norm, the norm's output for the activation) and a third, its
// own output, when the next layer keeps its input (a convolution or a pool; a concatenation, a residual
// sum or an upsampling does not); a concatenation or residual sum keeps its output when a convolution
// reads it; a max-pool keeps int64 indices (counted as two fp32 elements each).
struct Graph {
  double px = 0;            // input pixels
  double w = 1, d = 1;      // width and depth multiples
  double cap = 1e9;         // channel cap before the width multiple (YOLOv8's max_channels)
  double saved = 0;         // at the activation precision
  double saved_fp32 = 0;    // pool indices and fp32 loss tensors
  double biggest = 0;       // largest single saved map (backward transient)

  double ch(double c) const {  // Ultralytics make_divisible(min(c, cap) * w, 8)
    return std::max(8.0, std::ceil(std::min(c, cap) * w / 8.0) * 8.0);
  }
  double n(double k) const { return std::max(1.0, std::round(k * d)); }
  double p(double stride) const { return px / (stride * stride); }
  void keep(double elems) {
    saved += elems;
    biggest = std::max(biggest, elems);
  }
  // Channel counts below are already scaled.
  void conv(double c, double s, bool out_kept = true) { keep((out_kept ? 3.0 : 2.0) * c * p(s)); }
  void cat(double c, double s) { keep(c * p(s)); }
  void add(double c, double s) { keep(c * p(s)); }
  void pool(double c, double s, double count) {
    saved_fp32 += 2.0 * c * p(s) * count;
    saved += c * p(s) * std::max(0.0, count - 1.0);  // chained pools keep their inputs
  }
  // CSP bottleneck with three convolutions (YOLOv5 C3, YOLOX/MMDetection CSPLayer): two 1x1 branches of
  // c/2, n bottlenecks (1x1 then 3x3, residual in the backbone), concatenation and a 1x1 to c.
  void c3(double c, double k, bool shortcut, double s) {
    const double h = c / 2.0;
    conv(h, s);
    conv(h, s, false);
    for (double i = 0; i < k; ++i) {
      const bool last = i + 1 >= k;
      conv(h, s);
      conv(h, s, !shortcut && !last);
      if (shortcut && !last) add(h, s);
    }
    cat(2.0 * h, s);
    conv(c, s);
  }
  // A stride-2 convolution into a CSP stage with residual bottlenecks (YOLOv5, YOLOX backbones).
  void c3_stage(double c, double k, double s) {
    conv(c, s);
    c3(c, k, true, s);
  }
  // YOLOv5/YOLOX PAN over levels of widths L at strides S (low to high stride): top-down, a 1x1 to the next
  // lower level's width, upsampled and concatenated, then a C3; bottom-up, a strided 3x3 concatenated with
  // the top-down lateral, then a C3 to the level's width (k bottlenecks, no residual).
  void pan_c3(const std::vector<double>& L, const std::vector<double>& S, double k) {
    const std::size_t n = L.size();
    for (std::size_t i = n - 1; i-- > 0;) {
      conv(L[i], S[i + 1], false);
      cat(2.0 * L[i], S[i]);
      c3(L[i], k, false, S[i]);
    }
    for (std::size_t i = 1; i < n; ++i) {
      conv(L[i - 1], S[i], false);
      cat(2.0 * L[i - 1], S[i]);
      c3(L[i], k, false, S[i]);
    }
  }
  // YOLOv8 C2f: a 1x1 to c (split in halves), n bottlenecks of two 3x3 on c/2, concatenation of all
  // (2 + n) halves and a 1x1 to c.
  void c2f(double c, double k, bool shortcut, double s) {
    const double h = c / 2.0;
    conv(c, s);
    for (double i = 0; i < k; ++i) {
      const bool last = i + 1 >= k;
      conv(h, s);
      conv(h, s, !shortcut && !last);
      if (shortcut && !last) add(h, s);
    }
    cat((2.0 + k) * h, s);
    conv(c, s);
  }
  // SPPF (three chained 5x5 pools) and SPP (5/9/13 in parallel) around a c/2 bottleneck.
  void sppf(double c, double s, bool parallel) {
    conv(c / 2.0, s);
    if (parallel) saved_fp32 += 2.0 * (c / 2.0) * p(s) * 3.0;
    else pool(c / 2.0, s, 3.0);
    cat(2.0 * c, s);
    conv(c, s);
  }
  // YOLOv7 ELAN: two 1x1 branches of m1, a chain of k 3x3 convolutions of m2, the concatenation of the
  // two branches and every second output of the chain, and a 1x1 to c.
  // ELAN-H (the PAN's variant) concatenates every output of the chain (`all`).
  void elan(double m1, double m2, double k, double c, double s, bool all = false) {
    conv(m1, s, false);
    conv(m1, s);
    for (double i = 0; i < k; ++i) conv(m2, s, i + 1 < k);
    cat(2.0 * m1 + (all ? k : std::floor(k / 2.0)) * m2, s);
    conv(c, s);
  }
  // YOLOv7 MP down-sampling of a c-channel map: max-pool + 1x1 beside a 1x1 + strided 3x3, concatenated
  // (c/2 each).
  void mp_down(double c, double s_from) {
    const double s = 2.0 * s_from;
    down_pool(c, s);
    conv(c / 2.0, s, false);
    conv(c / 2.0, s_from);
    conv(c / 2.0, s, false);
    cat(c, s);
  }
  // A stride-2 max-pool whose output a convolution reads: indices and output.
  void down_pool(double c, double s) {
    saved_fp32 += 2.0 * c * p(s);
    keep(c * p(s));
  }
  // YOLOv7 SPPCSPC: 1x1, 3x3, 1x1 then SPP (5/9/13), 1x1, 3x3, beside a 1x1 branch, concatenated, 1x1.
  void sppcspc(double c, double s) {
    conv(c, s);
    conv(c, s);
    conv(c, s);
    saved_fp32 += 2.0 * c * p(s) * 3.0;
    cat(4.0 * c, s);
    conv(c, s);
    conv(c, s, false);
    conv(c, s, false);
    cat(2.0 * c, s);
    conv(c, s);
  }
};

// Anchor-based YOLO output (YOLOv5, YOLOv7): one 1x1 to 3 x (5 + classes) per level; the loss takes the
// objectness of every anchor in fp32 (BCE input and target) and classes and boxes of the few positives only.
void anchor_head(Graph& g, double classes, std::initializer_list<double> strides) {
  for (double s : strides) {
    g.keep(3.0 * (5.0 + classes) * g.p(s));
    g.saved_fp32 += 2.0 * 3.0 * g.p(s);
  }
}

// Decoupled anchor-free head (YOLOX, YOLOv6, YOLOv8): per level, `convs` Conv units of width `cw` on the
// box branch and of `cc` on the class branch, then the predictions (classes + box channels, fp32 in the loss).
void decoupled_head(Graph& g, double classes, double box, double cw, double cc, double convs, std::initializer_list<double> strides) {
  for (double s : strides) {
    for (double i = 0; i < convs; ++i) {
      g.conv(cw, s);
      g.conv(cc, s);
    }
    g.keep((classes + box) * g.p(s));
    g.saved_fp32 += 2.0 * (classes + box) * g.p(s);
  }
}

// Loss and label-assignment work tensors of the batch-wide assigners, fp32 values per anchor point per
// image, fitted once per family on MMYOLO's published training memory (8 x A100, AMP, method.md §12.5): the
// median of measured minus counted memory over YOLOv8-n/s/m/l/x (batch 16; task-aligned assigner and BCE over
// every anchor and class) and over YOLOv6-n/t/s/m/l (batch 32; ATSS then task-aligned assigner and varifocal
// loss). They are the [batch, boxes, anchors] IoU, alignment and mask tensors for the most boxes a mosaic
// batch holds, and the class loss's fp32 temporaries.
constexpr double k_tal_bce_per_anchor = coef::tal_bce_per_anchor.value;
constexpr double k_tal_vfl_per_anchor = coef::tal_vfl_per_anchor.value;

// ultralytics/yolov5 models/yolov5*.yaml (v6.x): C3 stages of (3, 6, 9, 3) bottlenecks, SPPF, PAN; the
// P6 variant adds a 768-wide stage at stride 32 and outputs at stride 64.
void yolov5(Graph& g, double C, const std::string& f) {
  const bool p6 = f == "v5-p6";
  const double top = p6 ? 64 : 32;
  g.conv(g.ch(64), 2);
  g.c3_stage(g.ch(128), g.n(3), 4);
  g.c3_stage(g.ch(256), g.n(6), 8);
  g.c3_stage(g.ch(512), g.n(9), 16);
  if (p6) g.c3_stage(g.ch(768), g.n(3), 32);
  g.c3_stage(g.ch(1024), g.n(3), top);
  g.sppf(g.ch(1024), top, false);
  if (p6) {
    g.pan_c3({g.ch(256), g.ch(512), g.ch(768), g.ch(1024)}, {8, 16, 32, 64}, g.n(3));
    anchor_head(g, C, {8, 16, 32, 64});
  } else {
    g.pan_c3({g.ch(256), g.ch(512), g.ch(1024)}, {8, 16, 32}, g.n(3));
    anchor_head(g, C, {8, 16, 32});
  }
}

// ultralytics yolov8.yaml: C2f stages of (3, 6, 6, 3) bottlenecks, SPPF, PAN without lateral convs, and a
// decoupled head of two 3x3 per branch (box: max(16, P3/4, 64) channels for 4 x 16 DFL bins; class:
// max(P3, min(classes, 100))). YOLO11's C3k2 blocks have the same outputs per stage at these widths.
void yolov8(Graph& g, double C, YoloCounts& out) {
  const double L = g.ch(1024);
  g.conv(g.ch(64), 2);
  g.conv(g.ch(128), 4);
  g.c2f(g.ch(128), g.n(3), true, 4);
  g.conv(g.ch(256), 8);
  g.c2f(g.ch(256), g.n(6), true, 8);
  g.conv(g.ch(512), 16);
  g.c2f(g.ch(512), g.n(6), true, 16);
  g.conv(L, 32);
  g.c2f(L, g.n(3), true, 32);
  g.sppf(L, 32, false);
  g.cat(L + g.ch(512), 16);
  g.c2f(g.ch(512), g.n(3), false, 16);
  g.cat(g.ch(512) + g.ch(256), 8);
  g.c2f(g.ch(256), g.n(3), false, 8);
  g.conv(g.ch(256), 16, false);
  g.cat(g.ch(256) + g.ch(512), 16);
  g.c2f(g.ch(512), g.n(3), false, 16);
  g.conv(g.ch(512), 32, false);
  g.cat(g.ch(512) + L, 32);
  g.c2f(L, g.n(3), false, 32);
  const double p3 = g.ch(256);
  decoupled_head(g, C, 64.0, std::max({16.0, p3 / 4.0, 64.0}), std::max(p3, std::min(C, 100.0)), 2, {8, 16, 32});
  out.loss_fp32_per_anchor = k_tal_bce_per_anchor;
}

// YOLOX (Ge et al. 2021; MMDetection/MMYOLO YOLOXCSPDarknet): Focus stem, CSP stages of (3, 9, 9, 3)
// blocks, SPP (5/9/13) in the last stage, PAFPN with 1x1 outputs of 256·w, and a head of two 3x3 per
// branch on 256·w channels at each level.
void yolox(Graph& g, double C) {
  g.keep(12.0 * g.p(2));  // Focus: space-to-depth copy
  g.conv(g.ch(64), 2);
  g.c3_stage(g.ch(128), g.n(3), 4);
  g.c3_stage(g.ch(256), g.n(9), 8);
  g.c3_stage(g.ch(512), g.n(9), 16);
  g.conv(g.ch(1024), 32);
  g.sppf(g.ch(1024), 32, true);
  g.c3(g.ch(1024), g.n(3), false, 32);
  g.pan_c3({g.ch(256), g.ch(512), g.ch(1024)}, {8, 16, 32}, g.n(3));
  for (double s : {8.0, 16.0, 32.0}) g.conv(g.ch(256), s);
  decoupled_head(g, C, 5.0, g.ch(256), g.ch(256), 2, {8, 16, 32});
  // SimOTA assigns image by image: its cost matrices are small (no batch-wide assigner term).
}

// YOLOv6 v2 (Li et al. 2022; MMYOLO YOLOv6EfficientRep / YOLOv6CSPBep): RepVGG units (3x3 and 1x1
// branches and an identity norm, summed; three output-sized tensors kept, like a Conv unit) in stages of
// (6, 12, 18, 6) blocks, SimSPPF, a Rep-PAN neck of 12 blocks per stage (widths 256, 128, 128, 256, 256,
// 512) with transposed-conv upsampling, and an efficient decoupled head (1x1 stem, one 3x3 per branch).
// The CSP variant (m, l) wraps the blocks in BepC3 with hidden ratio e (2/3 for m, 1/2 for l).
void yolov6(Graph& g, double C, const VisionArch& a, YoloCounts& out) {
  const std::string& f = a.yolo_family;
  const bool bep = f == "v6-bep";
  const double e = a.hidden_ratio > 0 ? a.hidden_ratio : 0.5;
  auto stage = [&](double c, double k, double s) {
    if (!bep) {
      for (double i = 0; i < k; ++i) g.conv(c, s);
      return;
    }
    const double h = c * e;
    g.conv(h, s);
    g.conv(h, s);
    for (double i = 0; i < k; ++i) g.conv(h, s);
    for (double i = 0; i < std::floor(k / 2.0); ++i) g.add(h, s);
    g.cat(2.0 * h, s);
    g.conv(c, s);
  };
  g.conv(g.ch(64), 2);
  g.conv(g.ch(128), 4);
  stage(g.ch(128), g.n(6), 4);
  g.conv(g.ch(256), 8);
  stage(g.ch(256), g.n(12), 8);
  g.conv(g.ch(512), 16);
  stage(g.ch(512), g.n(18), 16);
  g.conv(g.ch(1024), 32);
  stage(g.ch(1024), g.n(6), 32);
  g.sppf(g.ch(1024), 32, false);
  g.conv(g.ch(256), 32);
  g.cat(g.ch(256) + g.ch(512), 16);
  stage(g.ch(256), g.n(12), 16);
  g.conv(g.ch(128), 16);
  g.cat(g.ch(128) + g.ch(256), 8);
  stage(g.ch(128), g.n(12), 8);
  g.conv(g.ch(128), 16, false);
  g.cat(g.ch(256), 16);
  stage(g.ch(256), g.n(12), 16);
  g.conv(g.ch(256), 32, false);
  g.cat(g.ch(512), 32);
  stage(g.ch(512), g.n(12), 32);
  const double lv[] = {g.ch(128), g.ch(256), g.ch(512)};
  const double st[] = {8, 16, 32};
  for (int i = 0; i < 3; ++i) {
    g.conv(lv[i], st[i]);
    g.conv(lv[i], st[i]);
    g.conv(lv[i], st[i]);
    g.keep((C + (bep ? 68.0 : 4.0)) * g.p(st[i]));
    g.saved_fp32 += 2.0 * (C + 4.0) * g.p(st[i]);
  }
  out.loss_fp32_per_anchor = k_tal_vfl_per_anchor;
}

// yolov7-tiny.yaml (Wang et al. 2022): ELAN-T blocks (two 1x1, two 3x3, concatenation of four), max-pool
// down-sampling, SPP, PAN.
void yolov7_tiny(Graph& g, double C) {
  auto elan_t = [&](double c, double s) { g.elan(c / 2.0, c / 2.0, 2, c, s, true); };
  g.conv(32, 2);
  g.conv(64, 4);
  elan_t(64, 4);
  g.down_pool(64, 8);
  elan_t(128, 8);
  g.down_pool(128, 16);
  elan_t(256, 16);
  g.down_pool(256, 32);
  elan_t(512, 32);
  g.conv(256, 32);
  g.conv(256, 32, false);
  g.saved_fp32 += 2.0 * 256 * g.p(32) * 3.0;
  g.cat(1024, 32);
  g.conv(256, 32, false);
  g.cat(512, 32);
  g.conv(256, 32);
  g.conv(128, 32, false);
  g.conv(128, 16, false);
  g.cat(256, 16);
  elan_t(128, 16);
  g.conv(64, 16, false);
  g.conv(64, 8, false);
  g.cat(128, 8);
  elan_t(64, 8);
  g.conv(128, 16, false);
  g.cat(256, 16);
  elan_t(128, 16);
  g.conv(256, 32, false);
  g.cat(512, 32);
  elan_t(256, 32);
  g.conv(128, 8);
  g.conv(256, 16);
  g.conv(512, 32);
  anchor_head(g, C, {8, 16, 32});
}

// yolov7.yaml / yolov7x.yaml: a full-resolution stem, ELAN stages (4 or 6 chained 3x3), MP down-sampling,
// SPPCSPC, an ELAN-H PAN, RepConv outputs.
void yolov7(Graph& g, double C, const std::string& f) {
  const bool x = f == "v7-x";
  const double k = x ? 6.0 : 4.0, sw = x ? 1.25 : 1.0;
  auto elan_b = [&](double m, double c, double s) { g.elan(m, m, k, c, s); };
  g.conv(32 * sw, 1);
  g.conv(64 * sw, 2);
  g.conv(64 * sw, 2);
  g.conv(128 * sw, 4);
  elan_b(64, x ? 320 : 256, 4);
  g.mp_down(x ? 320 : 256, 4);
  elan_b(128, x ? 640 : 512, 8);
  g.mp_down(x ? 640 : 512, 8);
  elan_b(256, x ? 1280 : 1024, 16);
  g.mp_down(x ? 1280 : 1024, 16);
  elan_b(256, x ? 1280 : 1024, 32);
  const double c5 = x ? 640 : 512, c4 = x ? 320 : 256, c3 = x ? 160 : 128;
  g.sppcspc(c5, 32);
  g.conv(c4, 32, false);
  g.conv(c4, 16, false);
  g.cat(2 * c4, 16);
  g.elan(256, x ? 256 : 128, k, c4, 16, !x);
  g.conv(c3, 16, false);
  g.conv(c3, 8, false);
  g.cat(2 * c3, 8);
  g.elan(128, x ? 128 : 64, k, c3, 8, !x);
  g.mp_down(2 * c3, 8);
  g.cat(2 * c3 + c4, 16);
  g.elan(256, x ? 256 : 128, k, c4, 16, !x);
  g.mp_down(2 * c4, 16);
  g.cat(2 * c4 + c5, 32);
  g.elan(512, x ? 512 : 256, k, c5, 32, !x);
  g.conv(2 * c3, 8);
  g.conv(2 * c4, 16);
  g.conv(2 * c5, 32);
  anchor_head(g, C, {8, 16, 32});
}

// yolov7-w6.yaml / yolov7-e6.yaml: ReOrg stem, ELAN stages at strides 4..64, SPPCSPC, ELAN-H PAN over
// four levels, 3x3 outputs and the auxiliary head's 1x1s. E6 widens every layer by 1.25, chains six 3x3
// per block (concatenating every second in the backbone, all in the PAN) and down-samples with DownC
// (max-pool + 1x1 beside 1x1 + strided 3x3).
void yolov7_p6(Graph& g, double C, const std::string& f) {
  const bool e6 = f == "v7-e6";
  const double k = e6 ? 6.0 : 4.0, sw = e6 ? 1.25 : 1.0;
  g.keep(12.0 * g.p(2));
  g.conv(64 * sw, 2);
  const double outs[] = {128, 256, 512, 768, 1024}, mids[] = {64, 128, 256, 384, 512};
  double prev = 64 * sw;
  for (int i = 0; i < 5; ++i) {
    const double s = 4.0 * std::pow(2.0, i);
    if (e6) {
      g.conv(prev, s / 2.0);
      g.conv(outs[i] * sw / 2.0, s, false);
      g.down_pool(prev, s);
      g.conv(outs[i] * sw / 2.0, s, false);
      g.cat(outs[i] * sw, s);
    } else {
      g.conv(outs[i], s);
    }
    g.elan(mids[i], mids[i], k, outs[i] * sw, s);
    prev = outs[i] * sw;
  }
  g.sppcspc(512 * sw, 64);
  const double lat[] = {384 * sw, 256 * sw, 128 * sw};
  const double ls[] = {32, 16, 8};
  const double lm[] = {384, 256, 128};
  for (int i = 0; i < 3; ++i) {
    g.conv(lat[i], ls[i] * 2, false);
    g.conv(lat[i], ls[i], false);
    g.cat(2 * lat[i], ls[i]);
    g.elan(lm[i], lm[i] / 2.0, k, lat[i], ls[i], true);
  }
  const double up[] = {256 * sw, 384 * sw, 512 * sw};
  const double um[] = {256, 384, 512};
  const double us[] = {16, 32, 64};
  for (int i = 0; i < 3; ++i) {
    g.conv(up[i], us[i], false);
    g.cat(2 * up[i], us[i]);
    g.elan(um[i], um[i] / 2.0, k, up[i], us[i], true);
  }
  const double heads[] = {256, 512, 768, 1024}, hs[] = {8, 16, 32, 64};
  for (int i = 0; i < 4; ++i) {
    g.conv(heads[i], hs[i]);
    g.conv(heads[i] * 1.25, hs[i]);  // auxiliary head input
  }
  anchor_head(g, C, {8, 16, 32, 64});
  anchor_head(g, C, {8, 16, 32, 64});
}

}  // namespace

YoloCounts yolo_counts(const VisionArch& a, double width, double height) {
  Graph g;
  g.px = width * height;
  g.w = a.width_mult;
  g.d = a.depth_mult;
  if (a.max_channels > 0) g.cap = a.max_channels;
  const double C = static_cast<double>(a.classes);
  const std::string& f = a.yolo_family;
  g.keep(3.0 * g.px);  // the normalised input batch, kept by the first convolution
  YoloCounts out;

  if (f == "v5" || f == "v5-p6") yolov5(g, C, f);
  else if (f == "v8" || f == "v11") yolov8(g, C, out);
  else if (f == "x") yolox(g, C);
  else if (f == "v6-rep" || f == "v6-bep") yolov6(g, C, a, out);
  else if (f == "v7-tiny") yolov7_tiny(g, C);
  else if (f == "v7" || f == "v7-x") yolov7(g, C, f);
  else if (f == "v7-w6" || f == "v7-e6") yolov7_p6(g, C, f);
  out.saved = g.saved;
  out.saved_fp32 = g.saved_fp32;
  out.biggest = g.biggest;
  // Anchor points the assigners score against: one per cell of every output level.
  const bool p6 = f == "v5-p6" || f == "v7-w6" || f == "v7-e6";
  out.anchor_points = g.px / 64.0 + g.px / 256.0 + g.px / 1024.0 + (p6 ? g.px / 4096.0 : 0.0);
  out.saved_fp32 += out.loss_fp32_per_anchor * out.anchor_points;
  return out;
}

}  // namespace gpuadvise
