// The plan in words (ranking_common.hpp's layout_text).
#include <fmt/format.h>

#include "layer_offload.hpp"
#include "ranking_common.hpp"

namespace gpuadvise {

// The plan in words ("4 GPUs: tensor parallel 2 + ZeRO-1 over 2, full checkpointing"), appended piece by piece:
// the planner writes one for every layout that fits. `one`: a single device ("one instance" for a CPU, §16).
std::string ranking_detail::layout_text(const Workload& w, const ModelSpec& m, const char* one) {
  const char* off = w.offload == Offload::optimizer          ? " + optimizer offload"
                    : w.offload == Offload::optimizer_params ? " + CPU offload"
                    : w.offload == Offload::model            ? " + model CPU offload"
                    : w.offload == Offload::sequential       ? " + sequential CPU offload"
                                                             : "";
  std::string s;
  if (w.gpus == 1) {
    s = one;
  } else {
    s += std::to_string(w.gpus);
    s += " GPUs";
    if (w.nodes > 1) {
      s += " in ";
      s += std::to_string(w.nodes);
      s += w.gpus_per_node() > k_server_gpus ? " racks" : " nodes";  // a node wider than a server: a rack (GpuSpec::rack_scale)
    }
    s += ": ";
    bool first = true;
    auto part = [&](const char* what, std::int64_t n, const char* after = "") {
      s += first ? "" : " + ";
      s += what;
      s += std::to_string(n);
      s += after;
      first = false;
    };
    if (w.tp > 1) part("tensor parallel ", w.tp, w.attention_dp ? " (attention data parallel: each GPU its own sequences)" : "");
    const std::string chunks = w.virtual_stages > 1 ? " (interleaved, " + std::to_string(w.virtual_stages) + " chunks each)" : "";
    if (w.pp > 1) part("pipeline parallel ", w.pp, chunks.c_str());
    if (w.cp > 1) part("context parallel ", w.cp);
    const bool wide = experts_over_serving_ranks(w);  // served: an engine per ep x tp GPUs
    if (w.ep > 1) part("expert parallel ", w.ep, experts_folded(w) ? " (folded over tensor parallel: whole experts per GPU)" : wide ? " (each GPU its own sequences, the experts split over them)" : " (within data parallel)");
    if (wide && w.gpus > w.ep * w.tp * w.pp) s += fmt::format(" x {} engines", w.gpus / (w.ep * w.tp * w.pp));
    // ZeRO shards over the ranks that hold the same weights (data parallel x context parallel): with context parallel
    // the factors are named, so that the layout's numbers multiply to its GPUs (tp 8 x pp 16 x cp 2 x dp 64).
    const std::int64_t dp = w.data_parallel(), shards = w.replica_ranks();
    if (!wide && w.independent_replicas() && dp > 1) {
      s += std::to_string(dp);
      s += " replicas";
    } else if (!wide && shards > 1) {
      switch (w.sharding) {
        case Sharding::none: part(w.disaggregate && !is_training(w.mode) ? "disaggregated replicas " : "data parallel ", dp); break;
        case Sharding::zero1: part("ZeRO-1 over ", shards); break;
        case Sharding::zero2: part("ZeRO-2 over ", shards); break;
        case Sharding::zero3: part("FSDP/ZeRO-3 over ", shards); break;
      }
      if (w.sharding != Sharding::none && w.cp > 1) s += fmt::format(" ({} data parallel x {} context parallel)", dp, w.cp);
    }
  }
  s += off;
  if (w.offload == Offload::layers && w.gpu_layers > 0) s += fmt::format(" + CPU for the layers past {} (-ngl {})", w.gpu_layers, w.gpu_layers);
  if (w.offload == Offload::experts && w.gpu_layers > 0) s += fmt::format(" + CPU for the experts of {} layers (--n-cpu-moe {})", cpu_moe_layers(w, m), cpu_moe_layers(w, m));
  if (const std::int64_t n = activation_offload_layers(w, m); n > 0) s += fmt::format(" + {} layers' activations in host memory", n);
  if (w.checkpointing != Checkpointing::none) s += w.checkpointing == Checkpointing::full ? ", full checkpointing" : ", selective checkpointing";
  if (w.grad_accum > 1) {
    s += ", micro-batch ";
    s += std::to_string(w.batch);
    s += " x ";
    s += std::to_string(w.grad_accum);
  }
  if (w.allow_quantization && is_weight_only_quant(w.precision)) s += ", " + to_string(w.precision) + " weights";
  if (w.vae_tiling) s += ", tiled VAE";
  if (w.images && !is_training(w.mode) && w.batch > 1) s += ", batch " + std::to_string(w.batch);  // images per forward
  return s;
}

}  // namespace gpuadvise
