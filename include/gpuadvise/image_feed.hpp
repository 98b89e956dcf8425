#pragma once
// What feeds a vision model its images (docs/method.md §14): JPEG files decoded and augmented by the host's data
// loader workers, by the accelerator's own decoders, or tensors already decoded. The GPU cannot run faster than
// its input arrives: a job runs at the lesser of the two rates.
#include <optional>
#include <string>

#include "gpuadvise/gpu.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

// Logical CPUs per GPU on a typical host of the GPU's class (a server's 8-GPU shapes, a desktop's or workstation's).
double host_cpus_per_gpu(const GpuSpec& gpu);
// Images a second one data-loader worker (a logical CPU) decodes, crops and flips for a W x H network input:
// cpu_jpeg_images_per_s for ImageNet's JPEGs (469 x 387 on average), fewer as the input's pixels grow past theirs.
double cpu_decode_images_per_second(double width, double height);

struct ImageFeed {
  std::optional<double> per_gpu;  // the most images a second reach one GPU; none: not limited (decoded input) or unknown
  bool unknown = false;           // the decode path's rate is not known (the GPU's decoders are not in the catalogue)
  std::string how;                // what sets the rate, for the notes
};

// The decode path --image-decode names, for a vision model fed JPEG files (not video, not image generation).
ImageFeed image_feed(const Workload& w, const GpuSpec& gpu, double width, double height);

// The accelerator's JPEG decoding library, by its software stack.
const char* gpu_jpeg_decoder(const GpuSpec& gpu);

}  // namespace gpuadvise
