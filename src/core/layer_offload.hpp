#pragma once
// llama.cpp's partial offload (method.md §8.3): how many layers one GPU keeps, whole (--offload layers, its -ngl) or
// with their routed experts (--offload experts, its --n-cpu-moe for the rest).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "gpuadvise/gpu.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

// The margin -ngl is settled at where no --min-headroom is in play (estimate, check without one): the ranking's default.
inline constexpr double k_default_margin_pct = 5.0;

// A workload llama.cpp serves: asked for, or a GGUF precision with no engine named.
inline bool runs_on_llamacpp(const Workload& w) {
  return w.effective_framework() == Framework::llamacpp || (!w.framework && is_gguf(w.precision));
}

// Where llama.cpp's offloads to the host apply to a workload asked without one: its language-model inference beside a
// GPU with a host of its own (an edge module's memory is the GPU's).
inline bool host_offload_applies(const Workload& w, const ModelSpec& m, const GpuSpec& g) {
  return !is_training(w.mode) && !m.vision && runs_on_llamacpp(w) && w.offload == Offload::none && g.segment != Segment::edge;
}

// Some of the model in host memory, run there by the CPU: whole layers past -ngl, or the routed experts of some layers.
inline bool offloads_to_cpu(const Workload& w) { return w.offload == Offload::layers || w.offload == Offload::experts; }

// Megatron-Core's CPU offload of activations (--offload activations, its --cpu-offloading-num-layers; method.md §4.5):
// what the backward keeps of the first L − gpu_layers layers waits in host memory between the two passes.
inline bool offloads_activations(const Workload& w) { return w.offload == Offload::activations; }

// Whether Megatron-Core's CPU offload of activations runs a training layout (transformer_config.py): pretrain_gpt.py's
// training under Megatron, one pipeline stage, nothing recomputed.
inline bool activation_offload_runs(const Workload& w) {
  return (w.mode == Mode::train || w.mode == Mode::finetune) && w.effective_framework() == Framework::megatron && w.pp == 1 &&
         w.checkpointing == Checkpointing::none;
}

// The layers whose activations wait in host memory (Megatron's --cpu-offloading-num-layers), 0 without the offload.
inline std::int64_t activation_offload_layers(const Workload& w, const ModelSpec& m) {
  return offloads_activations(w) && w.gpu_layers > 0 ? std::max<std::int64_t>(0, m.layers - w.gpu_layers) : 0;
}

// --offload layers, experts or activations without --gpu-layers: the count still to settle (most_gpu_layers) before
// the workload is evaluated.
inline bool gpu_layers_unsettled(const Workload& w) { return (offloads_to_cpu(w) || offloads_activations(w)) && w.gpu_layers == 0; }

// --offload experts: the layers whose routed experts stay in host memory, llama.cpp's --n-cpu-moe (it counts from
// the first layer, dense ones among them).
inline std::int64_t cpu_moe_layers(const Workload& w, const ModelSpec& m) {
  return w.offload == Offload::experts && w.gpu_layers > 0 ? std::max<std::int64_t>(0, m.layers - w.gpu_layers) : 0;
}

// The share of the routed experts' weights on the GPU: 1 but with --offload experts, where the first
// cpu_moe_layers layers' experts stay in host memory (a leading dense layer has none to move).
inline double gpu_expert_share(const Workload& w, const ModelSpec& m) {
  const std::int64_t moe = m.layers - m.dense_layers;
  if (w.offload != Offload::experts || moe <= 0) return 1.0;
  const std::int64_t on_cpu = std::clamp<std::int64_t>(cpu_moe_layers(w, m) - m.dense_layers, 0, moe);
  return 1.0 - static_cast<double>(on_cpu) / static_cast<double>(moe);
}

// The share of the layers on the GPU: N of L with --offload layers, 1 without it.
inline double gpu_layer_share(const Workload& w, const ModelSpec& m) {
  return w.offload == Offload::layers && w.gpu_layers > 0 ? std::min(1.0, static_cast<double>(w.gpu_layers) / static_cast<double>(m.layers)) : 1.0;
}

// llama.cpp's layer split over `gpus` GPUs balanced by bytes (its -ts, as --fit sets it): the layers each holds, in
// order, where a layer keeps `rest` bytes on its GPU and, from `first_expert_layer` on, `experts` more (the earlier
// layers' routed experts are in host memory). Each GPU takes layers until the next would carry it past its share of
// the total by more than half that layer; the last takes what is left.
std::vector<std::int64_t> balanced_layer_split(double rest, double experts, std::int64_t layers, std::int64_t first_expert_layer, std::int64_t gpus);

// The most of the model's layers (--offload layers), expert layers (--offload experts) or layers' activations
// (--offload activations) one GPU holds with
// `min_headroom_pct` of its memory free (the device peak grows with each layer kept on it), at least 1: the one that
// then does not fit says by how much.
std::int64_t most_gpu_layers(Workload w, const ModelSpec& m, const GpuSpec& g, double min_headroom_pct);

}  // namespace gpuadvise
