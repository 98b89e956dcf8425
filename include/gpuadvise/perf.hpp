#pragma once
// Throughput and time: docs/method.md §8. Training: FLOPs per token over the dense peak times an
// achievable utilisation; inference: prefill compute-bound, decode bandwidth-bound.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/gpu.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/note.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

// TimeEstimate::bound when the framework's kernel launches, not the GPU, set the speed (training and decode).
inline constexpr const char* k_host_bound = "host overhead (kernel launches)";

struct TimeEstimate {
  std::optional<double> train_tokens_per_second_per_gpu;
  std::optional<double> train_flops_per_token;
  std::optional<double> prefill_tokens_per_second;
  std::optional<double> decode_tokens_per_second;
  std::optional<double> ttft_seconds, tpot_seconds;
  std::optional<double> requests_per_second;  // whole job, all GPUs
  std::optional<double> input_time_share;     // serving: share of a request's GPU time spent on its prompt (prefill)
  std::optional<double> images_per_second;    // vision: per GPU (post-processing included), fed as fast as it asks
  // Vision fed JPEG files: the most images a second its input pipeline delivers to one GPU (image_feed.hpp); none
  // when nothing limits it or its rate is unknown.
  std::optional<double> input_images_per_second;
  std::optional<double> denoising_steps_per_second;  // image generation: the pipeline's denoising steps per second (diffusers' it/s)
  double postprocess_seconds_per_image = 0;    // vision detection inference: NMS and ROI work per image
  double input_pixels = 0;                     // vision: the network's input pixels per image
  std::optional<double> job_seconds;
  double utilization = 0;       // MFU used (training, prefill)
  // Training: the share of a micro-batch's time that does not grow with its tokens (host launches beyond the GPU's
  // work, a MoE layer's experts launched one by one, weights streamed below the ridge): what a larger micro-batch
  // amortises (the planner's micro-batch search, method.md §9).
  double fixed_share = 0;
  double bandwidth_efficiency = 0;  // share of peak bandwidth reached in decode
  std::string_view compute_key; // dense_tflops key used (static text)
  std::string_view bound;       // static text: compute, memory bandwidth, communication, k_host_bound, ...
  // The band around the throughput (method.md §8.5): the same figure at the low and high end, and what
  // drives its width.
  struct Band {
    std::string_view metric;  // which figure: train_tokens_per_second_per_gpu, decode_tokens_per_second, images_per_second
    double low = 0, high = 0;
    Note drivers;
  };
  std::optional<Band> band;
  Notes notes;

  // The images a second a vision job runs at: the GPU's rate, or its input's where that is lower.
  std::optional<double> paced_images_per_second() const {
    if (images_per_second && input_images_per_second) return std::min(*images_per_second, *input_images_per_second);
    return images_per_second;
  }
  bool input_bound() const { return images_per_second && input_images_per_second && *input_images_per_second < *images_per_second; }
};

