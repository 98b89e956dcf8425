// FLOPs and elementwise bytes per training token (docs/method.md §8.1, §8.2): the counts the time model divides by
// the hardware's rates.
#include "gpuadvise/perf.hpp"

#include "gpuadvise/framework.hpp"
#include "perf_common.hpp"

#include <algorithm>

namespace gpuadvise {

using perf_detail::d;

// Attention scores and values: 4·a·d FLOPs per token, layer and key it attends to, forward ([PALM] App. B counts
// 12·L·H·Q·T for forward+backward without the causal mask). A causal decoder's token attends to the s/2 keys before
// it on average; a sliding-window layer (Mistral, Gemma 2/3, GPT-OSS) to at most W of them, W − W²/(2s) on average
// once s passes W (FlashAttention skips the blocks outside the window).
double attention_fwd_flops(const ModelSpec& m, std::int64_t seq_len) {
  const double s = d(seq_len), layers = d(m.layers + m.encoder_layers);
  if (m.architecture != Architecture::decoder) return 4.0 * layers * d(m.heads * m.head_dim) * s;
  const double window = d(m.sliding_window);
  const double windowed_keys = window > 0 && s > window ? window - window * window / (2.0 * s) : s / 2.0;
  const double f = window > 0 ? std::clamp(m.sliding_fraction, 0.0, 1.0) : 0.0;
  return 4.0 * layers * d(m.heads * m.head_dim) * ((1.0 - f) * s / 2.0 + f * windowed_keys);
}

// The attention backward in forwards' worth of FLOPs: the gradients of the scores and of Q, K and V are four
// matmuls (2x the forward's two); a fused kernel (FlashAttention, cuDNN's and Transformer Engine's fused attention)
// keeps no scores and runs QK^T again, a fifth: 2.5x ([FA2] §3.1.2, whose benchmarks count the backward so).
static double attention_backward_passes(const Workload& w) { return w.flash_attention ? 2.5 : 2.0; }

// Megatron's selective recompute of MLA's up-projections ("mla_up_proj", method.md §4.2): per token and layer the
// query's (q_lora_rank -> a·(nope + rope)) and the keys' and values' (kv_lora_rank -> a·(nope + v)) matmuls run again.
namespace {
double mla_up_recompute_flops(const RecomputeModules& rc, const ModelSpec& m) {
  if (!rc.mla_up_proj || !m.is_mla()) return 0.0;
  const double a = d(m.heads);
  return 2.0 * d(m.layers) * (d(m.q_lora_rank) * a * d(m.qk_nope_head_dim + m.qk_rope_head_dim) + d(m.kv_lora_rank) * a * d(m.qk_nope_head_dim + m.v_head_dim));
}

// Megatron's "mlp" recompute: the dense layers' MLPs (a MoE model's dense layers only) run their forward again,
// 2 FLOPs per weight (gate, up and down, or fc1 and fc2) and token.
double mlp_recompute_flops(const RecomputeModules& rc, const ModelSpec& m) {
  if (!rc.mlp) return 0.0;
  const double dense_layers = m.is_moe() ? d(m.dense_layers) : d(m.layers);
  return 2.0 * dense_layers * (m.gated_mlp ? 3.0 : 2.0) * d(m.hidden) * d(m.ffn);
}
}  // namespace

double train_flops_per_token(const Workload& w, const ModelSpec& m, std::int64_t seq_len) {
  // 2 FLOPs per weight a token multiplies (the embedding table is a gather; the output projection runs on every
  // position, whose loss training takes).
  const double n = matmul_weights(count_params(m), m).per_token;
  const double attn_fwd = attention_fwd_flops(m, seq_len);
  const double fwd = 2.0 * n + attn_fwd;
  // forward + backward (input and weight gradients); a fused attention's backward recomputes its scores.
  const double attn_passes = 1.0 + attention_backward_passes(w);
  double total = 3.0 * 2.0 * n + attn_passes * attn_fwd;
  // LoRA: the frozen projections need no weight gradients (forward + input gradients: 2x their forward); the
  // attention has no weights, so its backward is whole.
  if (w.mode == Mode::lora || w.mode == Mode::qlora) total = 2.0 * 2.0 * n + attn_passes * attn_fwd;
  if (w.checkpointing == Checkpointing::full) total += fwd;
  else if (const RecomputeModules rc = recomputed_modules(w, m); w.checkpointing == Checkpointing::selective)
    total += (rc.core_attn ? attn_fwd : 0.0) + mla_up_recompute_flops(rc, m) + mlp_recompute_flops(rc, m);
  return total;
}

double train_attention_flops_per_token(const Workload& w, const ModelSpec& m, std::int64_t seq_len) {
  // The attention share of train_flops_per_token: forward + backward, and the recomputed forward.
  const bool again = w.checkpointing == Checkpointing::full || recomputed_modules(w, m).core_attn;
  return attention_fwd_flops(m, seq_len) * (1.0 + attention_backward_passes(w) + (again ? 1.0 : 0.0));
}

namespace {
// Input plus output elements of the adapted projections, per token and layer (a MoE token passes k experts).
double adapter_io_elements(const LoraTargets& t, const ModelSpec& m) {
  const double h = d(m.hidden), qd = d(m.heads * m.head_dim), kvd = d(m.kv_heads * m.head_dim);
  const double f = m.is_moe() ? d(m.experts_per_token * m.expert_ffn) : d(m.ffn);
  double io = 0;
  if (t.q) io += h + qd;
  if (t.k) io += h + kvd;
  if (t.v) io += h + kvd;
  if (t.o) io += qd + h;
  if (t.gate && m.gated_mlp) io += h + f;
  if (t.up) io += h + f;
  if (t.down) io += f + h;
  return io;
}
}  // namespace

double train_elementwise_bytes_per_token(const Workload& w, const ModelSpec& m, std::int64_t seq_len, bool fused) {
  // Memory-bound work beside the matmuls, per token and layer (method.md §8.2): the forward's kernels
  // (perf_detail::layer_elementwise_bytes). The backward reads the saved inputs and the incoming gradient and writes the input gradient: twice the
  // forward's traffic. Full recomputation runs the forward again.
  const double act_b = (w.precision == Precision::fp32 || w.precision == Precision::tf32) ? 2.0 : 1.0;
  const double fwd = perf_detail::layer_elementwise_bytes(perf_detail::layer_shape(m, seq_len), fused, w.flash_attention);
  double passes = 3.0;  // forward + backward
  if (w.checkpointing == Checkpointing::full) passes += 1.0;
  double bytes = fwd * passes;
  // LoRA adapters (PEFT and every framework alike): per adapted projection the adapter reads its input, adds
  // its output to the base output (read 2, write 1), and in the backward reads the output gradient twice,
  // the input again for A's gradient and adds its input gradient to the base's: about 12 bytes per input
  // element and 12 per output element.
  if (w.mode == Mode::lora || w.mode == Mode::qlora) bytes += 12.0 * adapter_io_elements(w.lora_targets, m) * (w.checkpointing == Checkpointing::full ? 1.2 : 1.0);
  // FP8 training (Transformer Engine) casts every projection's input and output gradient to FP8 and keeps a
  // transposed copy for the weight gradient: about 10 bytes per input and output element of each projection
  // eager, 4 where the cast is fused into the norm or activation before it.
  if (w.precision == Precision::fp8) bytes += (fused ? 4.0 : 10.0) * adapter_io_elements(LoraTargets{}, m);
  // Megatron's recomputed norms and expert activations run again in the backward: each of the two norms reads its
  // input and writes its output (8·h bytes in 16 bits), the routed experts' activation reads gate and up and writes
  // their product (6·k·expert_ffn bytes, over the layers that route). The dense MLPs' recomputed matmuls are FLOPs.
  const RecomputeModules rc = recomputed_modules(w, m);
  if (rc.layernorm) bytes += 8.0 * d(m.hidden);
  if (rc.moe_act && m.is_moe())
    bytes += 6.0 * d(m.experts_per_token * m.expert_ffn) * d(m.layers - m.dense_layers) / d(std::max<std::int64_t>(1, m.layers));
  bytes *= d(m.layers + m.encoder_layers);
  // A MoE layer's permutations, in the forward and, transposed, twice in the backward.
  bytes += perf_detail::moe_permutation_bytes(m) * passes;
  // The loss over the vocabulary, per token: eager cross-entropy writes 16-bit logits, upcasts them (read 2,
  // write 4), runs log-softmax (read 4, write 4) and its backward (read 4, write 4) and casts the gradient
  // back (read 4, write 2): about 30 bytes per vocabulary entry; a fused or chunked loss about 8.
  bytes += d(m.vocab) * (fused ? 8.0 : 30.0);
  return bytes * act_b;
}

}  // namespace gpuadvise
