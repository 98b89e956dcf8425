// Efficiency per architecture family: docs/method.md §8.2 (the coefficient table).
#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/efficiency.hpp"

#include <array>
#include <cstdlib>

namespace gpuadvise {

GpuFamily gpu_family(const GpuSpec& g) {
  // Read character by character: the estimator asks several times per evaluation.
  if (g.stack == "synapseai") return GpuFamily::gaudi3;
  if (g.is_cpu()) return GpuFamily::cpu_amx;
  if (g.stack == "rocm") {
    const std::string_view gfx = g.gfx_target ? std::string_view(*g.gfx_target) : std::string_view();
    if (gfx.starts_with("gfx942")) return GpuFamily::cdna3;
    if (gfx.starts_with("gfx950")) return GpuFamily::cdna4;
    if (gfx.starts_with("gfx11")) return GpuFamily::rdna3;
    return GpuFamily::unknown;
  }
  if (!g.compute_capability) return GpuFamily::unknown;
  const std::string_view cc = *g.compute_capability;
  if (cc.starts_with("10.")) return GpuFamily::blackwell;
  if (cc.starts_with("12.")) return GpuFamily::blackwell_rtx;
  if (cc.size() != 3 || cc[1] != '.') return GpuFamily::unknown;
  switch (cc[0] * 256 + cc[2]) {
    case '7' * 256 + '0': return GpuFamily::volta;
    case '7' * 256 + '5': return GpuFamily::turing;
    case '8' * 256 + '0': return GpuFamily::ampere;
    case '8' * 256 + '6':
    case '8' * 256 + '7': return GpuFamily::ampere_ga10x;
    case '8' * 256 + '9': return GpuFamily::ada;
    case '9' * 256 + '0': return GpuFamily::hopper;
    default: return GpuFamily::unknown;
  }
}

const char* to_string(GpuFamily f) {
  switch (f) {
    case GpuFamily::volta: return "Volta";
    case GpuFamily::turing: return "Turing";
    case GpuFamily::ampere: return "Ampere (GA100)";
    case GpuFamily::ampere_ga10x: return "Ampere (GA10x)";
    case GpuFamily::ada: return "Ada";
    case GpuFamily::hopper: return "Hopper";
    case GpuFamily::blackwell: return "Blackwell (data centre)";
    case GpuFamily::blackwell_rtx: return "Blackwell (GeForce/RTX PRO)";
    case GpuFamily::cdna3: return "CDNA 3";
    case GpuFamily::cdna4: return "CDNA 4";
    case GpuFamily::rdna3: return "RDNA 3";
    case GpuFamily::gaudi3: return "Gaudi 3";
    case GpuFamily::cpu_amx: return "Xeon with AMX (CPU)";
    case GpuFamily::unknown: return "unknown";
  }
  return "unknown";
}

namespace {

// MIOpen's convolutions reach this share of the rate cuDNN's reach on the same tensor peak (method.md §12.3).
// Solved so that the vision time model gives milabench's measured MI325X/H100 ratio on ResNet-50 training (0.68:
// 2,288 vs 3,378 images/s, AMP fp16, channels_last, batch 128, synthetic data; config/scaling/MI325.yaml and
// H100.yaml, torch 2.5.1+rocm6.2 and 2.6.0+cu126). Held out: the same source's RegNetY-128GF row (0.745). Its
// ConvNeXt-Large row (0.48) sets MIOpen's depthwise share (coefficients.hpp: no 7x7 depthwise kernel).
constexpr double k_miopen_conv = coef::miopen_conv.value;
constexpr const char* k_miopen_basis =
    "solved on milabench's ResNet-50 training row: MI325X 2,288 vs H100 3,378 images/s (0.68; AMP fp16, channels_last, batch 128); "
    "held out: RegNetY-128GF 0.745 in the same source";
constexpr double k_miopen_depthwise = coef::miopen_depthwise_share.value;

// The coefficient table (method.md §8.2). matmul_efficiency: share of the dense 16-bit tensor peak reached by
// training's projection matmuls (the elementwise traffic, attention and loss are timed beside them, so this is
// the matmul rate, not a model-wide MFU); decode_bandwidth: share of peak bandwidth in batch-1 decode.
constexpr std::array<FamilyEfficiency, 14> k_families{{
    {GpuFamily::volta, 0.40, 0.8, "prior: pre-Ampere tensor cores without bf16, about two thirds of Ampere's share; held out: NVIDIA's BERT-large AMP rows on a V100 (+3 %, +10 %)"},
    {GpuFamily::turing, 0.40, 0.8, "prior, as Volta (no calibration row)"},
    {GpuFamily::ampere, 0.68, 0.8, "fitted: llm-foundry MPT-125M..30B bf16 rows on A100 40/80 GB (14 rows), torchtitan A100 Llama rows (2); decode: ExLlama, AutoAWQ rows", 0.15},
    {GpuFamily::ampere_ga10x, 0.80, 0.8, "prior, as Ada: GeForce GA10x/AD10x cards run fp32-accumulate bf16 at half the fp16-accumulate rate, a peak that large GEMMs nearly saturate (0.8); the workstation and data-centre parts (A10, RTX A6000, L4, L40S, RTX 6000 Ada) list the full rate and take the same share untested (llm.q's L40S row +30 %); held out: torchtune and fsdp_qlora RTX 4090 rows"},
    {GpuFamily::ada, 0.80, 0.8, "prior: on GeForce cards fp32-accumulate bf16 runs at half rate, a peak large GEMMs nearly saturate (0.8); the L4, L40S and RTX 6000 Ada list the full rate and take the same share untested (llm.q's L40S row +30 %); held out: torchtune, fsdp_qlora and llm.q RTX 4090 rows; decode: ExLlama and GPTQ rows on the RTX 4090"},
    {GpuFamily::hopper, 0.50, 0.8, "fitted: llm-foundry H100 bf16 rows (4), torchtitan H100 Llama 3.1 rows (3); held out: NeMo AutoModel H100 LoRA rows, NeMo/Megatron-Bridge FP8 rows", 0.15},
    {GpuFamily::blackwell, 0.48, 0.8, "solved so that the time model gives the measured B200/H100 per-GPU speed-up (2.2x with this share): 2.12x (NeMo 25.11 Llama3 8B FP8, 30,624 vs 14,451 tokens/s/GPU) and 2.16x (MLPerf Training v4.1 Llama 2 70B LoRA, 12.96 vs 27.93 min on 8 GPUs)"},
    {GpuFamily::blackwell_rtx, 0.80, 0.8, "as Ada: the same GeForce-class tensor cores (fp32 accumulate at half rate); held out: llm.q full training: RTX 5090 1.38x RTX 4090 at the same micro-batch (peak ratio 1.27), RTX PRO 6000 0.57x H100 on Qwen2.5-7B (peak ratio 0.51)"},
    {GpuFamily::cdna3, 0.34, 0.8, "solved so that the time model gives the measured MI300X/H100 ratio on the workload (0.955, Llama 2 70B LoRA FP8, 8 GPUs): MLPerf Training Llama 2 70B LoRA on 8 GPUs, 29.25 min (MI300X, v5.0) vs 27.93 min (H100, v4.1)", 0.35,
     k_miopen_conv, k_miopen_basis, k_miopen_depthwise},
    {GpuFamily::cdna4, 0.36, 0.8, "solved so that the time model gives the measured MI355X/B200 ratio on the workload (0.873): MLPerf Training v5.1 Llama 2 70B LoRA FP8 on 8 GPUs, 10.18 min (MI355X) vs 8.89 min (B200), over the peak ratio 1.12", 0.35,
     k_miopen_conv, "prior: the same MIOpen convolutions as CDNA 3 (no CNN row)", k_miopen_depthwise},
    {GpuFamily::rdna3, 0.34, 0.8, "prior, as CDNA 3 (no calibration row)", 0.35, k_miopen_conv, "prior: the same MIOpen convolutions as CDNA 3", k_miopen_depthwise},
    {GpuFamily::gaudi3, 0.40, 0.8, "vendor projection, no measurement: Intel's launch claim of 1.5x H100 time-to-train (Llama 2 7B/13B, GPT-3 175B); Intel's performance page lists Gaudi 3 inference only. Gaudi 2 reaches about 0.6 of its bf16 peak (Databricks MPT-7B, 260 TFLOP/s; Intel Llama 3.1 8B FP8 4,680 tokens/s/card); held out in serving: Intel's Gaudi 3 table (SynapseAI 1.18, 12 FP8 rows of Llama 3.1 8B and 70B on 1, 2 and 8 cards) within 11 % at the median, 26 % at the 90th percentile (tests/data/gaudi3_serving_time.jsonl)"},
    // CPU instances (method.md §16): oneDNN's AMX bf16 GEMM reached 42.9 TFLOP/s on 188 threads (94 cores) of a
    // Sapphire Rapids pair (uxlfoundation/oneDNN#1992, benchdnn 4096x5120:5120x15360), 0.19 of 94 x 1024 x 2.4 GHz;
    // a decode reads its weights at the GPUs' share of the bandwidth (decode_bandwidth_share; no CPU row).
    {GpuFamily::cpu_amx, 0.19, 0.8, "solved on oneDNN's AMX bf16 GEMM row: 42.9 TFLOP/s on 94 Sapphire Rapids cores (uxlfoundation/oneDNN#1992), 0.19 of their AMX peak at the 2.4 GHz base clock; decode at the GPUs' bandwidth share (no CPU row)", 0.5,
     1.0, "oneDNN's convolutions on AMX: no CNN row; the CUDA-core term runs on AVX-512"},
    {GpuFamily::unknown, 0.45, 0.8, "no family"},
}};

}  // namespace

const FamilyEfficiency& family_efficiency(GpuFamily f) {
  for (const auto& e : k_families)
    if (e.family == f) return e;
  return k_families.back();
}

}  // namespace gpuadvise
