// Image-generation time from the hardware up (method.md §12.4): each denoising step is one denoiser forward of the
// pipeline's batch (twice it under classifier-free guidance), timed as its convolutions and projections at a share
// of the tensor peak that falls when a layer's output is too small to fill the GPU, plus the memory-bound work
// beside them (GroupNorm, SiLU, residual adds) at the CUDA-core rate and the memory bandwidth; an eager step cannot
// run faster than the host dispatches its operations. The text encoders run once and the VAE decodes each image.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/efficiency.hpp"
#include "gpuadvise/memory.hpp"
#include "perf_common.hpp"

namespace gpuadvise::perf_detail {

namespace {

// Eager operations counted in diffusers' modules (method.md §12.4): a ResNet block (two GroupNorm + SiLU + conv,
// the time-embedding projection and add, the residual add and scale), a transformer layer (three norms,
// self- and cross-attention projections and SDPA, the GEGLU feed-forward, the residual adds) and the wrapper
// of an attention block (GroupNorm, projections in and out, reshapes), a diffusion-transformer block (the
// modulations, q/k norms, rotary embedding, attention, the gated MLP; double-stream blocks twice).
constexpr double k_resnet_ops = 14, k_transformer_ops = 40, k_attention_block_ops = 10, k_dit_block_ops = 60;
// A UNet level has two ResNet blocks (and attention blocks) on the way down and three on the way up.
constexpr double k_blocks_per_level = 5;

// One denoiser forward of n samples: its tensor-core seconds, its element passes (elements read or written by a
// memory-bound kernel) and its eager operations.
struct Forward {
  double tensor_s = 0, passes = 0, ops = 0, flops = 0;
  double full_tensor_s = 0;  // the tensor seconds at full occupancy
  double stream_s = 0;       // memory-bound seconds counted as bytes (a diffusion transformer's)
};

// One denoising step of `samples` denoiser inputs: its FLOPs and seconds on the tensor cores (and at full occupancy),
// on the memory-bound work beside them, of its kernels beyond their work, and of the host's eager dispatch.
struct DenoiserStep {
  double flops = 0, tensor_s = 0, full_tensor_s = 0, elementwise_s = 0, launch_s = 0, host_s = 0;
  double gpu_s() const { return tensor_s + elementwise_s + launch_s; }
  double seconds() const { return std::max(gpu_s(), host_s); }
};

// The rate of a layer's GEMM or convolution falls when its output (rows x width) is too small to fill the GPU.
double occupancy(double out_elements) { return out_elements / (out_elements + coef::denoiser_half_occupancy.value); }

// A UNet (method.md §12.4): per level, ResNet blocks of two 3x3 convolutions (18·C²·T multiply-adds) and
// transformer layers (projections, cross-attention, GEGLU: 18·C²·T; scores 2·T²·C).
// Convolutions and projections run at their own rates (fp32 convolutions on TF32 tensor cores, projections not).
Forward unet_forward(const VisionArch& a, double lw, double lh, double n, double conv_rate, double matmul_rate, bool channels_last) {
  Forward f;
  // A channels_last UNet pays its GroupNorms' layout conversions on top of the contiguous passes.
  const double resnet = coef::resnet_block_passes.value + (channels_last ? coef::channels_last_passes.value : 0.0);
  for (std::size_t i = 0; i < a.levels.size(); ++i) {
    const double sc = std::pow(2.0, static_cast<double>(i));
    const double T = (lw / sc) * (lh / sc), C = static_cast<double>(a.levels[i].channels), tl = static_cast<double>(a.levels[i].transformer_layers);
    const double conv = k_blocks_per_level * 18.0 * C * C * T, attn = k_blocks_per_level * tl * (18.0 * C * C * T + 2.0 * T * T * C);
    f.flops += n * 2.0 * (conv + attn);
    const double full = n * 2.0 * (conv / conv_rate + attn / matmul_rate);
    f.full_tensor_s += full;
    f.tensor_s += full / occupancy(n * T * C);
    f.passes += n * k_blocks_per_level * T * C * (resnet + tl * coef::transformer_layer_passes.value);
    f.ops += k_blocks_per_level * (k_resnet_ops + tl * k_transformer_ops + (tl > 0 ? k_attention_block_ops : 0.0));
  }
  return f;
}

// Element accesses per channel and token of one diffusion-transformer block in diffusers' eager code (16-bit and
// fp32), and what torch.compile leaves once it fuses each chain of elementwise kernels (method.md §12.4). Counted
// from FluxTransformerBlock, FluxSingleTransformerBlock and JointTransformerBlock (diffusers): per block, the
// LayerNorm and its AdaLN modulation (2 + 2), the attention output's transpose to the projection (2), the gated
// residual add (2 + 3), and the GELU over the 4x-wide MLP (8); a double-stream block also concatenates its two
// streams' q, k and v (6), norms and modulates again before the MLP (4) and adds it through a second gate (5); a
// single-stream block concatenates attention and MLP outputs into one projection (10). With q/k RMSNorm (FLUX:
// cast to fp32, square, mean, scale, cast back, weight; 5 16-bit and 6 fp32 accesses for each of q and k) and rotary
// embedding in fp32 (the half negated, stacked, both cast up, times cos and sin, added, cast back: 6 and 10 each).
struct BlockAccesses {
  double a16, a32;
};
BlockAccesses dit_block_accesses(const VisionArch& a, bool double_stream, bool compiled) {
  const double norm = a.dit_qk_norm ? 1.0 : 0.0, rope = a.dit_rope ? 1.0 : 0.0;
  if (compiled) {
    // Each chain one kernel: norm and modulation 2, q/k norm and rotation 4, the transposed output 2, gate and
    // residual 3, GELU 8; double-stream: the value's concatenation 2 (6 unrotated), the second norm 2 and gate 3.
    const double qk = (norm + rope > 0.0) ? 4.0 : 0.0;
    return double_stream ? BlockAccesses{2.0 + qk + (qk > 0.0 ? 2.0 : 6.0) + 2.0 + 3.0 + 2.0 + 8.0 + 3.0, 0.0} : BlockAccesses{2.0 + 8.0 + qk + 2.0 + 3.0, 0.0};
  }
  const double a16 = (double_stream ? 4.0 + 6.0 + 2.0 + 5.0 + 4.0 + 8.0 + 5.0 : 4.0 + 8.0 + 2.0 + 10.0 + 5.0) + norm * 10.0 + rope * 12.0;
  return {a16, norm * 12.0 + rope * 20.0};
}

// A diffusion transformer from the hardware up (method.md §12.4), as the ViTs of §12.3: each token passes its own
// stream's weights (12·h² multiply-adds a block: the q, k, v and output projections and the 4x MLP, in either block
// kind; the AdaLN modulations run once per sample), at the family's matmul share; the joint attention (2·T²·h a
// block) at head_dim/(head_dim + 64) of it ([FA2] Fig. 5-6, as §8.2); the elementwise kernels beside them as
// bytes at the streaming share of the bandwidth (16-bit under bf16/fp16, all fp32 in fp32).
Forward dit_forward(const Workload& w, const VisionArch& a, const GpuSpec& gpu, double lw, double lh, double n, double peak_flops) {
  Forward f;
  const double T = (lw / 2.0) * (lh / 2.0) + static_cast<double>(a.dit_text_tokens), h = static_cast<double>(a.dit_hidden);
  const double blocks = static_cast<double>(a.dit_blocks), doubles = static_cast<double>(a.dit_double_blocks);
  const double heads = static_cast<double>(std::max<std::int64_t>(1, a.dit_heads));
  const double proj = n * blocks * 12.0 * h * h * T, attn = n * blocks * 2.0 * T * T * h;
  f.flops = 2.0 * (proj + attn);
  const bool fp32 = w.precision == Precision::fp32;
  const double e_mm = fp32 ? coef::fp32_cuda_core_share.value : family_efficiency(gpu_family(gpu)).matmul_efficiency;
  const double e_attn = flash_attention_share(h / heads);
  f.full_tensor_s = 2.0 * proj / (peak_flops * e_mm) + 2.0 * attn / (peak_flops * e_mm * e_attn);
  f.tensor_s = f.full_tensor_s / occupancy(n * T * h);
  const BlockAccesses dbl = dit_block_accesses(a, true, w.compile), sgl = dit_block_accesses(a, false, w.compile);
  const double b16 = fp32 ? 4.0 : 2.0;
  const double per_token = doubles * (dbl.a16 * b16 + dbl.a32 * 4.0) + (blocks - doubles) * (sgl.a16 * b16 + sgl.a32 * 4.0);
  if (gpu.bandwidth_gb_per_s) f.stream_s = n * T * h * per_token / (*gpu.bandwidth_gb_per_s * 1e9 * coef::streaming_bandwidth_share.value);
  f.ops = blocks * k_dit_block_ops;
  return f;
}

// VAE decoder multiply-adds for one W x H image (diffusers AutoencoderKL as in SD 1.x, SDXL and FLUX.1:
// block_out_channels 128-256-512-512, a mid block of two ResNet blocks and one attention at the latent
// resolution, then four up levels of three ResNet blocks (two 3x3 convs each, a 1x1 shortcut where the width
// changes) with a 3x3 conv after each 2x upsampling; method.md §12.4). `resnet_elements` receives the
// channel-positions of its ResNet blocks (for their memory-bound work).
double vae_decode_macs(double W, double H, double* resnet_elements) {
  const double T0 = W * H / 64.0, ch[] = {512, 512, 256, 128};
  double macs = T0 * (4.0 * 9.0 * 512 * 512 + 4.0 * 512 * 512) + 2.0 * T0 * T0 * 512;
  double elements = 2.0 * T0 * 512;
  double in = 512, T = T0;
  for (int i = 0; i < 4; ++i) {
    const double c = ch[i];
    macs += T * (9.0 * in * c + 9.0 * c * c + (in != c ? in * c : 0.0) + 2.0 * 18.0 * c * c);
    elements += 3.0 * T * c;
    if (i < 3) macs += 4.0 * T * 9.0 * c * c;
    in = c;
    T *= 4.0;
  }
  if (resnet_elements) *resnet_elements = elements;
  return macs + 9.0 * 128 * 3 * W * H;
}

// Seconds of one element pass: its CUDA-core operations at the fp32 peak and its bytes (read or written once) at the
// feature-map share of the bandwidth (method.md §12.4).
double element_pass_seconds(const Workload& w, const GpuSpec& gpu) {
  const double act_bytes = (w.precision == Precision::fp32 || w.precision == Precision::tf32) ? 4.0 : 2.0;
  double s = 0;
  if (const auto p32 = gpu.peak_flops("fp32")) s += coef::element_pass_ops.value / *p32;
  if (gpu.bandwidth_gb_per_s) s += act_bytes / (*gpu.bandwidth_gb_per_s * 1e9 * coef::feature_map_bandwidth_share.value);
  return s;
}

// The rate of a denoiser's convolutions: the UNet's share of the peak times the vendor's convolution library; fp32
// convolutions on TF32 tensor cores where PyTorch allows them by default (torch.backends.cudnn.allow_tf32).
double conv_rate(const Workload& w, const GpuSpec& gpu, double peak_flops) {
  double peak = peak_flops;
  if (w.precision == Precision::fp32 && gpu.stack == "cuda")
    if (const auto tf32 = gpu.peak_flops("tf32")) peak = *tf32;
  return peak * coef::denoiser_share.value * family_efficiency(gpu_family(gpu)).conv_library;
}

DenoiserStep denoiser_step(const Workload& w, const VisionArch& a, const GpuSpec& gpu, double peak_flops, double W, double H, double samples) {
  // A UNet's convolutions and projections at denoiser_share (fp32 projections on CUDA cores at their share): its
  // GEMMs are large and inference-only, and reach more of the peak than training's (§8.2's family table). A
  // diffusion transformer's rates are its own (dit_forward).
  auto unet = [&] {
    const double matmul_rate = peak_flops * (w.precision == Precision::fp32 ? coef::fp32_cuda_core_share.value : coef::denoiser_share.value);
    return unet_forward(a, W / 8.0, H / 8.0, samples, conv_rate(w, gpu, peak_flops), matmul_rate, w.channels_last.value_or(false));
  };
  const Forward f = a.backbone == "dit" ? dit_forward(w, a, gpu, W / 8.0, H / 8.0, samples, peak_flops) : unet();
  DenoiserStep s;
  s.flops = f.flops;
  s.tensor_s = f.tensor_s;
  s.full_tensor_s = f.full_tensor_s;
  const double fused = w.compile ? coef::compiled_pass_share.value : 1.0;
  s.elementwise_s = f.passes * fused * element_pass_seconds(w, gpu) + f.stream_s;
  // Each operation's kernels take a few microseconds of GPU time beyond their work at small sizes.
  s.launch_s = f.ops * fused * coef::eager_op_gpu_s.value;
  // torch.compile's CUDA graphs replay the step without the host; eager, the host dispatches every operation.
  s.host_s = w.compile ? 0.0 : f.ops * coef::eager_op_host_s.value;
  return s;
}

}  // namespace

// Image generation (method.md §12.4): the pipeline's steps (or --steps), one denoiser forward each (of twice the
// batch under classifier-free guidance), the text encoders once per prompt and the VAE decode of each image;
// training one forward and backward per image at a sampled timestep. diffusers' CPU offload adds the weights'
// trips over PCIe.
TimeEstimate denoiser_time(const Workload& w, const VisionArch& a, const GpuSpec& gpu, double peak_flops, double W, double H, bool training, TimeEstimate t) {
  // The element passes run on the vector (CUDA) cores: without their peak the step's time is unknown, not free.
  if (!w.mfu && !gpu.peak_flops("fp32")) {
    t.notes.push_back("no fp32 (vector-core) peak in the catalogue: the denoiser's normalisation and elementwise work, and so its throughput, are unknown");
    return t;
  }
  const double b = static_cast<double>(w.batch);
  const double steps = static_cast<double>(!training && w.steps ? *w.steps : a.default_steps);
  const double guidance = !training && a.cfg ? 2.0 : 1.0;
  const DenoiserStep st = denoiser_step(w, a, gpu, peak_flops, W, H, b * guidance);
  const FamilyEfficiency& fam = family_efficiency(gpu_family(gpu));
  double secs = 0, flops = 0;
  if (training) {
    // Forward + backward (LoRA/QLoRA skip the frozen weights' gradients: 2x the forward), a recomputed forward
    // with gradient checkpointing; autograd launches the backward's operations as the forward's.
    const bool adapters = w.mode == Mode::lora || w.mode == Mode::qlora;
    const double passes = (adapters ? 2.0 : 3.0) + (w.checkpointing != Checkpointing::none ? 1.0 : 0.0);
    flops = st.flops * passes;
    secs = w.mfu ? flops / (peak_flops * *w.mfu) : std::max(st.gpu_s() * passes, st.host_s * 2.0);
    if (!w.mfu && w.mode == Mode::qlora && gpu.bandwidth_gb_per_s)  // in each pass, once per micro-batch whatever its images
      secs += nf4_dequant_seconds(a.denoiser_params, passes, *gpu.bandwidth_gb_per_s * 1e9 * coef::streaming_bandwidth_share.value);
    if (!w.mfu && st.host_s * 2.0 > st.gpu_s() * passes) t.bound = k_host_bound;
    t.notes.push_back("one denoiser forward and backward per image at a sampled timestep");
  } else {
    // The text encoders: two FLOPs per parameter and token (CLIP's 77 tokens, or the transformer's text tokens),
    // for the prompt and, under guidance, the negative prompt; the VAE decode on the UNet's convolution terms.
    const double tokens = a.dit_text_tokens > 0 ? static_cast<double>(a.dit_text_tokens) : 77.0;
    const double text_flops = 2.0 * a.text_encoder_params * tokens * b * guidance;
    double vae_elements = 0;
    const double T0 = W * H / 64.0;
    const double vae_flops = b * 2.0 * vae_decode_macs(W, H, &vae_elements);
    const double vae_s = vae_flops / (conv_rate(w, gpu, peak_flops) * occupancy(b * T0 * 512.0)) +
                         b * vae_elements * coef::resnet_block_passes.value * element_pass_seconds(w, gpu);
    flops = steps * st.flops + vae_flops + text_flops;
    const double step_s = w.mfu ? st.flops / (peak_flops * *w.mfu) : st.seconds();
    secs = steps * step_s + (w.mfu ? (vae_flops + text_flops) / (peak_flops * *w.mfu) : vae_s + text_flops / (peak_flops * fam.matmul_efficiency));
    t.denoising_steps_per_second = 1.0 / step_s;
    // What a larger batch amortises (the planner's batch search): the host's wait and the idle tiles of small layers.
    if (!w.mfu) t.fixed_share = std::max(0.0, 1.0 - (st.full_tensor_s + st.elementwise_s) / step_s);
    const bool host_bound = !w.mfu && st.host_s > st.gpu_s();
    if (host_bound) t.bound = k_host_bound;
    t.notes.push_back(Note::format("{:.0f} denoising steps of {:.0f} ms{}, then the VAE decode ({:.2f} TFLOP per image)", steps, step_s * 1e3,
                                   a.cfg ? " with classifier-free guidance" : "", vae_flops / b / 1e12));
    if (host_bound)
      t.notes.push_back(Note::format("each step waits on the host: {:.0f} ms of eager dispatch against {:.0f} ms of GPU work (--compile replays it as CUDA graphs)",
                                     st.host_s * 1e3, st.gpu_s() * 1e3));
    if (w.offload == Offload::model || w.offload == Offload::sequential) {
      // diffusers' CPU offload moves weights over the host link (PCIe) from host memory: model offload each component once per
      // pipeline call; sequential offload the denoiser at every step (and the rest once).
      const double bits = weight_bits(w.precision, w.double_quant) / 8.0;
      const bool quant = is_quantised_weights(w.precision);
      const double den_w = a.denoiser_params * bits, rest_w = text_encoder_bytes(a, w.precision == Precision::fp16, quant ? 2.0 : bits) + a.vae_params * (quant ? 2.0 : bits);
      const double moved = w.offload == Offload::model ? den_w + rest_w : den_w * steps + rest_w;
      const double pcie = host_to_device_bytes_per_s(gpu);
      secs += moved / pcie;
      t.notes.push_back(Note::format("{} CPU offload moves {:.0f} GB from host memory over {} per call ({:.1f} s)",
                                     w.offload == Offload::model ? "model" : "sequential", moved / 1e9, host_link_name(gpu), moved / pcie));
    }
  }
  t.images_per_second = b / secs;
  if (w.images) t.job_seconds = *w.images * (training ? w.epochs.value_or(1.0) : 1.0) / (*t.images_per_second * static_cast<double>(w.gpus));
  // The share of the peak the whole job reaches.
  t.utilization = w.mfu.value_or(flops / (secs * peak_flops));
  if (t.bound.empty()) t.bound = "compute";
  return t;
}

}  // namespace gpuadvise::perf_detail
