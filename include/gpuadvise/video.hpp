#pragma once
// Video analytics: how many camera/file streams one GPU sustains through the whole pipeline (decode,
// preprocessing, batched inference, postprocessing), and what limits it (docs/method.md §13).
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/gpu.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/note.hpp"
#include "gpuadvise/perf.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

// Turing NVDEC: a T4 (2 engines) decodes "up to 38 full-HD video streams" (NVIDIA T4 product page), so
// one engine sustains 19 H.264 1080p30 streams = 1.18 G pixels/s.
inline constexpr double k_nvdec_pixels_per_s = coef::nvdec_pixels_per_s.value;

struct VideoPlan {
  std::optional<double> decode_streams;     // per GPU, by its NVDEC engines; empty when unknown
  std::optional<double> inference_streams;  // per GPU, at the model's images/s
  double memory_streams = 0;                // per GPU, decode surfaces + batch buffers in the free memory
  double streams_per_gpu = 0;
  std::string limit;                        // decode, inference, memory
  std::int64_t gpus_needed = 0;
  double frames_dropped_pct = 0;            // on the GPUs given, when they cannot keep up
  std::optional<double> latency_ms;         // sum of the stages below
  // Per-frame latency of each pipeline stage (ms): decode on NVDEC, resize/normalise on the GPU, waiting
  // for a full batch, batched inference, post-processing (NMS), tracking on the CPU.
  struct Stages {
    double decode_ms = 0, preprocess_ms = 0, batch_fill_ms = 0, inference_ms = 0, postprocess_ms = 0, tracking_ms = 0;
  };
  std::optional<Stages> stages;
  double tracking_cpu_cores = 0;            // CPU cores the tracker keeps busy per GPU's streams
  std::optional<double> usd_per_stream_hour;
  Notes notes;
};

VideoPlan plan_video(const Workload& w, const GpuSpec& g, const MemoryEstimate& mem, const TimeEstimate& t,
                     std::optional<double> usd_per_gpu_hour);

}  // namespace gpuadvise
