#pragma once
// What perf.cpp (language-model training), perf_inference.cpp (language-model inference) and perf_vision.cpp
// (vision, image generation) share; internal to core.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <optional>
#include <string>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/perf.hpp"
#include "gpuadvise/vision.hpp"

namespace gpuadvise::perf_detail {

// The time a collective of `comm` seconds adds beside a compute window of `window` seconds (method.md §8.4):
// NCCL's kernels take SMs and memory bandwidth from the compute they overlap, which runs slower for as long as
// the overlap lasts (coef::overlap_slowdown, [OVERLAP]'s average), and whatever of the collective outlasts the
// slowed compute shows.
inline double overlapped_cost(double comm, double window) {
  const double slowed = coef::overlap_slowdown.value * std::min(comm, window);
  return slowed + std::max(0.0, comm - window - slowed);
}

inline double d(std::int64_t v) { return static_cast<double>(v); }

// Fused attention (FlashAttention-2) reaches a smaller share of the peak than large GEMMs, the less the smaller the
// head dimension its inner products run over: head_dim/(head_dim + 64) of the matmul share (0.5 at 64, 0.67 at 128;
// [FA2] Fig. 5-6, method.md §8.2).
inline double flash_attention_share(double head_dim) { return head_dim / (head_dim + 64.0); }

// Exponentials a second on the special-function units (MUFU.EX2, one per attention score): the dense 16-bit tensor peak
// over the tensor FLOPs a multiprocessor runs per exponential, per clock: 16 exponentials a clock (CUDA C++ Programming
// Guide, arithmetic instruction throughput; Blackwell Ultra, compute capability 10.3, twice: NVIDIA, "Making Softmax
// More Efficient with NVIDIA Blackwell Ultra") against 2,048 dense 16-bit FLOPs on the A100 (8.0; its whitepaper:
// 1,024 FMA a clock), twice that on Hopper (9.0) and again on Blackwell (10.x): 128, 256, 512 and, on Blackwell
// Ultra, 256 FLOPs per exponential (an H100 SXM5: 989 TFLOPS and 3.9 T exponentials a second, FA3 §3.1). Unknown
// (nullopt) elsewhere: the consumer cards' tensor rates are a quarter of these and never wait on it (method.md §8.3).
inline std::optional<double> exponentials_per_s(const GpuSpec& gpu) {
  const double cc = gpu.cc();
  const double per_exp = cc == 8.0 ? 128.0 : cc == 9.0 ? 256.0 : cc == 10.0 ? 512.0 : cc >= 10.25 && cc < 10.35 ? 256.0 : 0.0;
  const auto p16 = gpu.peak_flops("bf16");
  if (per_exp <= 0 || !p16) return std::nullopt;
  return *p16 / per_exp;
}

// Host to device, one direction at the links' efficiency (80 %, method.md §8.3): the catalogue's own host link where it
// has one (GH200's NVLink-C2C), else PCIe at 16 GB/s per generation step from 3.0's x16; on an edge module a copy
// within the one memory.
inline double host_to_device_bytes_per_s(const GpuSpec& gpu) {
  // An edge module's CPU and GPU share one memory: a copy reads and writes it, at the streaming share of its peak.
  if (gpu.segment == Segment::edge && gpu.bandwidth_gb_per_s)
    return *gpu.bandwidth_gb_per_s * 1e9 / 2.0 * coef::streaming_bandwidth_share.value;
  const double one_way = gpu.host_link_gb_per_s ? *gpu.host_link_gb_per_s / 2.0 * 1e9 : 16e9 * std::pow(2.0, std::max(0, gpu.pcie_gen.value_or(4) - 3));
  return one_way * coef::link_efficiency.value;
}

// The name of that link, as the notes say it: "NVLink-C2C" where the catalogue gives a host link, an edge module's
// unified memory, else "PCIe 4.0".
inline std::string host_link_name(const GpuSpec& gpu) {
  if (gpu.segment == Segment::edge) return "unified memory (a copy within it)";
  return gpu.host_link_gb_per_s ? std::string("NVLink-C2C") : fmt::format("PCIe {}.0", gpu.pcie_gen.value_or(4));
}

// Whether the host beside the GPU is a server socket (method.md §8.3): beside a data-centre GPU, or wherever what
// stays in host memory (`resident` bytes) is more than a desktop board holds.
inline bool server_host(const GpuSpec& gpu, double resident) {
  return gpu.segment == Segment::datacenter_module || gpu.segment == Segment::datacenter_pcie || resident > coef::host_dram_desktop_max_bytes.value;
}

// What the CPU reads host memory at (method.md §8.3): a server socket's channels (server_host), a desktop's two
// beside a consumer or workstation card, the one memory of an edge module.
inline double host_memory_bytes_per_s(const GpuSpec& gpu, double resident = 0) {
  if (gpu.segment == Segment::edge) return gpu.bandwidth_gb_per_s.value_or(0) * 1e9;
  return server_host(gpu, resident) ? coef::host_dram_server_bytes_per_s.value : coef::host_dram_desktop_bytes_per_s.value;
}

// What llama.cpp's CPU reads the weights it holds at: host_decode_bandwidth_share of the peak of the host that holds
// them (method.md §8.3).
inline double cpu_read_bytes_per_s(const GpuSpec& gpu, const MemoryEstimate& mem) {
  return host_memory_bytes_per_s(gpu, mem.host_bytes()) * coef::host_decode_bandwidth_share.value;
}

// Bytes of memory traffic per trained parameter of one optimizer step (method.md §8.2), counted from what it reads
// and writes in fp32: SGD reads the weight and its gradient and writes the weight (12); momentum adds its buffer,
// read and written (20); AdamW with fp32 master weights reads master, gradient and both moments, writes them back
// and the 16-bit copy (30); 8-bit AdamW keeps its moments in a byte each (18). Adafactor is counted as AdamW.
inline double optimizer_step_bytes(Optimizer o) {
  switch (o) {
    case Optimizer::sgd: return 12.0;
    case Optimizer::sgd_momentum: return 20.0;
    case Optimizer::adamw_8bit: return 18.0;
    case Optimizer::adamw:
    case Optimizer::adafactor: return 30.0;
  }
  return 30.0;
}

// The memory-bound work beside a transformer layer's matmuls (method.md §8.2, §12.3): bytes per token of one layer's
// forward in 16 bits, counted from the kernels the layer runs. PyTorch eager runs each op as its own kernel that
// reads its inputs and writes its output; a fused kernel (torch.compile, Megatron/Transformer Engine) reads and writes
// each tensor once.
//   norm:      Hugging Face's eager RMSNorm upcasts to fp32 and runs cast, pow, mean, mul, cast, scale: 36 bytes
//              per element; F.layer_norm is one kernel (4); fused 4.
//   residual:  two adds per layer, read 2 write 1: 6 bytes per element each; fused into the norm: 2.
//   rotary:    q·cos + rotate_half(q)·sin (slice, neg, cat, two muls, add) over q and k (`rope_qk` channels): 20
//              bytes per element eager, 4 fused.
//   MLP:       SwiGLU act(gate)·up: 10 bytes per intermediate element eager, 6 fused; GELU 4.
//   attention: eager attention materialises the scores of every head: write, fp32 softmax (read, write), read for
//              the value product: about 16 bytes per score, `seq` scores per token and head.
struct LayerElementwise {
  double hidden, ffn, heads, seq, norms;
  bool layer_norm, gated;
  double rope_qk;  // rotated q and k channels (0: no rotary embedding)
};
inline double layer_elementwise_bytes(const LayerElementwise& l, bool fused, bool flash_attention) {
  const double norm = l.layer_norm || fused ? 4.0 : 36.0;
  double fwd = l.norms * norm * l.hidden + 2.0 * (fused ? 2.0 : 6.0) * l.hidden + (l.rope_qk > 0 ? (fused ? 4.0 : 20.0) * l.rope_qk : 0.0) +
               (l.gated ? (fused ? 6.0 : 10.0) : 4.0) * l.ffn;
  if (!flash_attention) fwd += 16.0 * l.heads * l.seq;
  return fwd;
}
// One layer's elementwise shape: a MoE layer's activation runs over the k routed experts' (and the shared experts')
// intermediate channels.
inline LayerElementwise layer_shape(const ModelSpec& m, std::int64_t seq_len) {
  const double qk = d(m.heads * m.head_dim + m.kv_heads * m.head_dim);
  const bool rope = m.architecture == Architecture::decoder && !m.learned_positions && m.family != "mpt" && m.family != "bloom";
  double f = d(m.ffn);
  if (m.is_moe()) f = d(m.experts_per_token * m.expert_ffn + m.shared_experts * m.shared_expert_ffn);
  return {d(m.hidden), f, d(m.heads), d(seq_len), d(m.norms_per_layer), m.layer_norm, m.gated_mlp, rope ? qk : 0.0};
}
// A MoE layer permutes each token into k copies grouped by expert (read h, write k·h) and back with the router's
// weights (read k·h, write h): bytes per token over the MoE layers, one pass (16 bits).
inline double moe_permutation_bytes(const ModelSpec& m) {
  return m.is_moe() ? 2.0 * d(m.experts_per_token + 1) * d(m.hidden) * d(m.layers - m.dense_layers) : 0.0;
}

// link_name written into a buffer (links.cpp): the time notes append it without a string of its own.
void append_link_name(fmt::memory_buffer& out, const GpuSpec& g, Link link);

// What every language-model time estimate starts from (method.md §8): the precision the GPU runs and its peak,
// the parameter counts and the model-parallel degrees.
struct TimeInputs {
  const Workload& w;
  const ModelSpec& m;
  const GpuSpec& gpu;
  const MemoryEstimate& mem;
};
struct TimeBasis {
  TimeInputs io;
  PrecisionSupport ps;
  std::optional<double> peak;
  double s;
  ParamCounts pc;
  double tp, pp, model_par;
};

// With --ep-overlap, whether this layout lets Megatron overlap the expert all-to-alls; without it, where Megatron could
// and the all-to-alls (a2a seconds per micro-batch) weigh, that it could: a note either way (method.md §8.4).
void note_expert_overlap(const TimeBasis& in, double a2a, double t_compute, TimeEstimate& t);

// The rates a forward's parts run at (perf_rates.cpp, method.md §8.3).
// A matmul share for the workload's compute precision: FP4 matmuls reach fp4_matmul_share of the share 8- and 16-bit
// ones reach of their peak.
double matmul_share(const TimeBasis& in, double share);
// The 16-bit tensor peak (bf16, else fp16, else the compute precision's).
double peak16(const TimeBasis& in);
// FLOP/s of a forward's matmuls at `share` of the peak each part runs at: the compute precision's, but an MXFP4
// checkpoint (gpt-oss) on FP4 tensor cores keeps its attention and dense projections in 16-bit weights (only its
// experts are 4-bit), and TensorRT-LLM runs its experts with MXFP8 activations at the FP8 rate
// (ModelConfig.get_mxfp4_quant_algo: W4A8_MXFP4_MXFP8 from compute capability 10.0; an FP8 operand runs the MMA at
// the FP8 rate).
struct MatmulRates {
  double experts = 0, dense = 0;
};
MatmulRates matmul_rates(const TimeBasis& in, double share);
// The routed experts' FLOPs in a forward of `tokens`: 2 per active expert weight per token.
double routed_expert_flops(const TimeBasis& in, double tokens);
// The share of the peak a prompt's matmuls and attention reach: prefill_share on NVIDIA's tensor cores (optimum's A100
// rows, TensorRT-LLM's Hopper rows held out); on another vendor's matrix engines (AMD's CDNA and RDNA, Intel's Gaudi)
// the family's own matmul share, the only figure its rows give.
double prefill_matmul_share(const GpuSpec& gpu);
// FLOP/s of a prompt's attention (QK^T and PV) on one GPU: at the 16-bit peak, or FP8 where TensorRT-LLM runs FP8
// context attention, bounded by the exponentials a second (one per score).
double prefill_attention_rate(const TimeBasis& in);

// Inference (method.md §8.3): prefill at a share of the peak, decode bound by the bytes each step reads
// (perf_inference.cpp).
TimeEstimate inference_time(const TimeBasis& in, TimeEstimate t);

// Images per second of a vision model or an image-generation pipeline (perf_vision.cpp).
TimeEstimate estimate_vision_time(const Workload& w, const ModelSpec& m, const GpuSpec& gpu);

// Image generation (perf_denoiser.cpp, method.md §12.4): a pipeline's images per second (inference: its steps, text
// encoders and VAE decode; training: one denoiser pass per image).
TimeEstimate denoiser_time(const Workload& w, const VisionArch& a, const GpuSpec& gpu, double peak_flops, double W, double H, bool training, TimeEstimate t);

// Training: what streaming the projections' weights each micro-batch takes beyond their GEMMs' FLOPs, per token
// of the whole model (perf_weights.cpp; the routed experts of a MoE see few tokens each).
double weight_streaming_seconds_per_token(const TimeBasis& in, double tokens_step, double matmul_flops_per_s, double bytes_per_s);

// QLoRA (bitsandbytes, torchao): each NF4 weight dequantised to 16 bits before each matmul that uses it, read 0.5 byte,
// write 2 and read them back ([QLORA] §3, method.md §8.2): the seconds per micro-batch of `weights` used `uses` times
// (the forward, the input gradient, a recomputed forward), whatever the micro-batch holds.
inline double nf4_dequant_seconds(double weights, double uses, double bytes_per_s) { return 4.5 * weights * uses / bytes_per_s; }

// Training: the host time of launching a MoE layer's local experts one by one beyond their GPU time, per
// micro-batch on the most loaded stage (perf_experts.cpp; 0 where one kernel runs all experts).
double expert_host_seconds(const TimeBasis& in, double t_compute, double fpt);

// Training: the expert-parallel all-to-alls of a micro-batch of `tokens_step` tokens on the most loaded stage,
// exposed (perf_experts.cpp, method.md §8.4).
double expert_all_to_all_seconds(const TimeBasis& in, double tokens_step);

// Serving with experts split over data-parallel ranks: a stage's dispatch and combine of `tokens` of one rank
// (decode: one copy per routed expert; `prompt`: one per node), exposed (perf_experts.cpp, method.md §8.3).
double serving_expert_exchange_seconds(const TimeBasis& in, double tokens, bool prompt);
// The note that says what that exchange costs a decode step (`exchange` of its `step` seconds) and a prompt token.
Note expert_exchange_note(const TimeBasis& in, double exchange, double step);

}  // namespace gpuadvise::perf_detail
