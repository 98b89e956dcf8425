// llama.cpp's partial offload (method.md §8.3): the layers past -ngl stay in host memory and run on the CPU.
#include "layer_offload.hpp"

#include "gpuadvise/memory.hpp"

namespace gpuadvise {

std::int64_t most_gpu_layers(Workload w, const ModelSpec& m, const GpuSpec& g, double min_headroom_pct) {
  const double room = static_cast<double>(g.memory_bytes) * (1.0 - min_headroom_pct / 100.0);
  if (!offloads_to_cpu(w) && !offloads_activations(w)) w.offload = Offload::layers;
  auto fits = [&](std::int64_t n) {
    w.gpu_layers = n;
    return estimate_memory(w, m, &g).device_peak <= room;
  };
  // The device peak grows with the layers kept: the largest count that fits, by bisection.
  std::int64_t lo = 1, hi = m.layers;
  if (!fits(lo)) return 1;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

std::vector<std::int64_t> balanced_layer_split(double rest, double experts, std::int64_t layers, std::int64_t first_expert_layer, std::int64_t gpus) {
  auto bytes = [&](std::int64_t i) { return rest + (i >= first_expert_layer ? experts : 0.0); };
  double total = 0;
  for (std::int64_t i = 0; i < layers; ++i) total += bytes(i);
  const double share = total / static_cast<double>(gpus);
  std::vector<std::int64_t> split;
  std::int64_t held = 0;
  double carried = 0;
  for (std::int64_t i = 0; i < layers; ++i) {
    const bool full = static_cast<std::int64_t>(split.size()) < gpus - 1 && held > 0 && layers - i >= gpus - static_cast<std::int64_t>(split.size()) - 1 &&
                      carried + bytes(i) / 2.0 > share * static_cast<double>(split.size() + 1);
    if (full) {
      split.push_back(held);
      held = 0;
    }
    carried += bytes(i);
    ++held;
  }
  split.push_back(held);
  while (static_cast<std::int64_t>(split.size()) < gpus) split.push_back(0);
  return split;
}

}  // namespace gpuadvise
