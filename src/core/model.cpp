// Parameter counting from architecture: docs/method.md §1 (Megatron-LM theoretical_memory_usage.py,
// num_parameters_in_transformer_layer / _moe / multi_latent_attention branches).
#include "gpuadvise/model.hpp"

#include "gpuadvise/vision_model.hpp"

#include <algorithm>
#include <cmath>

namespace gpuadvise {

namespace {
double d(std::int64_t v) { return static_cast<double>(v); }

double norm_params(const ModelSpec& m) { return d(m.hidden) * (m.layer_norm ? 2.0 : 1.0); }

// One attention block (self or cross) with `a` query heads of `hd`, `g` KV heads.
double mha_params(const ModelSpec& m) {
  const double h = d(m.hidden), qd = d(m.heads * m.head_dim), kvd = d(m.kv_heads * m.head_dim);
  double p = h * qd + 2.0 * h * kvd + qd * h;  // Wq, Wk, Wv, Wo
  if (m.linear_bias) p += qd + 2.0 * kvd + h;
  else if (m.qkv_bias) p += qd + 2.0 * kvd;
  return p;
}
}  // namespace

// method.md §1.1 (dense) and §1.2 (MLA).
double attention_params(const ModelSpec& m) {
  if (!m.is_mla()) return mha_params(m);
  const double h = d(m.hidden), a = d(m.heads);
  const double dn = d(m.qk_nope_head_dim), dr = d(m.qk_rope_head_dim), dv = d(m.v_head_dim);
  double p = 0;
  if (m.q_lora_rank > 0) p += d(m.q_lora_rank) * (h + a * (dn + dr) + 1.0);
  else p += h * a * (dn + dr);
  p += d(m.kv_lora_rank) * (h + a * (dn + dv) + 1.0) + h * dr + a * dv * h;
  return p;
}

double dense_mlp_params(const ModelSpec& m, std::int64_t ffn) {
  const double h = d(m.hidden), f = d(ffn);
  double p = (m.gated_mlp ? 3.0 : 2.0) * h * f;
  if (m.linear_bias) p += f * (m.gated_mlp ? 2.0 : 1.0) + h;
  return p;
}

ParamCounts count_params(const ModelSpec& m) {
  ParamCounts c;
  if (m.vision) {
    const VisionCounts v = vision_counts(*m.vision, static_cast<double>(m.vision->ref_w), static_cast<double>(m.vision->ref_h), false, {});
    c.total = c.active = c.linear = c.largest_layer = v.params;
    return c;
  }
  const double h = d(m.hidden), V = d(m.vocab);
  const double attn = attention_params(m);
  const double norms = d(m.norms_per_layer) * norm_params(m);
  const double dense_mlp = dense_mlp_params(m, m.ffn);

  // `count` identical layers. Parameter counts are whole numbers, exact in a double, so a layer times its count
  // equals the layer-by-layer sum.
  auto add_layers = [&](double count, double linear, double active_linear, double other) {
    if (count <= 0) return;
    c.linear += count * linear;
    c.active += count * (active_linear + other);
    c.other += count * other;
    c.largest_layer = std::max(c.largest_layer, linear + other);
  };

  if (m.architecture == Architecture::encoder_decoder) {
    // T5: encoder layers = self-attention + MLP + 2 norms; decoder layers add cross-attention + 1 norm.
    add_layers(d(m.encoder_layers), attn + dense_mlp, attn + dense_mlp, 2.0 * norm_params(m));
    add_layers(d(m.layers), 2.0 * attn + dense_mlp, 2.0 * attn + dense_mlp, 3.0 * norm_params(m));
  } else {
    // The first dense_layers layers of an MoE model (all of a dense one) have a dense MLP; the rest route
    // over the experts.
    const std::int64_t moe_layers = m.is_moe() ? std::max<std::int64_t>(0, m.layers - std::max<std::int64_t>(0, m.dense_layers)) : 0;
    add_layers(d(m.layers - moe_layers), attn + dense_mlp, attn + dense_mlp, norms);
    if (moe_layers > 0) {
      const double expert = dense_mlp_params(m, m.expert_ffn);
      const double shared = m.shared_experts > 0 ? d(m.shared_experts) * dense_mlp_params(m, m.shared_expert_ffn) : 0.0;
      const double router = d(m.experts) * h;
      add_layers(d(moe_layers), attn + d(m.experts) * expert + shared, attn + d(m.experts_per_token) * expert + shared, norms + router);
      c.routed_experts += d(moe_layers) * d(m.experts) * expert;
      c.largest_layer_routed = d(m.experts) * expert;
    }
  }
  // Model-level parameters outside the layers.
  double model_other = norm_params(m) * (m.architecture == Architecture::encoder_decoder ? 2.0 : 1.0);
  if (m.relative_attention_bias) model_other += 2.0 * 32.0 * d(m.heads);
  if (m.embedding_norm) model_other += norm_params(m);
  if (m.pooler) model_other += h * h + h + (m.num_labels > 0 ? d(m.num_labels) * (h + 1.0) : 0.0);
  model_other += m.vision_tower_params;
  c.other += model_other;
  c.embedding = V * h;
  if (m.learned_positions) c.embedding += d(m.context) * h;
  if (m.type_vocab > 0) c.embedding += d(m.type_vocab) * h;
  c.head = m.tied_embeddings ? 0.0 : V * h;
  c.active += model_other + c.embedding + c.head;
  c.total = c.linear + c.embedding + c.head + c.other;
  const std::int64_t stack_layers = m.layers + m.encoder_layers;
  c.per_layer_linear = stack_layers > 0 ? c.linear / d(stack_layers) : 0.0;
  if (m.exact_params > 0) {
    // Generic shape: keep the shape's split, scale the transformer layers so the total is exact.
    const double fixed = c.embedding + c.head;
    const double scale = (m.exact_params - fixed) / std::max(1.0, c.total - fixed);
    c.linear *= scale;
    c.other *= scale;
    c.largest_layer *= scale;
    c.per_layer_linear *= scale;
    c.total = m.exact_params;
    c.active = m.exact_params;
  }
  return c;
}

MatmulWeights matmul_weights(const ParamCounts& pc, const ModelSpec& m) {
  if (m.vision || m.architecture != Architecture::decoder) return {pc.active, 0.0};
  const double head = d(m.vocab) * d(m.hidden);
  return {pc.active - pc.embedding - pc.head + head, head};
}

double kv_elements_per_token(const ModelSpec& m) {
  if (m.is_mla()) return d(m.layers) * d(m.kv_lora_rank + m.qk_rope_head_dim);
  return 2.0 * d(m.layers) * d(m.kv_heads) * d(m.head_dim);
}

// method.md §1.4: a Llama-style decoder of the requested size. Aspect ratio L = h/128 (Llama-2 7B/13B:
// 4096/32, 5120/40), 16 heads and more in multiples of 8, gated MLP with f = 8h/3 rounded up to 256, MHA with 128-wide heads, 32,000-token
// untied vocabulary; the parameter count is then set exactly to the requested size.
ModelSpec generic_decoder(double params, const std::string& label) {
  ModelSpec m;
  m.id = label;
  m.family = "generic";
  m.source = "generic decoder shape (docs/method.md §1.4)";
  m.vocab = 32000;
  // Solve 12·h²·(h/128) + 2·V·h = N for h by bisection, then round.
  double lo = 64, hi = 65536;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    const double n = 12.0 * mid * mid * (mid / 128.0) + 2.0 * 32000.0 * mid;
    (n < params ? lo : hi) = mid;
  }
  // Heads from 16 up are rounded to a multiple of 8, as every published shape from 1B up has them (Llama 2 13B 40,
  // 70B 64, Llama 3 405B 128, GPT-3 175B 96): so tensor parallel 2, 4 and 8 divide them. The nearest multiple of
  // 128 alone gave 71 heads for 70B and 127 for 405B, primes that no tensor-parallel degree divides.
  std::int64_t heads = std::max<std::int64_t>(1, std::llround(lo / 128.0));
  if (heads >= 16) heads = 8 * std::llround(static_cast<double>(heads) / 8.0);
  const std::int64_t h = heads * 128;
  m.hidden = h;
  m.heads = heads;
  m.kv_heads = m.heads;
  m.head_dim = 128;
  m.ffn = ((8 * h / 3 + 255) / 256) * 256;
  const double per_layer = 4.0 * d(h) * d(h) + 3.0 * d(h) * d(m.ffn) + 2.0 * d(h);
  const double body = std::max(per_layer, params - 2.0 * 32000.0 * d(h));
  m.layers = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(body / per_layer)));
  m.context = 4096;
  m.exact_params = params;
  m.notes.push_back("a bare size uses a generic Llama-style decoder shape");
  return m;
}

}  // namespace gpuadvise
