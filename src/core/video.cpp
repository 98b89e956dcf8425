// Video analytics streams per GPU: docs/method.md §13.
#include "gpuadvise/video.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace gpuadvise {

VideoPlan plan_video(const Workload& w, const GpuSpec& g, const MemoryEstimate& mem, const TimeEstimate& t,
                     std::optional<double> usd_per_gpu_hour) {
  VideoPlan p;
  const double streams = static_cast<double>(w.streams.value_or(1));
  const double pixels = static_cast<double>(w.video_width * w.video_height);
  // Decode: NVDEC engines at the Turing per-engine pixel rate; HEVC decodes at the same rate; AV1 needs
  // Ampere or newer NVDEC (NVIDIA Video Codec SDK support matrix).
  if (g.nvdec_engines && *g.nvdec_engines > 0) {
    const bool av1_ok = g.cc() >= 8.0;
    const double full_hd = 1920.0 * 1080.0 * 30.0;
    if (w.codec == "av1" && !av1_ok) {
      p.decode_streams = 0.0;
      p.notes.push_back("no AV1 decode on this GPU's NVDEC: decode would fall to the CPU");
    } else if (g.decode_streams_1080p30) {
      p.decode_streams = *g.decode_streams_1080p30 * full_hd / (pixels * w.fps);  // the card's published figure
    } else {
      p.decode_streams = *g.nvdec_engines * k_nvdec_pixels_per_s / (pixels * w.fps);
    }
    p.notes.push_back(g.decode_streams_1080p30
                          ? fmt::format("decode: the published {:g} H.264 1080p30 streams of this card, scaled by pixels and fps",
                                        *g.decode_streams_1080p30)
                          : fmt::format("{} NVDEC engine(s); per-engine rate from the T4's published 38 full-HD streams", *g.nvdec_engines));
  } else {
    p.notes.push_back("hardware decode capacity unknown for this GPU: decode not counted (needs CPU or unknown engines)");
  }
  // Inference: frames of several streams batched up to --batch; every K-th frame is inferred.
  const double infer_rate_per_stream = w.fps / static_cast<double>(w.infer_every);
  if (t.images_per_second) p.inference_streams = *t.images_per_second / infer_rate_per_stream;
  // Memory: each stream holds decode surfaces (NV12, 1.5 bytes per pixel; 8 surfaces as DeepStream's
  // default decoder pool) next to the model and its batch.
  const double per_stream_bytes = 8.0 * pixels * 1.5;
  const double free_bytes = static_cast<double>(g.memory_bytes) - mem.device_peak;
  p.memory_streams = free_bytes > 0 ? std::floor(free_bytes / per_stream_bytes) : 0.0;
  double best = p.memory_streams;
  p.limit = "memory";
  if (p.inference_streams && *p.inference_streams < best) best = *p.inference_streams, p.limit = "inference";
  if (p.decode_streams && *p.decode_streams < best) best = *p.decode_streams, p.limit = "decode";
  if (!p.inference_streams) {
    // Without a throughput for this GPU the streams it sustains are unknown, whatever the memory allows.
    best = 0;
    p.limit = "unknown";
    p.notes.push_back("no inference throughput for this GPU at this precision: streams per GPU unknown");
  }
  p.streams_per_gpu = std::floor(best);
  p.gpus_needed = p.streams_per_gpu >= 1 ? static_cast<std::int64_t>(std::ceil(streams / p.streams_per_gpu)) : 0;
  // Frames dropped on the GPUs asked (--gpus), else on the plan's own count: none.
  const double gpus_on = w.given("gpus") || p.gpus_needed == 0 ? std::max(1.0, static_cast<double>(w.gpus)) : static_cast<double>(p.gpus_needed);
  const double on_given = gpus_on * best;
  if (on_given < streams) p.frames_dropped_pct = 100.0 * (1.0 - on_given / streams);
  // Tracking: SORT updates at 260 Hz on one CPU core (Bewley et al. 2016), i.e. 3.8 ms per frame per stream;
  // ByteTrack associates with the same Kalman filter and IoU matching (twice), taken at the same cost.
  const double track_s = w.tracker == "none" ? 0.0 : 1.0 / 260.0;
  if (track_s > 0) {
    p.tracking_cpu_cores = std::max(p.streams_per_gpu, 0.0) * infer_rate_per_stream * track_s;
    p.notes.push_back(Note::format("{} tracking keeps about {:.1f} CPU core(s) busy per GPU's {:.0f} streams", w.tracker,
                                  p.tracking_cpu_cores, p.streams_per_gpu));
  }
  if (t.images_per_second) {
    const double b = static_cast<double>(w.batch);
    VideoPlan::Stages st;
    // Decode of one frame on one engine at the per-engine rate (0 when the engines are unknown).
    if (p.decode_streams) st.decode_ms = 1000.0 * pixels / k_nvdec_pixels_per_s;
    // Preprocessing on the GPU: read the NV12 frame, write the resized fp16 RGB input, at half the
    // memory bandwidth (a memory-bound resize/normalise kernel).
    if (g.bandwidth_gb_per_s) st.preprocess_ms = 1000.0 * b * (1.5 * pixels + 6.0 * t.input_pixels) / (*g.bandwidth_gb_per_s * 1e9 * 0.5);
    // Waiting for a full batch from the streams this GPU serves.
    const double served = std::max(1.0, p.streams_per_gpu >= 1 ? std::min(streams, p.streams_per_gpu) : streams);
    st.batch_fill_ms = 1000.0 * b / (served * infer_rate_per_stream);
    st.postprocess_ms = 1000.0 * b * t.postprocess_seconds_per_image;
    st.inference_ms = 1000.0 * b / *t.images_per_second - st.postprocess_ms;
    st.tracking_ms = 1000.0 * track_s;
    p.latency_ms = st.decode_ms + st.preprocess_ms + st.batch_fill_ms + st.inference_ms + st.postprocess_ms + st.tracking_ms;
    p.stages = st;
    if (w.max_latency_ms && *p.latency_ms > *w.max_latency_ms)
      p.notes.push_back(Note::format("end-to-end latency {:.0f} ms exceeds --max-latency-ms {:g}: lower --batch", *p.latency_ms, *w.max_latency_ms));
  }
  if (usd_per_gpu_hour && p.streams_per_gpu >= 1) p.usd_per_stream_hour = *usd_per_gpu_hour / p.streams_per_gpu;
  p.notes.push_back("OpenCV's ordinary functions run on the CPU unless its CUDA module is built for this GPU; DeepStream-style "
                    "figures are measured with display off (no rendering or encoding)");
  return p;
}

}  // namespace gpuadvise
