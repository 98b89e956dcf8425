#pragma once
// A workload: what the user wants to run. Built and validated from key/value pairs (command-line flags
// or a workload file); the estimators take it as valid.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpuadvise {

enum class Mode { train, finetune, lora, qlora, inference };
enum class Precision { fp32, tf32, fp16, bf16, fp8, fp4, int8, int4, nf4, q8_0, q6_k, q5_k_m, q5_0, q4_k_m, q4_0, q4_1, q3_k_m, q2_k };
enum class Optimizer { adamw, adamw_8bit, adafactor, sgd, sgd_momentum };
enum class Checkpointing { none, full, selective };
enum class Sharding { none, zero1, zero2, zero3 };
// Training: ZeRO-style optimizer (and parameter) offload. Image-generation inference: diffusers'
// enable_model_cpu_offload (one component on the GPU at a time) and enable_sequential_cpu_offload (weights
// streamed per submodule).
enum class Offload { none, optimizer, optimizer_params, model, sequential, layers, experts, activations };
enum class MasterWeights { fp32, none };
enum class Framework { hf, vllm, sglang, trtllm, llamacpp, exllama, exllamav2, autoawq, litgpt, torchtune, torchtitan, megatron, llmq,
                       pytorch, detectron2, mmdet, ultralytics, tensorrt, diffusers };
inline constexpr std::size_t k_framework_count = static_cast<std::size_t>(Framework::diffusers) + 1;

// The values each enumerated workload flag takes, by flag ("--mode": train, finetune, ...).
std::vector<std::pair<std::string, std::vector<std::string>>> workload_choices();
std::string to_string(Mode v);
std::string to_string(Precision v);
std::string to_string(Optimizer v);
std::string to_string(Checkpointing v);
std::string to_string(Sharding v);
std::string to_string(Offload v);
std::string to_string(MasterWeights v);
std::string to_string(Framework v);

bool is_training(Mode m);
// Bits per stored weight of a precision, before per-format overheads (scales) are added.
bool is_weight_only_quant(Precision p);
// Weights stored below 16 bits by a quantiser: the weight-only formats, FP8 and FP4 (embeddings and norms stay 16-bit).
bool is_quantised_weights(Precision p);
bool is_gguf(Precision p);

// Which linear projections get LoRA adapters.
struct LoraTargets {
  bool q = true, k = true, v = true, o = true, gate = true, up = true, down = true;
  std::string spec = "all-linear";
};

// Megatron's selective recompute by module (its recompute_modules): whose saved activations a layer drops and
// recomputes in the backward (method.md §4.2). Plain flags: the estimators ask for them per layout screened.
struct RecomputeModules {
  bool core_attn = false, layernorm = false, mla_up_proj = false, moe_act = false, mlp = false;
  // Megatron's space-separated list of them, in its documented order (transformer_config.py).
  std::string spec() const;
};

// Raw key/value input: key is the snake_case name (as in workload files), `origin` is how to name it
// in an error ("--seq-len" for a flag, "seq_len" for a file field).
struct RawValue {
  std::string value;
  std::string origin;
};
using RawWorkload = std::map<std::string, RawValue>;

