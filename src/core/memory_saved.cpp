// Saved tensors per token per layer (docs/method.md §4.1, §4.2): what autograd keeps for a transformer layer's
// backward, by framework, precision, recompute policy, attention kind and experts.
#include "memory_common.hpp"

namespace gpuadvise::memory_detail {

SavedElements saved_per_token(const ModelSpec& m, const Workload& w, const FrameworkProfile& fw, const LayerShape& s) {
  SavedElements e;
  // Frozen linear layers keep their inputs for backward as trainable ones do: LitGPT's LoRA rows measure
  // the same activation memory per layer as full fine-tuning (phi-1.5 and StableLM-Alpha, about 17·h
  // elements per token per layer at f = 4h), so the adapters change the model states, not activations.
  const bool frozen = w.mode == Mode::lora || w.mode == Mode::qlora;
  const bool qlora = w.mode == Mode::qlora;
  const bool fp32_inputs = qlora && fw.quant_linear_fp32_compute && is_16bit_or_lower(w.precision);
  const LoraTargets& t = w.lora_targets;
  const bool attn_adapted = t.q || t.k || t.v;
  const bool mlp_in_adapted = t.gate || t.up;
  // Parallel attention with one norm (GPT-J, Phi, Falcon-7B): the MLP reads the attention's normed input.
  const double norms_shared = (m.parallel_attention && m.norms_per_layer == 1) ? 1.0 : 0.0;

  // A linear layer's input, saved for its weight gradient: FP8 under Transformer Engine's FP8 training.
  const bool fp8_inputs = fw.fp8_saved_inputs && w.precision == Precision::fp8;
  auto linear_input = [&](double elements) { (fp8_inputs ? e.bytes1 : e.act) += elements; };
  // Megatron's selective recompute by module (transformer_layer.py, experts.py): "layernorm" keeps neither norm's
  // output (CheckpointWithoutOutput; under FP8 the next linear saves no copy of it either, set_save_original_input),
  // "moe_act" neither the routed experts' activation output (fc2's input), "mlp" nothing inside a dense layer's MLP
  // but its input, "core_attn" not the attention's output.
  const RecomputeModules rc = recomputed_modules(w, m);
  const double norm_out = rc.layernorm ? 0.0 : 1.0;
  // Attention half.
  e.act += s.h;                    // norm input (norm backward)
  linear_input(norm_out * s.h);    // norm output = Q/K/V projection input
  if (m.is_mla()) {
    // Multi-head latent attention trains on full heads (Megatron's multi_latent_attention.py): the latents are
    // normed and kept (norm input, up-projection input), and the up-projections' query and key (a·(nope + rope)) and
    // value (a·v) are what flash attention keeps. Megatron's selective recompute with "mla_up_proj" (its DeepSeek-V3
    // recipes) drops those three and recomputes them from the latents.
    e.act += s.latent;
    linear_input(s.latent);
    if (!rc.mla_up_proj) e.act += 2.0 * s.qd + s.vd;
  } else {
    e.act += s.qd + 2.0 * s.kvd;     // Q, K, V (attention backward)
  }
  if (!rc.core_attn) linear_input(m.is_mla() ? s.vd : s.qd);  // attention output (Wo input)
  e.fp32 += s.a;                   // flash-attention log-sum-exp per head
  if (!w.flash_attention && !rc.core_attn) {
    // Eager attention keeps the probabilities (softmax output) for backward; HF upcasts them to fp32 and
    // also keeps the 16-bit cast for the product with V.
    e.scores = s.a;
    e.score_bytes = fw.eager_softmax_fp32 ? 4.0 + activation_bytes(w.precision) : activation_bytes(w.precision);
    if (m.architecture != Architecture::decoder) e.score_bytes += 1.0 + activation_bytes(w.precision);  // dropout mask + output
  }
  // MLP half.
  if (!m.parallel_attention) e.act += s.h;  // norm input
  linear_input(norm_out * s.h * (1.0 - norms_shared));  // MLP norm output = fc1 input (shared with attention when parallel)
  // A MoE layer keeps what its experts' first matmul reads: each token once per routed expert (Megatron's
  // experts.py, grouped GEMM over the dispatched tokens; its "expert_fc1" offload module is this tensor), and the
  // router's fp32 scores for their backward.
  linear_input(s.routed_in);
  e.fp32 += s.router;
  // Hugging Face's expert loop (transformers' MoE experts: each expert's down-projection output times its routing
  // weight, then index_add_) keeps that output for the weight's gradient: each token's k routed copies again.
  if (w.effective_framework() == Framework::hf) e.act += s.routed_in;
  // The MLP's intermediates per token (the layers' average width s.f), less what recomputation drops: the dense
  // layers' whole MLPs ("mlp": all of a dense model's, a MoE model's dense layers' share), the routed experts'
  // activation outputs ("moe_act": k·expert_ffn of the layers that route).
  const double kept = 1.0 - (rc.mlp ? (m.is_moe() ? d(m.dense_layers) / d(std::max<std::int64_t>(1, m.layers)) : 1.0) : 0.0);
  // (s.f per rank holds k routed experts' and the shared experts' widths; s.routed_in/(k·h) is the routing layers' share)
  const double routed_width = d(m.experts_per_token * m.expert_ffn), k = d(std::max<std::int64_t>(1, m.experts_per_token));
  const double routed_act = rc.moe_act && m.is_moe()
                                ? s.routed_in / (s.h * k) * s.f * routed_width / (routed_width + d(m.shared_expert_ffn * m.shared_experts))
                                : 0.0;
  if (m.gated_mlp) {
    e.act += kept * (fw.fused_swiglu ? 2.0 : 3.0) * s.f;  // gate, up (and act(gate) unfused): the activation's backward
    linear_input(kept * s.f - routed_act);                // product = down-projection input
  } else {
    e.act += kept * s.f;                   // fc1 output (act backward)
    linear_input(kept * s.f - routed_act);  // act output = fc2 input
  }
  if (fp32_inputs) {
    // bitsandbytes casts each 4-bit layer's input to its fp32 compute dtype and saves that copy:
    // the Q/K/V input, the Wo input, the two MLP inputs (gate and up, or fc1), and the down input.
    e.fp32 += s.h + s.qd + s.h * (m.gated_mlp ? 2.0 : 1.0) + s.f;
  }
  if (frozen && fw.lora_dropout) {
    // Dropout before each adapted input: a dropped copy and a one-byte mask.
    const double inputs = (attn_adapted ? 1.0 : 0.0) + (mlp_in_adapted ? 1.0 : 0.0);
    e.act += inputs * s.h + (t.down ? s.f : 0.0) + (t.o ? s.qd : 0.0);
    e.bytes1 += inputs * s.h + (t.down ? s.f : 0.0) + (t.o ? s.qd : 0.0);
  }
  if (frozen) {
    const double r = d(w.lora_rank);
    const int adapted = int(t.q) + int(t.k) + int(t.v) + int(t.o) + int(t.gate) + int(t.up) + int(t.down);
    e.act += d(adapted) * r;  // x·A of each adapter
  }
  if (m.architecture != Architecture::decoder) e.bytes1 += 2.0 * s.h;  // hidden dropout masks (BERT, T5)
  return e;
}

}  // namespace gpuadvise::memory_detail
