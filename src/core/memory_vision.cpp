// Vision and image-generation memory (method.md §12.2, §12.4): backbones, heads and detectors counted layer by
// layer (vision.cpp, yolo.cpp), diffusion pipelines with their offload and tiling options.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/units.hpp"
#include "gpuadvise/vision_model.hpp"
#include "memory_common.hpp"

namespace gpuadvise {

using namespace memory_detail;

VisionPolicy vision_policy(const Workload& w) {
  VisionPolicy p;
  switch (w.framework.value_or(Framework::pytorch)) {
    case Framework::detectron2: p.freeze_at = 2; p.norm_trainable = false; break;  // FrozenBatchNorm, FREEZE_AT 2
    case Framework::mmdet:  // frozen_stages=1, BN keeps inputs, mmcv's fused focal loss
      p.freeze_at = 2;
      p.norm_trainable = true;
      p.fused_focal_loss = true;
      p.mask_per_cascade_stage = true;
      p.norm_fp32 = true;
      break;
    default: break;
  }
  p.eager_attention = !w.flash_attention;
  return p;
}

VisionArch vision_arch(const Workload& w, const ModelSpec& m) {
  VisionArch a = *m.vision;
  if (w.classes) a.classes = *w.classes;
  // --text-tokens: T5's prompt tokens (diffusers' max_sequence_length) in place of the pipeline's default; SD3 joins
  // CLIP's 77 to them (method.md §12.4).
  if (w.text_tokens && a.dit_t5_tokens > 0) {
    a.dit_text_tokens += *w.text_tokens - a.dit_t5_tokens;
    a.dit_t5_tokens = *w.text_tokens;
  }
  return a;
}

std::pair<double, double> image_size(const Workload& w, const ModelSpec& m) {
  double W = static_cast<double>(w.image_width.value_or(m.vision->ref_w)), H = static_cast<double>(w.image_height.value_or(m.vision->ref_h));
  // Ultralytics' predictor letterboxes with minimal padding (LetterBox(auto=True), stride 32): a 1920x1080
  // frame at imgsz 640 becomes 640x384, not 640x640 (method.md §13).
  if (w.streams && !is_training(w.mode) && w.framework == Framework::ultralytics && m.vision->head == "yolo" && w.video_width > 0 &&
      w.video_height > 0) {
    const double side = std::max(W, H), vw = static_cast<double>(w.video_width), vh = static_cast<double>(w.video_height);
    const double shortside = std::ceil(side * std::min(vw, vh) / std::max(vw, vh) / 32.0) * 32.0;
    W = vw >= vh ? side : shortside;
    H = vw >= vh ? shortside : side;
  }
  return {W, H};
}

namespace {

// Backward transients and cuDNN workspaces on top of the saved tensors of convolutional networks: the
// median ratio of measured to modelled activation memory over detectron2's 22 MODEL_ZOO rows (method.md §12.2).
constexpr double k_cnn_transient_factor = coef::cnn_transient_factor.value;

// The denoiser's working set for the batch (method.md §12.4): a UNet's skip maps and its attention at the highest
// resolution, or a DiT's blocks; training keeps every block's tensors, or only their inputs when checkpointed.
double denoiser_bytes_for(const Workload& w, const VisionArch& a, double W, double H) {
  const bool training = is_training(w.mode);
  const double act_b = activation_bytes(w.precision);
  const double b = static_cast<double>(w.batch);
  const double lat_w = W / 8.0, lat_h = H / 8.0;
  const bool eager = !w.flash_attention;
  // Denoiser working set per image.
  auto unet_saved = [&](double per_image_batch, bool keep_for_backward) {
    double attn_peak = 0, feats = 0, saved = 0;
    for (std::size_t i = 0; i < a.levels.size(); ++i) {
      const double scale = std::pow(2.0, static_cast<double>(i));
      const double T = (lat_w / scale) * (lat_h / scale), C = static_cast<double>(a.levels[i].channels);
      const double heads = static_cast<double>(a.levels[i].heads), tl = static_cast<double>(a.levels[i].transformer_layers);
      feats += 3.0 * C * T;  // feature maps kept for the skip connections
      // Two ResNet blocks down and three up per level, about six C·T tensors each in backward.
      saved += 5.0 * 6.0 * C * T;
      if (tl > 0) {
        const double scores = eager ? heads * T * T * 2.0 : 6.0 * C * T;  // probabilities (and scores) or flash
        attn_peak = std::max(attn_peak, scores);
        saved += 5.0 * tl * ((eager ? heads * T * T : 0.0) + 20.0 * C * T);
      }
    }
    return per_image_batch * (keep_for_backward ? saved : attn_peak + feats);
  };
  const double b_eff = b * (a.cfg && !training ? 2.0 : 1.0);
  const bool ckpt = training && w.checkpointing != Checkpointing::none;
  double denoiser_bytes = 0;
  if (a.backbone == "dit") {
    const double T = (lat_w / 2.0) * (lat_h / 2.0) + static_cast<double>(a.dit_text_tokens), h = static_cast<double>(a.dit_hidden);
    const double per = T * h * 16.0 + (eager ? static_cast<double>(a.dit_heads) * T * T * 2.0 : 0.0);
    // Training keeps every block's working set for the backward; with gradient checkpointing (diffusers'
    // enable_gradient_checkpointing) only each block's input, plus one block recomputed at a time.
    const double blocks = static_cast<double>(a.dit_blocks);
    denoiser_bytes = b_eff * act_b * (!training ? per : ckpt ? T * h * blocks + per : per * blocks);
  } else {
    denoiser_bytes = unet_saved(b_eff, training && !ckpt) * act_b;
    if (ckpt) {
      // Checkpointed UNet blocks keep their inputs (about one C·T map per ResNet and transformer block).
      double inputs = 0;
      for (std::size_t i = 0; i < a.levels.size(); ++i) {
        const double scale = std::pow(2.0, static_cast<double>(i));
        inputs += (5.0 + 5.0 * static_cast<double>(a.levels[i].transformer_layers)) * static_cast<double>(a.levels[i].channels) * (lat_w / scale) * (lat_h / scale);
      }
      denoiser_bytes += b_eff * inputs * act_b;
    }
  }
  return denoiser_bytes;
}

// Inference (method.md §12.4): every component resident, or diffusers' model or sequential CPU offload; the peak is
// the larger of a denoising step and the VAE decode (tiled with --vae-tiling).
void diffusion_inference_memory(MemoryEstimate& e, const Workload& w, const VisionArch& a, double W, double H, double denoiser_bytes) {
  const double act_b = activation_bytes(w.precision);
  const double b = static_cast<double>(w.batch);
  const bool quant = is_quantised_weights(w.precision);
  const double den_b = weight_bits(w.precision, w.double_quant) / 8.0;
  const double other_b = quant ? 2.0 : den_b;  // text encoders and VAE stay 16-bit next to a quantised denoiser
  const bool eager = !w.flash_attention;
  // VAE decode: 128-channel maps at full resolution (input, norm, activation, conv output) and the
  // mid-block attention over the latent pixels.
  // --vae-tiling (diffusers enable_vae_tiling) decodes 512x512 tiles (AutoencoderKL's tile_sample_min_size)
  // one at a time, with their overlap: the maps of one tile, not of the image.
  const double px = w.vae_tiling ? std::min(W * H, 512.0 * 512.0) : W * H;
  const double Tl = px / 64.0;
  const double vae = b * (128.0 * px * 4.0 + (eager ? Tl * Tl * 2.0 : 0.0)) * act_b;
  const double den_w = a.denoiser_params * den_b, text_w = text_encoder_bytes(a, w.precision == Precision::fp16, other_b), vae_w = a.vae_params * other_b;
  e.weights = den_w + text_w + vae_w;
  e.activations = std::max(denoiser_bytes, vae);
  if (w.offload == Offload::model) {
    // enable_model_cpu_offload: one component on the GPU at a time (text encoders, then the denoiser, then the
    // VAE), each moved in from host memory when its turn comes: the peak is the largest component with its
    // working set.
    const double den_phase = den_w + denoiser_bytes, vae_phase = vae_w + vae;
    e.weights = std::max({den_w, text_w, vae_w});
    e.host_pipeline_weights = den_w + text_w + vae_w - e.weights;  // the components not on the GPU
    e.activations = std::max({den_phase, vae_phase, text_w}) - e.weights;
    e.peak_phase = den_phase >= vae_phase ? "a denoising step (model CPU offload: the denoiser alone on the GPU)"
                                          : "the VAE decode (model CPU offload: the VAE alone on the GPU)";
    if (w.explain) e.explain.push_back({"weights", "model CPU offload: the largest component resident",
                         fmt::format("denoiser {:.2f} GB, text encoders {:.2f} GB, VAE {:.2f} GB", den_w / k_gb, text_w / k_gb, vae_w / k_gb), e.weights,
                         "method.md §12.4"});
    return;
  }
  if (w.offload == Offload::sequential) {
    // enable_sequential_cpu_offload: every submodule's weights stream in just before it runs: about one
    // transformer block (or UNet level) resident.
    const double unit = a.backbone == "dit" ? den_w / std::max(1.0, static_cast<double>(a.dit_blocks))
                                            : den_w / std::max<double>(1.0, static_cast<double>(a.levels.size()) * 2.0);
    e.weights = unit;
    e.host_pipeline_weights = den_w + text_w + vae_w;  // accelerate keeps every weight on the host and copies it in
    e.activations = std::max(denoiser_bytes, vae);
    e.peak_phase = "a denoising step (sequential CPU offload: one block's weights resident)";
    if (w.explain) e.explain.push_back({"weights", "sequential CPU offload: one block's weights resident", fmt::format("{:.2f} GB", unit / k_gb), e.weights,
                         "method.md §12.4"});
    return;
  }
  e.peak_phase = denoiser_bytes >= vae ? "a denoising step at the highest-resolution attention" : "the VAE decode at full resolution";
  if (w.explain) e.explain.push_back({"activations", "max(denoiser step (x2 with classifier-free guidance), VAE decode)",
                       fmt::format("denoiser {:.2f} GB, VAE {:.2f} GB", denoiser_bytes / k_gb, vae / k_gb), e.activations, "method.md §12.4"});
}

// Image generation pipelines (method.md §12.4): every component resident; the peak is the larger of one
// denoiser step (classifier-free guidance doubles its batch) and the VAE decode at full resolution.
void diffusion_memory(MemoryEstimate& e, const Workload& w, const VisionArch& a, double W, double H) {
  const bool training = is_training(w.mode);
  const bool quant = is_quantised_weights(w.precision);
  const double den_b = weight_bits(w.precision, w.double_quant) / 8.0;
  const double other_b = quant ? 2.0 : den_b;  // text encoders and VAE stay 16-bit next to a quantised denoiser
  e.params_total = e.params_active = a.denoiser_params + a.text_encoder_params + a.vae_params;
  const double denoiser_bytes = denoiser_bytes_for(w, a, W, H);
  if (!training) {
    diffusion_inference_memory(e, w, a, W, H, denoiser_bytes);
    return;
  }
  // Training the denoiser (full, LoRA or QLoRA); text encoders and VAE frozen, and not resident at all when the
  // latents and text embeddings are cached beforehand (--cache-latents, diffusers' --cache_latents and
  // precomputed prompt embeddings: the FLUX QLoRA write-up).
  const bool lora = w.mode == Mode::lora || w.mode == Mode::qlora;
  const bool mixed = is_16bit_or_lower(w.precision) && w.effective_master_weights() == MasterWeights::fp32;
  // LoRA adapters on the attention projections (q, k, v, out): r·(d_in + d_out) each ([LORA] §4). A DiT block
  // has one attention of width h (FLUX's double-stream blocks two: counted as one, the single-stream blocks
  // fuse theirs); a UNet transformer layer a self- and a cross-attention of width C.
  double adapter = 0;
  if (a.backbone == "dit") {
    adapter = 4.0 * static_cast<double>(a.dit_blocks) * 2.0 * static_cast<double>(a.dit_hidden);
  } else {
    for (const auto& lv : a.levels) adapter += 8.0 * static_cast<double>(lv.transformer_layers) * 2.0 * static_cast<double>(lv.channels);
  }
  const double trainable = lora ? adapter * static_cast<double>(w.lora_rank) : a.denoiser_params;
  // QLoRA: the frozen denoiser in NF4 ([QLORA] §3), the rest in 16 bits.
  const double base_b = w.mode == Mode::qlora ? weight_bits(Precision::nf4, w.double_quant) / 8.0 : den_b;
  const double pw = mixed ? 4.0 : den_b;
  const double opt = optimizer_state_bytes(w.optimizer, 4.0, 4.0);
  e.params_trainable = trainable;
  const double others_b = w.mode == Mode::qlora ? 2.0 : other_b;
  const double frozen_others = w.cache_latents ? 0.0 : text_encoder_bytes(a, w.precision == Precision::fp16, others_b) + a.vae_params * others_b;
  e.weights = (lora ? a.denoiser_params * base_b + trainable * pw : a.denoiser_params * pw) + frozen_others;
  e.gradients = trainable * pw;
  e.optimizer_states = trainable * opt;
  e.activations = denoiser_bytes;
  e.peak_phase = "end of the denoiser's forward";
}

}  // namespace

MemoryEstimate memory_detail::estimate_vision_memory(const Workload& w, const ModelSpec& m, const GpuSpec* gpu) {
  MemoryEstimate e;
  e.seq_len = 0;
  if (m.vision->task == "generation") {
    const auto [W, H] = image_size(w, m);
    diffusion_memory(e, w, vision_arch(w, m), W, H);
    if (w.precision == Precision::fp16 && m.vision->fp32_text_encoder_params > 0 && !(is_training(w.mode) && w.cache_latents))
      e.notes.push_back(Note::format("fp16: the T5 text encoder ({:.2f} B parameters) stays in fp32, {:.1f} GB more: its activations overflow fp16 "
                                     "(diffusers' Flux docs run the text encoders in fp32 under fp16)",
                                     m.vision->fp32_text_encoder_params / 1e9, m.vision->fp32_text_encoder_params * 2.0 / 1e9));
    e.tensor_peak = e.weights + e.gradients + e.optimizer_states + e.activations;
    set_runtime(e, w, gpu, false);
    e.allocator_reserve = 0.10 * (e.activations + e.gradients);
    e.device_peak = e.tensor_peak + e.allocator_reserve + e.runtime;
    e.device_low = e.tensor_peak - 0.25 * e.activations + e.runtime * 0.6;
    e.device_high = e.device_peak + 0.25 * e.activations + 0.5 * e.allocator_reserve;
    if (w.offload == Offload::none && w.explain) e.explain.insert(e.explain.begin(), {"weights", "denoiser + text encoders + VAE, all resident",
                                         fmt::format("{:.2f} B + {:.2f} B + {:.2f} B parameters", m.vision->denoiser_params / 1e9,
                                                     m.vision->text_encoder_params / 1e9, m.vision->vae_params / 1e9),
                                         e.weights, "method.md §12.4"});
    return e;
  }
  const VisionArch a = vision_arch(w, m);
  const bool training = is_training(w.mode);
  auto [W, H] = image_size(w, m);
  if (training && a.train_max_w > 0) {
    // Multi-scale training: batches are resized up to the recipe's largest scale (method.md §12.5).
    W *= static_cast<double>(a.train_max_w) / static_cast<double>(a.ref_w);
    H *= static_cast<double>(a.train_max_h) / static_cast<double>(a.ref_h);
  }
  const VisionCounts vc = vision_counts(a, W, H, training, vision_policy(w));
  const double P = vc.params;
  e.params_total = e.params_active = P;
  e.params_trainable = training ? P : 0.0;
  const double act_b = activation_bytes(w.precision);
  const double b = static_cast<double>(w.batch);
  const double wb = weight_bits(w.precision, w.double_quant) / 8.0;
  const bool mixed = training && is_16bit_or_lower(w.precision) && w.effective_master_weights() == MasterWeights::fp32;
  if (training) {
    const double elem = (mixed || !is_16bit_or_lower(w.precision)) ? 4.0 : 2.0;
    const double opt = optimizer_state_bytes(w.optimizer, elem, elem * 0.05);
    // PyTorch AMP keeps fp32 parameters and gradients (method.md §3.1); pure 16-bit keeps 16-bit ones.
    const double pw = mixed ? 4.0 : wb, pg = mixed ? 4.0 : wb;
    const Sharding sh = w.gpus > 1 ? w.sharding : Sharding::none;
    const ModelStates ms = zero_model_states(P, pw, pg, opt, sh, static_cast<double>(w.data_parallel()));
    e.weights = ms.weights;
    const bool ddp_copy = framework_profile(w.framework.value_or(Framework::pytorch)).ddp_bucket_copy;
    e.gradients = ms.gradients * (sh == Sharding::none && w.gpus > 1 && ddp_copy ? 2.0 : 1.0);  // DDP buckets
    e.optimizer_states = ms.optimizer;
    const bool transformer = a.backbone == "vit";
    if (vc.complete_count) {
      // YOLO: every kept tensor is counted (the assigner's and loss's fp32 work tensors among them); add
      // the backward's gradient of the largest map (method.md §12.5).
      e.activations = b * ((vc.saved_elements + vc.transient_elements) * act_b + vc.saved_fp32_elements * 4.0);
      if (w.explain) e.explain.push_back({"activations", "batch x (kept elements per image x bytes + fp32 loss and assigner tensors + backward transient)",
                           fmt::format("{} images of {:.0f}x{:.0f}{}, {:.3g} + {:.3g} fp32 elements each", w.batch, W, H,
                                       a.train_max_w > 0 ? " (the multi-scale recipe's largest)" : "", vc.saved_elements,
                                       vc.saved_fp32_elements),
                           e.activations, "method.md §12.5"});
    } else {
      e.activations = b * (vc.saved_elements * act_b + vc.saved_fp32_elements * 4.0) * (transformer ? 1.0 : k_cnn_transient_factor);
      if (w.explain) e.explain.push_back({"activations", "batch x saved elements per image (from stage widths, strides, heads) x bytes x 1.35",
                           fmt::format("{} images of {:.0f}x{:.0f}, {:.3g} elements each", w.batch, W, H, vc.saved_elements),
                           e.activations, "method.md §12.2"});
    }
    e.peak_phase = "end of forward / start of backward (feature maps kept for backward)";
  } else {
    e.weights = P * wb;
    // Inference keeps no activations: the largest feature maps of one layer at a time (the stem's output,
    // its norm and activation), or for a ViT the tokens' QKV and MLP intermediates.
    const double live = a.backbone == "vit"
                            ? (std::floor(W / static_cast<double>(a.patch)) * std::floor(H / static_cast<double>(a.patch)) + 1.0) *
                                  (3.0 * static_cast<double>(a.vit_hidden) + static_cast<double>(a.vit_mlp))
                            : 3.0 * 64.0 * W * H / 4.0;
    e.activations = b * live * act_b;
    e.peak_phase = "forward of the largest layer";
  }
  if (w.explain) e.explain.insert(e.explain.begin(), {"weights", "params x bytes", fmt::format("params {:.1f} M", P / 1e6), e.weights, "method.md §12.1"});
  e.tensor_peak = e.weights + e.gradients + e.optimizer_states + e.activations;
  set_runtime(e, w, gpu, false);
  e.allocator_reserve = 0.10 * (e.activations + (training ? e.gradients : 0.0));
  e.device_peak = e.tensor_peak + e.allocator_reserve + e.runtime;
  e.device_low = e.weights * 0.99 + (e.gradients + e.optimizer_states) * 0.97 + e.activations * 0.75 + e.allocator_reserve * 0.5 + e.runtime * 0.6;
  e.device_high = e.weights * 1.01 + (e.gradients + e.optimizer_states) * 1.03 + e.activations * 1.25 + e.allocator_reserve * 1.5 + e.runtime * 1.4;
  return e;
}

}  // namespace gpuadvise