struct Workload {
  std::string model = "7B";
  Mode mode = Mode::inference;
  Precision precision = Precision::bf16;
  std::optional<Precision> kv_precision;  // default: effective_kv_precision()
  bool double_quant = false;
  std::optional<MasterWeights> master_weights;  // default: fp32 for 16/8-bit training
  // Mixed precision: the gradients' accumulation and reduction buffer, fp32 or bf16; unset, the framework's own.
  std::optional<Precision> grad_dtype;
  Optimizer optimizer = Optimizer::adamw;
  std::int64_t batch = 1;
  std::optional<std::int64_t> seq_len;  // default 2048, or the model's context if shorter
  std::optional<std::int64_t> image_width, image_height;
  std::optional<std::int64_t> classes;  // vision: the data set's classes, overriding the preset's
  Checkpointing checkpointing = Checkpointing::none;
  bool flash_attention = true;
  bool compile = false;
  bool cache_latents = false;
  // The memory format of convolutions: unset is the model's own (channels_last for classifier CNNs on cuDNN, as
  // NVIDIA's recipes run them; contiguous for image-generation UNets, as diffusers loads them; method.md §12.3, §12.4).
  std::optional<bool> channels_last;
  bool vae_tiling = false;  // image generation: the VAE decodes in tiles (diffusers enable_vae_tiling)
  // A diffusion transformer's T5 prompt tokens (diffusers' max_sequence_length); unset, the pipeline's default.
  std::optional<std::int64_t> text_tokens;
  std::int64_t lora_rank = 16;
  LoraTargets lora_targets;
  std::int64_t gpus = 1;
  Sharding sharding = Sharding::none;
  std::int64_t tp = 1;
  std::int64_t pp = 1;
  std::int64_t virtual_stages = 1;  // interleaved pipeline schedule: model chunks per stage (Megatron's virtual pipeline size)
  // llama.cpp with --offload layers: the layers on the GPU (-ngl), the rest in host memory run by the CPU; with
  // --offload experts: the layers whose routed experts stay on the GPU, the rest's experts in host memory run by the CPU
  // (--n-cpu-moe, layers - this) (method.md §8.3); 0, the most that fit.
  std::int64_t gpu_layers = 0;
  std::int64_t nodes = 1;       // servers the GPUs are spread over (gpus / nodes in each)
  std::int64_t ep = 1;          // expert parallelism: the routed experts split over this many data-parallel ranks
  std::int64_t cp = 1;          // context parallelism (training): each sequence split over this many GPUs (ring attention)
  std::int64_t grad_accum = 1;  // micro-batches of `batch` per optimizer step
  // Sequences per optimizer step over all data-parallel ranks (--global-batch, or pre-training's default from
  // the batch-size law: global_batch.hpp); each layout reaches it with its micro-batch and accumulation.
  std::optional<std::int64_t> global_batch;
  std::optional<double> global_batch_tokens;  // --global-batch 4Mtok: in tokens, settled into sequences by with_global_batch
  bool global_batch_from_law = false;     // pre-training: DeepSeek LLM's batch-size law
  bool global_batch_from_recipe = false;  // fine-tuning: the recipes' default (coef::finetune_global_batch)
  bool checkpointing_given = false;  // the user chose the checkpointing: the planner keeps it
  std::optional<RecomputeModules> recompute_modules;  // --recompute-modules: selective recompute of these (Megatron)
  bool allow_quantization = false;   // inference: the planner may serve 8- or 4-bit weights before adding GPUs
  bool precision_from_checkpoint = false;  // inference without --precision: the checkpoint's own format (with_checkpoint_precision)
  bool mxfp4_checkpoint = false;  // the model's checkpoint is MXFP4 (gpt-oss): what an fp4 serve reads (with_checkpoint_precision)
  bool rope_scaling = false;         // a --seq-len beyond the model's trained context is meant (RoPE scaling)
  bool disaggregate = false;         // serving: prefill and decode on separate replicas (method.md §8.3)
  // Serving a mixture of experts: attention and its KV cache data parallel over the tp ranks (each GPU its own
  // sequences, whole heads), the experts split over them (TensorRT-LLM enable_attention_dp, SGLang
  // --enable-dp-attention, vLLM --data-parallel-size with expert parallel; method.md §6.2, §8.3).
  bool attention_dp = false;
  // Megatron training of a mixture of experts: each micro-batch's expert all-to-alls beside another's compute
  // (--overlap-moe-expert-parallel-comm; method.md §8.4).
  bool ep_overlap = false;
  // Megatron training captured whole in one CUDA graph (--cuda-graph-impl local --cuda-graph-scope full_iteration):
  // the host launches nothing per layer or per expert (method.md §8.2).
  bool full_cuda_graph = false;
  std::optional<Framework> framework;  // default hf (language) or pytorch (vision)
  Offload offload = Offload::none;
  double gpu_memory_utilization = 0.9;  // vLLM's share of the card (SGLang: mem_fraction_static; TensorRT-LLM: of the free memory)
  bool gpu_memory_utilization_given = false;
  std::optional<std::string> gpu;
  // Job size.
  std::optional<double> tokens;
  std::optional<double> requests, input_tokens, output_tokens;
  std::optional<double> dataset_tokens, epochs;
  std::optional<double> images;  // vision: images per epoch (training) or images to generate or process (inference)
  std::optional<std::int64_t> steps;
  std::optional<double> mfu;
  std::optional<std::string> name;  // for check: the workload's label
  // What the bill contains besides compute (docs/method.md §10).
  double setup_hours = 0;            // provisioning, environment, data download, billed on every GPU
  double storage_usd = 0, egress_usd = 0;
  // Training: the synchronous checkpoint interval given (--checkpoint-every); else 1 h, or Young's optimal
  // interval where interruptions come sooner (cost.cpp).
  std::optional<double> checkpoint_every_hours;
  bool owned = false;                // costed as owned hardware instead of rented
  double amortize_years = 3;
  double utilization = 0.5;          // owned: share of the hardware's life it does useful work
  double power_usd_per_kwh = 0.15;
  bool batch_given = false;
  // Video analytics (vision inference): camera or file streams decoded in full.
  std::optional<std::int64_t> streams;
  double fps = 30;
  std::int64_t video_width = 1920, video_height = 1080;
  std::string codec = "h264";
  std::int64_t infer_every = 1;
  std::string tracker = "none";  // none, sort, bytetrack: a CPU-side multi-object tracker per stream
  // Vision models fed from JPEG files (not video, not image generation): where the images are decoded.
  // cpu: PyTorch DataLoader workers on the host; gpu: on the accelerator (NVIDIA DALI with nvJPEG, AMD rocAL with
  // rocJPEG, Intel Gaudi's media loader); none: tensors already decoded or synthetic, as benchmarks run.
  std::string image_decode = "cpu";
  std::optional<double> max_latency_ms;
  // Serving targets: the largest concurrency whose time to first token and time per output token meet them.
  std::optional<double> max_ttft_ms, max_tpot_ms;

