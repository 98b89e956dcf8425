// Precisions: bits per stored weight, what a GPU supports and computes in, and the sequence length a workload
// runs at (method.md §2, §5).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuadvise/memory.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {

double weight_bits(Precision p, bool double_quant) {
  switch (p) {
    case Precision::fp32: case Precision::tf32: return 32.0;
    case Precision::fp16: case Precision::bf16: return 16.0;
    case Precision::fp8: return 8.0;
    case Precision::fp4: return 4.0 + 8.0 / 16.0;  // NVFP4: E2M1 values, an FP8 (E4M3) scale per 16 (MXFP4: E8M0 per 32, 4.25)
    case Precision::int8: return 8.0 + 16.0 / 4096.0;   // LLM.int8(): int8 + a per-row fp16 scale
    case Precision::int4: return 4.0 + (16.0 + 4.0) / 128.0;  // GPTQ/AWQ group 128: fp16 scale + 4-bit zero
    case Precision::nf4: return double_quant ? 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0) : 4.0 + 32.0 / 64.0;  // QLoRA §3
    case Precision::q8_0: return 8.5008;   // llama.cpp quantize README (Llama-3.1-8B)
    case Precision::q6_k: return 6.5633;
    case Precision::q5_k_m: return 5.7036;
    case Precision::q5_0: return 5.5;      // 22 bytes per block of 32
    case Precision::q4_k_m: return 4.8944;
    case Precision::q4_0: return 4.5;      // 18 bytes per block of 32
    case Precision::q4_1: return 5.0;      // 20 bytes per block of 32
    case Precision::q3_k_m: return 3.91;   // llama.cpp quantize README (Llama 2 7B)
    case Precision::q2_k: return 3.35;
  }
  return 16.0;
}

double pipeline_split(const ModelSpec& m, std::int64_t pp) {
  if (pp <= 1) return 1.0;
  const double layers = static_cast<double>(std::max<std::int64_t>(1, m.layers + m.encoder_layers));
  return layers / std::ceil(layers / static_cast<double>(pp));
}

double pipeline_pace_split(const ModelSpec& m, const ParamCounts& pc, std::int64_t pp) {
  if (pp <= 1) return 1.0;
  const std::int64_t layers = std::max<std::int64_t>(1, m.layers + m.encoder_layers);
  // The output projection and the loss run on the last stage: V·h weights against a layer's average active
  // weights (Llama 3 8B: 0.53B against 0.22B, 2.4 layers; Qwen3-235B-A22B: 0.62B against 0.22B, 2.8).
  const double per_layer = (pc.active - pc.embedding - pc.head) / static_cast<double>(layers);
  const double head = per_layer > 0 ? static_cast<double>(m.vocab) * static_cast<double>(m.hidden) / per_layer : 0.0;
  // Whole layers per stage, the last stage lighter by the head: the largest load over the best such split.
  double best = static_cast<double>(layers) + head;
  for (std::int64_t k = (layers + pp - 1) / pp; k <= layers; ++k) {
    const std::int64_t last = std::max<std::int64_t>(0, layers - (pp - 1) * k);
    best = std::min(best, std::max(static_cast<double>(k), static_cast<double>(last) + head));
    if (last == 0) break;
  }
  return (static_cast<double>(layers) + head) / best;
}

std::int64_t effective_seq_len(const Workload& w, const ModelSpec& m) {
  if (w.seq_len) return *w.seq_len;
  if (!is_training(w.mode) && w.input_tokens && w.output_tokens)
    return static_cast<std::int64_t>(std::ceil(*w.input_tokens + *w.output_tokens));
  std::int64_t s = 2048;
  if (m.context > 0) s = std::min<std::int64_t>(s, m.context);
  return s;
}

