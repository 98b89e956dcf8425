// Memory model: docs/method.md §2 (weights), §3 (model states, sharding), §4 (activations), §5 (LoRA),
// §6 (inference, KV cache, runtime). Every coefficient below names its source.
#include "gpuadvise/memory.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/efficiency.hpp"
#include "gpuadvise/units.hpp"
#include "gpuadvise/vision_model.hpp"
#include "layer_offload.hpp"
#include "memory_common.hpp"

namespace gpuadvise {

using namespace memory_detail;

namespace {

// KV heads each tensor-parallel rank holds: at least one (replicated when tp > g). method.md §6.1 ([LLMA]).
std::int64_t kv_heads_per_rank(const ModelSpec& m, std::int64_t tp) {
  if (m.is_mla()) return m.kv_heads;
  return std::max<std::int64_t>(1, (m.kv_heads + tp - 1) / tp);
}

}  // namespace

double kv_tokens_avg(const ModelSpec& m, double tokens) {
  if (m.sliding_window <= 0 || m.sliding_fraction <= 0) return tokens;
  const double local = std::min(tokens, d(m.sliding_window));
  return m.sliding_fraction * local + (1.0 - m.sliding_fraction) * tokens;
}


ModelStates zero_model_states(double params, double weight_bytes, double grad_bytes, double optimizer_bytes,
                              Sharding sharding, double dp) {
  // [ZERO] Fig. 1: P_os shards the optimizer states, P_os+g also the gradients, P_os+g+p also the weights.
  ModelStates s{params * weight_bytes, params * grad_bytes, params * optimizer_bytes};
  if (sharding == Sharding::zero1 || sharding == Sharding::zero2 || sharding == Sharding::zero3) s.optimizer /= dp;
  if (sharding == Sharding::zero2 || sharding == Sharding::zero3) s.gradients /= dp;
  if (sharding == Sharding::zero3) s.weights /= dp;
  return s;
}



namespace memory_detail {

// Optimizer state bytes per trainable parameter (method.md §3.1): AdamW keeps m and v, 8-bit AdamW one
// byte each, SGD with momentum one buffer; `factored` is Adafactor's factored second moment per parameter.
double optimizer_state_bytes(Optimizer o, double elem, double factored) {
  switch (o) {
    case Optimizer::adamw: return 2.0 * elem;
    case Optimizer::adamw_8bit: return 2.0;
    case Optimizer::adafactor: return factored;
    case Optimizer::sgd: return 0.0;
    case Optimizer::sgd_momentum: return elem;
  }
  return 0.0;
}

// Memory outside the framework's allocator (method.md §6.4): the CUDA context with library handles, NCCL
// communicators and buffers with several GPUs, CUDA graphs of serving engines.
double runtime_bytes(const Workload& w, const GpuSpec* gpu, bool cuda_graphs, const char** source) {
  double ctx = coef::cuda_context_bytes.value;  // CUDA 11.7+ lazy module loading: context + cuBLAS/cuDNN handles
  const char* ctx_src = "current CUDA stack with lazy kernel loading (~0.5 GiB)";
  if (!gpu) {
  } else if (const double cc = gpu->cc(); gpu->stack == "cuda" && cc > 0 && cc < 8.0) {
    ctx = coef::cuda_context_pre_ampere_bytes.value;  // [HF-ANAT]: 1,343 MiB measured on a V100 (CUDA 11.2, all kernels loaded)
    ctx_src = "pre-Ampere GPU stacks load every kernel: 1,343 MiB measured on a V100 ([HF-ANAT])";
  } else if (gpu->is_cpu()) {
    ctx = coef::cpu_runtime_bytes.value;
    ctx_src = "a CPU instance: the operating system and the framework's process (assumed 2 GiB; not measured)";
  } else if (gpu->stack != "cuda") {
    ctx = coef::other_runtime_context_bytes.value;
    ctx_src = "ROCm/Gaudi runtime context (assumed 0.75 GiB; not measured)";
  }
  double comm = 0;
  // NCCL communicators and buffers; independent inference replicas have none.
  if (w.gpus > 1 && !w.independent_replicas()) comm = 0.5 * k_gib + (w.tp > 1 ? 0.5 * k_gib : 0.0);
  if (cuda_graphs) comm += 0.5 * k_gib;                                 // CUDA graphs captured by vLLM
  if (source) *source = ctx_src;
  return ctx + comm;
}

void set_runtime(MemoryEstimate& e, const Workload& w, const GpuSpec* gpu, bool cuda_graphs) {
  const char* ctx_src = "";
  e.runtime = runtime_bytes(w, gpu, cuda_graphs, &ctx_src);
  if (!gpu) e.runtime_assumed_generic = true;
  if (w.explain) {
    const bool cpu = gpu && gpu->is_cpu();
    e.explain.push_back({"runtime", cpu ? "the OS and the process (cpu_runtime_bytes)" : "CUDA context + library workspaces + NCCL buffers (+ CUDA graphs)",
                         ctx_src, e.runtime, cpu ? "method.md §16" : "method.md §6.4"});
  }
}

}  // namespace memory_detail


namespace {

// The per-rank layer shape activations and the KV cache are counted on.
LayerShape layer_shape(const MemBasis& in, MemoryEstimate& e) {
  const Workload& w = in.w;
  const ModelSpec& m = in.m;
  const double tp = in.tp;
  // ---- Activations and transients -------------------------------------------------------------
  const std::int64_t kvh = kv_heads_per_rank(m, w.tp);
  e.kv_heads_per_gpu = kvh;
  LayerShape ls;
  ls.h = d(m.hidden);
  ls.a = d(m.heads) / tp;
  ls.qd = d(m.heads * (m.is_mla() ? m.qk_nope_head_dim + m.qk_rope_head_dim : m.head_dim)) / tp;
  ls.kvd = m.is_mla() ? d(m.kv_lora_rank + m.qk_rope_head_dim) : d(kvh * m.head_dim);
  const double f_dense = d(m.ffn);
  const double f_moe = m.is_moe() ? d(m.expert_ffn * m.experts_per_token + m.shared_expert_ffn * m.shared_experts) : f_dense;
  ls.f = (m.is_moe() ? f_moe : f_dense) / tp;
  if (m.is_mla()) {
    ls.vd = d(m.heads * m.v_head_dim) / tp;
    ls.latent = d(m.q_lora_rank + m.kv_lora_rank) / tp;
  }
  if (m.is_moe()) {
    const double routed = d(m.layers - m.dense_layers) / d(std::max<std::int64_t>(1, m.layers));
    ls.routed_in = routed * d(m.experts_per_token) * ls.h / tp;
    ls.router = routed * d(m.experts) / tp;
  }

  return ls;
}

// The pipeline stage at the peak (method.md §4.2): 1F1B keeps more micro-batches in flight on the first stage, while
// the last holds the logits. Of the `kept` activations (L layers' worth of one micro-batch), the first stage holds
// them once without interleaving (p micro-batches of L/p layers) and (1 + (p−1)/(p·v)) times with it (Megatron-LM
// theoretical_memory_usage.py, interleaved_schedule_memory_penalty: its (p−1)·2 + (v−1)·p warm-up chunks and one
// more); the last ((v−1)·p + 1)/(p·v) times (its (v−1)·p warm-up chunks and one more; 1/p without interleaving, its
// one micro-batch). `fixed` (the working set, the edges) is on both.
struct PipelinePeak {
  double activations, logits;
  double first = 0, last = 0;  // the two stages' peaks with a pipeline (for --explain)
};
PipelinePeak pipeline_peak(const Workload& w, double kept, double fixed, double logits) {
  if (w.pp <= 1) return {kept + fixed, logits};
  const double p = d(w.pp), v = d(std::max<std::int64_t>(1, w.virtual_stages));
  const double first = kept * (v > 1.0 ? 1.0 + (p - 1.0) / (p * v) : 1.0) + fixed, last = kept * ((v - 1.0) * p + 1.0) / (p * v) + fixed;
  if (last + logits > first) return {last, logits, first, last + logits};
  return {first, 0.0, first, last + logits};
}

// Training activations, logits and the optimizer step's temporary (method.md §4).
void training_activations(const MemBasis& in, const LayerShape& ls, MemoryEstimate& e) {
  const Workload& w = in.w;
  const ModelSpec& m = in.m;
  const FrameworkProfile& fw = in.fw;
  const double s = in.s, b = in.b, tp = in.tp, act_b = in.act_b, V = in.V, layers_total = in.layers_total;
  const bool mixed = in.mixed;
  const std::int64_t s_len = in.s_len;
  // Sequence parallelism (Megatron-LM, torchtitan) splits the h-sized tensors over the tensor-parallel
  // ranks too; the head- and f-sized ones are already per rank ([KORTH] Table 2, TP + SP).
  LayerShape sls = ls;
  sls.h = ls.h / tp;
  const SavedElements se = saved_per_token(m, w, fw, sls);
  const double per_token_layer = se.act * act_b + se.fp32 * 4.0 + se.bytes1 + se.scores * s * se.score_bytes;
  // Per micro-batch per GPU: context parallelism keeps s/cp of each sequence on a GPU (ring attention passes the
  // keys and values around instead).
  const double tokens = b * s / d(w.cp);
  double layer_bytes = per_token_layer * tokens;
  double acts = 0, working = 0;  // what the in-flight micro-batches keep; the working set of the layer being recomputed
  const char* act_formula = "";  // for --explain
  if (w.checkpointing == Checkpointing::selective && w.effective_framework() == Framework::torchtitan) {
    // torchtitan's op-level selective checkpointing saves the attention kernel's output and every
    // second matmul output of a layer (Wq, Wv, W1, W2) and recomputes the rest; the layer being
    // recomputed holds its whole working set during its backward (torchtitan activation_checkpoint.py).
    const double saved = sls.h + ls.qd + ls.qd + ls.kvd + ls.f + sls.h;
    acts = layers_total * tokens * (saved * act_b + ls.a * 4.0);
    working = layer_bytes;
    act_formula = "L·b·s·(h + 2·a·d + g·d + f + h)·bytes (torchtitan op-level selective AC) + one layer's working set";
  } else if (w.checkpointing == Checkpointing::full) {
    // [KORTH] Table 2 "full recompute": each layer's input (2·s·b·h) is kept; the layer being
    // recomputed holds its whole working set during its backward.
    acts = layers_total * tokens * ls.h * act_b / tp;
    working = layer_bytes;
    act_formula = "L·b·s·h·bytes (layer inputs) + one layer's working set during its recompute";
  } else {
    // Pipeline 1F1B: the first stage keeps pp micro-batches of L/pp layers ≈ L layers ([KORTH] §4.2.3).
    acts = layers_total * layer_bytes;
    act_formula = "L·b·s·(saved elements per token·bytes) (method.md §4.2)";
    // Megatron-Core's CPU offload (--offload activations, one pipeline stage; method.md §4.5): the first N layers'
    // saved tensors leave for host memory as the forward passes them and come back as the backward reaches them,
    // through Transformer Engine's double buffer. The peak is the end of the forward with the L − N layers kept, or
    // the buffer's two offloaded layers in flight where fewer are kept.
    if (const std::int64_t off = activation_offload_layers(w, m); off > 0) {
      e.host_activations = d(off) * layer_bytes;
      e.gpu_layers = w.gpu_layers;
      acts = std::max(layers_total - d(off), std::min(d(off), 2.0)) * layer_bytes;
      act_formula = "max(L − N, min(N, 2))·b·s·(saved elements per token·bytes): N layers' in host memory (method.md §4.5)";
    }
  }
  // Embedding output and final norm input.
  const double edges = 2.0 * tokens * sls.h * act_b;
  // Logits and loss: b·s·V elements; the last pipeline stage, vocab split over tp.
  double logit_bytes = 0;
  if (m.architecture == Architecture::encoder && m.num_labels > 0) {
    logit_bytes = b * d(m.num_labels) * 4.0;
  } else {
    const double per_elem = is_16bit_or_lower(w.precision) ? fw.train_logits_bytes_per_element
                                                           : fw.train_logits_bytes_per_element * coef::fp32_logits_factor.value;
    logit_bytes = tokens * V / tp * per_elem;
  }
  const PipelinePeak peak = pipeline_peak(w, acts, working + edges, logit_bytes);
  e.activations = peak.activations;
  e.logits = peak.logits;
  if (w.explain) {
    // With a pipeline, which stage is at the peak: the first with its micro-batches in flight, or the last with the logits.
    const bool piped = w.pp > 1, last_peaks = piped && e.logits > 0.0;
    const char* holder = !piped ? "" : last_peaks ? "; the last pipeline stage's micro-batches in flight" : "; the first pipeline stage's micro-batches in flight";
    const std::string stage = !piped ? ""
                              : last_peaks ? fmt::format("; the last stage is the peak: {:.1f} GB of activations with the logits", e.activations / 1e9)
                                           : fmt::format("; on the last stage only, which peaks lower ({:.1f} GB with its activations) than the first ({:.1f} GB)",
                                                         peak.last / 1e9, peak.first / 1e9);
    e.explain.push_back({"activations", act_formula,
                         fmt::format("L={}, b={}, s={}, h={}, f={}, per token per layer {:.0f} B{}", m.layers + m.encoder_layers, w.batch, s_len,
                                     m.hidden, ls.f * tp, per_token_layer, holder),
                         e.activations, "method.md §4 ([KORTH] Table 2; flash attention per Dao et al. 2022)"});
    e.explain.push_back({"logits", "b·s·V/tp x bytes alive at the loss (16-bit logits, fp32 upcast, log-probs)",
                         fmt::format("b·s={}, V={}, {:.1f} B/element ({}){}", w.batch * s_len, m.vocab, fw.train_logits_bytes_per_element,
                                     fw.summary, stage),
                         e.logits, "method.md §4.3"});
  }
  e.peak_phase = "end of forward / start of backward (activations, logits and gradients live)";
  // The optimizer step: PyTorch's multi-tensor AdamW allocates a temporary of the size of the states it
  // updates (sqrt of v) while weights, gradients and states are all live (torch/optim/adamw.py).
  if (w.optimizer == Optimizer::adamw && e.optimizer_states > 0) {
    const double step_temp = e.optimizer_states / (mixed ? 3.0 : 2.0);
    const double bwd = e.activations + e.logits;
    if (step_temp > bwd) {
      e.activations = step_temp;
      e.logits = 0;
      e.peak_phase = "optimizer step (weights, gradients, states and the step's temporaries live)";
      if (w.explain) e.explain.push_back({"activations", "optimizer-step temporary (multi-tensor AdamW: one state-sized buffer)", "",
                           step_temp, "method.md §3.1"});
    }
  }
}

// Inference (method.md §6): the KV cache, the prefill transient and the logits.
void inference_activations(const MemBasis& in, const LayerShape& ls, MemoryEstimate& e) {
  const Workload& w = in.w;
  const ModelSpec& m = in.m;
  const FrameworkProfile& fw = in.fw;
  const ParamCounts& pc = in.pc;
  const double s = in.s, b = in.b, tp = in.tp, pp = in.pp, act_b = in.act_b, V = in.V;
  const std::int64_t kvh = e.kv_heads_per_gpu;
  // ---- Inference (method.md §6) --------------------------------------------------------------
  const Precision kvp = w.effective_kv_precision();
  const double kv_elem_bytes = kvp == Precision::fp4 ? weight_bits(Precision::fp4, false) / 8.0
                               : (kvp == Precision::fp8 || kvp == Precision::int8 || kvp == Precision::q8_0) ? 1.0
                               : (kvp == Precision::fp32 || kvp == Precision::tf32) ? 4.0 : 2.0;
  double kv_dim = m.is_mla() ? ls.kvd : 2.0 * ls.kvd;
  // Attention data parallel: each GPU keeps every KV head of its own sequences, a tp-th of the replica's, and
  // none twice (tensor parallel keeps a head on each GPU at least: MLA's latent and 4 KV heads at tp 8 repeat).
  if (w.attention_dp) kv_dim = (m.is_mla() ? ls.kvd : 2.0 * d(m.kv_heads * m.head_dim)) / tp;
  const double kv_per_token = d(m.layers) * kv_dim * kv_elem_bytes / pp;
  double prompt = s - 1.0;
  if (w.input_tokens) prompt = std::min(s, *w.input_tokens);
  prompt = std::max(1.0, prompt);
  const double kv_tokens = kv_tokens_avg(m, s);
  e.kv_bytes_per_token = kv_per_token;
  e.kv_cache = b * kv_tokens * kv_per_token;
  if (w.explain) e.explain.push_back({"kv_cache", "2·L·g·d·bytes x tokens x batch (per GPU: max(g/tp,1) heads)",
                       fmt::format("L={}, g/GPU={}, d={}, {} B, tokens={:.0f}, batch={}", m.layers, kvh, m.head_dim,
                                   kv_elem_bytes, kv_tokens, w.batch),
                       e.kv_cache, "method.md §6.1 ([VLLM-P] §2)"});
  // Prefill transient: the largest live intermediate of one layer at a time.
  const double n = b * prompt;
  const double mlp_tr = n * (m.gated_mlp ? 3.0 : 2.0) * ls.f * act_b;
  double attn_tr = n * 3.0 * (ls.qd + ls.kvd) * act_b;
  if (!w.flash_attention) {
    const double score_bytes = fw.eager_softmax_fp32 ? (2.0 + 4.0 + 2.0) : (2.0 + 2.0);
    attn_tr += b * ls.a * prompt * kv_tokens_avg(m, prompt) * score_bytes;
  }
  const double hidden_bufs = 3.0 * n * ls.h * act_b;  // residual stream, normed input, layer output
  e.activations = std::max(mlp_tr, attn_tr) + hidden_bufs;
  if (w.explain) e.explain.push_back({"activations", "max(eager scores a·s²·bytes, MLP 3·n·f·bytes) + 3·n·h·bytes",
                       fmt::format("n={:.0f} prompt tokens, eager={}", n, !w.flash_attention), e.activations,
                       "method.md §6.3"});
  const double logit_pos = fw.prompt_logits_all_positions ? n : b;
  e.logits = logit_pos * V / tp * fw.infer_logits_bytes_per_element;
  if (w.explain) e.explain.push_back({"logits", "positions x V x bytes (all prompt positions or the last only)",
                       fmt::format("positions={:.0f}, V={}", logit_pos, m.vocab), e.logits, "method.md §6.3"});
  // Weight-only quantised layers dequantise one weight to 16-bit for prefill matmuls (bnb, GPTQ w/o kernel).
  if (w.precision == Precision::nf4 || w.precision == Precision::int8) {
    const double biggest = std::max(d(m.hidden) * ls.f, pc.head > 0 ? d(m.vocab) * d(m.hidden) / tp : 0.0);
    e.activations += biggest * 2.0;
  }
  e.peak_phase = "prefill of the last layer with the KV cache full";
}

// The tensor peak (method.md §6.4), and what a serving engine's pool is sized from.
void assemble_tensors(const MemBasis& in, const WeightBytes& wb, const std::string& states_formula, const LayerShape& ls, TensorMemory& t) {
  MemoryEstimate& e = t.e;
  const Workload& w = in.w;
  const ParamCounts& pc = in.pc;
  const double base_bits = wb.base_bits;
  const bool training = in.training;
  e.tensor_peak = e.weights + e.gradients + e.optimizer_states + e.activations + e.kv_cache + e.logits;
  if (w.explain) e.explain.insert(e.explain.begin(), {"weights", states_formula,
                                       fmt::format("params {:.3f} B, {} bits/weight", pc.total / 1e9, base_bits), e.weights,
                                       "method.md §2–3"});
  if (training) {
    if (w.explain) e.explain.insert(e.explain.begin() + 1, {"gradients", "trainable params x grad bytes / shards", "", e.gradients, "method.md §3.1"});
    if (w.explain) e.explain.insert(e.explain.begin() + 2, {"optimizer_states", "trainable params x optimizer bytes / shards",
                                             to_string(w.optimizer), e.optimizer_states, "method.md §3.1"});
  }
  t.serving = {ls.f, ls.h, in.act_b, in.V, in.tp, in.pp, in.s};
}

// llama.cpp's partial offload (-ngl N; method.md §8.3): the weights and KV cache of the layers past N stay in host
// memory, where the CPU runs them, and so does the output layer (it moves to the GPU only past the last layer, -ngl
// L + 1; a tied model's output is the token embedding, always in host memory): the CPU reads it each token. Over
// several GPUs (its layer split, p stages) the N layers split evenly over them: each holds N/p, the host the rest
// of all p stages' layers (per-GPU figures times p).
void offload_layers(const MemBasis& in, const WeightBytes& wb, MemoryEstimate& e) {
  const double share = gpu_layer_share(in.w, in.m);
  const double head = in.pc.head * wb.emb_bits / 8.0, tied = in.m.tied_embeddings ? in.pc.embedding * wb.emb_bits / 8.0 : 0.0;
  const double layers = std::max(0.0, e.weights - head);
  e.host_output = head + tied;
  e.host_weights = layers * in.pp * (1.0 - share) + e.host_output;
  e.host_kv_cache = e.kv_cache * in.pp * (1.0 - share);
  e.host_kv_bytes_per_token = e.kv_bytes_per_token * in.pp * (1.0 - share);
  e.gpu_layers = std::min(in.w.gpu_layers, in.m.layers);
  e.weights = layers * share;
  e.pipeline_edge_excess = 0;  // the output layer is in host memory: every stage holds layers alone
  e.expert_weights *= share;
  e.kv_cache *= share;
  e.notes.push_back(Note::format("llama.cpp -ngl {}: {} of {} layers on the {}; {:.1f} GB of weights (the output layer's among them) and {:.1f} GB of KV "
                                 "cache stay in host memory, where the CPU runs the other layers",
                                 in.w.gpu_layers, e.gpu_layers, in.m.layers, in.w.gpus > 1 ? fmt::format("{} GPUs", in.w.gpus) : "GPU",
                                 e.host_weights / 1e9, e.host_kv_cache / 1e9));
}

// llama.cpp's expert offload (--n-cpu-moe K; method.md §8.3): the routed experts of its first K layers stay in host
// memory and the CPU runs them; the attention, the shared experts, the output layer and the whole KV cache stay on
// the GPU (-ngl past the last layer). Over several GPUs (its layer split, p stages) the layers balance over them by
// bytes (llama.cpp's -ts, or its --fit): each GPU keeps the same share of its stage's experts, the host the rest of
// all p stages' (per-GPU figures times p).
void offload_experts(const MemBasis& in, MemoryEstimate& e) {
  const double moved = e.expert_weights * (1.0 - gpu_expert_share(in.w, in.m));
  if (in.w.gpus > 1) {
    // The split that balances them: a MoE layer's routed experts, and the rest of the stages' weights (the output
    // layer once, not on every stage as the largest stage counts it) per layer.
    const std::int64_t moe = std::max<std::int64_t>(1, in.m.layers - in.m.dense_layers);
    const double experts = e.expert_weights * in.pp / static_cast<double>(moe),
                 rest = std::max(0.0, (e.weights - e.expert_weights) * in.pp - e.pipeline_edge_excess) / d(in.m.layers);
    e.layer_split = balanced_layer_split(rest, experts, in.m.layers, std::max(cpu_moe_layers(in.w, in.m), in.m.dense_layers), in.w.gpus);
  }
  e.host_weights = moved * in.pp;
  e.expert_weights -= moved;
  e.gpu_layers = std::min(in.w.gpu_layers, in.m.layers);
  e.cpu_moe_layers = cpu_moe_layers(in.w, in.m);
  e.weights -= moved;
  e.notes.push_back(Note::format("llama.cpp --n-cpu-moe {}: the routed experts of {} of {} layers stay in host memory ({:.1f} GB), where the CPU runs them; "
                                 "the attention, the other experts and the KV cache are on the {}",
                                 e.cpu_moe_layers, e.cpu_moe_layers, in.m.layers, e.host_weights / 1e9,
                                 in.w.gpus > 1 ? fmt::format("{} GPUs, balanced by bytes (-ts)", in.w.gpus) : "GPU"));
}

// FP8 weights on a GPU whose FP8 GEMMs take any layout (compute capability 10.x: Transformer Engine's
// is_non_tn_fp8_gemm_supported) keep one FP8 buffer for both layouts, not the copy and its transpose (method.md §3.1).
double fp8_transposes_dropped(const MemoryEstimate& e, const GpuSpec* gpu) {
  return gpu && e.fp8_transposes > 0 && gpu_family(*gpu) == GpuFamily::blackwell ? e.fp8_transposes : 0.0;
}

}  // namespace

// The runtime, the allocator reserve, a serving engine's pool and the band (method.md §6.4-6.5) on the tensors.
MemoryEstimate device_memory(TensorMemory t, const Workload& w, const ModelSpec& m, const GpuSpec* gpu) {
  MemoryEstimate& e = t.e;
  if (const double dropped = fp8_transposes_dropped(e, gpu); dropped > 0) {
    e.weights -= dropped;
    e.tensor_peak -= dropped;
    for (auto& line : e.explain)
      if (line.component == "weights") line.bytes -= dropped;
    e.notes.push_back(Note::format("FP8 weights: one copy serves both GEMM layouts on this GPU ({:.1f} GB less than a transpose beside it)", dropped / 1e9));
    e.fp8_transposes = 0;  // the device's weights hold no transpose now: nothing is left to drop twice
  }
  const FrameworkProfile& fw = framework_profile(w.effective_framework());
  const bool training = is_training(w.mode);
  // ---- Runtime outside the allocator (method.md §6.4) -------------------------------------------
  set_runtime(e, w, gpu, fw.kv_pool);

  // ---- Allocator reserve -------------------------------------------------------------------------
  e.allocator_reserve = allocator_reserve_bytes(e, fw, training);
  if (w.explain) e.explain.push_back({"allocator_reserve", "reserve fraction x transient tensors (activations, logits, gradients)",
                       fmt::format("{:.2f}", fw.reserve_fraction), e.allocator_reserve, "method.md §6.4"});
  e.device_peak = e.tensor_peak + e.allocator_reserve + e.runtime;

  // ---- vLLM pool (method.md §6.2) -----------------------------------------------------------------
  if (fw.kv_pool && !training) apply_serving_pool(e, w, m, gpu, t.serving);


  // ---- Band: per-component uncertainty (method.md §6.5) --------------------------------------------
  auto band = [&](double sign) {
    using namespace coef;
    return e.weights * (1 + sign * band_weights.value) + (e.gradients + e.optimizer_states) * (1 + sign * band_states.value) +
           e.activations * (1 + sign * band_activations.value) + e.logits * (1 + sign * band_logits.value) +
           e.kv_cache * (1 + sign * band_kv_cache.value) + e.allocator_reserve * (1 + sign * band_reserve.value) +
           e.runtime * (1 + sign * band_runtime.value);
  };
  if (e.vllm && gpu) {
    e.device_low = e.device_high = e.device_peak;
  } else {
    e.device_low = band(-1);
    e.device_high = band(+1);
  }
  return std::move(t.e);
}

double device_peak_bytes(const MemoryEstimate& tensors, const Workload& w, const GpuSpec* gpu) {
  const FrameworkProfile& fw = framework_profile(w.effective_framework());
  return tensors.tensor_peak - fp8_transposes_dropped(tensors, gpu) + allocator_reserve_bytes(tensors, fw, is_training(w.mode)) +
         runtime_bytes(w, gpu, fw.kv_pool);
}

MemoryEstimate estimate_memory(const Workload& w, const ModelSpec& m, const GpuSpec* gpu) {
  if (m.vision) return estimate_vision_memory(w, m, gpu);
  return device_memory(tensor_memory(w, m), w, m, gpu);
}

TensorMemory tensor_memory(const Workload& w, const ModelSpec& m) {
  TensorMemory t;
  MemoryEstimate& e = t.e;
  const FrameworkProfile& fw = framework_profile(w.effective_framework());
  const ParamCounts pc = count_params(m);
  e.params_total = pc.total;
  e.params_active = pc.active;
  const std::int64_t s_len = effective_seq_len(w, m);
  e.seq_len = s_len;
  // Past the trained context the model needs RoPE scaling (YaRN, NTK); published long-context runs do it, so
  // it is said, not refused (method.md, "Input ranges").
  if (w.seq_len && m.context > 0 && *w.seq_len > m.context && !m.relative_attention_bias)
    e.notes.push_back(Note::format("--seq-len {} is beyond the model's trained context of {} tokens: it needs RoPE scaling (e.g. YaRN){}",
                                  *w.seq_len, m.context, w.rope_scaling ? ", as --rope-scaling says" : "; --rope-scaling says it is meant"));
  // Pipeline stages that do not divide the layers split them unevenly: the largest stage sets the memory.
  // ZeRO shards over the ranks that hold the same weights: data parallel x context parallel.
  const double s = d(s_len), b = d(w.batch), tp = d(w.tp), dp = d(w.replica_ranks());
  const double pp = pipeline_split(m, w.pp);
  const bool training = is_training(w.mode);
  const double act_b = activation_bytes(w.precision);
  const double V = d(m.vocab);
  const double mp = tp * pp;  // model-parallel split of the layer weights
  // Expert parallelism keeps 1/ep of the routed experts on each GPU (method.md §3.4).
  const double ep = m.is_moe() ? d(expert_shards(w)) : 1.0;
  const bool mixed = is_16bit_or_lower(w.precision) && w.effective_master_weights() == MasterWeights::fp32 && training;
  const Sharding shard = (w.gpus > 1 || dp > 1) ? w.sharding : Sharding::none;
  const MemBasis in{w, m, fw, pc, s_len, s, b, tp, dp, pp, mp, act_b, V, ep, experts_elsewhere(pc, ep), d(m.layers + m.encoder_layers),
                    training, mixed, shard};

  const WeightBytes wb = weight_bytes(in, e);
  double lora_count = 0;
  e.params_trainable = trainable_parameters(in, lora_count);
  const std::string states_formula = model_states(in, wb, lora_count, e);
  const LayerShape ls = layer_shape(in, e);
  if (training) training_activations(in, ls, e);
  else inference_activations(in, ls, e);
  if (!training) e.expert_weights = std::min(wb.experts_per_gpu, e.weights);
  if (!training && w.offload == Offload::layers && w.gpu_layers > 0) offload_layers(in, wb, e);
  if (!training && w.offload == Offload::experts && w.gpu_layers > 0) offload_experts(in, e);
  assemble_tensors(in, wb, states_formula, ls, t);
  return t;
}

}  // namespace gpuadvise
