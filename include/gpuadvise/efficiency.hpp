#pragma once
// Achieved efficiency per GPU architecture family (docs/method.md §8.2): the share of the dense peak that
// training's matmuls reach and the share of peak bandwidth that decode reaches, each with the public results it
// comes from. One table, read by the time model; nothing here is keyed on a compute-capability threshold.
#include <string>

#include "gpuadvise/gpu.hpp"

namespace gpuadvise {

enum class GpuFamily { volta, turing, ampere, ampere_ga10x, ada, hopper, blackwell, blackwell_rtx, cdna3, cdna4, rdna3, gaudi3, cpu_amx, unknown };

// The family of a catalogue GPU, from its CUDA compute capability, ROCm gfx target or software stack.
GpuFamily gpu_family(const GpuSpec& g);
const char* to_string(GpuFamily f);

struct FamilyEfficiency {
  GpuFamily family = GpuFamily::unknown;
  // Dense bf16/fp16 training: the share of the dense tensor peak that the projection matmuls reach. The
  // attention, elementwise traffic, loss, optimizer step and communication are timed beside it (perf.cpp).
  double matmul_efficiency = 0.4;
  // Achieved share of peak memory bandwidth in single-batch decode.
  double decode_bandwidth = 0.8;
  const char* basis = "";  // the rows or published results it was taken from, and whether it was fitted
  // Relative half-width of the time band (method.md §8.5): about the p90 error on fitted families, wider on
  // families whose efficiency is a prior or a vendor figure.
  double spread = 0.35;
  // Convolutional networks: the share of the convolution rate (perf.cpp's k_conv_tensor_share, fitted on cuDNN)
  // that the vendor's convolution library reaches; 1 for cuDNN.
  double conv_library = 1.0;
  const char* conv_basis = "cuDNN: the calibration rows of method.md §12.3";
  // Depthwise 7x7 convolutions (ConvNeXt): the share of the streaming rate they reach; 1 for cuDNN, whose kernels
  // stream the map (memory-bound), less for MIOpen, which had no kernel for them (method.md §12.3).
  double depthwise_library = 1.0;
};

const FamilyEfficiency& family_efficiency(GpuFamily f);

}  // namespace gpuadvise
