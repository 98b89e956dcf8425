// Weights and model states of a language model: docs/method.md §2 (weights per bit width, what quantised formats keep
// in 16 bits), §3 (gradients, optimizer states, ZeRO/FSDP sharding, offload) and §5 (LoRA adapters).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuadvise/perf.hpp"
#include "gpuadvise/units.hpp"
#include "memory_common.hpp"

namespace gpuadvise::memory_detail {

// Weights resident per GPU (method.md §2): quantised formats keep embeddings, head and norms in 16 bits; layers
// split over tp·pp, embeddings on the first stage, the head on the last.
WeightBytes weight_bytes(const MemBasis& in, MemoryEstimate& e) {
  const Workload& w = in.w;
  const FrameworkProfile& fw = in.fw;
  const ParamCounts& pc = in.pc;
  const double tp = in.tp, pp = in.pp, mp = in.mp, expert_elsewhere = in.expert_elsewhere;
  const bool training = in.training;
  // ---- Weights (method.md §2) -----------------------------------------------------------------
  double base_bits = weight_bits(w.precision, w.double_quant);
  if (w.mode == Mode::qlora) base_bits = weight_bits(Precision::nf4, w.double_quant);
  const bool quant_base = w.mode == Mode::qlora || is_quantised_weights(w.precision);
  // Quantised formats keep embeddings, the output head and norms in 16-bit; GGUF's bits/weight already
  // average over the file's whole tensor mix. An MXFP4 checkpoint (gpt-oss) quantises only its routed experts, E2M1
  // with an E8M0 scale per 32 (4.25 bits); its attention and router stay bf16 (quantization_config's
  // modules_to_not_convert), whatever engine reads it.
  const bool mxfp4 = !training && w.precision == Precision::fp4 && in.m.checkpoint_format == "mxfp4" && pc.routed_experts > 0;
  const double expert_bits = mxfp4 ? 4.0 + 8.0 / 32.0 : base_bits, rest_bits = mxfp4 ? 16.0 : base_bits;
  const double local_expert_bytes = (pc.routed_experts - expert_elsewhere) * expert_bits / 8.0;
  double linear_bytes = local_expert_bytes + (pc.linear - pc.routed_experts) * rest_bits / 8.0;
  double emb_bits = (quant_base && !is_gguf(w.precision)) ? 16.0 : base_bits;
  if (w.precision == Precision::fp32 || w.precision == Precision::tf32) emb_bits = 32.0;
  double embed_bytes = pc.embedding * emb_bits / 8.0;
  const double head_bytes = pc.head * emb_bits / 8.0;
  const double other_bytes = pc.other * (emb_bits >= 16.0 ? emb_bits : 16.0) / 8.0;
  if (fw.embeddings_on_host && !training) {
    embed_bytes = 0;
    e.notes.push_back("token embeddings kept in host memory (llama.cpp)");
  }
  // Per GPU: layers split over tp·pp; embeddings on the first stage, head on the last, vocab split over tp.
  const double edge_bytes = pp > 1 ? std::max(embed_bytes, head_bytes) : embed_bytes + head_bytes;
  double weight_bytes_per_gpu = (linear_bytes + other_bytes) / mp + edge_bytes / tp;
  double expert_bytes_per_gpu = local_expert_bytes / mp;
  if (w.attention_dp && !training) {
    // Attention data parallel (method.md §6.2): every GPU of the tp group keeps the attention, the dense layers,
    // the embeddings and the head whole for its own sequences; only the routed experts split over the group.
    const double experts = pc.routed_experts * expert_bits / 8.0, shared = (pc.linear - pc.routed_experts) * rest_bits / 8.0;
    weight_bytes_per_gpu = (shared + other_bytes) / pp + experts / mp + edge_bytes;
    expert_bytes_per_gpu = experts / mp;
  }

  // Every stage counted as the largest holds an edge: pp of them where the pipeline holds the embeddings and the head
  // once each.
  if (pp > 1 && !w.attention_dp) e.pipeline_edge_excess = std::max(0.0, (d(w.pp) * edge_bytes - embed_bytes - head_bytes) / tp);
  return {base_bits, emb_bits, weight_bytes_per_gpu, expert_bytes_per_gpu};
}

// Trainable parameters: the adapters' r·(d_in + d_out) per adapted matrix for LoRA ([LORA] §4), else every one.
double trainable_parameters(const MemBasis& in, double& lora_params) {
  const Workload& w = in.w;
  const ModelSpec& m = in.m;
  const ParamCounts& pc = in.pc;
  const bool training = in.training;
  double trainable = 0;
  if (training) {
    if (w.mode == Mode::lora || w.mode == Mode::qlora) {
      // [LORA] §4: r·(d_in + d_out) per adapted matrix.
      const LoraTargets& t = w.lora_targets;
      const double h = d(m.hidden), qd = d(m.is_mla() ? m.heads * m.v_head_dim : m.heads * m.head_dim);
      const double kvd = d(m.kv_heads * m.head_dim);
      const double f = d(m.is_moe() ? m.expert_ffn * m.experts : m.ffn);
      const double r = d(w.lora_rank);
      double per_layer = 0;
      if (t.q) per_layer += r * (h + qd);
      if (t.k) per_layer += r * (h + kvd);
      if (t.v) per_layer += r * (h + kvd);
      if (t.o) per_layer += r * (qd + h);
      if (t.gate && m.gated_mlp) per_layer += r * (h + f);
      if (t.up) per_layer += r * (h + f);
      if (t.down) per_layer += r * (f + h);
      lora_params = per_layer * d(m.layers + m.encoder_layers);
      trainable = lora_params;
    } else {
      trainable = pc.total;
    }
  }
  return trainable;
}

// FP8 weights under Megatron (method.md §3.1): two FP8 copies of each linear weight, row-wise and column-wise, 1 byte
// each; the second (the transpose) is what a GPU whose FP8 GEMMs take any layout does without (e.fp8_transposes).
// Returns the bytes a cache beside 16-bit parameters adds to the model states' weights.
static double fp8_weight_copies(const MemBasis& in, double expert_local, double expert_dp, double gathered_layer, MemoryEstimate& e) {
  const double dense_linear = (in.pc.linear - in.pc.routed_experts) / in.mp, linear_local = dense_linear + expert_local;
  if (fp8_weight_cache(in.w, in.m)) {
    // With 16-bit parameters, Transformer Engine caches the copies between micro-batches.
    e.fp8_transposes = linear_local;
    e.notes.push_back("FP8 copies of the linear weights cached between micro-batches (Megatron with 16-bit parameters)");
    return linear_local * 2.0;
  }
  if (fp8_params_gathered(in.w, in.m)) {
    // The parameters are the copies (2 bytes, the 16-bit row's), sharded as the weights; ZeRO-3's gathered layers
    // hold them too.
    e.fp8_transposes = in.shard == Sharding::zero3 ? dense_linear / in.dp + expert_local / expert_dp + 2.0 * gathered_layer : linear_local;
  }
  return 0.0;
}

// Model states (method.md §3): weights, gradients and optimizer states per GPU for the sharding and offload in
// use; the formula for the explanation.
std::string model_states(const MemBasis& in, const WeightBytes& wb, double lora_count, MemoryEstimate& e) {
  const Workload& w = in.w;
  const ModelSpec& m = in.m;
  const FrameworkProfile& fw = in.fw;
  const ParamCounts& pc = in.pc;
  const double tp = in.tp, dp = in.dp, mp = in.mp, ep = in.ep, expert_elsewhere = in.expert_elsewhere, base_bits = wb.base_bits,
               emb_bits = wb.emb_bits, weight_bytes_per_gpu = wb.per_gpu, lora_params = lora_count;
  const bool training = in.training, mixed = in.mixed;
  const Sharding shard = in.shard;
  // ---- Model states for training (method.md §3) ----------------------------------------------

  double states_weights = weight_bytes_per_gpu, states_grads = 0, states_opt = 0;
  std::string states_formula;  // for --explain only
  if (w.explain) states_formula = "params x bits/8 / (tp x pp)";
  if (training) {
    // Bytes per trainable parameter: method.md §3.1.
    const double p16 = (w.precision == Precision::fp32 || w.precision == Precision::tf32) ? 4.0 : 2.0;
    double wbytes = p16, gbytes = p16, obytes = 0;
    const bool hf_amp = mixed && fw.amp_fp32_params && shard == Sharding::none;
    if (mixed) {
      if (hf_amp) { wbytes = 4.0; gbytes = 4.0; }  // HF AMP: fp32 parameters and gradients ([HF-ANAT] 18 B/param)
      else if (w.grad_dtype) gbytes = *w.grad_dtype == Precision::fp32 ? 4.0 : 2.0;  // --grad-dtype (Megatron's grad_reduce_in_fp32)
      else gbytes = (shard != Sharding::none && w.effective_framework() == Framework::hf) ? 2.0 : fw.mixed_grad_bytes;
    }
    const double state_elem = (mixed || !is_16bit_or_lower(w.precision)) ? 4.0 : p16;  // optimizer state element bytes
    e.grad_element_bytes = gbytes;  // what the data-parallel reduction moves per gradient (method.md §8.4)
    obytes = optimizer_state_bytes(w.optimizer, state_elem, state_elem * 4.0 / std::max(1.0, d(m.hidden)));
    if (mixed && !hf_amp) obytes += 4.0;  // fp32 master copy counted with the optimizer ([ZERO] K = 12)
    // An expert-parallel group's own routed experts (parameters per GPU), which shard only over the dp/ep ranks that
    // hold the same experts (DeepSpeed-MoE's expert data parallelism), and the largest unit ZeRO-3 gathers: a layer
    // with its local experts, 1/ep of its routed ones.
    const double expert_local = (pc.routed_experts - expert_elsewhere) / mp, expert_dp = std::max(1.0, dp / ep);
    const double gathered_layer = (pc.largest_layer - pc.largest_layer_routed * (1.0 - 1.0 / ep)) / tp;
    const bool lora = w.mode == Mode::lora || w.mode == Mode::qlora;
    if (lora) {
      // Adapters: PEFT keeps them in fp32 under mixed precision; bf16-true keeps them 16-bit.
      const double aw = mixed ? 4.0 : p16;
      const ModelStates ad = zero_model_states(lora_params / mp, aw, aw, mixed ? 8.0 : obytes, shard, dp);
      if (shard == Sharding::zero3) {
        // FSDP shards the frozen base too, the local experts as the full fine-tune's, and gathers it unit by unit
        // (root unit + current + prefetched layer).
        const double experts = expert_local * base_bits / 8.0;
        const double gathered = (pc.embedding + pc.head) * emb_bits / 8.0 / tp + 2.0 * gathered_layer * base_bits / 8.0;
        states_weights = (weight_bytes_per_gpu - experts) / dp + experts / expert_dp + gathered;
      }
      states_weights += ad.weights;
      states_grads = ad.gradients;
      states_opt = ad.optimizer;
      if (w.explain) states_formula = "frozen base + adapters r(d_in+d_out) x (weights + grads + optimizer)";
    } else {
      // Dense parameters shard over every data-parallel rank, the local experts over expert_dp.
      const double per_gpu_params = (pc.total - pc.routed_experts) / mp;
      ModelStates ms = zero_model_states(per_gpu_params, wbytes, gbytes, obytes, shard, dp);
      if (expert_local > 0) {
        const ModelStates ex = zero_model_states(expert_local, wbytes, gbytes, obytes, shard, expert_dp);
        ms.weights += ex.weights;
        ms.gradients += ex.gradients;
        ms.optimizer += ex.optimizer;
      }
      if (hf_amp) {
        ms.weights += pc.linear / mp * 2.0;  // autocast's 16-bit copies of the linear weights (cache)
      }
      ms.weights += fp8_weight_copies(in, expert_local, expert_dp, gathered_layer, e);
      if (shard == Sharding::zero3) {
        // FSDP/ZeRO-3 gathers full 16-bit units: the root unit (embeddings and output head, held for the
        // whole step), the current and the prefetched layer ([DS-Z3] 4·largest layer; FSDP prefetch), and
        // the unsharded gradient of the largest unit before its reduce-scatter.
        const double root = (pc.embedding + pc.head) / tp;
        ms.weights += root * 2.0 + 2.0 * gathered_layer * 2.0;
        ms.gradients += std::max(gathered_layer, pc.head / tp) * (2.0 + gbytes);
      }
      if (w.offload == Offload::optimizer || w.offload == Offload::optimizer_params) {
        ms.optimizer = 0;
        e.notes.push_back("optimizer states and master weights offloaded to CPU memory");
      }
      if (w.offload == Offload::optimizer_params) {
        const double unit = std::max(pc.largest_layer, std::max(pc.embedding, pc.head)) / tp;
        ms.weights = unit * 2.0 * 2.0;
        ms.gradients = unit * gbytes;
        e.notes.push_back("parameters offloaded to CPU memory; GPUs hold the gathered units only");
      }
      if (shard == Sharding::none && dp > 1 && fw.ddp_bucket_copy) ms.gradients *= 2.0;  // DDP buckets
      states_weights = ms.weights;
      states_grads = ms.gradients;
      states_opt = ms.optimizer;
      if (w.explain) states_formula = fmt::format("params/(tp·pp) x ({} weights + {} grads + {} optimizer) B, {}", wbytes, gbytes, obytes,
                                   to_string(shard));
    }
  }
  e.weights = states_weights;
  e.gradients = states_grads;
  e.optimizer_states = states_opt;

  return states_formula;
}

}  // namespace gpuadvise::memory_detail