namespace {
// The peak a workload's matmuls ask for, before any fallback.
std::string_view asked_compute_key(const Workload& w) {
  if (w.mode == Mode::qlora) return w.precision == Precision::fp32 ? "fp32" : (w.precision == Precision::fp16 ? "fp16" : "bf16");
  switch (w.precision) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::fp16: return "fp16";
    case Precision::bf16: return "bf16";
    case Precision::fp8: return "fp8";
    case Precision::fp4: return "fp4";  // NVFP4/MXFP4 weights and activations on FP4 tensor cores
    default: return "fp16";  // weight-only formats dequantise to 16-bit for the matmuls
  }
}
// An fp4 checkpoint served weight-only where no FP4 tensor cores are: vLLM and SGLang on NVIDIA GPUs from
// Ampere on (compute capability 8.0+); vLLM on CDNA 3 (gfx942: MI300X, MI325X; vLLM's gpt-oss recipe: "you can
// run it on ... MI300x, MI325x", `vllm serve openai/gpt-oss-120b` on gfx942); llama.cpp on its CUDA and ROCm
// backends, whose MXFP4 GGUF type (added with gpt-oss, ggml-org/llama.cpp#15091) dequantises in its own kernels
// like its other block formats. TensorRT-LLM runs an MXFP4 checkpoint (gpt-oss) on Hopper with its Triton MoE
// backend (its perf overview: gpt-oss-120b on one H200 and four H100s, `moe_config: backend: TRITON` for Hopper);
// its NVFP4 (ModelOpt) kernels need Blackwell.
bool fp4_weight_only(const Workload& w, const GpuSpec& gpu) {
  const Framework f = w.effective_framework();
  const double cc = gpu.cc();
  if (is_training(w.mode)) return false;
  if (f == Framework::llamacpp) return gpu.stack == "cuda" || gpu.stack == "rocm";
  if (f == Framework::trtllm) return trtllm_triton_moe(w, gpu);
  if (f == Framework::vllm && gpu.stack == "rocm" && gpu.gfx_target == "gfx942") return true;
  return (f == Framework::vllm || f == Framework::sglang) && gpu.stack == "cuda" && cc >= 8.0;
}

}  // namespace

bool trtllm_triton_moe(const Workload& w, const GpuSpec& gpu) {
  const double cc = gpu.cc();
  return w.effective_framework() == Framework::trtllm && w.mxfp4_checkpoint && gpu.stack == "cuda" && cc >= 9.0 && cc < 10.0;
}

bool precision_runs(const Workload& w, const GpuSpec& gpu) {
  const std::string_view key = asked_compute_key(w);
  if (key == "fp4" && !gpu.fp4 && !gpu.dense_tflops.get("fp4") && fp4_weight_only(w, gpu))
    return gpu.dense_tflops.get("bf16") || gpu.dense_tflops.get("fp16");
  if (key == "fp4") return !is_training(w.mode) && (gpu.fp4 || gpu.dense_tflops.get("fp4")) && (gpu.dense_tflops.get("fp4") || gpu.dense_tflops.get("fp8"));
  if (gpu.dense_tflops.get(key) || (key != "bf16" && key != "fp8")) return true;
  const double cc = gpu.cc();
  if (gpu.stack == "cuda" && cc > 0 && cc < 8.0) return false;
  return key == "bf16" || gpu.dense_tflops.get("bf16") || gpu.dense_tflops.get("fp16");
}

