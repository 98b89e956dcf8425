#pragma once
// Memory estimate per GPU: the peak of live tensors (what torch.cuda.max_memory_allocated reports) and
// the device peak (what nvidia-smi shows: tensors + allocator reserve + runtime outside the allocator).
// Formulas: docs/method.md §2–§6.
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "gpuadvise/framework.hpp"
#include "gpuadvise/gpu.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/note.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

struct ExplainLine {
  std::string component;
  std::string formula;
  std::string inputs;
  double bytes = 0;
  std::string source;
};

// Model states per GPU under a ZeRO stage: docs/method.md §3.2 ([ZERO] Fig. 1).
struct ModelStates {
  double weights = 0, gradients = 0, optimizer = 0;
  double total() const { return weights + gradients + optimizer; }
};
ModelStates zero_model_states(double params, double weight_bytes, double grad_bytes, double optimizer_bytes,
                              Sharding sharding, double dp);

// Bytes per weight of a storage precision, with format overheads (scales, zero points): method.md §2.
double weight_bits(Precision p, bool double_quant);

struct VllmPool {
  std::string engine = "vllm";    // vllm, sglang, trtllm
  double utilization = 0.9;       // vLLM: of the card; SGLang: mem_fraction_static; TensorRT-LLM: of the free memory
  double budget_bytes = 0;        // utilization × capacity
  double kv_pool_bytes = 0;       // what is left for the KV cache
  double kv_bytes_per_token = 0;  // per GPU
  double max_concurrent_sequences = 0;  // at --seq-len
  double max_tokens = 0;
  // The engine as its users name it: vLLM, SGLang, TensorRT-LLM.
  const char* engine_name() const { return engine == "sglang" ? "SGLang" : engine == "trtllm" ? "TensorRT-LLM" : "vLLM"; }
};

struct MemoryEstimate {
  // Per GPU, bytes.
  double weights = 0, gradients = 0, optimizer_states = 0, activations = 0, kv_cache = 0, logits = 0;
  double runtime = 0;            // outside the allocator: CUDA context, library workspaces, NCCL buffers
  double allocator_reserve = 0;  // caching allocator's reserve and fragmentation
  double tensor_peak = 0;
  double device_peak = 0;
  double device_low = 0, device_high = 0;
  const char* peak_phase = "";  // static text: written for every layout the planner tries
  double params_total = 0, params_active = 0, params_trainable = 0;
  double grad_element_bytes = 2;  // training: bytes per element of the gradients' accumulation and reduction buffer
  std::int64_t seq_len = 0;
  std::int64_t kv_heads_per_gpu = 0;
  double kv_bytes_per_token = 0;  // per GPU (inference), before sliding-window capping
  double expert_weights = 0;  // inference: of weights, the routed experts' bytes on this GPU (MoE), which a step reads as it routes
  // FP8 training under Megatron: of weights, the second FP8 copy of each linear weight (its transpose, for GPUs whose
  // FP8 GEMMs take only the TN layout), which device_memory drops (and zeroes) on a GPU whose FP8 GEMMs take any (method.md §3.1).
  double fp8_transposes = 0;
  // Pipeline stages (pp > 1): weights is the largest stage's, embeddings or output layer with it; pp times it counts
  // those edge bytes on every stage. The bytes counted so beyond the stages' own: a plain pipeline's token, which
  // passes each stage once, does not read them (method.md §8.3).
  double pipeline_edge_excess = 0;
  // llama.cpp's offload (--offload layers or experts): the weights and KV cache left in host memory, which the CPU
  // runs (method.md §8.3); the GPU's shares above exclude them.
  double host_weights = 0, host_kv_cache = 0;
  // diffusers' model or sequential CPU offload: the pipeline's weights that wait in host memory (method.md §12.4).
  double host_pipeline_weights = 0;
  double host_kv_bytes_per_token = 0;  // --offload layers: of each token's KV cache, the bytes of the CPU's layers
  double host_bytes() const { return host_weights + host_kv_cache; }
  // --offload activations (Megatron-Core's CPU offloading, method.md §4.5): per GPU, one micro-batch's activations of
  // the offloaded layers, which wait in host memory between the forward and the backward.
  double host_activations = 0;
  double host_output = 0;  // of host_weights (--offload layers), the output layer (read whole each token, whatever experts a MoE routes to)
  std::int64_t gpu_layers = 0;  // the layers on the GPU (-ngl), or whose experts are (--offload experts), where some are in host memory
  std::int64_t cpu_moe_layers = 0;  // --offload experts: the layers whose routed experts are in host memory (llama.cpp's --n-cpu-moe)
  // --offload experts over several GPUs: the layers each GPU holds, in order, balanced by bytes (llama.cpp's -ts)
  std::vector<std::int64_t> layer_split;
  std::optional<VllmPool> vllm;
  std::vector<ExplainLine> explain;
  Notes notes;
  bool runtime_assumed_generic = false;  // no GPU given: a current data-centre GPU's runtime
};

// `gpu` may be null (no --gpu): runtime overhead of a current data-centre GPU; for vLLM the pool needs a GPU.
MemoryEstimate estimate_memory(const Workload& w, const ModelSpec& m, const GpuSpec* gpu);

// What a serving engine's pool is sized from (method.md §6.2).
struct ServingShape {
  double f, h, act_b, V, tp, pp, s;  // FFN width and hidden size per rank, activation bytes, vocabulary, tp, pp, sequence
};

