#pragma once
// What perf.cpp (language models) and perf_vision.cpp (vision, image generation) share; internal to core.
#include "gpuadvise/perf.hpp"

namespace gpuadvise::perf_detail {

// Images per second of a vision model or an image-generation pipeline (perf_vision.cpp).
TimeEstimate estimate_vision_time(const Workload& w, const ModelSpec& m, const GpuSpec& gpu);

}  // namespace gpuadvise::perf_detail
