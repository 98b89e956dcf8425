// The rates a forward's matmuls and attention run at, by part and precision: docs/method.md §8.3.
#include <algorithm>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/efficiency.hpp"
#include "perf_common.hpp"

namespace gpuadvise::perf_detail {

double matmul_share(const TimeBasis& in, double share) { return share * (in.ps.compute_key == "fp4" ? coef::fp4_matmul_share.value : 1.0); }

double peak16(const TimeBasis& in) { return in.io.gpu.peak_flops("bf16").value_or(in.io.gpu.peak_flops("fp16").value_or(in.peak.value_or(0))); }

// The share of the 16-bit matmul share an MXFP4 checkpoint's experts reach served weight-only by the engines' Triton
// MoE kernels (matmul_ogs), which upcast each 4-bit weight to 16 bits with integer bit operations in the main loop
// before the tensor cores take it: weight_only_moe_share where a multiprocessor has 64 INT32 lanes per 1,024 dense
// 16-bit FMA a clock (the A100; an MI300X's compute unit alike: 64 lanes, 1,307 TFLOPS over 304 CUs at 2.1 GHz), half
// of it on Hopper, whose SM has the same 64 lanes against twice the FMA (A100, H100 and CDNA 3 whitepapers); no figure
// elsewhere (1: Ada's and GA10x's tensor cores run at half the A100's rate per SM, so the upcast keeps up).
double weight_only_upcast_share(const TimeBasis& in) {
  const Framework f = in.io.w.effective_framework();
  if (f != Framework::vllm && f != Framework::sglang && f != Framework::trtllm) return 1.0;
  const double cc = in.io.gpu.cc(), w = coef::weight_only_moe_share.value;
  if (cc == 9.0) return w / 2.0;
  return cc == 8.0 || (in.io.gpu.stack == "rocm" && in.io.gpu.gfx_target == "gfx942") ? w : 1.0;
}

MatmulRates matmul_rates(const TimeBasis& in, double share) {
  const double low = in.peak.value_or(0) * matmul_share(in, share);
  if (!in.io.w.mxfp4_checkpoint || in.io.w.precision != Precision::fp4) return {low, low};
  if (in.ps.compute_key != "fp4") return {low * weight_only_upcast_share(in), low};  // no FP4 tensor cores: weight-only
  const auto fp8 = in.io.gpu.peak_flops("fp8");
  const bool w4a8 = in.io.w.effective_framework() == Framework::trtllm && fp8;
  return {w4a8 ? *fp8 * share : low, peak16(in) * share};
}

double routed_expert_flops(const TimeBasis& in, double tokens) {
  const ModelSpec& m = in.io.m;
  return in.pc.routed_experts > 0 && m.experts > 0 ? 2.0 * in.pc.routed_experts * d(m.experts_per_token) / d(m.experts) * tokens : 0.0;
}

double prefill_matmul_share(const GpuSpec& gpu) {
  const GpuFamily f = gpu_family(gpu);
  const bool other_vendor = f == GpuFamily::cdna3 || f == GpuFamily::cdna4 || f == GpuFamily::rdna3 || f == GpuFamily::gaudi3;
  return other_vendor ? family_efficiency(f).matmul_efficiency : coef::prefill_share.value;
}

double prefill_attention_rate(const TimeBasis& in) {
  const auto& [w, m, gpu, mem] = in.io;
  // QK^T and PV in 16 bits, or in FP8 where TensorRT-LLM's context kernels run them: its attention op sets FP8
  // context FMHA when the attention's output is quantised (FP8 or FP4 projections) or the cache is FP8 with paged
  // context FMHA (cpp/tensorrt_llm/thop/attentionOp.cpp, mFP8ContextFMHA); never at an FP4 peak.
  const bool low_math = in.ps.compute_key == "fp8" || in.ps.compute_key == "fp4";
  const bool fp8 = w.effective_framework() == Framework::trtllm && (low_math || w.effective_kv_precision() == Precision::fp8);
  const double eta = prefill_matmul_share(gpu);
  const double tensor = (fp8 ? gpu.peak_flops("fp8").value_or(peak16(in)) : peak16(in)) * eta;
  // Each score (a query-key pair) is 4·d FLOPs on the tensor cores and one exponential on the special-function
  // units; a fused attention overlaps the softmax with the matmuls (FA3 §3.1), so the slower of the two bounds it.
  // Even at d = 128 in FP8 on Hopper; on Blackwell, twice the matmul rate for the same exponentials, they bound it,
  // the more at d = 64 (gpt-oss).
  const auto exps = exponentials_per_s(gpu);
  return exps && m.head_dim > 0 ? std::min(tensor, 4.0 * d(m.head_dim) * *exps * eta) : tensor;
}

}  // namespace gpuadvise::perf_detail