// Training FLOPs per token: 6·N_active + attention 12·L·a·d·s·(1/2 causal) (method.md §8.1), more with
// recomputation, less for LoRA (no weight gradients of the frozen base).
double train_flops_per_token(const Workload& w, const ModelSpec& m, std::int64_t seq_len);
// Whether Megatron overlaps a MoE layer's expert-parallel all-to-alls with another micro-batch's compute
// (--ep-overlap: --overlap-moe-expert-parallel-comm, 1F1B batch-level overlap; method.md §8.4): asked, Megatron-LM with expert
// parallelism, no full recomputation, an interleaved schedule where there are pipeline stages, 16-bit or FP8
// training, and at least two micro-batches a step (transformer_config.py asserts the first four).
bool expert_all_to_all_overlapped(const Workload& w, const ModelSpec& m);
// Whether Megatron-LM runs a training plan: under --framework megatron, or a model-parallel layout of a framework that
// has none of its own (the launch line is then pretrain_gpt.py's), with an optimizer and offload Megatron has.
bool megatron_runs(const Workload& w, const ModelSpec& m);
// Whether a training layout's tensor-parallel collectives run beside the linear layers' GEMMs (Megatron-LM's
// --tp-comm-overlap: Transformer Engine's userbuffers pipeline each sequence-parallel all-gather and reduce-scatter
// with the GEMM it feeds or follows; model_parallel_config.py): tensor parallel within the GPUs' NVLink domain on
// NVIDIA's stack, a dense model, run by Megatron-LM (any framework's tensor-parallel plan but torchtitan's and
// torchtune's, which run their own). Megatron-Bridge's performance recipes turn it on wherever TP > 1 (method.md §8.4).
bool tp_comm_overlapped(const Workload& w, const ModelSpec& m, const GpuSpec& gpu);
// Whether FP8 training keeps its parameters in FP8 and gathers them so (Megatron-LM's --fp8-param-gather, which
// arguments.py allows with the distributed optimizer or Megatron-FSDP; Megatron-Bridge's FP8 recipes set it): full
// training or fine-tuning at fp8, sharded or on one data-parallel rank (the distributed optimizer over one rank is
// plain Adam), run by Megatron-LM. The memory counts the FP8 parameters' row- and column-wise copies, 2 bytes
// (method.md §3.1), the ZeRO-3 gathers 1 byte a parameter (§8.4), and the launch line names it.
bool fp8_params_gathered(const Workload& w, const ModelSpec& m);
// The rest of Megatron's full FP8 training keeps 16-bit parameters, and Transformer Engine caches each linear
// weight's FP8 copies (row- and column-wise) between micro-batches: 2 more bytes a linear parameter (method.md §3.1).
bool fp8_weight_cache(const Workload& w, const ModelSpec& m);
// The share of a step's micro-batches whose all-to-alls run beside another micro-batch's compute: the 1F1B
// steady state, (m − p)/m of m micro-batches over p stages (the warm-up and cool-down ones wait on theirs).
double expert_overlap_share(const Workload& w, const ModelSpec& m);
// The share of a pipeline step spent idle: (p−1)/(v·m+p−1) with p stages, m micro-batches per step and v chunks per
// stage (1F1B: v = 1; Megatron's interleaved schedule shrinks the bubble v-fold, [NARA] §2.2.2; chunks of unequal
// layers by chunk_shrink). method.md §8.4.
double pipeline_bubble(std::int64_t stages, double micro_batches, double virtual_stages);
// The attention (scores and values) share of train_flops_per_token.
double train_attention_flops_per_token(const Workload& w, const ModelSpec& m, std::int64_t seq_len);
// Forward attention FLOPs per token at a context of seq_len (causal, sliding windows; method.md §8.2).
double attention_fwd_flops(const ModelSpec& m, std::int64_t seq_len);
// Memory-bound (elementwise) bytes moved per token in one training step: norms, residual adds, rotary
// embeddings, activations, LoRA adapters (method.md §8.2). `fused`: one read and one write per tensor.
double train_elementwise_bytes_per_token(const Workload& w, const ModelSpec& m, std::int64_t seq_len, bool fused);
// The same work in one forward over a prompt of seq_len tokens (prefill, method.md §8.3), in 16 bits.
double forward_elementwise_bytes_per_token(const ModelSpec& m, std::int64_t seq_len, bool fused, bool flash_attention);
// Its routed experts' part (their activation and the permutations), which runs where the experts sit.
double routed_expert_elementwise_bytes_per_token(const ModelSpec& m, bool fused);

// Collective bandwidth per GPU for a group of GPUs inside one node, and between nodes (method.md §8.4).
double intra_node_bytes_per_s(const GpuSpec& g, std::int64_t group);
double inter_node_bytes_per_s(const GpuSpec& g);
// A ring collective's bus bandwidth over several nodes with `in_node` of the group's GPUs in each (§8.4).
double ring_bytes_per_s_across_nodes(const GpuSpec& g, std::int64_t in_node);

// Which link: the GPU's scale-up fabric (NVLink, xGMI), PCIe, or the network between nodes; none where the plan has
// no such collective. link_name says which, from the GPU's catalogue entry, when it is printed.
enum class Link : std::uint8_t { none, fast, pcie, network };
// The links a plan's collectives run on (method.md §8.4): tensor parallel inside a node, data parallel and
// pipeline stages across nodes when the plan spans them.
struct LinkPlan {
  double tp_bytes_per_s = 0, dp_bytes_per_s = 0, pp_bytes_per_s = 0;
  // Expert parallelism: the routed experts' gradients and weights are reduced and gathered over the data-parallel
  // ranks that hold the same experts (data parallel / ep of them, every ep-th rank), a sparser group.
  double expert_dp_bytes_per_s = 0;
  // NCCL's latency of one collective over the data-parallel group (method.md §8.4): a ring all-gather or
  // reduce-scatter, and an all-reduce (ring or tree, the lower).
  double dp_gather_latency_s = 0, dp_allreduce_latency_s = 0;
  // Context parallelism: the ring of cp GPUs that pass the keys and values of their sequence chunks (ranks tp apart).
  double cp_bytes_per_s = 0;
  Link tp_link = Link::none, dp_link = Link::none, pp_link = Link::none, cp_link = Link::none;
};
LinkPlan plan_links(const GpuSpec& g, const Workload& w);
LinkPlan plan_links(const GpuSpec& g, const PlanShape& p);
// "NVLink 4 (900 GB/s)", "PCIe 4.0 via host memory (no P2P)", "NDR InfiniBand (400 Gb/s per GPU)"; empty for none.
std::string link_name(const GpuSpec& g, Link link);

TimeEstimate estimate_time(const Workload& w, const ModelSpec& m, const GpuSpec& gpu, const MemoryEstimate& mem);

}  // namespace gpuadvise
