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
  std::int64_t box_convs = 0;   // 3x3 convs before the box head's fc (detectron2 FastRCNNConvFCHead NUM_CONV; 0 = two fc)
  std::int64_t mask_convs = 4;  // 3x3 convs of the mask head
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
  // Multi-scale training recipe: the largest size a batch is resized to when training at ref_w x ref_h
  // (0: single scale). Training memory is taken at that largest scale.
  std::int64_t train_max_w = 0, train_max_h = 0;
  // Transformers (ViT): layers, width, heads, MLP width, patch size.
  std::int64_t vit_layers = 0, vit_hidden = 0, vit_heads = 0, vit_mlp = 0, patch = 16;
  // YOLO (CSP-Darknet): width and depth multiples of the family.
  double width_mult = 1.0, depth_mult = 1.0;
  // YOLO family whose published structure is counted (v5, v5-p6, v8, v11, x, v6-rep, v6-bep, v7-tiny, v7,
  // v7-x, v7-w6, v7-e6), YOLOv8's channel cap before the width multiple and YOLOv6 CSP's hidden ratio.
  std::string yolo_family;
  double max_channels = 0, hidden_ratio = 0;
  // Image generation (task "generation"): the denoiser (UNet or diffusion transformer), text encoders and
  // VAE of a pipeline; classifier-free guidance doubles the denoiser's batch.
  double denoiser_params = 0, text_encoder_params = 0, vae_params = 0;
  // Of the text encoders, the parameters whose activations overflow fp16 (T5 v1.1: Hugging Face's T5 clamps them
  // under fp16; diffusers' Flux docs run the text encoders in fp32 for fp16 inference): kept in fp32 under fp16.
  double fp32_text_encoder_params = 0;
  bool cfg = true;
  std::int64_t latent_channels = 4;
  // UNet levels from the highest resolution down: channels, transformer layers per attention block (0 = no
  // attention at that level), attention heads.
  struct Level {
    std::int64_t channels = 0, transformer_layers = 0, heads = 0;
    bool operator==(const Level&) const = default;
  };
  std::vector<Level> levels;
  // Diffusion transformer: blocks (of which double-stream: image and text tokens through their own weights), width,
  // heads, text tokens in the joint attention at the pipeline's defaults, of which T5's (its max_sequence_length: the
  // default and the pipeline's limit; SD3 joins CLIP's 77 to them); whether its attention normalises q and k (RMSNorm)
  // and rotates them (RoPE), both in fp32 in diffusers' eager code.
  std::int64_t dit_blocks = 0, dit_double_blocks = 0, dit_hidden = 0, dit_heads = 0, dit_text_tokens = 0;
  std::int64_t dit_t5_tokens = 0, dit_t5_max_tokens = 0;
  bool dit_qk_norm = false, dit_rope = false;
  std::int64_t default_steps = 50;
  bool operator==(const VisionArch&) const = default;
};

// The text encoders' weight bytes at `bytes` per weight; under fp16 the encoders that overflow it stay fp32
// (VisionArch::fp32_text_encoder_params; method.md §12.4).
inline double text_encoder_bytes(const VisionArch& a, bool fp16, double bytes) {
  return fp16 ? (a.text_encoder_params - a.fp32_text_encoder_params) * bytes + a.fp32_text_encoder_params * 4.0 : a.text_encoder_params * bytes;
}

}  // namespace gpuadvise