  // A job size was given: training tokens (or data set and epochs, or steps), or inference requests with
  // their output tokens.
  bool has_job_size() const {
    return mode != Mode::inference ? (tokens || dataset_tokens || steps || images) : ((requests && output_tokens) || images);
  }
  // Training tokens of the whole job, when a job size was given.
  std::optional<double> job_tokens(std::int64_t seq) const;

  MasterWeights effective_master_weights() const;
  // The KV cache's precision when --kv-precision is not given (method.md §6.1).
  Precision effective_kv_precision() const;
  Framework effective_framework() const;
  // Where each given setting came from ("--tp", or "file.json.tp"), for errors found later (against the model).
  // Whether the memory estimate writes its explanation (formula, inputs, source per component): the ranking and
  // `check` never print it, so their planners turn it off for the layouts they try.
  bool explain = true;
  // The input it was built from, shared, not copied: the planner copies workloads for every layout it tries.
  std::shared_ptr<const RawWorkload> origins;
  bool given(const std::string& key) const { return origins && origins->count(key) > 0; }
  std::string where(const std::string& key) const {
    if (origins) {
      auto it = origins->find(key);
      if (it != origins->end()) return it->second.origin;
    }
    std::string flag = "--" + key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    return flag;
  }
  // Ranks that carry their own sequences (the global batch splits over them): tp·pp·cp GPUs carry one.
  std::int64_t data_parallel() const { return std::max<std::int64_t>(1, gpus / (tp * pp * cp)); }
  // Ranks that hold the same weights: their gradients are reduced together and ZeRO shards over them (data parallel
  // x context parallel, Megatron's data-parallel-with-context-parallel group).
  std::int64_t replica_ranks() const { return std::max<std::int64_t>(1, gpus / (tp * pp)); }
  // Inference copies of a one-GPU plan that share nothing (a vision job's images split over them): no communicator.
  bool independent_replicas() const { return !is_training(mode) && !disaggregate && tp == 1 && pp == 1 && ep <= 1; }
  std::int64_t gpus_per_node() const { return std::max<std::int64_t>(1, gpus / std::max<std::int64_t>(1, nodes)); }
};

// What the planner chooses for a plan (method.md §9), beside the workload as asked: the layout, the memory savers,
// the batch, the weights' precision and diffusers' offload. A plan keeps this, not a copy of the whole workload
// (770 bytes): everything else is the workload as asked, which `applied_to` rebuilds.
struct PlanShape {
  Mode mode = Mode::inference;
  bool job_size = false;  // the workload has a job size (read-only: the planner never changes it)
  Precision precision = Precision::bf16;
  Checkpointing checkpointing = Checkpointing::none;
  Sharding sharding = Sharding::none;
  Offload offload = Offload::none;
  bool vae_tiling = false;
  std::int64_t batch = 1, grad_accum = 1;
  std::int64_t gpus = 1, nodes = 1, tp = 1, pp = 1, ep = 1, virtual_stages = 1, cp = 1;
  bool attention_dp = false;
  std::int64_t gpu_layers = 0;  // llama.cpp's -ngl with --offload layers, the expert layers kept with --offload experts (0: all on the GPU)

