#pragma once
// The rest of the system a plan needs (docs/method.md §13): host memory, CPU cores, checkpoint size and disk,
// from the rules in servers.md Table 3 (DeepSpeed's memory guide, FFCV, provider floors, BLOOM checkpoints).
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/gpu.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/perf.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/note.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

struct SystemNeeds {
  double host_ram_bytes = 0;                // per node
  double cpu_cores = 0;                     // per node (logical CPUs for vision data loading, else physical cores)
  std::optional<double> checkpoint_bytes;   // one saved training state (null for inference)
  double disk_bytes = 0;                    // the model download and, in training, two checkpoints
  Notes basis;  // one line per figure: the rule it follows
  Notes notes;  // where a common node of this GPU falls short
};

// Host memory a CPU-offloaded plan needs per node (DeepSpeed's memory guide, [DS-MEM]; servers.md Table 3).
double offload_host_bytes(const Workload& p, const MemoryEstimate& mem);
// The host memory of this GPU's usual node (the catalogue's, else a common node of its class) that `ranks` GPUs of
// a job on it can use: all of a server's; of a rack-scale node (an NVL72: 18 trays of 4 GPUs, each tray its own Grace
// host and memory), the share of the GPUs the job runs there.
double node_host_ram_bytes(const GpuSpec& g, double ranks);

// `time`: the plan's speed, where known; a vision plan's images per second set the CPUs its data loaders need.
SystemNeeds system_needs(const Workload& w, const ModelSpec& m, const GpuSpec& g, const MemoryEstimate& mem, const TimeEstimate* time = nullptr);

}  // namespace gpuadvise
