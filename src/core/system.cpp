// System requirements beside the GPUs: docs/method.md §13.
#include "gpuadvise/system.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/image_feed.hpp"
#include "layer_offload.hpp"
#include "ranking_common.hpp"

namespace gpuadvise {

namespace {
double d(std::int64_t v) { return static_cast<double>(v); }
constexpr double k_gb = 1e9;
// The largest checkpoint shard transformers writes (save_pretrained's max_shard_size default, "5GB").
constexpr double k_checkpoint_shard_bytes = 5e9;
// FFCV's ResNet-50 recipe: 2 x (workers + 1) logical CPUs per GPU with 4 workers ([ffcv]).
constexpr double k_ffcv_cpus_per_gpu = 10.0;
// A provider's floor for GPU hosts: 4 physical cores per GPU plus 2 ([runpod-req]).
double host_floor_cores(double ranks) { return 4.0 * ranks + 2.0; }
}  // namespace

// 16 B per trainable parameter (fp32 master weights, gradients, Adam moments) plus 2 B per parameter when the
// 16-bit parameters move too, x1.5 for pinned buffers and fragmentation ([DS-MEM]).
double offload_host_bytes(const Workload& p, const MemoryEstimate& mem) {
  if (offloads_to_cpu(p)) return mem.host_bytes();  // llama.cpp's layers past -ngl, or experts (method.md §8.3)
  if (offloads_activations(p)) return mem.host_activations * d(p.gpus);  // every rank's offloaded activations (§4.5)
  if (p.offload == Offload::model || p.offload == Offload::sequential) return mem.host_pipeline_weights;  // diffusers (§12.4)
  const double per_param = p.offload == Offload::optimizer_params ? 2.0 * mem.params_total : 0.0;
  return (16.0 * mem.params_trainable + per_param) * 1.5;
}

// An edge module's CPU and GPU share one memory (method.md §8.3, §12.4): what an offload keeps in host memory is in
// the same memory, beside the GPU's peak, so the headroom is what both leave and a plan that overruns it does not fit.
void ranking_detail::edge_shared_memory(Candidate& c, const Workload& w, const GpuSpec& g) {
  const double host = g.segment == Segment::edge && w.offload != Offload::none ? offload_host_bytes(w, c.memory) : 0.0;
  if (host <= 0) return;
  c.headroom_bytes -= host;
  if (!c.fits || c.headroom_bytes >= 0) return;
  c.fits = false;
  c.fit_reason = Note::format("its CPU and GPU share one {:.1f} GB memory: the {:.1f} GB the offload keeps in host memory do not fit beside the GPU's "
                              "{:.1f} GB peak", static_cast<double>(g.memory_bytes) / 1e9, host / 1e9, c.memory.device_peak / 1e9);
}

// The catalogue's node memory, else what a common node of the class has: an 8-GPU server 2 TB (the DGX-class
// H200 MLPerf node), a workstation 400 GB (Lambda's 4x A6000); servers.md Table 2.
double node_host_ram_bytes(const GpuSpec& g, double ranks) {
  if (g.node.host_ram_gb) return *g.node.host_ram_gb * 1e9 * (g.rack_scale() ? std::min(1.0, ranks / g.gpus_per_node()) : 1.0);
  if (g.segment == Segment::edge) return static_cast<double>(g.memory_bytes);  // one memory, shared with the CPU
  return (g.segment == Segment::consumer || g.segment == Segment::workstation ? 400.0 : 2048.0) * 1e9;
}

namespace {
// The data loaders' logical CPUs per GPU for a vision plan fed JPEG files (method.md §14): decoded on the host, each
// worker decodes, crops and flips about cpu_jpeg_images_per_s ImageNet-size images a second (image_feed.hpp), as
// many as the job's pace needs (the time estimate caps that pace at what the host's CPUs feed); decoded on the GPU or
// not at all, the loader only reads and batches. Training keeps at least FFCV's 10 per GPU, inference a GPU host's floor.
void data_loader_cpus(const Workload& w, const ModelSpec& m, const TimeEstimate& t, double ranks, SystemNeeds& s) {
  const bool training = is_training(w.mode);
  const auto [width, height] = image_size(w, m);
  const double rate = cpu_decode_images_per_second(width, height);
  const double images = t.paced_images_per_second().value_or(0);
  const bool host_decodes = w.image_decode == "cpu";
  const double workers = host_decodes ? std::ceil(images / rate) : 0.0;
  s.cpu_cores = training ? std::max(k_ffcv_cpus_per_gpu, workers) * ranks : std::max(host_floor_cores(ranks), workers * ranks);
  s.basis.push_back(host_decodes ? Note::format("CPU: {:.0f} logical CPUs per node: JPEG decoding and augmentation at about {:.0f} images/s per data-loader worker "
                                                "for {:.0f} images/s per GPU ({}timm#1491)",
                                                s.cpu_cores, rate, images, training ? "at least FFCV's 10 per GPU; " : "")
                                 : Note::format("CPU: {:.0f} logical CPUs per node: the images are {} ({})", s.cpu_cores,
                                                w.image_decode == "gpu" ? "decoded on the GPU" : "already decoded",
                                                training ? "FFCV's 10 per GPU for reading and batching" : "a GPU host's floor"));
  // The workers' batches wait in host memory: PyTorch's DataLoader prefetches prefetch_factor (2) batches per
  // worker, each `batch` decoded images as float32 tensors (3 x W x H x 4 bytes), and each GPU's loader pins one more.
  const double batch_bytes = d(w.batch) * 3.0 * width * height * 4.0;
  const double prefetched = (2.0 * std::max(1.0, workers) + 1.0) * batch_bytes * ranks;
  s.host_ram_bytes += prefetched;
  s.basis.push_back(Note::format("host RAM: + {:.1f} GB per node of prefetched batches (2 per data-loader worker, {:.0f} workers per GPU, and one pinned "
                                 "per GPU; PyTorch DataLoader's prefetch_factor), {} decoded float32 images each",
                                 prefetched / k_gb, std::max(1.0, workers), w.batch));
}

// Host memory per node: what the ranks hold on the host while they load the model (or offload to it).
void host_memory(const Workload& w, const ModelSpec& m, const MemoryEstimate& mem, double ranks, SystemNeeds& s) {
  const bool training = is_training(w.mode);
  const double nodes = d(std::max<std::int64_t>(1, w.nodes));
  const double mp = d(std::max<std::int64_t>(1, w.tp * w.pp));
  const double params = mem.params_total;
  if (training && w.offload != Offload::none && !offloads_activations(w)) {
    s.host_ram_bytes = offload_host_bytes(w, mem) / nodes;
    s.basis.push_back("host RAM: DeepSpeed offload, (16 B per trainable parameter + 2 B per offloaded parameter) x 1.5, shared by the nodes ([DS-MEM])");
  } else if (training && w.sharding == Sharding::zero3) {
    // Sharded initialisation (zero.Init, FSDP on the meta device): the 16-bit checkpoint streams in once per
    // node and each rank keeps its shard.
    s.host_ram_bytes = params * 2.0 / nodes;
    s.basis.push_back("host RAM: sharded initialisation loads the 16-bit checkpoint once per node, 2 B per parameter");
  } else if (training && (w.mode == Mode::lora || w.mode == Mode::qlora)) {
    // A frozen base is loaded on the meta device and filled shard by shard straight onto the GPU (transformers'
    // from_pretrained with low_cpu_mem_usage; bitsandbytes quantises each shard to NF4 as it arrives): each rank
    // holds at most one checkpoint shard on the host at a time, 5 GB (save_pretrained's max_shard_size), or its
    // whole 16-bit share if that is smaller.
    s.host_ram_bytes = std::min(params / mp * 2.0, k_checkpoint_shard_bytes) * ranks;
    s.basis.push_back("host RAM: the frozen base streams in shard by shard (meta-device loading), one 5 GB checkpoint shard per GPU of the node at a time");
  } else if (training && w.mode == Mode::train && w.effective_framework() == Framework::megatron) {
    // Megatron-LM pre-training initialises each rank's share on its GPU (arguments.py: --use-cpu-initialization,
    // "If set, affine parallel weights initialization uses CPU", is off by default) and loads no checkpoint.
    s.host_ram_bytes = 0;
    s.basis.push_back("host RAM: Megatron-LM initialises each rank's share on its GPU (--use-cpu-initialization off), no copy on the host");
  } else if (training) {
    // Each rank builds its model (its tensor/pipeline share) in fp32 on the CPU before moving it to the GPU:
    // DeepSpeed's estimator counts 4 B per parameter per GPU of the node ([DS-MEM], the "4 x n_gpus" term). Under
    // expert parallelism a rank builds only its own experts (Megatron's MoE layer instantiates num_local_experts),
    // as the time model's gradients count them (method.md §14).
    const double split = m.is_moe() ? d(expert_shards(w)) : 1.0;
    s.host_ram_bytes = std::max(0.0, params - experts_elsewhere(count_params(m), split)) / mp * 4.0 * ranks;
    s.basis.push_back(Note::format("host RAM: each rank builds its model share{} in fp32 on the CPU at load, 4 B per parameter per GPU of the node ([DS-MEM])",
                                   split > 1 ? " (its own experts)" : ""));
  } else if (offloads_to_cpu(w)) {
    // llama.cpp's layers past -ngl, or some layers' experts, live in host memory (method.md §8.3), beside the GPU's
    // share it loaded.
    s.host_ram_bytes = mem.weights + mem.host_bytes();
    s.basis.push_back(Note(w.offload == Offload::experts
                          ? "host RAM: llama.cpp keeps the routed experts of the --n-cpu-moe layers in host memory, and loads the GPU's share through it"
                          : "host RAM: llama.cpp keeps the layers past -ngl (their weights and KV cache) in host memory, and loads the GPU's share through it"));
  } else {
    // Inference engines read the checkpoint shard by shard: about each GPU's weights once per node.
    s.host_ram_bytes = mem.weights * ranks;
    s.basis.push_back("host RAM: the checkpoint read once per node, each GPU's weights");
  }
  if (m.vision && !training) s.host_ram_bytes = std::max(s.host_ram_bytes, (mem.weights + mem.host_pipeline_weights) * ranks);
  // Megatron-Core's CPU offload (method.md §4.5): each rank's offloaded activations wait in pinned host memory for the
  // backward, once the load above is done.
  if (const double offloaded = offloads_activations(w) ? offload_host_bytes(w, mem) / nodes : 0.0; offloaded > s.host_ram_bytes) {
    s.host_ram_bytes = offloaded;
    s.basis.push_back("host RAM: each GPU's offloaded activations (Megatron-Core's --cpu-offloading-num-layers) in pinned host memory");
  }
}

// CPU cores per node: the data loader's workers, or a GPU host's floor.
void host_cores(const Workload& w, const ModelSpec& m, const TimeEstimate* time, double ranks, SystemNeeds& s) {
  const bool training = is_training(w.mode);
  if (m.vision && m.vision->task != "generation" && !w.streams && time && time->images_per_second) {
    data_loader_cpus(w, m, *time, ranks, s);
  } else if (m.vision && training) {
    s.cpu_cores = k_ffcv_cpus_per_gpu * ranks;
    s.basis.push_back("CPU: 10 logical CPUs per GPU for decoding and augmentation (FFCV: 2 x (4 workers + 1))");
  } else {
    s.cpu_cores = host_floor_cores(ranks);
    s.basis.push_back("CPU: 4 physical cores per GPU + 2 (a GPU host's floor, RunPod's host requirements)");
  }
}
}  // namespace

SystemNeeds system_needs(const Workload& w, const ModelSpec& m, const GpuSpec& g, const MemoryEstimate& mem, const TimeEstimate* time) {
  SystemNeeds s;
  s.basis.reserve(3);  // host RAM, CPU, checkpoint or disk: one line each, no copies as it grows
  const bool training = is_training(w.mode);
  const double ranks = std::min(d(w.gpus), d(g.gpus_per_node()));  // processes (GPUs) per node
  const double mp = d(std::max<std::int64_t>(1, w.tp * w.pp));
  const double params = mem.params_total;

  // Host memory and cores per node. A CPU instance is the host itself (method.md §16): its memory, the device
  // figures above, holds the model and its cores run it, so it needs neither.
  if (!g.is_cpu()) {
    host_memory(w, m, mem, ranks, s);
    host_cores(w, m, time, ranks, s);
  }

  // Checkpoints: the full training state, not the gradients: 16-bit weights, the fp32 master copy and the
  // optimizer's moments of the trained parameters (BLOOM-176B: about 14 B per parameter with AdamW).
  // The model download: 16-bit weights to train from (4 B in fp32); for inference what the GPUs hold in total.
  const bool fp32 = w.precision == Precision::fp32 || w.precision == Precision::tf32;
  const double weights_file = training || m.vision ? params * (fp32 ? 4.0 : 2.0) : mem.weights * mp + mem.host_weights;
  if (training) {
    const bool master = w.effective_master_weights() == MasterWeights::fp32 && !fp32;
    const double wbytes = fp32 ? 4.0 : 2.0;
    double opt = 8.0;
    if (w.optimizer == Optimizer::adamw_8bit) opt = 2.0;
    else if (w.optimizer == Optimizer::sgd) opt = 0.0;
    else if (w.optimizer == Optimizer::sgd_momentum) opt = 4.0;
    else if (w.optimizer == Optimizer::adafactor) opt = 4.0 / std::sqrt(std::max(1.0, d(m.hidden)));  // factored second moment
    if (!master && w.optimizer == Optimizer::adamw) opt = 2.0 * wbytes;  // moments in the training precision
    s.checkpoint_bytes = mem.params_trainable * (wbytes + (master ? 4.0 : 0.0) + opt);
    s.disk_bytes = weights_file + 2.0 * *s.checkpoint_bytes;
    s.basis.push_back("checkpoint: trained parameters x (weights + fp32 master + optimizer moments), 14 B each with AdamW (BLOOM-176B); "
                      "disk: the model download and two checkpoints (the last kept while the next is written)");
  } else {
    s.disk_bytes = weights_file;
    s.basis.push_back("disk: the model download");
  }

  const double have = node_host_ram_bytes(g, ranks);
  if (s.host_ram_bytes > have)
    s.notes.push_back(Note::format("needs {:.0f} GB of host memory per node; {} {:.0f} GB{}", s.host_ram_bytes / k_gb,
                                   g.rack_scale() ? fmt::format("the {:.0f} GPUs it runs of a {}-GPU rack have", ranks, g.gpus_per_node())
                                                  : fmt::format("a common {}-GPU node of this GPU has", g.gpus_per_node()),
                                   have / k_gb, g.rack_scale() ? " beside them" : ""));
  return s;
}

}  // namespace gpuadvise