// A language model's estimate in its two parts, for a planner that tries the same layouts on many GPUs: the
// tensors (weights, gradients, optimizer states, activations, KV cache, logits: method.md §2–6.3) depend on the
// workload alone; the runtime, the allocator reserve, a serving engine's pool and the band (§6.4–6.5) on the GPU
// too. For a model that is not a vision model, estimate_memory(w, m, gpu) is device_memory(tensor_memory(w, m), w,
// m, gpu).
struct TensorMemory {
  MemoryEstimate e;  // the tensor part; no runtime, reserve, pool or band yet
  ServingShape serving{};
};
TensorMemory tensor_memory(const Workload& w, const ModelSpec& m);
MemoryEstimate device_memory(TensorMemory t, const Workload& w, const ModelSpec& m, const GpuSpec* gpu);
// device_memory's device peak alone, for a workload without a serving engine's pool (training, or inference
// outside vLLM, SGLang and TensorRT-LLM): the tensor peak, the allocator reserve and the runtime, the same sum
// in the same order (the planner's numeric screen, screen.cpp).
double device_peak_bytes(const MemoryEstimate& tensors, const Workload& w, const GpuSpec* gpu);

// Vision: the framework's freezing and normalisation policy, and the input size (default: the model's).
struct VisionPolicy;
VisionPolicy vision_policy(const Workload& w);
std::pair<double, double> image_size(const Workload& w, const ModelSpec& m);
// The preset's architecture with the workload's overrides (--classes).
VisionArch vision_arch(const Workload& w, const ModelSpec& m);

// Tokens each layer caches on average at `tokens` of context: sliding-window layers stop at their window.
double kv_tokens_avg(const ModelSpec& m, double tokens);

// The sequence length used for a workload: --seq-len, else 2048 or the model's context if shorter.
std::int64_t effective_seq_len(const Workload& w, const ModelSpec& m);

// How many ways `pp` pipeline stages split a model's layers: L / ceil(L/p), the largest stage's share (p when
// p divides L; Megatron's first/last-stage counts in training, vLLM's get_pp_indices in serving). 1 without stages.
double pipeline_split(const ModelSpec& m, std::int64_t pp);
// Training's pipeline runs at the pace of its most loaded stage, in whole layers, the last one also running the
// output projection and the loss (Megatron-LM's account_for_loss_in_pipeline_split): the model's work over that
// stage's (method.md §8.2).
double pipeline_pace_split(const ModelSpec& m, const ParamCounts& pc, std::int64_t pp);
// Megatron's interleaved schedule: v chunks of equal layers on the largest stage (the stages split the layers
// unevenly as pipeline_split does; Megatron-Bridge's DeepSeek-V3 recipe runs 61 layers as 8 stages x 4 chunks).
// The planner's rule.
inline bool chunks_divide_stage(std::int64_t layers, std::int64_t pp, std::int64_t vp) {
  return vp <= 1 || (pp > 0 && ((layers + pp - 1) / pp) % vp == 0);
}
// What a given layout may run: Megatron's pipeline_model_parallel_layout places any whole layers in each chunk
// (DeepSeek-V3 on GB300 runs "Et*4|(t*4|)*14tmL": 61 layers as 2 stages x 8 chunks, 15 of 4 and one of 1), so each
// of the largest stage's v chunks holds at least one layer.
inline bool chunks_fit_stage(std::int64_t layers, std::int64_t pp, std::int64_t vp) {
  return vp <= 1 || (pp > 0 && vp <= (layers + pp - 1) / pp);
}
// The interleaved schedule's warm-up and cool-down run in chunks, the largest of ceil(S/v) layers on a stage of S:
// the bubble shrinks by S / ceil(S/v), v where the chunks are equal (method.md §8.4).
inline double chunk_shrink(std::int64_t layers, std::int64_t pp, std::int64_t vp) {
  if (vp <= 1 || pp <= 0 || layers <= 0) return vp > 1 ? static_cast<double>(vp) : 1.0;
  const std::int64_t stage = (layers + pp - 1) / pp;
  return static_cast<double>(stage) / static_cast<double>((stage + vp - 1) / vp);
}

// Compute precision actually used on a GPU (e.g. fp8 on an A100 falls back to bf16); empty if unsupported.
struct PrecisionSupport {
  bool supported = true;
  std::string_view compute_key;  // key of GpuSpec::dense_tflops used for compute (static text)
  Note note;                // what falls back to what, or why unsupported
};
PrecisionSupport precision_support(const Workload& w, const GpuSpec& gpu);
// Inference without --precision serves a pre-quantised checkpoint in its own format, as the engines load it
// (config.json's quantization_config: fp8, AWQ/GPTQ int4 or int8, MXFP4 and NVFP4 fp4, compressed-tensors and
// ModelOpt by their weights' bits; ModelSpec::checkpoint_precision; method.md §2):
// DeepSeek-V3 ships FP8 blocks and is served so. Engines with formats of their own (llama.cpp's GGUF, ExLlama's
// EXL2) and training keep the precision asked.
Workload with_checkpoint_precision(Workload w, const ModelSpec& m);
// precision_support(w, gpu).supported alone, without its notes (the planner's screen; a test holds the two equal).
bool precision_runs(const Workload& w, const GpuSpec& gpu);
// TensorRT-LLM serving an MXFP4 checkpoint (gpt-oss) on Hopper: its Triton MoE backend runs the experts weight-only
// (the perf overview's `moe_config: backend: TRITON` for Hopper). The support check and the launch hint share it.
bool trtllm_triton_moe(const Workload& w, const GpuSpec& gpu);

}  // namespace gpuadvise