  static PlanShape of(const Workload& w);
  // The workload as planned: `asked` with this plan's choices.
  Workload applied_to(const Workload& asked) const;
  bool has_job_size() const { return job_size; }
  bool operator==(const PlanShape&) const = default;
  // Ranks that carry their own sequences (the global batch splits over them): tp·pp·cp GPUs carry one.
  std::int64_t data_parallel() const { return std::max<std::int64_t>(1, gpus / (tp * pp * cp)); }
  // Ranks that hold the same weights: their gradients are reduced together and ZeRO shards over them (data parallel
  // x context parallel, Megatron's data-parallel-with-context-parallel group).
  std::int64_t replica_ranks() const { return std::max<std::int64_t>(1, gpus / (tp * pp)); }
  std::int64_t gpus_per_node() const { return std::max<std::int64_t>(1, gpus / std::max<std::int64_t>(1, nodes)); }
};

// Mixture of experts (method.md §3.4): the expert-parallel group is drawn from the data-parallel ranks and, when it is
// larger than they are, from the tensor-parallel ranks too (Megatron's MoE parallel folding with expert tensor
// parallel 1, as its recipes set it; vLLM's expert parallel spans every GPU of the tensor-parallel group): each GPU
// then holds whole experts, 1/ep of them per pipeline stage, instead of 1/ep of them cut into tp slices.
template <class Layout>
bool experts_folded(const Layout& l) {
  return l.ep > l.data_parallel();
}
// Served with the experts split over data-parallel ranks (wide expert parallel, method.md §8.3): each GPU attends to
// its own sequences and every MoE layer exchanges the tokens with the ranks that hold their experts.
template <class Layout>
bool experts_over_serving_ranks(const Layout& l) {
  return !is_training(l.mode) && l.ep > 1 && !l.attention_dp && !experts_folded(l);
}
// The routed experts' split beyond the tp·pp model-parallel split: ep, or ep/tp when folded (whole experts).
template <class Layout>
std::int64_t expert_shards(const Layout& l) {
  return experts_folded(l) ? std::max<std::int64_t>(1, l.ep / l.tp) : std::max<std::int64_t>(1, l.ep);
}

// --recompute-modules: a comma (or space) list of Megatron's module names; InputError names the valid ones.
RecomputeModules parse_recompute_modules(const RawValue& raw);
// Sets them with a selective recompute the planner keeps; a --gradient-checkpointing other than selective is bad input.
void apply_recompute_modules(Workload& w, const RawValue& raw);
// The modules a selective recompute runs again: the given list, else the attention core (and MLA's up-projections
// under Megatron); none without --gradient-checkpointing selective.
struct ModelSpec;
RecomputeModules recomputed_modules(const Workload& w, const ModelSpec& m);

// All keys a workload accepts (snake_case), in the order help and errors list them.
const std::vector<std::string>& workload_keys();

// Validates and builds. Throws InputError naming the flag or field and the valid values.
Workload build_workload(const RawWorkload& raw);
// The same, keeping `raw` itself as the workload's origins (no copy: `check` builds thousands).
Workload build_workload(RawWorkload&& raw);

// Parses a decimal number (no hex, no inf or nan); throws InputError naming `origin` and `what`.
double parse_decimal(const std::string& text, const std::string& origin, const std::string& what);
// A number with an optional k/K/M/B/G/T suffix ("4k", "100M", "1.5e9"), or nullopt; with binary_k, k and M are
// 1,024 and 1,048,576 (token counts: a "4k" context).
std::optional<double> parse_suffixed(const std::string& text, bool binary_k = false);
// Parses a count with an optional K/M/B/T suffix ("100M", "2B", "1.5e9"); throws InputError.
double parse_count(const std::string& text, const std::string& origin, double hi = 1e16);
// Parses a duration: "90m", "36h", "2d", "45s", "1h30m" or bare hours, from 1 s to 100 years; returns seconds.
double parse_duration(const std::string& text, const std::string& origin);

}  // namespace gpuadvise
