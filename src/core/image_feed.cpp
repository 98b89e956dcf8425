// The images a second a vision model's input pipeline feeds one GPU (method.md §14).
#include "gpuadvise/image_feed.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "gpuadvise/coefficients.hpp"

namespace gpuadvise {

namespace {
bool server_host(const GpuSpec& gpu) { return gpu.segment == Segment::datacenter_module || gpu.segment == Segment::datacenter_pcie; }
}  // namespace

double host_cpus_per_gpu(const GpuSpec& gpu) {
  return server_host(gpu) ? coef::host_cpus_per_gpu_server.value : coef::host_cpus_per_gpu_desktop.value;
}

// Decoding scales with the JPEG's pixels and resizing with the larger of them and the network input's. timm#1491's
// rate decodes ImageNet's JPEGs, 469 x 387 pixels on average (image-net.org's ILSVRC 2014 page), and crops them
// to 224 x 224: a larger input costs its own pixels at that rate, a smaller one still decodes the whole JPEG.
double cpu_decode_images_per_second(double width, double height) {
  constexpr double k_imagenet_pixels = 469.0 * 387.0;
  return coef::cpu_jpeg_images_per_s.value * k_imagenet_pixels / std::max(k_imagenet_pixels, width * height);
}

const char* gpu_jpeg_decoder(const GpuSpec& gpu) {
  return gpu.stack == "rocm" ? "AMD rocAL with rocJPEG" : gpu.stack == "synapseai" ? "Intel Gaudi's habana_media_loader" : "NVIDIA DALI with nvJPEG";
}

ImageFeed image_feed(const Workload& w, const GpuSpec& gpu, double width, double height) {
  ImageFeed f;
  if (w.image_decode == "none") return f;  // decoded or synthetic tensors: nothing to decode
  if (w.image_decode == "gpu") {
    // The accelerator's decoders (hardware JPEG engines, or CUDA kernels beside a few host threads' Huffman
    // decoding) take the host out of the path. Their rate per GPU is not in the catalogue; the published ones are
    // above what one GPU trains on: an A100 decodes over 8,000 ImageNet-size JPEGs a second (torchvision#8496,
    // 551 x 676 on average), and DALI's decoder test asks a Hopper GPU for at least 19,000 (its qa/TL1_decoder_perf).
    f.unknown = true;
    f.how = fmt::format("decoding on the GPU ({}): its rate is not in the catalogue and is not counted as a limit (an A100 decodes over 8,000 "
                        "ImageNet-size JPEGs a second, torchvision#8496); its kernels share the GPU with the model",
                        gpu_jpeg_decoder(gpu));
    return f;
  }
  if (gpu.segment == Segment::edge) {  // the module's own Arm cores: no sourced rate
    f.unknown = true;
    f.how = "the module's CPU cores decode the JPEGs: their rate is not in the catalogue, so the input is not counted as a limit";
    return f;
  }
  const double cpus = host_cpus_per_gpu(gpu), rate = cpu_decode_images_per_second(width, height);
  f.per_gpu = cpus * rate;
  f.how = fmt::format("PyTorch DataLoader workers on the host's {:.0f} logical CPUs per GPU (a typical {} host) at about {:.0f} images/s each (timm#1491)",
                      cpus, server_host(gpu) ? "8-GPU server" : "desktop or workstation", rate);
  return f;
}

}  // namespace gpuadvise
