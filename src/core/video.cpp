// Video analytics streams per GPU: docs/method.md §13.
#include "gpuadvise/video.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuadvise/efficiency.hpp"

namespace gpuadvise {

namespace {
// One NVDEC engine's 1080p decode rate by architecture and codec, in frames/s at the architecture's highest video
// clock (NVIDIA Video Codec SDK 13.0, NVDEC Application Note, "NVDEC Decoding Performance", per engine): Pascal
// 694 H.264 / 810 HEVC, Turing 771 / 1,316, Ampere (GA10x) 748 / 1,415 / 790 AV1, Ada 903 / 1,641 / 1,018,
// Blackwell 2,172 / 1,872 / 1,119; "Hopper and GA100 GPUs contain NVDEC with same architecture as Turing". The
// tool keeps the T4's published streams as the Turing H.264 anchor (coef::nvdec_pixels_per_s, a data-centre part's
// own claim) and moves it by the ratio of the architecture's row to Turing's H.264 (method.md §13).
struct NvdecFps {
  double h264, hevc, av1;  // 0: not in the table
};
struct NvdecRate {
  double pixels_per_s;
  const char* basis;
  bool av1;  // the architecture decodes AV1 (its row has an AV1 rate: GA10x, Ada, Blackwell)
};
NvdecRate nvdec_rate(const GpuSpec& g, const std::string& codec) {
  constexpr double turing_h264 = 771.0;
  NvdecFps row{771.0, 1316.0, 0.0};
  const char* arch = "Turing";
  switch (gpu_family(g)) {
    case GpuFamily::ampere_ga10x: row = {748.0, 1415.0, 790.0}, arch = "Ampere"; break;
    case GpuFamily::ada: row = {903.0, 1641.0, 1018.0}, arch = "Ada"; break;
    case GpuFamily::blackwell:
    case GpuFamily::blackwell_rtx: row = {2172.0, 1872.0, 1119.0}, arch = "Blackwell"; break;
    case GpuFamily::ampere:
    case GpuFamily::hopper: arch = "Turing (the same NVDEC)"; break;
    default: arch = "Turing (its generation not in the table)"; break;
  }
  const double fps = codec == "hevc" ? row.hevc : codec == "av1" && row.av1 > 0 ? row.av1 : row.h264;
  return {k_nvdec_pixels_per_s * fps / turing_h264, arch, row.av1 > 0};
}
}  // namespace

VideoPlan plan_video(const Workload& w, const GpuSpec& g, const MemoryEstimate& mem, const TimeEstimate& t,
                     std::optional<double> usd_per_gpu_hour) {
  VideoPlan p;
  const double streams = static_cast<double>(w.streams.value_or(1));
  const double pixels = static_cast<double>(w.video_width * w.video_height);
  // Decode: NVDEC engines at their architecture's per-engine rate for the codec (nvdec_rate). AV1 decodes on the
  // GA10x, Ada and Blackwell NVDEC only: the application note's capability table ("AV1 Main Profile decoding") marks
  // Turing, GA100 and Hopper N, whose NVDEC is Turing's.
  const NvdecRate engine = nvdec_rate(g, w.codec);
  if (g.nvdec_engines && *g.nvdec_engines > 0) {
    const double full_hd = 1920.0 * 1080.0 * 30.0;
    if (w.codec == "av1" && !engine.av1) {
      p.decode_streams = 0.0;
      p.notes.push_back("no AV1 decode on this GPU's NVDEC (GA10x, Ada and Blackwell decode AV1; Turing, A100 and Hopper do not): decode would fall "
                        "to the CPU");
    } else if (g.decode_streams_1080p30) {
      p.decode_streams = *g.decode_streams_1080p30 * full_hd / (pixels * w.fps);  // the card's published figure
    } else {
      p.decode_streams = *g.nvdec_engines * engine.pixels_per_s / (pixels * w.fps);
    }
    p.notes.push_back(g.decode_streams_1080p30
                          ? fmt::format("decode: the published {:g} H.264 1080p30 streams of this card, scaled by pixels and fps",
                                        *g.decode_streams_1080p30)
                          : fmt::format("{} NVDEC engine(s) at {:.0f} {} 1080p frames/s each: the T4's published 38 full-HD streams moved to the {} "
                                        "row of NVIDIA's NVDEC application note", *g.nvdec_engines, engine.pixels_per_s / (1920.0 * 1080.0),
                                        w.codec == "hevc" ? "HEVC" : w.codec == "av1" ? "AV1" : "H.264", engine.basis));
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
    if (p.decode_streams) st.decode_ms = 1000.0 * pixels / engine.pixels_per_s;
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
