// Vision and image-generation time (method.md §12.3, §12.4): convolutional networks from the hardware up
// (convolutions, the CUDA-core work beside them, the feature-map traffic), ViTs at the family's matmul share,
// diffusion pipelines in perf_denoiser.cpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/efficiency.hpp"
#include "gpuadvise/image_feed.hpp"
#include "gpuadvise/perf.hpp"
#include "gpuadvise/vision_model.hpp"
#include "memory_common.hpp"
#include "perf_common.hpp"

namespace gpuadvise {

namespace {

// Grouped-convolution efficiency relative to dense convolutions (see estimate_vision_time): fitted on
// detectron2's two ResNeXt-101-32x8d training rows (method.md §12.3).
constexpr double k_grouped_conv_efficiency = coef::grouped_conv_efficiency.value;

// Convolutional networks on tensor cores (estimate_vision_time, method.md §12.3): the convolutions' share of
// the dense tensor peak, the share of their FLOPs that runs at the CUDA-core (fp32) rate beside them, and the
// factor on the feature-map passes. Fitted together on the calibration rows (NVIDIA ResNet-50 T4/V100/A100,
// detectron2 V100).
constexpr double k_conv_tensor_share = coef::conv_tensor_share.value;
constexpr double k_conv_cuda_share = coef::conv_cuda_share.value;
constexpr double k_conv_traffic_share = coef::conv_traffic_share.value;

// GeForce cards (GA102, AD102, GB202 in their consumer parts): fp16/bf16 with fp32 accumulation, cuDNN's compute type
// under autocast, at half their fp16-accumulate rate, the peak the catalogue lists (NVIDIA's GA102 whitepaper:
// RTX 3090 71 against 142 TFLOP/s; the AD102 whitepaper likewise); the workstation and data-centre parts of the same
// chips (RTX A6000, L40S, RTX 6000 Ada) run both at the full rate.
bool half_rate_accumulate(const GpuSpec& gpu, std::string_view key) {
  const GpuFamily f = gpu_family(gpu);
  return (key == "fp16" || key == "bf16") && gpu.segment == Segment::consumer &&
         (f == GpuFamily::ampere_ga10x || f == GpuFamily::ada || f == GpuFamily::blackwell_rtx);
}

// The share of the dense tensor peak a convolution reaches (method.md §12.3): k_conv_tensor_share scaled by the
// vendor's library (MIOpen reaches less than cuDNN). What keeps a convolution below a full-rate peak (1/0.7 - 1 of
// its tensor time: operand loads, address math, the epilogue) runs on the rest of the SM and does not double when
// the tensor rate halves: 1 / (1 + 0.43 / 2) = 0.82 of a half-rate peak, as the matmul share of §8.2's family table
// (0.80 against GA100's 0.68).
double conv_share(const GpuSpec& gpu, std::string_view key) {
  const double s = k_conv_tensor_share * family_efficiency(gpu_family(gpu)).conv_library;
  return half_rate_accumulate(gpu, key) ? 1.0 / (1.0 + (1.0 / s - 1.0) / 2.0) : s;
}

// Seconds of feature-map traffic per step (method.md §12.3): the elements a training step keeps, written and read
// about 14 x 0.7 times in training and 3.75 x 0.7 in inference, at 70 % of peak bandwidth.
double feature_map_seconds(const Workload& w, const VisionArch& a, const GpuSpec& gpu, double W, double H, bool training, bool tensor_convs, double b) {
  const VisionCounts traffic = vision_counts(a, W, H, true, vision_policy(w));
  const double act_b = memory_detail::activation_bytes(w.precision);
  // The YOLO count keeps three maps per Conv unit where the ResNet count this was fitted on keeps about
  // two (conv and norm inputs): the same traffic per layer is 2/3 as many passes per counted element.
  double passes = (training ? 14.0 : 3.75) * (tensor_convs ? k_conv_traffic_share : 1.0) * (traffic.complete_count ? 2.0 / 3.0 : 1.0);
  // TensorRT fuses each convolution with its norm and activation: one of the three maps per unit is
  // written and read (method.md §12.3); torch.compile fuses the norm and activation into one pass.
  if (w.framework == Framework::tensorrt) passes /= 3.0;
  else if (w.compile) passes /= 2.0;
  const double bytes = b * traffic.saved_elements * act_b * passes;
  const double t_bw = bytes / (*gpu.bandwidth_gb_per_s * 1e9 * coef::feature_map_bandwidth_share.value);
  return t_bw;
}

// Channels-first convolutions on cuDNN (method.md §12.3). Its tensor-core convolutions run NHWC (NVIDIA's Deep
// Learning Performance Guide, "Tensor layouts in memory"): a channels-first (NCHW, PyTorch's default) model has
// its tensors transposed around every call. Counted per element of the dense convolutions' inputs and outputs:
// one access in the forward (the output written NHWC and transposed back: a read and a write per output element),
// five in a training step (the backward's data gradient transposes the incoming gradient and its result, the weight
// gradient the input and the incoming gradient), at the streaming share of the bandwidth. A classifier CNN is
// timed channels_last unless asked otherwise (as NVIDIA's recipes run it); the note says what the other layout
// costs. Returns the seconds the asked layout adds; MIOpen (ROCm) is not counted.
double layout_transpose_seconds(const Workload& w, const VisionArch& a, const GpuSpec& gpu, const VisionCounts& vc, bool training, double b, double secs,
                                TimeEstimate& t) {
  // torch.compile's Inductor makes convolutions channels_last itself on CUDA (torch/_inductor/config.py:
  // layout_optimization, on by default except on ROCm); TensorRT picks its engine's layouts when it builds it.
  if (!layout_sensitive_classifier(a)) return 0.0;
  if (gpu.stack != "cuda") {
    if (w.channels_last)
      t.notes.push_back(Note::format("the memory format is timed for cuDNN only: {} is not counted on this GPU's stack", *w.channels_last ? "channels_last" : "channels-first"));
    return 0.0;
  }
  if (!gpu.bandwidth_gb_per_s || vc.conv_io_elements <= 0 || w.compile || w.framework == Framework::tensorrt) return 0.0;
  const double act_b = memory_detail::activation_bytes(w.precision);
  const double accesses = training ? coef::nchw_train_accesses.value : coef::nchw_forward_accesses.value;
  const double t_nchw = b * vc.conv_io_elements * accesses * act_b / (*gpu.bandwidth_gb_per_s * 1e9 * coef::streaming_bandwidth_share.value);
  if (w.channels_last.value_or(true)) {
    if (!w.channels_last)
      t.notes.push_back(Note::format("timed channels_last (NHWC), as NVIDIA's recipes run convolutions on tensor cores; PyTorch's default "
                                     "channels-first adds cuDNN's layout transposes, {:.0f}% more time (--no-channels-last)",
                                     100.0 * t_nchw / secs));
    return 0.0;
  }
  t.notes.push_back(Note::format("channels-first: cuDNN transposes every convolution's tensors to NHWC and back, {:.0f}% of the time "
                                 "(model.to(memory_format=torch.channels_last) saves it)",
                                 100.0 * t_nchw / (secs + t_nchw)));
  return t_nchw;
}

// An eager framework's host dispatches every layer of a pass (and copies the batch in) while the GPU runs:
// the launches overlap the GPU's work, so they are a floor on the forward, not an addition to it (as the language
// models' per-layer host time, method.md §8.2). A small batch waits on them; a batch whose GPU work outlasts them
// does not (method.md §12.3). The wait is what a larger batch amortises (the planner's batch search, §9).
double host_floor(double gpu_secs, TimeEstimate& t, double passes) {
  const double host = coef::small_batch_overhead_s.value * passes;
  if (gpu_secs >= host) return gpu_secs;
  t.fixed_share = 1.0 - gpu_secs / host;
  t.bound = k_host_bound;
  t.notes.push_back("small batches are bound by kernel launches and host-to-device transfers, not FLOPs");
  return host;
}

// A ViT's seconds per image from the hardware up (method.md §12.3), as a language model's layers (§8.2): the
// projections and the MLP at the family's matmul share, fused attention (SDPA) at head_dim/(head_dim + 64) of it
// ([FA2] Fig. 5-6, as §8.2), and the work beside them as memory traffic at the streaming share of the bandwidth.
// Per token and layer in 16 bits: two LayerNorms (one kernel each, read and write: 4 bytes per element), two
// residual adds (read 2, write 1: 6 bytes each; torch.compile folds them into the next norm: 2) and the GELU over
// the MLP width (4). Eager attention (--no-flash-attention: PyTorch before 2.0 has no scaled_dot_product_attention)
// writes and reads its scores, about 16 bytes per score, T per token and head (as §8.2). A training step runs
// the forward's FLOPs three times and moves its bytes three times (the backward reads the saved inputs and the
// incoming gradient and writes the input gradient). `flops`: the step's FLOPs per image, attention included.
double vit_seconds_per_image(const Workload& w, const VisionArch& a, const GpuSpec& gpu, double peak, double W, double H, double flops, bool training,
                             TimeEstimate& t) {
  const double tokens = std::floor(W / static_cast<double>(a.patch)) * std::floor(H / static_cast<double>(a.patch)) + 1.0;
  const double h = static_cast<double>(a.vit_hidden), mlp = static_cast<double>(a.vit_mlp), layers = static_cast<double>(a.vit_layers);
  const double heads = static_cast<double>(std::max<std::int64_t>(1, a.vit_heads)), head_dim = h / heads;
  const double passes = training ? 3.0 : 1.0;
  const double attn = std::min(flops, passes * layers * 4.0 * tokens * tokens * h);
  const double e_mm = family_efficiency(gpu_family(gpu)).matmul_efficiency;
  const double e_attn = perf_detail::flash_attention_share(head_dim);
  const double compute = (flops - attn) / (peak * e_mm) + attn / (peak * e_mm * e_attn);
  if (!gpu.bandwidth_gb_per_s) return compute;
  const double act_b = (w.precision == Precision::fp32 || w.precision == Precision::tf32) ? 2.0 : 1.0;
  // Two LayerNorms, GELU, no rotary embedding (perf_detail::layer_elementwise_bytes, as a language model's layer).
  const double per_token_layer = perf_detail::layer_elementwise_bytes({h, mlp, heads, tokens, 2.0, true, false, 0.0}, w.compile, w.flash_attention);
  const double traffic = passes * layers * tokens * per_token_layer * act_b / (*gpu.bandwidth_gb_per_s * 1e9 * coef::streaming_bandwidth_share.value);
  if (traffic > compute) t.bound = "memory bandwidth (norms, activations and attention scores)";
  return compute + traffic;
}

// A Swin Transformer's seconds per image from the hardware up (method.md §12.3), as the ViT's: the projections and
// the MLP at the family's matmul share, the window attention's small batched matmuls (49 x 49 per head of 32
// channels) at head_dim/(head_dim + 64) of it, and the work beside them as memory traffic at the streaming share.
// timm's WindowAttention runs eager attention (its fused path is marked experimental and off), and its block moves
// each token's channels many times (timm swin_transformer.py, under autocast):
//   LayerNorm in and out in fp32 (twice), the shifted blocks' roll of the normed map (half the blocks) and the
//   window partition of it (fp32); the casts of the normed maps to 16 bits for qkv and fc1; the qkv and MLP
//   matmuls' inputs and outputs; q scaled; the attention output transposed back; window_reverse and the roll back;
//   the two residual adds (fp32 stream, 16-bit operand); GELU over 4d:
//   13 fp32 accesses (52 B) and 35 16-bit accesses (70 B) per channel: 122 B (fp32 weights throughout: 44 x 4 B);
//   per score (heads x 49 per token): written by q @ k^T (2 B), the relative position bias added into fp32 (6 B),
//   the shift mask added in half the blocks (4 B), softmax in fp32 (8 B), cast to 16 bits for attn @ v (6 B) and
//   read (2 B): 28 B.
// A training step runs the FLOPs three times and moves the bytes three times (as the ViT's); torch.compile fuses the
// elementwise chains (half the traffic, as for convolutions). `flops`: the step's FLOPs per image.
double swin_seconds_per_image(const Workload& w, const VisionArch& a, const GpuSpec& gpu, double peak, double W, double H, double flops, bool training,
                              TimeEstimate& t) {
  const auto [base, depths] = swin_shape(a.backbone);
  const double head_dim = 32.0, window = 49.0;
  const bool fp32 = w.precision == Precision::fp32 || w.precision == Precision::tf32;
  const double channel_bytes = fp32 ? 176.0 : 122.0, score_bytes = 28.0;
  const double passes = training ? 3.0 : 1.0;
  double attn = 0, bytes = 0;
  for (std::size_t i = 0; i < depths.size(); ++i) {
    const double dim = base * std::pow(2.0, static_cast<double>(i)), tokens = W * H / std::pow(4.0 * std::pow(2.0, static_cast<double>(i)), 2.0);
    attn += passes * depths[i] * tokens * 4.0 * window * dim;  // q @ k^T and attn @ v: 2 x 49 x d multiply-adds per token
    bytes += passes * depths[i] * tokens * (channel_bytes * dim + score_bytes * dim / head_dim * window);
  }
  attn = std::min(attn, flops);
  const double e_mm = family_efficiency(gpu_family(gpu)).matmul_efficiency;
  const double e_attn = perf_detail::flash_attention_share(head_dim);
  const double compute = (flops - attn) / (peak * e_mm) + attn / (peak * e_mm * e_attn);
  if (!gpu.bandwidth_gb_per_s) return compute;
  const double traffic = bytes * (w.compile ? 0.5 : 1.0) / (*gpu.bandwidth_gb_per_s * 1e9 * coef::streaming_bandwidth_share.value);
  if (traffic > compute) t.bound = "memory bandwidth (norms, window shuffles and attention scores)";
  return compute + traffic;
}

// A ConvNeXt classifier's seconds per image from the hardware up (method.md §12.3), from the kernels timm's
// ConvNeXtBlock runs (conv_mlp=False: the MLP is two nn.Linear on the channels-last view of the map):
//   each pointwise projection (d -> 4d, 4d -> d) is one matmul kernel: the longer of its FLOPs at the family's
//   matmul share and its own input and output (5 elements per channel) at the streaming share: a roofline, not a sum;
//   the 7x7 depthwise convolution reads and writes the map (2 x 49 FLOPs per element on CUDA cores, under any GPU's
//   ridge: memory-bound) at the convolution library's share of that rate (method.md §12.3, depthwise_library);
//   the elementwise kernels beside them, per channel. Under autocast the layer scale is an fp32 parameter, so
//   gamma * x is fp32 and the residual stream with it: the block's input cast to 16 bits for the depthwise conv
//   (read 4, write 2), its map cast to fp32 for the LayerNorm (2, 4), the LayerNorm in fp32 (4, 4), its output cast
//   to 16 bits for fc1 (4, 2), GELU over 4d (8, 8), the layer scale (2, 4) and the residual add (4 + 4, 4): 60 bytes.
//   In one precision throughout (fp32, TF32, or 16-bit weights without autocast) there are no casts:
//   LayerNorm 2, GELU 8, layer scale 2 and add 3 accesses: 15 per channel. torch.compile fuses the casts into the
//   LayerNorm (read 2, write 2) and the layer scale, add and the next block's cast into one kernel (2 + 4 in,
//   4 + 2 out): 32 bytes under autocast; 12 accesses in one precision. TensorRT runs GELU, the layer scale and the
//   add in the matmuls' epilogues and the LayerNorm as one kernel: 2 accesses, and the shortcut's read: 3.
// The stem, the downsampling convolutions and the head run at the convolution rate (§12.3), their LayerNorms as
// the block's. A training step runs the FLOPs three times and moves the bytes three times (as the ViT's).
// `flops`: the step's FLOPs per image.
double convnext_seconds_per_image(const Workload& w, const VisionArch& a, const GpuSpec& gpu, double peak, double W, double H, double flops, bool training,
                                  TimeEstimate& t) {
  const auto [base, depths] = convnext_shape(a.backbone);
  const bool trt = w.framework == Framework::tensorrt;
  const bool one_precision = w.precision == Precision::fp32 || w.precision == Precision::tf32 || w.effective_master_weights() != MasterWeights::fp32 || trt;
  const double act_b = memory_detail::activation_bytes(w.precision);
  // Bytes per channel element: the kernels beside the matmuls, the LayerNorm chain alone (stem, downsampling).
  const double beside = one_precision ? (trt ? 3.0 : w.compile ? 12.0 : 15.0) * act_b : (w.compile ? 32.0 : 60.0);
  const double norm = one_precision ? 2.0 * act_b : (w.compile ? 4.0 : 20.0);
  const double passes = training ? 3.0 : 1.0;
  const FamilyEfficiency& fam = family_efficiency(gpu_family(gpu));
  const double mm_rate = peak * fam.matmul_efficiency, conv_rate = peak * conv_share(gpu, act_b == 4.0 ? "tf32" : "fp16");
  const double bw = gpu.bandwidth_gb_per_s ? *gpu.bandwidth_gb_per_s * 1e9 * coef::streaming_bandwidth_share.value : 0.0;
  double matmuls = 0, block_flops = 0, depthwise = 0, elementwise = 0;
  const double px = W * H;
  elementwise += norm * base * px / 16.0;  // the stem's LayerNorm
  for (std::size_t i = 0; i < depths.size(); ++i) {
    const double d = base * std::pow(2.0, static_cast<double>(i)), p = px / std::pow(4.0 * std::pow(2.0, static_cast<double>(i)), 2.0);
    if (i > 0) elementwise += norm * (d / 2.0) * 4.0 * p;  // the downsampling LayerNorm over the previous stage's map
    const double gemm_flops = 2.0 * 4.0 * d * d * p, gemm_bytes = 5.0 * d * p * act_b;
    matmuls += depths[i] * 2.0 * (bw > 0 ? std::max(gemm_flops / mm_rate, gemm_bytes / bw) : gemm_flops / mm_rate);
    block_flops += depths[i] * (2.0 * gemm_flops + 2.0 * 49.0 * d * p);
    depthwise += depths[i] * 2.0 * d * p * act_b;
    elementwise += depths[i] * beside * d * p;
  }
  const double rest = std::max(0.0, flops - passes * block_flops) / conv_rate;
  const double depthwise_secs = bw > 0 ? passes * depthwise / fam.depthwise_library / bw : 0.0;
  const double memory = depthwise_secs + (bw > 0 ? passes * elementwise / bw : 0.0);
  const double secs = passes * matmuls + rest + memory;
  if (memory > passes * matmuls + rest) t.bound = "memory bandwidth (depthwise convolutions, norms and activations)";
  if (fam.depthwise_library < 1.0 && bw > 0)
    t.notes.push_back(Note::format("the 7x7 depthwise convolutions run at {:.1f}% of the streaming rate here, {:.0f}% of the time: MIOpen had no "
                                   "kernel for them (its naive solvers, ROCm/rocm-libraries#9168; method.md §12.3)",
                                   100.0 * fam.depthwise_library, 100.0 * depthwise_secs / secs));
  return secs;
}

// Seconds of weight traffic per micro-batch of a training step (method.md §12.3). The optimizer step is memory
// traffic, as in §8.2 (optimizer_step_bytes: AdamW with fp32 weights 30 bytes per trained parameter, SGD with momentum 20, at
// 80 % of peak bandwidth), once per optimizer step. Mixed precision with fp32 weights (PyTorch autocast) adds,
// every micro-batch, a cast of each trained weight to 16 bits (read 4 bytes, write 2) and the cast of its 16-bit
// gradient back to the fp32 leaf (read 2, write 4): 12 bytes per parameter, which a small batch of a large network
// feels (ViT-H/14 at batch 8: 7.6 GB a step).
double weight_traffic_seconds(const Workload& w, const GpuSpec& gpu, double params) {
  const double opt_bytes = perf_detail::optimizer_step_bytes(w.optimizer);
  const bool autocast = (w.precision == Precision::fp16 || w.precision == Precision::bf16) && w.effective_master_weights() == MasterWeights::fp32;
  const double bytes = params * (opt_bytes / static_cast<double>(w.grad_accum) + (autocast ? 12.0 : 0.0));
  return bytes / (*gpu.bandwidth_gb_per_s * 1e9 * coef::streaming_bandwidth_share.value);
}

// JPEG files reach the GPU no faster than the decode path delivers them (method.md §14): the job runs at the lesser
// rate, and the notes say which path sets it and how to lift it.
void input_feed(const Workload& w, const GpuSpec& gpu, double W, double H, TimeEstimate& t) {
  const ImageFeed feed = image_feed(w, gpu, W, H);
  t.input_images_per_second = feed.per_gpu;
  if (feed.unknown) t.notes.push_back(Note(feed.how));
  if (!t.input_bound()) return;
  t.bound = "input (JPEG decoding on the host)";
  t.notes.push_back(Note::format("the input sets the pace: {} feed about {:.0f} images/s per GPU, fewer than the GPU runs; decode on the GPU "
                                 "(--image-decode gpu: {}) or pre-decode the data set (FFCV; --image-decode none) to reach the GPU's rate",
                                 feed.how, *t.input_images_per_second, gpu_jpeg_decoder(gpu)));
}

}  // namespace

// Vision throughput (method.md §12.3): images/s = dense peak x utilisation / FLOPs per image, plus the traffic,
// the optimizer step and the post-processing beside them.
TimeEstimate perf_detail::estimate_vision_time(const Workload& w, const ModelSpec& m, const GpuSpec& gpu) {
  TimeEstimate t;
  const VisionArch a = vision_arch(w, m);
  PrecisionSupport ps = precision_support(w, gpu);
  // PyTorch runs fp32 convolutions on TF32 tensor cores by default on Ampere and newer
  // (torch.backends.cudnn.allow_tf32 = True); convolutional networks asked in fp32 are timed so, and say it.
  // --precision tf32 asks for the same; an fp32-only run (allow_tf32 = False) is timed with --mfu.
  const bool conv_net = a.backbone != "vit" && a.backbone != "dit" && a.task != "generation";
  if (w.precision == Precision::fp32 && conv_net && gpu.stack == "cuda" && gpu.peak_flops("tf32")) {
    ps.compute_key = "tf32";
    t.notes.push_back("fp32 convolutions run on TF32 tensor cores (PyTorch's default torch.backends.cudnn.allow_tf32 = True)");
  }
  t.compute_key = ps.compute_key;
  if (!ps.note.empty()) t.notes.push_back(ps.note);
  const auto peak = gpu.peak_flops(ps.compute_key);
  if (!peak) {
    t.notes.push_back(Note::format("no {} peak in the catalogue: throughput unknown", ps.compute_key));
    return t;
  }
  const auto [W, H] = image_size(w, m);
  const bool training = is_training(w.mode);
  if (a.task == "generation") return denoiser_time(w, a, gpu, *peak, W, H, training, std::move(t));

  t.input_pixels = W * H;
  const VisionCounts vc = vision_counts(a, W, H, training, vision_policy(w));
  // Training: forward + backward (2x) of the trained part, forward only through frozen stages.
  double flops = 2.0 * (training ? 3.0 * (vc.macs - vc.frozen_macs) + vc.frozen_macs : vc.macs);
  // Grouped 3x3 convolutions (ResNeXt's 32 or 64 groups of 4-8 channels) have little work per group and run
  // at a fraction of the dense utilisation (method.md §12.3).
  flops += 2.0 * (training ? 3.0 : 1.0) * vc.grouped_macs * (1.0 / k_grouped_conv_efficiency - 1.0);
  // Convolutional networks on tensor cores are timed from the hardware up (method.md §12.3), as the sum of
  //   the convolutions at k_conv_tensor_share of the dense tensor peak,
  //   the CUDA-core work beside them (norm and activation arithmetic, epilogues, index math):
  //     k_conv_cuda_share of the FLOPs at the fp32 (CUDA-core) peak. It is what makes data-centre chips, with
  //     8-16x more tensor than CUDA-core FLOPs, reach a smaller share of their tensor peak than GeForce cards
  //     (2x),
  //   the feature-map traffic: each element written and read about 14 x 0.7 times in a training step
  //     (forward, norm and activation passes, backward reads, gradient writes) and 3.75 x 0.7 in inference, at
  //     70 % of peak bandwidth.
  // The three coefficients were fitted together on the calibration rows (NVIDIA's ResNet-50 rows on T4, V100,
  // A100; detectron2's V100 rows); timm's RTX 3090/4090/5090 rows and Lambda's rows are held out.
  // fp32 on CUDA cores keeps one utilisation (0.65 of the fp32 peak). ViTs on tensor cores are timed layer by
  // layer (vit_seconds_per_image).
  const bool vit_layers = a.backbone == "vit" && ps.compute_key != "fp32" && !w.mfu;
  // A Swin classifier is timed layer by layer too; as a detector's backbone it stays on the convolution model.
  const bool swin_layers = a.backbone.rfind("swin", 0) == 0 && a.task == "classification" && ps.compute_key != "fp32" && !w.mfu;
  // A ConvNeXt classifier likewise (its MLP is matmuls on the channels-last view, not convolutions).
  const bool convnext_layers = a.backbone.rfind("convnext", 0) == 0 && a.task == "classification" && ps.compute_key != "fp32" && !w.mfu;
  const bool tensor_convs = ps.compute_key != "fp32" && a.backbone != "vit" && !swin_layers && !convnext_layers;
  // The vendor's convolution library (efficiency.cpp: MIOpen reaches a smaller share than cuDNN) scales the
  // convolution rate; ViTs are matmuls and keep the family's matmul share.
  const double fp32_share = coef::fp32_cuda_core_share.value;
  double util = ps.compute_key == "fp32" ? fp32_share : conv_share(gpu, ps.compute_key);
  const bool det = a.task != "classification" && a.task != "segmentation";
  if (w.mfu) util = *w.mfu;
  const double b = static_cast<double>(w.batch);
  double secs = vit_layers        ? b * vit_seconds_per_image(w, a, gpu, *peak, W, H, flops, training, t)
                : swin_layers     ? b * swin_seconds_per_image(w, a, gpu, *peak, W, H, flops, training, t)
                : convnext_layers ? b * convnext_seconds_per_image(w, a, gpu, *peak, W, H, flops, training, t)
                                  : b * flops / (*peak * util);
  if (vit_layers || swin_layers || convnext_layers) util = b * flops / (*peak * secs);  // the share the layers reach
  const auto cuda_peak = gpu.peak_flops("fp32");
  if (tensor_convs && !w.mfu && cuda_peak) secs += k_conv_cuda_share * b * flops / *cuda_peak;
  if (tensor_convs && !w.mfu && !cuda_peak)  // an unknown stays unknown: say what the rate leaves out
    t.notes.push_back("no fp32 (vector-core) peak in the catalogue: the convolutions' normalisation and elementwise work on the vector cores is left out, so this rate is an upper bound");
  if (a.backbone != "vit" && !swin_layers && !convnext_layers && gpu.bandwidth_gb_per_s) {
    const double t_bw = feature_map_seconds(w, a, gpu, W, H, training, tensor_convs, b);
    if (tensor_convs && !w.mfu) {
      // On tensor cores the traffic adds to the convolutions (they do not overlap: separate kernels).
      if (t_bw > secs) t.bound = "memory bandwidth (feature-map traffic)";
      secs += t_bw;
    } else if (t_bw > secs) {
      secs = t_bw;
      t.bound = "memory bandwidth (feature-map traffic)";
    }
  }
  if (tensor_convs && !w.mfu) secs += layout_transpose_seconds(w, a, gpu, vc, training, b, secs, t);
  if (training && !w.mfu && gpu.bandwidth_gb_per_s) secs += weight_traffic_seconds(w, gpu, vc.params);
  // Detection inference post-processing per image: two-stage detectors 13 ms (proposal NMS, ROI ops, mask
  // paste; MMDetection rows on a V100), single-stage detectors (YOLO, RetinaNet) about 1 ms of NMS
  // (Ultralytics' reported postprocess times).
  const bool two_stage = a.head != "yolo" && a.head != "retinanet";
  if (det && !training) {
    t.postprocess_seconds_per_image = two_stage ? coef::two_stage_postprocess_s.value : coef::nms_postprocess_s.value;
    secs += t.postprocess_seconds_per_image * b;
  }
  // A training step launches the forward's and the backward's kernels: two passes (as §8.2). The two-stage
  // inference figure above was fitted on batch-1 rows, so it already holds their launches; TensorRT has no Python
  // dispatch.
  if (!(det && two_stage && !training) && w.framework != Framework::tensorrt && !w.mfu) secs = host_floor(secs, t, training ? 2.0 : 1.0);
  t.images_per_second = b / secs;
  if (!w.streams) input_feed(w, gpu, W, H, t);
  // A job of --images (times --epochs in training) over every GPU of a data-parallel plan, at its input's pace.
  if (w.images) t.job_seconds = *w.images * (training ? w.epochs.value_or(1.0) : 1.0) / (*t.paced_images_per_second() * static_cast<double>(w.gpus));
  t.utilization = util;
  if (t.bound.empty()) t.bound = "compute";
  if (w.gpus > 1 && training && !gpu.has_nvlink()) t.notes.push_back("data parallel over PCIe: gradient all-reduce not hidden");
  return t;
}

}  // namespace gpuadvise