PrecisionSupport precision_support(const Workload& w, const GpuSpec& gpu) {
  PrecisionSupport ps;
  auto has = [&](std::string_view k) { return gpu.peak_flops(k).has_value(); };
  const bool quant = is_weight_only_quant(w.precision);
  ps.compute_key = asked_compute_key(w);
  if (ps.compute_key == "fp4") {
    // NVFP4 (and MXFP4) run as 4-bit weights and activations on FP4 tensor cores: Blackwell (compute capability
    // 10.x, 12.x) and CDNA 4. Modelled for serving pre-quantised checkpoints; FP4 training is not.
    if (is_training(w.mode)) {
      ps.supported = false;
      ps.note = "fp4 is modelled for inference (pre-quantised NVFP4/MXFP4 checkpoints), not for training; use fp8 or bf16";
      return ps;
    }
    if (!gpu.fp4 && !has("fp4")) {
      // Without FP4 tensor cores vLLM and SGLang still serve an NVFP4 or MXFP4 checkpoint on NVIDIA GPUs from
      // Ampere on, weight-only: 4-bit weights read and unpacked in the kernel, the math in 16 bits (Marlin's FP4
      // kernels, Triton's MXFP4 MoE kernels: how gpt-oss-120b runs on one H100).
      if (fp4_weight_only(w, gpu)) {
        ps.compute_key = has("bf16") ? "bf16" : "fp16";
        ps.note = Note::format("no FP4 tensor cores: the fp4 weights run weight-only ({} math, 4-bit weights unpacked in the kernel: {})", ps.compute_key,
                               w.effective_framework() == Framework::llamacpp ? "llama.cpp's MXFP4 kernels"
                               : w.effective_framework() == Framework::trtllm  ? "its Triton MoE backend"
                               : gpu.stack == "rocm"                           ? "Triton"
                                                                               : "Marlin/Triton");
        return ps;
      }
      ps.supported = false;
      ps.note = "fp4 needs FP4 tensor cores (Blackwell, compute capability 10.0 or 12.0; CDNA 4), vLLM/SGLang on an NVIDIA GPU from Ampere on, "
                "TensorRT-LLM on Hopper for an MXFP4 checkpoint, vLLM on an MI300X or MI325X, or llama.cpp (weight-only): use fp8 or int4";
      return ps;
    }
    if (has("fp4")) return ps;
    ps.compute_key = "fp8";
    ps.note = "fp4 runs on this GPU's tensor cores, but its fp4 peak is not in the catalogue: timed at the fp8 peak (an upper bound on the time)";
    if (!has("fp8")) { ps.supported = false; ps.note = "no fp4 or fp8 tensor-core figure for this GPU"; }
    return ps;
  }
  if (has(ps.compute_key)) return ps;
  if (ps.compute_key == "bf16") {
    const double cc = gpu.cc();
    if (gpu.stack == "cuda" && cc > 0 && cc < 8.0) {
      ps.supported = false;
      ps.note = "bf16 needs compute capability 8.0+ (this GPU is " + gpu.compute_capability.value_or("?") + "); use fp16";
      return ps;
    }
  }
  if (ps.compute_key == "fp8") {
    // Before Ampere no kernel takes fp8 weights at all (vLLM's weight-only FP8 needs 8.0+, FP8 tensor cores 8.9+).
    if (const double cc = gpu.cc(); gpu.stack == "cuda" && cc > 0 && cc < 8.0) {
      ps.supported = false;
      ps.note = "fp8 needs compute capability 8.0+ (weight-only fp8 kernels; fp8 tensor cores from 8.9), this GPU is " +
                gpu.compute_capability.value_or("?") + "; use fp16 or int8";
      return ps;
    }
    const char* fallback = has("bf16") ? "bf16" : "fp16";
    ps.compute_key = fallback;
    ps.note = gpu.fp8 ? Note::format("fp8 runs on this GPU's tensor cores, but its fp8 peak is not in the catalogue: timed at the {} peak (an upper bound "
                                     "on the time)", fallback)
                      : Note::format("no fp8 tensor cores: runs in {} (fp8 weights are upcast; no fp8 speed-up)", fallback);
    if (!has(fallback)) { ps.supported = false; ps.note = "no fp8 or 16-bit tensor-core figure for this GPU"; }
    return ps;
  }
  if (ps.compute_key == "tf32" && has("fp32")) {
    ps.compute_key = "fp32";
    ps.note = "no TF32 tensor cores: runs in fp32";
    return ps;
  }
  if (ps.compute_key == "fp16" && has("bf16")) { ps.compute_key = "bf16"; return ps; }
  if (quant || ps.compute_key == "fp16" || ps.compute_key == "bf16") {
    if (has("fp32")) {
      ps.note = Note::format("no {} throughput figure in the catalogue; time uses fp32", ps.compute_key);
      ps.compute_key = "fp32";
      return ps;
    }
  }
  ps.note = Note::format("throughput for {} unknown in the catalogue", ps.compute_key);
  return ps;
}

Workload with_checkpoint_precision(Workload w, const ModelSpec& m) {
  const Framework f = w.effective_framework();
  // Engines with their own file formats pick their own quantisation, but for an MXFP4 checkpoint llama.cpp keeps:
  // its converter writes the experts as GGUF MXFP4 (ggml-org's gpt-oss GGUFs).
  const bool mxfp4_gguf = f == Framework::llamacpp && m.checkpoint_precision == Precision::fp4;
  const bool own_format = (f == Framework::llamacpp && !mxfp4_gguf) || f == Framework::exllama || f == Framework::exllamav2;
  w.mxfp4_checkpoint = m.checkpoint_format == "mxfp4";
  if (w.mode != Mode::inference || w.given("precision") || own_format || !m.checkpoint_precision) return w;
  w.precision = *m.checkpoint_precision;  // read from quantization_config (hf_config.cpp)
  w.precision_from_checkpoint = true;
  return w;
}

}  // namespace gpuadvise
