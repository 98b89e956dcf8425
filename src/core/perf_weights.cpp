// The projections' weights streamed on every training micro-batch (method.md §8.2, "weights per micro-batch").
#include "perf_common.hpp"

#include <algorithm>

namespace gpuadvise::perf_detail {

// The forward and the input-gradient GEMMs read each projection's weights (a recomputed forward reads them
// again) and the weight-gradient GEMM adds into the gradient buffer, a read and a write (Megatron's
// gradient-accumulation fusion keeps fp32 main gradients under mixed precision: 8 bytes). Each pass does 2·T
// FLOPs per weight over the T tokens that reach it, so below a ridge of tokens a GEMM waits on memory, not on
// the tensor cores: the roofline's max. A dense layer sees its micro-batch; a routed expert only
// tokens·k·ep/E of them (DeepSeek-V3's 256 experts, 8 per token, without expert parallelism: 4,096·8/256 =
// 128 tokens per expert per micro-batch, a quarter of an H100's ridge). Returns what the bytes take beyond the
// FLOPs' time, in seconds per token of the whole model on one GPU (training_seconds_per_token's unit).
double weight_streaming_seconds_per_token(const TimeBasis& in, double tokens_step, double matmul_flops_per_s, double bytes_per_s) {
  const auto& [w, m, gpu, mem] = in.io;
  if (bytes_per_s <= 0 || matmul_flops_per_s <= 0 || tokens_step <= 0 || w.mode == Mode::qlora) return 0.0;  // QLoRA: its dequantisation term
  const ParamCounts& pc = in.pc;
  const bool frozen = w.mode == Mode::lora;  // adapters: the base weights get no gradient
  const bool recompute = w.checkpointing == Checkpointing::full;
  const bool wide = w.precision == Precision::fp32 || w.precision == Precision::tf32;
  const double weight_b = w.precision == Precision::fp8 || w.precision == Precision::fp4 ? weight_bits(w.precision, false) / 8.0 : wide ? 4.0 : 2.0;
  const double grad_b = wide || w.effective_master_weights() == MasterWeights::fp32 ? 4.0 : 2.0;
  const double bytes_per_weight = weight_b * (recompute ? 3.0 : 2.0) + (frozen ? 0.0 : 2.0 * grad_b);
  const double flops_per_weight_token = (frozen ? 4.0 : 6.0) + (recompute ? 2.0 : 0.0);
  // Per micro-batch over `weights` that each see `tokens`: bytes against FLOPs, per token of the micro-batch.
  auto excess = [&](double weights, double tokens) {
    const double t_mem = weights * bytes_per_weight / bytes_per_s;
    const double t_flop = weights * tokens * flops_per_weight_token / matmul_flops_per_s;
    return std::max(0.0, t_mem - t_flop) / tokens_step;
  };
  const double dense = pc.linear - pc.routed_experts;
  double s = excess(dense, tokens_step);
  if (m.is_moe() && pc.routed_experts > 0 && m.experts > 0) {
    // Expert parallelism gathers the tokens of ep ranks onto each rank's experts: ep times the tokens per expert,
    // 1/ep of the experts per rank.
    const double ep = d(expert_shards(w));
    s += excess(pc.routed_experts / ep, tokens_step * d(m.experts_per_token) * ep / d(m.experts));
  }
  return s;
}

}  // namespace gpuadvise::perf_detail
