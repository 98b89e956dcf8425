// Framework profiles: docs/method.md §7 lists every trait with the framework source it comes from.
#include "gpuadvise/framework.hpp"
#include "gpuadvise/memory.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/vision_model.hpp"
#include "layer_offload.hpp"

namespace gpuadvise {

namespace {
// Inference engines: serving pools, CUDA graphs, preallocated caches (method.md §7).
FrameworkProfile engine_profile(Framework f) {
  FrameworkProfile p;
  p.id = f;
  switch (f) {
    case Framework::vllm:
      p.summary = "vLLM (paged KV-cache pool)";
      p.prompt_logits_all_positions = false;
      p.eager_softmax_fp32 = false;
      p.kv_pool = true;
      p.reserve_fraction = 0.0;
      p.layer_overhead_s = 0.03e-3;  // CUDA graphs replay the decode step
      p.fused_elementwise = true;     // fused RMSNorm + residual, rotary and SiLU-and-mul kernels (SGLang and TensorRT-LLM alike)
      // Fused MoE at a few tokens: the grouped expert GEMMs launch a handful of thread blocks per active expert
      // that iterate over the hidden size latency-bound, plus routing, alignment and combine kernels: about
      // 0.19 ms per MoE layer (fitted on SGLang's tuned DeepSeek-R1 batch-1 row on 8x H200, 60 tokens/s,
      // sglang#3956; held out: 30 tokens/s in sglang PR #2643, 26 in vllm#11539, 10-13 in early reports).
      p.moe_layer_dispatch_s = 0.19e-3;
      p.source = "vllm/v1/worker/gpu_worker.py determine_available_memory; logits only for sampled positions";
      break;
    case Framework::sglang:
    case Framework::trtllm: {
      // SGLang: weights and the KV pool take mem_fraction_static of the card, the rest holds activations and CUDA
      // graphs. TensorRT-LLM: the KV pool takes kv_cache_free_gpu_mem_fraction (0.9) of the memory left after the
      // engine (weights, activation workspace, runtime) loads; in-flight batching. Both decode as vLLM does (CUDA
      // graphs, the same fused-MoE kernels); the pools differ (memory.cpp, method.md §6.2).
      const bool sglang = f == Framework::sglang;
      p = engine_profile(Framework::vllm);
      p.id = f;
      p.summary = sglang ? "SGLang (radix-cache KV pool)" : "TensorRT-LLM (paged KV cache, in-flight batching)";
      if (!sglang) p.sequence_host_s = coef::engine_sequence_host_s.value;
      p.source = sglang ? "sglang/srt/server_args.py: mem_fraction_static = (gpu_mem - reserved_mem) / gpu_mem, reserved by GPU class"
                        : "tensorrt_llm KvCacheConfig.free_gpu_memory_fraction (default 0.9 of the free memory after the engine loads)";
      break;
    }
    case Framework::llamacpp:
      p.summary = "llama.cpp (GGUF)";
      p.prompt_logits_all_positions = false;
      p.infer_logits_bytes_per_element = 4.0;
      p.eager_softmax_fp32 = false;
      p.kv_preallocated = true;
      p.embeddings_on_host = true;
      p.reserve_fraction = 0.0;
      p.layer_overhead_s = 0.05e-3;  // C++ graph, no Python dispatch
      p.decode_bytes_per_sm_cycle = coef::llamacpp_decode_bytes_per_sm_cycle.value;
      p.source = "llama.cpp: KV cache allocated for n_ctx at load; token_embd kept in host memory; logits of the last token";
      break;
    case Framework::exllama:
      p.summary = "ExLlama (GPTQ)";
      p.layer_overhead_s = 0.12e-3;  // ExLlama README rows (RTX 4090, 7B-30B)
      p.prompt_logits_all_positions = false;
      p.eager_softmax_fp32 = false;
      p.kv_preallocated = true;
      p.fused_elementwise = true;  // its CUDA extension's RMSNorm, rotary and SiLU-mul kernels
      p.source = "ExLlama README and model.py: ExLlamaCache preallocated for max_seq_len; fp16 attention; last-token logits";
      break;
    case Framework::exllamav2:
      // One generated token costs the weights read at 90 % of the bandwidth plus 0.84 ms on the host (the generator's
      // sampling and token sync), the per-layer dispatch negligible: fitted on two rows of the ExLlamaV2 README's
      // table on an RTX 4090 (Llama 7B GPTQ 195 tokens/s, TinyLlama 1.1B EXL2 4.0 bpw 590), held out on its 13B
      // and 34B rows (method.md §8.3).
      p.summary = "ExLlamaV2 (GPTQ, EXL2)";
      p.layer_overhead_s = 0.0;
      p.decode_step_fixed_s = 0.84e-3;
      p.decode_bandwidth_share = 0.9;
      p.prompt_logits_all_positions = false;
      p.eager_softmax_fp32 = false;
      p.kv_preallocated = true;
      p.fused_elementwise = true;  // its C++ extension's fused norm, rotary and activation kernels
      p.source = "ExLlamaV2 README and exllamav2/cache.py: ExLlamaV2Cache preallocated for max_seq_len; fp16 attention; last-token logits";
      break;
    case Framework::autoawq:
      p.summary = "AutoAWQ";
      p.layer_overhead_s = 0.05e-3;  // AutoAWQ README decode rows (fused modules)
      p.prefill_fixed_s = 0.045;     // AutoAWQ README 64-token prefill rows
      p.prompt_logits_all_positions = true;
      p.eager_softmax_fp32 = false;
      p.kv_preallocated = true;
      // awq/modules/fused/attn.py: a prompt (seqlen > 1) runs torch.matmul(xq, keys^T), + mask, softmax(scores.float()),
      // torch.matmul(scores, values); one token runs FasterTransformer's single_query_attention.
      p.prefill_eager_attention = true;
      p.source = "AutoAWQ fused modules: preallocated KV cache for max_seq_len";
      break;
    default:
      break;
  }
  return p;
}

// Training frameworks and the plain PyTorch profile (method.md §7).
FrameworkProfile training_profile(Framework f) {
  FrameworkProfile p;
  p.id = f;
  switch (f) {
    case Framework::hf:
      p.summary = "Hugging Face transformers/Trainer/PEFT";
      p.layer_overhead_s = 0.45e-3;  // optimum GPTQ/fp16 rows (A100) and GPTQ-for-LLaMa rows (RTX 4090)
      p.quant_matmul_cuda_cores = true;
      p.expert_host_loop = true;  // the eager MoE block loops over the experts a batch hits
      p.prompt_logits_all_positions = false;  // generate() keeps the last position's logits (logits_to_keep, 4.45+)
      p.source = "transformers LlamaForCausalLM.forward (logits.float(), eager softmax in fp32; generate keeps last-position logits since 4.45); Trainer AMP; PEFT LoraConfig (lora_dropout 0)";
      break;
    case Framework::litgpt:
      p.summary = "LitGPT (Lightning Fabric)";
      p.layer_overhead_s = 0.5e-3;  // LitGPT resource-table bf16 rows (A100)
      p.train_logits_bytes_per_element = 4.0;
      p.infer_logits_bytes_per_element = 2.0;
      p.eager_softmax_fp32 = false;
      p.kv_preallocated = true;
      p.quant_linear_fp32_compute = true;
      p.lora_dropout = true;
      p.amp_fp32_params = false;
      p.mixed_grad_bytes = 2.0;
      p.ddp_bucket_copy = false;
      p.source = "litgpt finetune/lora.py (lora_dropout 0.05, chunked_cross_entropy), generate/base.py (set_kv_cache to max_returned_tokens); bitsandbytes Linear4bit compute dtype fp32";
      break;
    case Framework::torchtune:
      p.summary = "torchtune";
      p.train_logits_bytes_per_element = 4.0;
      p.amp_fp32_params = false;
      p.mixed_grad_bytes = 2.0;
      p.ddp_bucket_copy = false;
      p.kv_preallocated = true;
      p.source = "torchtune recipes: bf16 parameters, CEWithChunkedOutputLoss, FSDP";
      break;
    case Framework::torchtitan:
      p.summary = "torchtitan (FSDP2)";
      p.train_logits_bytes_per_element = 10.0;
      p.amp_fp32_params = false;
      p.mixed_grad_bytes = 4.0;
      p.ddp_bucket_copy = false;
      p.source = "torchtitan: FSDP2 MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32), fp32 sharded parameters";
      break;
    case Framework::megatron:
      p.summary = "Megatron-LM";
      p.fused_elementwise = true;  // Transformer Engine / apex fused norms, fused RoPE, bias-SwiGLU fusion
      p.hopper_attention_speedup = 1.5;  // Transformer Engine's fused attention on Hopper (FlashAttention-3 class)
      p.fused_swiglu = true;             // bias_swiglu_fusion: keeps fc1's output (gate and up), recomputes the rest
      p.fp8_saved_inputs = true;         // Transformer Engine saves FP8 copies of the linear layers' inputs
      // Its vocab-parallel cross-entropy (tensor_parallel/cross_entropy.py, and the fused one of --cross-entropy-loss-fusion)
      // copies the 16-bit logits to fp32 and runs the softmax in place in that copy, kept for the backward (the
      // gradient, cast back to 16 bits): 2 + 4 bytes per element at the loss, never a second fp32 tensor.
      p.train_logits_bytes_per_element = 6.0;
      p.amp_fp32_params = false;
      p.mixed_grad_bytes = 4.0;
      p.ddp_bucket_copy = false;
      p.kv_preallocated = true;
      p.expert_host_loop = true;  // dropless token dispatcher (host sync) + GroupedLinear's per-expert loops
      p.source = "Megatron-LM theoretical_memory_usage.py (18 bytes/param); core/tensor_parallel/cross_entropy.py (16-bit logits and their fp32 softmax, in place)";
      break;
    case Framework::llmq:
      // llm.q (IST-DASLab/llmq, a C++/CUDA trainer after llm.c): fused RMSNorm, RoPE and SwiGLU kernels, llm.c's
      // fused classifier (bf16 logits, the loss gradient written over them in place), bf16 gradients, its own
      // NCCL reduction (no DDP buckets), CUDA graphs. Its published speed rows train bf16 weights with bf16
      // optimizer states (--model-dtype=bf16 --opt-m-dtype=bf16 --opt-v-dtype=bf16: --master-weights none).
      p.summary = "llm.q (C++/CUDA, fused kernels)";
      p.fused_elementwise = true;
      p.train_logits_bytes_per_element = 2.0;
      p.amp_fp32_params = false;
      p.mixed_grad_bytes = 2.0;
      p.ddp_bucket_copy = false;
      p.layer_overhead_s = 0.03e-3;  // CUDA graphs (--use-cuda-graphs), as vLLM's decode
      p.source = "llmq README (Speed: bf16 optimizer states, CUDA graphs), src/kernels/fused_classifier.cu (after llm.c), rmsnorm.cu, rope.cu, swiglu.cu";
      break;
    case Framework::pytorch:
    case Framework::detectron2:
    case Framework::mmdet:
    case Framework::ultralytics:
    case Framework::tensorrt:
    case Framework::diffusers:
      p.summary = "PyTorch";
      p.source = "plain PyTorch training loop with torch.amp";
      break;
    default:
      break;
  }
  return p;
}

FrameworkProfile build_profile(Framework f) {
  switch (f) {
    case Framework::vllm:
    case Framework::sglang:
    case Framework::trtllm:
    case Framework::llamacpp:
    case Framework::exllama:
    case Framework::exllamav2:
    case Framework::autoawq:
      return engine_profile(f);
    default:
      return training_profile(f);
  }
}
}  // namespace

VllmBatchDefaults vllm_batch_defaults(const GpuSpec* gpu) {
  if (!gpu) return {};
  // Larger batches slowed the A100 there (vLLM PR #17885), so it keeps the smaller defaults.
  const bool large = static_cast<double>(gpu->memory_bytes) >= 70.0 * 1073741824.0 && gpu->name.find("A100") == std::string::npos;
  return large ? VllmBatchDefaults{1024, 8192} : VllmBatchDefaults{256, 2048};
}

Framework framework_of(const Workload& w, const ModelSpec& m) {
  return m.vision ? w.framework.value_or(Framework::pytorch) : w.effective_framework();
}

bool attention_dp_applies(const Workload& w, const ModelSpec& m) {
  return !is_training(w.mode) && !m.vision && m.is_moe() && framework_profile(w.effective_framework()).kv_pool;
}

const FrameworkProfile& framework_profile(Framework f) {
  // Built once: the estimator asks for the profile several times per evaluation.
  static const std::array<FrameworkProfile, k_framework_count> profiles = [] {
    std::array<FrameworkProfile, k_framework_count> all;
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = build_profile(static_cast<Framework>(i));
    return all;
  }();
  return profiles.at(static_cast<std::size_t>(f));
}

namespace {
// Settings that have no effect for this model and mode are bad input, not silently dropped (method.md "Input
// ranges"): each given key is checked against where it applies.
void check_no_silent_settings(const Workload& w, const ModelSpec& m) {
  const bool training = is_training(w.mode);
  const bool generation = m.vision && m.vision->task == "generation";
  const bool adapters = w.mode == Mode::lora || w.mode == Mode::qlora;
  const std::string mode = to_string(w.mode);
  auto given = [&](const char* key) { return w.given(key); };
  auto refuse = [&](const char* key, const std::string& why) { throw InputError(w.where(key) + ": " + why); };
  for (const char* key : {"optimizer", "master_weights", "gradient_checkpointing", "grad_accum", "tokens", "dataset_tokens", "checkpoint_every"})
    if (given(key) && !training) refuse(key, "applies to training (--mode train, finetune, lora or qlora), not --mode " + mode);
  // torch.compile's fusion is timed in training and in vision and image-generation inference (the feature-map and
  // element passes; a denoiser's CUDA graphs).
  if (given("compile") && !training && !m.vision)
    refuse("compile", "is timed for training and for vision and image-generation inference, not --mode " + mode + " of " + m.id);
  if (given("diffusion_steps") && (training || !generation))
    refuse("diffusion_steps", "applies to image-generation inference (--mode inference of a diffusion pipeline: Stable Diffusion, SDXL, FLUX), not " +
                                  (m.vision ? "--mode " + mode + " of " + m.id : m.id + ", a language model"));
  if (given("grad_dtype")) {
    if (!training || adapters || m.vision || w.precision == Precision::fp32 || w.precision == Precision::tf32 || w.effective_master_weights() != MasterWeights::fp32)
      refuse("grad_dtype", "applies to mixed-precision training of a language model's full parameters (--mode train or finetune at bf16, fp16 or "
                           "fp8 with fp32 master weights)");
    if (framework_profile(w.effective_framework()).amp_fp32_params && w.sharding == Sharding::none)
      refuse("grad_dtype", "Hugging Face's AMP keeps fp32 parameters and gradients: it applies with --sharding (ZeRO/FSDP) or under Megatron, torchtitan, "
                           "LitGPT or torchtune");
  }
  if (given("recompute_modules")) {
    const RecomputeModules& rc = *w.recompute_modules;
    if (!training || w.effective_framework() != Framework::megatron || m.vision)
      refuse("recompute_modules", "is Megatron's selective recompute: it applies to training a language model with --framework megatron");
    if (rc.mla_up_proj && !m.is_mla()) refuse("recompute_modules", "mla_up_proj applies to multi-head latent attention (DeepSeek-V3, Kimi K2); " + m.id + " has none");
    if (rc.moe_act && !m.is_moe()) refuse("recompute_modules", "moe_act applies to a mixture of experts; " + m.id + " has no experts");
  }
  if (given("text_tokens")) {
    const std::int64_t most = generation ? m.vision->dit_t5_max_tokens : 0;
    if (most == 0)
      refuse("text_tokens", "applies to image generation with a diffusion transformer that reads T5 prompt tokens (flux-1-dev, flux-1-schnell, "
                            "stable-diffusion-3-medium), not " + m.id);
    if (*w.text_tokens > most) refuse("text_tokens", fmt::format("{}'s pipeline takes at most {} T5 tokens (its max_sequence_length), got {}", m.id, most, *w.text_tokens));
  }
  if (given("epochs") && !training) refuse("epochs", "applies to training (a training job of --images or --dataset-tokens), not --mode " + mode);
  if (given("disaggregate") && (training || m.vision || !framework_profile(w.effective_framework()).kv_pool))
    refuse("disaggregate", "applies to a serving engine's language-model inference (--framework vllm, sglang or trtllm)");
  if (given("attention_dp")) {
    if (!attention_dp_applies(w, m))
      refuse("attention_dp", "applies to a serving engine's inference of a mixture-of-experts model (--framework vllm, sglang or trtllm)");
    if (given("tp") && w.tp < 2) refuse("attention_dp", "needs --tp 2 or more: the GPUs the attention is data parallel over");
    if (w.ep > 1 && w.ep != w.tp) refuse("attention_dp", "splits the experts over the --tp GPUs: --ep must be 1 or " + std::to_string(w.tp));
  }
  if (given("ep_overlap") && (!training || !m.is_moe() || w.effective_framework() != Framework::megatron))
    refuse("ep_overlap", "applies to Megatron training of a mixture-of-experts model (--framework megatron, --mode train or finetune)");
  if (given("full_cuda_graph") && (!training || w.effective_framework() != Framework::megatron))
    refuse("full_cuda_graph", "applies to Megatron training (--framework megatron, --mode train or finetune)");
  if (given("ep_overlap") && w.checkpointing == Checkpointing::full)
    refuse("ep_overlap", "Megatron refuses it with full recomputation: --gradient-checkpointing selective or none");
  for (const char* key : {"lora_rank", "lora_targets"})
    if (given(key) && !adapters) refuse(key, "applies to --mode lora or qlora, not --mode " + mode);
  if (given("double_quant") && w.mode != Mode::qlora && w.precision != Precision::nf4)
    refuse("double_quant", "applies to NF4 weights (--mode qlora or --precision nf4)");
  for (const char* key : {"requests", "input_tokens", "output_tokens", "concurrency", "kv_precision", "gpu_memory_utilization", "max_ttft_ms",
                          "max_tpot_ms"})
    if (given(key) && training) refuse(key, "applies to inference (--mode inference), not --mode " + mode);
  if (m.vision && given("image_decode")) {
    if (generation) refuse("image_decode", "applies to vision models fed JPEG files; " + m.id + " is an image-generation pipeline");
    if (w.streams) refuse("image_decode", "applies to JPEG files; video frames are decoded by the GPU's NVDEC engines (--codec)");
  }
  if (m.vision) {
    for (const char* key : {"requests", "input_tokens", "output_tokens", "concurrency", "kv_precision", "max_ttft_ms", "max_tpot_ms",
                            "rope_scaling", "tp", "pp", "ep", "seq_len", "tokens", "dataset_tokens"})
      if (given(key)) refuse(key, "applies to language models; " + m.id + " is " + (generation ? "an image-generation pipeline" : "a vision model") +
                                      (std::string(key) == "seq_len" ? " (its input size is --image-size)" : ""));
  } else {
    for (const char* key : {"image_size", "images", "streams", "fps", "resolution", "codec", "infer_every", "max_latency_ms", "tracker", "image_decode"})
      if (given(key)) refuse(key, "applies to vision models; " + m.id + " is a language model");
    if (given("steps") && !training) refuse("steps", "for a language model it is a training job size (optimizer steps), not --mode " + mode);
  }
  if (given("requests") && !w.output_tokens)
    refuse("requests", "a request count needs --output-tokens (and --input-tokens) to size the job");
}

// Megatron-Core's CPU offload of activations (method.md §4.5): a language model's training under Megatron with
// Transformer Engine, one pipeline stage and no recomputation (megatron/core/transformer/transformer_config.py
// refuses the others), at least one layer's activations kept on the GPU (--cpu-offloading-num-layers < L).
void check_activation_offload(const Workload& w, const ModelSpec& m) {
  if (w.offload != Offload::activations) return;
  const bool full = w.mode == Mode::train || w.mode == Mode::finetune;  // pretrain_gpt.py's training, the hint's
  if (!full || m.vision)
    throw InputError(w.where("offload") + ": activations is Megatron-Core's CPU offload of a language model's training activations (--mode train or "
                     "finetune with --framework megatron); valid here: " + (m.vision ? "none" : is_training(w.mode) ? "none, optimizer, optimizer+params"
                                                                                                 : "none (layers and experts with llama.cpp)"));
  if (w.effective_framework() != Framework::megatron)
    throw InputError(w.where("offload") + ": activations is Megatron-Core's CPU offloading (--framework megatron, its --cpu-offloading-num-layers); "
                     "valid with " + to_string(w.effective_framework()) + ": none, optimizer, optimizer+params");
  if (w.pp > 1)
    throw InputError(w.where("pp") + fmt::format(": {} stages with --offload activations; Megatron-Core has no CPU offloading with pipeline parallelism "
                                                 "(valid: 1, or --offload none)", w.pp));
  if (w.checkpointing != Checkpointing::none)
    throw InputError(w.where("gradient_checkpointing") + ": " + to_string(w.checkpointing) + " with --offload activations; Megatron-Core's CPU offloading "
                     "does not run with recomputation (valid: none, or --offload none)");
}
}  // namespace

void check_workload_fits_model(const Workload& w, const ModelSpec& m) {
  check_no_silent_settings(w, m);
  if (w.classes && !m.vision) throw InputError(w.where("classes") + ": applies to vision models; " + m.id + " is a language model");
  const bool generation = m.vision && m.vision->task == "generation";
  if ((w.offload == Offload::model || w.offload == Offload::sequential) && (!generation || is_training(w.mode)))
    throw InputError(w.where("offload") + ": " + to_string(w.offload) + " is diffusers' pipeline offload for image-generation inference (valid for " + m.id +
                     (is_training(w.mode) ? " in training: none, optimizer, optimizer+params)" : ": none)"));
  if ((w.offload == Offload::optimizer || w.offload == Offload::optimizer_params) && (generation || m.vision))
    throw InputError(w.where("offload") + ": " + to_string(w.offload) + " is ZeRO optimizer offload for language-model training (valid for " + m.id +
                     (generation && !is_training(w.mode) ? ": none, model, sequential)" : ": none)"));
  // llama.cpp's partial offload (-ngl; method.md §8.3): its layers beyond --gpu-layers in host memory.
  if (w.offload == Offload::layers && (!runs_on_llamacpp(w) || is_training(w.mode) || m.vision))
    throw InputError(w.where("offload") + ": layers is llama.cpp's partial offload for language-model inference (--framework llamacpp or a GGUF "
                     "--precision); valid here: " + (is_training(w.mode) && !m.vision ? "none, optimizer, optimizer+params, activations (--framework megatron)" : "none"));
  // Over several GPUs, llama.cpp's offloads run with its layer split (one machine, --split-mode layer: --gpus N, no
  // --tp); its row split beside host memory is not modelled.
  if (offloads_to_cpu(w) && w.gpus > 1 && (w.tp > 1 || w.nodes > 1 || w.pp != w.gpus))
    throw InputError(w.where("offload") + ": " + to_string(w.offload) + " over several GPUs runs with llama.cpp's layer split in one machine "
                     "(--gpus N alone, its --split-mode layer; not --tp, --nodes or another --pp)");
  // llama.cpp's expert offload (--n-cpu-moe; method.md §8.3): the routed experts of some layers in host memory.
  if (w.offload == Offload::experts && (!runs_on_llamacpp(w) || is_training(w.mode) || m.vision || !m.is_moe()))
    throw InputError(w.where("offload") + ": experts is llama.cpp's --n-cpu-moe, for a mixture of experts' inference (--framework llamacpp or a GGUF "
                     "--precision" + (m.is_moe() ? std::string(")") : "; " + m.id + " has no routed experts)") + "; valid here: " +
                     (is_training(w.mode) && !m.vision ? "none, optimizer, optimizer+params, activations (--framework megatron)" : runs_on_llamacpp(w) && !m.vision ? "none, layers" : "none"));
  check_activation_offload(w, m);
  if (w.gpu_layers > 0 && w.offload != Offload::layers && w.offload != Offload::experts && w.offload != Offload::activations)
    throw InputError(w.where("gpu_layers") + ": applies with --offload layers (llama.cpp's -ngl), --offload experts (the layers whose experts stay on the "
                     "GPU) or --offload activations (the layers whose activations stay on the GPU)");
  if (w.gpu_layers > m.layers)
    throw InputError(w.where("gpu_layers") + fmt::format(": {} is more than {}'s {} layers (valid: 1-{})", w.gpu_layers, m.id, m.layers, m.layers));
  if (w.channels_last && !(generation && m.vision->backbone == "unet") && !(m.vision && layout_sensitive_classifier(*m.vision)))
    throw InputError(w.where("channels_last") + ": is timed for the UNets of image-generation pipelines (their GroupNorm) and for classifier CNNs "
                     "on cuDNN (ResNet, ResNeXt, EfficientNet: their layout transposes); " + m.id + " is neither");
  if (w.vae_tiling && !generation) throw InputError(w.where("vae_tiling") + ": applies to image-generation pipelines; " + m.id + " has no VAE");
  if (w.cache_latents && !(generation && is_training(w.mode)))
    throw InputError(w.where("cache_latents") + ": applies to training an image-generation pipeline (" + m.id + (generation ? " in inference)" : " is not one)"));
  if (!m.vision && w.tp > 1 && m.heads > 0) {
    // Tensor parallelism splits the attention heads: the degree must divide them and the KV heads (inference
    // may replicate KV heads instead when the degree is a multiple of them, as vLLM does). method.md §9.
    std::vector<std::int64_t> ok;
    for (std::int64_t t = 1; t <= std::min<std::int64_t>(m.heads, 64); ++t) {
      const bool kv_ok = m.is_mla() || m.kv_heads <= 0 || m.kv_heads % t == 0 || (!is_training(w.mode) && t % m.kv_heads == 0);
      if (m.heads % t == 0 && kv_ok) ok.push_back(t);
    }
    if (std::find(ok.begin(), ok.end(), w.tp) == ok.end()) {
      std::string list;
      for (auto t : ok) list += (list.empty() ? "" : ", ") + std::to_string(t);
      throw InputError(w.where("tp") + ": " + std::to_string(w.tp) + " does not divide " + m.id + "'s " + std::to_string(m.heads) + " attention heads and " +
                       std::to_string(m.kv_heads) + " KV heads (valid: " + list + ")");
    }
  }
  if (w.ep > 1 && (!m.is_moe() || m.experts % w.ep != 0))
    throw InputError(w.where("ep") + ": " + std::to_string(w.ep) + (m.is_moe() ? " does not divide " + m.id + "'s " + std::to_string(m.experts) + " experts"
                                                                    : ": " + m.id + " has no experts (expert parallelism applies to mixture-of-experts models)"));
  // Stages that do not divide the layers split them unevenly: Megatron-LM's decoder_first/last_pipeline_num_layers
  // in training (Llama 3 405B: 126 layers over 16 stages), vLLM's get_pp_indices in serving; the largest stage
  // sets the memory and the pace.
  // Megatron's interleaved schedule gives the largest stage `virtual_stages` chunks of at least one layer each (its
  // pipeline_model_parallel_layout; the planner keeps to equal chunks, chunks_divide_stage).
  if (w.given("virtual_stages") && (!is_training(w.mode) || w.pp < 2 || m.vision))
    throw InputError(w.where("virtual_stages") + ": the interleaved pipeline schedule applies to training a language model with --pp of 2 or more");
  if (w.virtual_stages > 1 && m.layers > 0 && !chunks_fit_stage(m.layers + m.encoder_layers, w.pp, w.virtual_stages))
    throw InputError(w.where("virtual_stages") + ": " + std::to_string(w.virtual_stages) + " chunks for the " +
                     std::to_string((m.layers + m.encoder_layers + w.pp - 1) / w.pp) + " layers of the largest of " + std::to_string(w.pp) + " stages of " + m.id +
                     " (each chunk holds at least one layer)");
  if (!m.vision && w.pp > m.layers + m.encoder_layers && m.layers > 0)
    throw InputError(w.where("pp") + ": " + std::to_string(w.pp) + " stages for " + m.id + "'s " + std::to_string(m.layers + m.encoder_layers) + " layers (at most one layer per stage)");
  if (!w.framework) return;
  const Framework f = *w.framework;
  const ModelKind mk = m.vision && m.vision->task == "generation" ? ModelKind::generation : m.vision ? ModelKind::vision : ModelKind::language;
  const std::vector<Framework>& valid = frameworks_for(mk);
  const std::string kind = mk == ModelKind::generation ? "an image-generation pipeline" : mk == ModelKind::vision ? "a vision model" : "a language model";
  if (std::find(valid.begin(), valid.end(), f) != valid.end()) return;
  std::string names;
  for (const Framework v : valid) names += (names.empty() ? "" : ", ") + to_string(v);
  throw InputError(w.where("framework") + ": " + to_string(f) + " does not run " + kind + " (valid for " + m.id + ": " + names + ")");
}

const std::vector<Framework>& frameworks_for(ModelKind kind) {
  static const std::vector<Framework> language{Framework::hf,     Framework::vllm,      Framework::sglang,     Framework::trtllm,
                                               Framework::llamacpp, Framework::exllama, Framework::exllamav2, Framework::autoawq,   Framework::litgpt,
                                               Framework::torchtune, Framework::torchtitan, Framework::megatron, Framework::llmq};
  static const std::vector<Framework> vision{Framework::pytorch, Framework::detectron2, Framework::mmdet, Framework::ultralytics, Framework::tensorrt};
  static const std::vector<Framework> generation{Framework::diffusers, Framework::pytorch};
  return kind == ModelKind::language ? language : kind == ModelKind::vision ? vision : generation;
}

}  // namespace gpuadvise
