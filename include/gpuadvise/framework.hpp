#pragma once
// Framework profiles: what the software that runs the job keeps in memory and how it runs.
// Each trait is documented with the framework's docs or source in docs/method.md §7.
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/model.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

struct FrameworkProfile {
  Framework id = Framework::hf;
  std::string summary;
  // Training: bytes per logits element alive at the loss peak (b·s·V elements), for 16-bit training.
  double train_logits_bytes_per_element = 10.0;
  // Inference: logits for every prompt position (true) or only the last (false).
  bool prompt_logits_all_positions = true;
  double infer_logits_bytes_per_element = 6.0;  // 16-bit logits + fp32 upcast
  // Eager attention keeps the softmax in fp32 (Hugging Face upcasts attention probabilities).
  bool eager_softmax_fp32 = true;
  // KV cache allocated for the whole --seq-len up front (static cache) rather than grown.
  bool kv_preallocated = false;
  // bitsandbytes 4-bit layers compute in fp32, so the inputs they save for backward are fp32 copies.
  bool quant_linear_fp32_compute = false;
  // LoRA dropout on adapter inputs (keeps a dropped copy and a mask per adapted input).
  bool lora_dropout = false;
  // Mixed precision keeps fp32 parameters and casts on the fly (Hugging Face AMP) rather than 16-bit
  // parameters beside fp32 master weights in the optimizer (Megatron-LM, DeepSpeed, FSDP).
  bool amp_fp32_params = true;
  // Gradient bytes per parameter in mixed precision (fp32 grads: Megatron, HF AMP; 16-bit: DeepSpeed).
  double mixed_grad_bytes = 4.0;
  // DDP keeps a flat copy of the gradients in its communication buckets.
  bool ddp_bucket_copy = true;
  // Token embeddings stay in host memory (llama.cpp keeps token_embd on the CPU).
  bool embeddings_on_host = false;
  // Whole-card KV-cache pool (vLLM: --gpu-memory-utilization of total memory).
  bool kv_pool = false;
  // Caching allocator's reserve beyond the tensor peak, as a share of the transient (activation) bytes.
  double reserve_fraction = 0.10;
  // Host-side time per layer per forward pass (Python dispatch and kernel launches; CUDA graphs make it small),
  // fitted per framework on its published decode rows (docs/method.md §8.3); training launches two passes per
  // micro-batch (three under full recomputation) and cannot run faster (§8.2).
  double layer_overhead_s = 0.1e-3;
  // Decode time per mixture-of-experts layer that does not shrink with the batch: the routing, permutation,
  // grouped-GEMM and combine kernels of the fused MoE path (method.md §8.3).
  double moe_layer_dispatch_s = 0.0;
  // Training: a dropless MoE layer syncs its tokens-per-expert counts to the host and launches each local
  // expert's work from a host loop (Megatron's token dispatcher and Transformer Engine's GroupedLinear, Hugging
  // Face's eager expert loop), at coef::expert_host_s per expert (method.md §8.2).
  bool expert_host_loop = false;
  // Fixed time of a prefill call (AutoAWQ's benchmark times its first forward with the cache set-up).
  double prefill_fixed_s = 0.0;
  // Decode: a fixed host time per generated token (the generator's sampling and token sync, beside the
  // per-layer dispatch), and the share of the memory bandwidth the engine's kernels reach when they read the
  // weights (empty: coef::decode_bandwidth_share). method.md §8.3.
  double decode_step_fixed_s = 0.0;
  // Serving: host time per running sequence and scheduler step (the executor's per-request bookkeeping, sampling
  // and responses); the overlap scheduler hides it behind the GPU's step, so a step takes the longer of the two
  // (method.md §8.3). 0: not measured for the engine.
  double sequence_host_s = 0.0;
  std::optional<double> decode_bandwidth_share;
  // Decode: the weights' bytes each multiprocessor keeps in flight per clock cycle (Little's law: its kernels'
  // loads in flight over the memory's latency), a ceiling beside the bandwidth share; empty where the engine's
  // kernels reach the bandwidth share on every card (method.md §8.3).
  std::optional<double> decode_bytes_per_sm_cycle;
  // Weight-only int4/int8 matmuls run on CUDA cores (GPTQ kernels of auto-gptq/optimum) rather than
  // tensor cores: their compute adds to the bandwidth time at the fp32 (CUDA-core) rate.
  bool quant_matmul_cuda_cores = false;
  // Norms, rotary embeddings, activations and residual adds run as fused kernels (one read and one write per
  // tensor) rather than PyTorch's eager op-by-op kernels: in training (method.md §8.2; --compile sets it) and in a
  // prompt's forward (§8.3).
  bool fused_elementwise = false;
  // A prompt's attention materialises its scores (a matmul, the mask, an fp32 softmax, a matmul) whatever
  // --no-flash-attention says: AutoAWQ's fused attention module does so for every prompt (method.md §8.3).
  bool prefill_eager_attention = false;
  // Training attention on Hopper runs Hopper-native fused kernels (Transformer Engine's cuDNN fused attention, of
  // the FlashAttention-3 class) at this multiple of FlashAttention-2's rate: 1.5, the low end of FlashAttention-3's
  // 1.5-2.0x on H100 (Shah et al. 2024, arXiv:2407.08608, abstract; the backward gains least). 1: FlashAttention-2
  // or PyTorch's SDPA kernels (method.md §8.2).
  double hopper_attention_speedup = 1.0;
  // Training: the gated MLP's activation is one fused kernel (Megatron's bias-SwiGLU fusion) that keeps its input,
  // the fc1 output of gate and up (2f), and recomputes the rest; eager PyTorch keeps gate, up and act(gate) (3f).
  bool fused_swiglu = false;
  // FP8 training: Transformer Engine's linear layers save the FP8 cast of their inputs for the backward
  // (transformer_engine/pytorch/module/linear.py, "Cached input tensor"), 1 byte per element instead of 2.
  bool fp8_saved_inputs = false;
  std::string source;
};

// The profile of each framework, built once.
const FrameworkProfile& framework_profile(Framework f);
// The framework a job runs under: --framework, else the default for its kind of model (PyTorch for a vision model,
// Hugging Face for a language model). The answers name it and calibrate saves a correction under it.
Framework framework_of(const Workload& w, const ModelSpec& m);
// Attention data parallel (--attention-dp) is a serving engine's layout for a mixture of experts: inference of a
// language MoE under an engine with a KV-cache pool (method.md §8.3). The validation and the layout space share it.
bool attention_dp_applies(const Workload& w, const ModelSpec& m);

// vLLM's scheduler defaults for `vllm serve` on a GPU (vllm/engine/arg_utils.py, get_batch_defaults): 1,024 sequences
// and 8,192 tokens per step on a GPU of 70 GiB or more that is not an A100, else 256 and 2,048; without a GPU, 256
// and 8,192.
struct GpuSpec;
struct VllmBatchDefaults {
  double max_num_seqs = 256, max_num_batched_tokens = 8192;
};
VllmBatchDefaults vllm_batch_defaults(const GpuSpec* gpu);

// The frameworks that run each kind of model, in the order help and errors list them.
enum class ModelKind { language, vision, generation };
const std::vector<Framework>& frameworks_for(ModelKind kind);

// Settings that do not apply to this kind of model are bad input: a --framework that runs another kind (detectron2
// for a language model, vllm for a detector; the error names the valid ones), --classes for a language model.
void check_workload_fits_model(const Workload& w, const ModelSpec& m);

}  // namespace gpuadvise
