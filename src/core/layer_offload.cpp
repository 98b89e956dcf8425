// llama.cpp's partial offload (method.md §8.3): the layers past -ngl stay in host memory and run on the CPU.
#include "layer_offload.hpp"

#include "gpuadvise/memory.hpp"

namespace gpuadvise {

std::int64_t most_gpu_layers(Workload w, const ModelSpec& m, const GpuSpec& g, double min_headroom_pct) {
  const double room = static_cast<double>(g.memory_bytes) * (1.0 - min_headroom_pct / 100.0);
  if (!offloads_to_cpu(w)) w.offload = Offload::layers;
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

}  // namespace gpuadvise
