// ConvNeXt classifiers timed from the kernels their block runs (method.md §12.3): the MLP's two matmuls as rooflines,
// the depthwise convolution and the elementwise kernels as streamed bytes.
#include <catch2/catch.hpp>
#include <algorithm>
#include <string>
#include <vector>

#include "helpers.hpp"

namespace {

double images_per_second(const std::string& model, const std::string& gpu, const std::string& mode, const std::string& batch, bool compile = false) {
  std::vector<std::string> args{"estimate", "--model", model, "--mode", mode, "--precision", "fp16", "--batch", batch, "--gpu", gpu, "--format", "json"};
  if (compile) args.push_back("--compile");
  const auto r = test::run(args);
  REQUIRE(r.code == 0);
  return r.json()["time"]["images_per_second"].get<double>();
}

}  // namespace

TEST_CASE("vision time: ConvNeXt-T inference on an RTX 4090, worked by hand from its block's kernels", "[vision][time]") {
  // 224 px: stages of d = 96, 192, 384, 768 channels over p = 3,136, 784, 196, 49 positions, depths 3, 3, 9, 3.
  // Σ depth·d·p = 903,168 + 451,584 + 677,376 + 112,896 = 2,145,024 channel elements in the blocks.
  // Streamed bytes an image: 60 per element beside the matmuls (autocast casts, fp32 LayerNorm, GELU over 4d, the
  // fp32 layer scale and residual add) and 4 for the depthwise conv: 64 × 2,145,024 = 137,281,536; the LayerNorms of
  // the stem (96 × 3,136) and of the three downsamplings (96 × 3,136, 192 × 784, 384 × 196) at 20 bytes: 16,558,080.
  const double streamed = 64.0 * 2145024.0 + 20.0 * (301056.0 + 301056.0 + 150528.0 + 75264.0);
  const double bw = 1008e9 * 0.8;   // streaming share of the RTX 4090's 1,008 GB/s
  const double mm = 165.2e12 * 0.8;  // Ada's matmul share of its 165.2 TFLOP/s (fp32 accumulate)
  // Each matmul (fc1 d→4d, fc2 4d→d): 8·d²·p = 231,211,008 FLOPs in every stage, against its own input and output,
  // 5·d·p 16-bit values: memory-bound in the first stage (3,010,560 bytes), just so in the second (1,505,280).
  const double gemm = 231211008.0 / mm;
  const double matmuls = 2.0 * (3.0 * std::max(gemm, 3010560.0 / bw) + 3.0 * std::max(gemm, 1505280.0 / bw) + 12.0 * gemm);
  // The rest of the 4.456 GMACs (stem, downsampling convolutions, head) at the convolution rate: 0.7 of a full-rate
  // peak, 1 / (1 + (1/0.7 - 1) / 2) = 0.8235 of this card's half-rate (fp32-accumulate) peak (method.md §12.3).
  const double block_flops = 18.0 * 2.0 * 231211008.0 + 98.0 * 2145024.0;
  const double rest = (2.0 * 4.456e9 - block_flops) / (165.2e12 / (1.0 + (1.0 / 0.7 - 1.0) / 2.0));
  const double by_hand = 1.0 / (streamed / bw + matmuls + rest);  // 3,716 images/s (timm measures 4,815)
  CHECK(images_per_second("convnext-tiny", "rtx-4090-24gb", "inference", "1024") == Approx(by_hand).epsilon(1e-3));
  // torch.compile fuses the chain to 32 bytes beside the matmuls and the LayerNorm chains to 4: faster, by the bytes.
  const double fused = 36.0 * 2145024.0 + 4.0 * (301056.0 + 301056.0 + 150528.0 + 75264.0);
  CHECK(images_per_second("convnext-tiny", "rtx-4090-24gb", "inference", "1024", true) == Approx(1.0 / (fused / bw + matmuls + rest)).epsilon(1e-3));
}

TEST_CASE("vision time: MIOpen's depthwise convolutions, not its bandwidth, set an MI325X's ConvNeXt speed", "[vision][time][family]") {
  // milabench (AMP fp16, channels_last, batch 128): MI325X/H100 0.68 on ResNet-50 and 0.48 on ConvNeXt-Large. The
  // MI325X's matmuls and streamed kernels alone would run ConvNeXt faster than an H100 (6 TB/s against 3.35); its
  // 7x7 depthwise convolutions ran MIOpen's naive solvers (ROCm/rocm-libraries#9168) at 0.014 of the streaming rate.
  const double h100 = images_per_second("convnext-large", "h100-sxm-80gb", "train", "128");
  const double mi325x = images_per_second("convnext-large", "mi325x-256gb", "train", "128");
  CHECK(mi325x / h100 == Approx(0.48).epsilon(0.02));
  // The share is MIOpen's, not AMD's bandwidth: the same card's ResNet-50 keeps its own ratio, and NVIDIA's B200
  // (cuDNN, 8 TB/s) is faster than an H100 on ConvNeXt by more than its bandwidth ratio alone would make it.
  CHECK(images_per_second("resnet-50", "mi325x-256gb", "train", "128") / images_per_second("resnet-50", "h100-sxm-80gb", "train", "128") ==
        Approx(0.68).epsilon(0.1));
  CHECK(images_per_second("convnext-large", "b200-hgx-180gb", "train", "128") > 2.0 * h100);
}
