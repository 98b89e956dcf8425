#pragma once
// The layout space the planner searches (method.md §9), internal to core: the layouts worth trying at a GPU
// count and the memory savers tried on each, as callbacks (the planner screens them numerically, one reused
// workload at a time). Tested alone in tests/test_plan_choice.cpp.
#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>

#include "gpuadvise/global_batch.hpp"
#include "gpuadvise/ranking.hpp"
#include "layer_offload.hpp"

namespace gpuadvise::layout_space {

// Tensor parallelism splits the attention heads: a degree must divide them, and divide the KV heads (or,
// for inference, be a multiple of them: vLLM replicates KV heads then). method.md §9.
inline bool tp_divides(const ModelSpec& m, std::int64_t tp, bool training) {
  if (tp <= 1) return true;
  if (m.heads <= 0 || m.heads % tp != 0) return false;
  if (m.is_mla() || m.kv_heads <= 0) return true;
  return m.kv_heads % tp == 0 || (!training && tp % m.kv_heads == 0);
}

inline void set_layout(Workload& p, std::int64_t gpus, std::int64_t nodes, std::int64_t tp, std::int64_t pp, Sharding sh, Offload off) {
  p.gpus = gpus;
  p.nodes = nodes;
  p.tp = tp;
  p.pp = pp;
  p.sharding = sh;
  p.offload = off;
  p.ep = 1;
  p.virtual_stages = 1;
  p.cp = 1;
}

// Context-parallel degrees worth trying (method.md §9): frameworks that have it (Megatron, torchtitan), sequences
// of 8,192 tokens and more, at least 4,096 tokens left on each GPU (Megatron-Bridge runs Llama 3.1 405B at 8,192
// with CP 2; Llama 3's 128K stage used CP 16) and the 2·cp chunks of the load-balanced causal split.
inline std::int64_t max_context_parallel(const Workload& w, const ModelSpec& m) {
  const Framework f = w.effective_framework();
  if (!is_training(w.mode) || m.vision || !w.seq_len || (f != Framework::megatron && f != Framework::torchtitan)) return 1;
  std::int64_t cp = 1;
  while (cp < 16 && *w.seq_len / (2 * cp) >= 4096 && *w.seq_len % (4 * cp) == 0) cp *= 2;
  return cp;
}

// Inference's splits of a language model over n GPUs (method.md §9): tensor parallel inside a node, pipeline
// stages across nodes; `at(gpus, nodes, tp, pp, sharding)` tries one.
template <class At>
void serving_layouts(const Workload& w, const ModelSpec& m, std::int64_t n, std::int64_t nodes, std::int64_t per_node, bool deepep, At&& at) {
  const std::int64_t layers = m.layers + m.encoder_layers;
  // Replicas of a layout that fits fewer GPUs, each its own engine (below): only where there are requests to share.
  const bool replicas = w.requests.has_value() || w.has_job_size();
  // llama.cpp: each server splits a model over k GPUs of one machine by layers (--split-mode layer, its default):
  // stages one after another, one card at work at a time; its row split (tensor parallel) only when --tp asks for
  // it. A job of requests runs n/k such servers side by side, on several machines too; no server spans machines
  // (its RPC backend is not modelled).
  if (w.effective_framework() == Framework::llamacpp || is_gguf(w.precision)) {
    for (std::int64_t k = std::min(n, per_node); k >= 1; k /= 2) {
      if (n % k != 0 || (k < n && !replicas)) continue;
      if (w.tp == 1 && layers >= k) at(n, nodes, 1, k, Sharding::none);
      if (w.tp > 1 && k > 1 && tp_divides(m, k, false)) at(n, nodes, k, 1, Sharding::none);  // its row split, when --tp asks
    }
    return;
  }
  // A mixture of experts in a serving engine also runs attention data parallel over a replica's tensor-parallel
  // GPUs, each with its own sequences and whole KV heads, the experts split over them (method.md §8.3).
  auto both = [&](std::int64_t at_nodes, std::int64_t tp, std::int64_t pp) {
    at(n, at_nodes, tp, pp, Sharding::none);
    if (tp > 1 && attention_dp_applies(w, m) && !w.attention_dp) at(n, at_nodes, tp, pp, Sharding::none, 1, 1, 1, true);
  };
  // Replicas of a layout that fits fewer GPUs, each its own engine: tensor parallel over n, n/2, ... GPUs of a node,
  // n/tp replicas (engines serve so at scale; disaggregated serving splits them into prefill and decode pools).
  // Without requests there is nothing to share among replicas (the workload is the sequences in flight of one
  // engine): the n GPUs are one engine, or no layout of n.
  for (std::int64_t tp = std::min(n, per_node); tp >= 1; tp /= 2)
    if (n % tp == 0 && (replicas || (nodes == 1 && tp == n)) && tp_divides(m, tp, false)) both(nodes, tp, 1);
  // Across nodes, a replica may span several: tensor parallel over each node, pipeline stages across pp of them
  // (serving engines split layers the stages do not divide unevenly, vLLM's get_pp_indices: DeepSeek-V3's 61 layers
  // over 2 nodes are 31 + 30), nodes / pp replicas.
  if (nodes > 1 && tp_divides(m, per_node, false))
    for (std::int64_t pp = 2; pp <= nodes && pp <= layers; ++pp)
      if (nodes % pp == 0 && (replicas || pp == nodes)) both(nodes, per_node, pp);
  // A served mixture of experts over whole nodes: its experts split over every GPU of an engine of k nodes, each GPU
  // attending to its own sequences, DeepEP carrying the tokens (wide expert parallel, method.md §8.3); n/(k·per_node)
  // engines. Only with requests to share: each GPU runs its own sequences in flight (the workload's --concurrency is
  // per rank, as it is per replica), so a workload of one engine's sequences is not one of these. `deepep`: the GPU
  // runs DeepEP (NVIDIA, NVLink inside a node). A rack-scale NVLink domain (GB200 NVL72) holds such an engine whole:
  // groups of 16 or more of its GPUs.
  // Disaggregated serving splits a layout's replicas into prefill and decode pools, which an engine of ranks sharing
  // their experts is not (LMSYS runs each pool as its own expert-parallel engine; not modelled).
  if (!deepep || !replicas || w.disaggregate || !attention_dp_applies(w, m)) return;
  if (nodes > 1)
    for (std::int64_t k = nodes; k >= 2; k /= 2)
      if (nodes % k == 0 && m.experts % (k * per_node) == 0) at(n, nodes, 1, 1, Sharding::none, k * per_node);
  if (nodes == 1 && per_node > k_server_gpus)
    for (std::int64_t ep = n; ep > k_server_gpus; ep /= 2)
      if (n % ep == 0 && m.experts % ep == 0) at(n, nodes, 1, 1, Sharding::none, ep);
}

// The micro-batches a layout tries: the first, and the largest multiple of it (doubling). Without --batch, a global batch
// can be reached with larger micro-batches too (fewer accumulation steps): 2x, 4x, ... up to 32x the default (the
// planner stops doubling when it no longer pays, planner.cpp), which amortise
// per-micro-batch costs (host launches, a MoE layer's experts, weights streamed per micro-batch) and cost memory
// and, in a pipeline, a larger bubble; the savers shrink each again. An image job without --batch tries up to 16
// images generated (method.md §12.4), 256 classified (§12.3); images trained with a recipe's batch take each
// rank's whole share at once (global_batch.cpp).
inline std::pair<std::int64_t, std::int64_t> micro_batches(const Workload& w, const ModelSpec& m, std::int64_t dp) {
  const bool training = is_training(w.mode), image_job = !training && m.vision && w.images && !w.batch_given;
  if (training && w.global_batch && !w.batch_given) return m.vision ? std::pair{(*w.global_batch + dp - 1) / dp, std::int64_t{1}} : std::pair{w.batch, std::int64_t{32}};
  if (image_job) return {w.batch, m.vision->task == "generation" ? 16 : 256};
  return {w.batch, 1};
}

// The nodes a layout of n GPUs spans: one, or as many as hold them; a rack-scale node (an NVL72, wider than a
// server) may run the same share of each rack (Megatron-Bridge runs 256 GB200s as four racks of 64).
inline std::int64_t nodes_for(std::int64_t n, const GpuSpec& g) {
  const std::int64_t per_node = g.gpus_per_node();
  return (n + per_node - 1) / per_node;
}

// The layouts run one node or whole nodes (or, on rack-scale nodes, equal shares of them), and several only where
// the catalogue knows a network between them (method.md §9).
inline bool whole_nodes(std::int64_t n, const GpuSpec& g) {
  const std::int64_t per_node = g.gpus_per_node();
  return n <= per_node || (g.multi_node() && (n % per_node == 0 || (g.rack_scale() && n % nodes_for(n, g) == 0)));
}

// The data-parallel sharding a layout of the workload's framework uses, or none where the layout is not one of its
// own. torchtitan and torchtune shard with FSDP2 alone (ZeRO-3, or ZeRO-2 with reshard_after_forward off): beside
// tensor, pipeline, context or expert parallelism their data-parallel dimension is FSDP (or HSDP), not ZeRO-1, and
// ZeRO-1 over every GPU is not theirs.
inline std::optional<Sharding> framework_sharding(const Workload& w, Sharding sh, bool model_parallel) {
  const Framework f = w.effective_framework();
  if (!is_training(w.mode) || sh != Sharding::zero1 || (f != Framework::torchtitan && f != Framework::torchtune)) return sh;
  if (!model_parallel) return std::nullopt;
  return Sharding::zero3;
}

// The layouts worth trying at n GPUs (method.md §9). Inside one node: data parallel, ZeRO-1/2/3, tensor
// parallel over degrees that divide the heads (the rest data parallel with ZeRO-1), pipeline stages that
// divide the layers. Across nodes (whole nodes, where the catalogue knows a network): the same data-parallel
// family over every GPU, tensor parallel inside each node with data parallel or pipeline stages across.
// Inference splits with tensor parallelism inside a node (llama.cpp: by layers) and pipeline stages across nodes (unevenly where the
// stages do not divide the layers, as serving engines do).
template <class Try>
void for_each_layout(const Workload& w, const ModelSpec& m, const GpuSpec& g, std::int64_t n, Try&& try_layout) {
  if (!whole_nodes(n, g)) return;
  const std::int64_t nodes = nodes_for(n, g), in_node = n / nodes;
  const bool training = is_training(w.mode);
  const std::int64_t layers = m.layers + m.encoder_layers;
  // One copy of the workload per count, its layout set in place for each try (try_layout copies what it keeps).
  Workload p = w;
  // With a global batch each layout steps with it: its micro-batch and accumulation reach it, and a layout with
  // more data-parallel ranks than sequences is not one (global_batch.hpp).
  auto at = [&](std::int64_t gpus, std::int64_t at_nodes, std::int64_t tp, std::int64_t pp, Sharding sh, std::int64_t ep = 1, std::int64_t vp = 1,
                std::int64_t cp = 1, bool attention_dp = false) {
    const std::optional<Sharding> own = framework_sharding(w, sh, tp > 1 || pp > 1 || ep > 1 || cp > 1);
    if (!own) return;
    set_layout(p, gpus, at_nodes, tp, pp, *own, Offload::none);
    p.attention_dp = w.attention_dp || attention_dp;
    p.ep = ep;
    p.virtual_stages = vp;
    p.cp = cp;
    const auto [first, widest] = micro_batches(w, m, p.data_parallel());
    for (std::int64_t micro = first; micro <= first * widest; micro *= 2) {
      p.batch = w.batch;
      p.grad_accum = w.grad_accum;
      if (!reach_global_batch(p, micro)) return;
      if (!w.global_batch) p.batch = micro;  // an image job's batch (image_job)
      if (p.batch < micro) return;  // the global batch leaves each rank fewer sequences
      // A search that says whether a larger micro-batch is worth it (the planner's) stops when it is not.
      // The layout is lent to try_layout, which may change it while it runs (for_each_saver) and gives it back.
      if constexpr (std::is_same_v<std::invoke_result_t<Try&, Workload&>, bool>) {
        if (!try_layout(p)) return;
      } else {
        try_layout(p);
      }
    }
  };
  if (n == 1) return at(1, 1, 1, 1, Sharding::none);
  if (training) {
    for (Sharding sh : {Sharding::none, Sharding::zero1, Sharding::zero2, Sharding::zero3}) at(n, nodes, 1, 1, sh);
    if (m.vision) return;
    // Adapters split no further than data parallel and FSDP outside Megatron (NeMo/Megatron-Bridge run LoRA with
    // TP and PP; PEFT under Hugging Face, LitGPT or torchtune does not), and QLoRA's bitsandbytes 4-bit layers
    // have no tensor or pipeline parallelism anywhere.
    const bool adapters = w.mode == Mode::lora || w.mode == Mode::qlora;
    if (adapters && (w.mode == Mode::qlora || w.effective_framework() != Framework::megatron)) {
      if (m.is_moe())
        for (std::int64_t ep = 2; ep <= in_node && w.mode != Mode::qlora; ep *= 2)
          if (m.experts % ep == 0) at(n, nodes, 1, 1, Sharding::zero3, ep);
      return;
    }
    const std::int64_t max_cp = max_context_parallel(w, m);
    for (std::int64_t tp = 2; tp <= in_node; tp *= 2) {
      if (!tp_divides(m, tp, true)) continue;
      at(n, nodes, tp, 1, n / tp > 1 ? Sharding::zero1 : Sharding::none);
      // Long sequences: context parallel beside tensor parallel (ZeRO-1 over the replicas).
      for (std::int64_t cp = 2; cp <= max_cp && tp * cp <= n; cp *= 2)
        if (n % (tp * cp) == 0) at(n, nodes, tp, 1, n / tp > 1 ? Sharding::zero1 : Sharding::none, 1, 1, cp);
      // Across nodes, Megatron's 3-D layouts: tensor parallel over the node (or half of it), pipeline stages
      // across nodes (unevenly where they do not divide the layers), data parallel with the distributed
      // optimizer (ZeRO-1) over the rest.
      // Each also with Megatron's interleaved schedule: v chunks per stage (v dividing the largest stage's
      // layers), a bubble v times smaller for v times the pipeline sends.
      // A node wider than a server (an NVL72 rack) runs stages inside it too, with TP 4 or 8 as GB200 recipes do.
      if ((nodes > 1 || in_node > k_server_gpus) && tp * 2 >= std::min<std::int64_t>(in_node, k_server_gpus))
        for (std::int64_t pp = 2; pp <= layers && tp * pp <= n; pp *= 2) {
          if (n % (tp * pp) != 0) continue;
          const std::int64_t per_stage = (layers + pp - 1) / pp;
          for (std::int64_t vp = 1; vp <= per_stage; vp *= 2)
            if (chunks_divide_stage(layers, pp, vp))
              for (std::int64_t cp = 1; cp <= max_cp && tp * pp * cp <= n; cp *= 2)
                if (n % (tp * pp * cp) == 0) at(n, nodes, tp, pp, n / (tp * pp) > 1 ? Sharding::zero1 : Sharding::none, 1, vp, cp);
        }
    }
    for (std::int64_t pp = 2; pp <= in_node; pp *= 2)
      if (layers % pp == 0 && nodes == 1) at(n, 1, 1, pp, n / pp > 1 ? Sharding::zero1 : Sharding::none);
    // Mixture of experts: the routed experts split over an expert-parallel group of data-parallel ranks, or of data-
    // and tensor-parallel ranks (folded; degrees that divide the experts and the ranks, inside a node or across
    // nodes), with ZeRO-3 alone or with the
    // tensor-parallel and pipeline layouts above (Megatron-Bridge's recipes: DeepSeek-V3 TP 2 x PP 8 x EP 64 on
    // 1,024 H100s, Qwen3-30B-A3B PP 2 x EP 8).
    if (m.is_moe())
      for (std::int64_t tp = 1; tp <= in_node; tp *= 2) {
        if (!tp_divides(m, tp, true)) continue;
        for (std::int64_t pp = 1; pp <= layers && tp * pp <= n; pp *= 2) {
          if (n % (tp * pp) != 0 || (pp > 1 && nodes == 1 && tp * pp > in_node)) continue;
          const std::int64_t dp = n / (tp * pp), per_stage = (layers + pp - 1) / pp;
          // Beyond the data-parallel ranks the group folds over the tensor-parallel ranks (whole experts per GPU).
          for (std::int64_t ep = 2; ep <= dp * tp; ep *= 2) {
            if (m.experts % ep != 0 || (ep <= dp ? dp % ep != 0 : (ep % tp != 0 || (dp * tp) % ep != 0))) continue;
            if (tp == 1 && pp == 1) at(n, nodes, 1, 1, Sharding::zero3, ep);
            for (std::int64_t vp = 1; vp <= (pp > 1 ? per_stage : 1); vp *= 2)
              if (chunks_divide_stage(layers, pp, vp)) at(n, nodes, tp, pp, Sharding::zero1, ep, vp);
          }
        }
      }
    return;
  }
  // A vision job of --images splits them over independent replicas of the one-GPU plan, sharing nothing (method.md §9).
  return m.vision ? (w.images ? at(n, nodes, 1, 1, Sharding::none) : void()) : serving_layouts(w, m, n, nodes, in_node, g.vendor == "NVIDIA" && g.fast_link_joins(in_node), at);
}

// The activation checkpointing levels the savers try on a training layout whose checkpointing is `level`: none,
// selective, full, or the user's own alone (the span may point at `level`).
inline std::span<const Checkpointing> checkpointing_levels(bool given, const Checkpointing& level) {
  static constexpr std::array<Checkpointing, 3> every_level{Checkpointing::none, Checkpointing::selective, Checkpointing::full};
  return !given && level == Checkpointing::none ? std::span<const Checkpointing>(every_level) : std::span<const Checkpointing>(&level, 1);
}

// The most frugal of those savers on a training layout, in place: its deepest checkpointing allowed and a
// micro-batch of `smallest` (the accumulation keeping the batch per optimizer step). Nothing for inference.
inline void most_frugal(Workload& q, std::int64_t smallest = 1) {
  if (!is_training(q.mode)) return;
  smallest = std::clamp<std::int64_t>(smallest, 1, q.batch);
  q.checkpointing = checkpointing_levels(q.checkpointing_given, q.checkpointing).back();
  if (q.batch % smallest != 0) return;
  q.grad_accum = q.grad_accum * (q.batch / smallest);
  q.batch = smallest;
}

// Memory savers an engineer tries before adding GPUs (method.md §9): selective then full activation
// checkpointing (unless the user chose one), then smaller micro-batches with gradient accumulation that keep
// the asked batch per optimizer step. `try_one` gets each in that order until it returns true (the first that fits
// is the plan for a layout); one copy of the workload is changed in place. Memory never rises as the micro-batch
// shrinks or the checkpointing deepens (tests/test_hardening.cpp), so when `fits` says the most frugal saver (the
// last one) does not fit, none would, and the layout costs one evaluation instead of one per saver.
// `smallest`: the smallest micro-batch to shrink to (a layout tried at a larger micro-batch than the default stops
// at its own: the smaller ones are layouts of their own).
// `layout` is changed in place for each try (a workload holds strings: a copy per layout was a fifth of the
// screen's time) and given back as it came.
// `offload_activations`: beside a layout that recomputes nothing and does not fit, Megatron-Core's CPU offload of
// activations too (method.md §4.5), kept beside the recomputing savers for the order asked to choose; the planner asks
// for it on GPUs with a host link of their own (NVLink-C2C), where Megatron-Bridge's recipes offload.
template <class Fits, class TryOne>
void for_each_saver(Workload& layout, Fits&& fits, TryOne&& try_one, std::int64_t smallest = 1, bool offload_activations = false) {
  struct Restore {  // what the savers change
    Workload& q;
    const Precision precision;
    const Checkpointing checkpointing;
    const std::int64_t batch, grad_accum;
    const Offload offload;
    const std::int64_t gpu_layers;
    ~Restore() {
      q.precision = precision;
      q.checkpointing = checkpointing;
      q.batch = batch;
      q.grad_accum = grad_accum;
      q.offload = offload;
      q.gpu_layers = gpu_layers;
    }
  };
  const Restore restore{layout, layout.precision, layout.checkpointing, layout.batch, layout.grad_accum, layout.offload, layout.gpu_layers};
  Workload& q = layout;
  const Restore& p = restore;  // the layout as it came
  // Megatron-Core's CPU offload of activations (method.md §4.5) where it runs: one pipeline stage, nothing recomputed.
  const bool offloadable = offload_activations && activation_offload_runs(q) && q.offload == Offload::none;
  if (!is_training(q.mode)) {
    if (try_one(q)) return;
    // Quantised weights only when the user allows them: 8-bit, then 4-bit (AWQ-style int4) on the same GPUs.
    if (q.allow_quantization && (p.precision == Precision::bf16 || p.precision == Precision::fp16))
      for (Precision x : {Precision::int8, Precision::int4}) {
        q.precision = x;
        if (try_one(q)) return;
      }
    return;
  }
  const std::span<const Checkpointing> levels = checkpointing_levels(q.checkpointing_given, p.checkpointing);
  smallest = std::clamp<std::int64_t>(smallest, 1, p.batch);
  if (levels.size() > 1 || p.batch > smallest) {
    most_frugal(q, smallest);
    if (p.batch % smallest == 0 && !fits(q)) return;
  }
  for (std::int64_t micro = p.batch; micro >= smallest; micro /= 2) {
    if (p.batch % micro != 0) continue;
    for (const Checkpointing c : levels) {
      q.checkpointing = c;
      q.batch = micro;
      q.grad_accum = p.grad_accum * (p.batch / micro);
      if (try_one(q)) return;
      // Where nothing recomputed does not fit, the activations that do not fit may wait in host memory instead (the
      // planner settles how many layers keep theirs): kept beside the recomputing plans, the order asked chooses.
      if (c == Checkpointing::none && offloadable) {
        q.offload = Offload::activations;
        q.gpu_layers = 0;
        try_one(q);
        q.offload = p.offload;
        q.gpu_layers = p.gpu_layers;
      }
    }
    if (micro == smallest) break;
  }
}


}  // namespace gpuadvise::layout_space
