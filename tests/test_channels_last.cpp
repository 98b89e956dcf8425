// Classifier CNNs (method.md §12.2, §12.3): the tensors a ResNet keeps, and its memory format: cuDNN's tensor-core
// convolutions run NHWC, so a channels-first model pays the transposes around every convolution; channels_last (the
// default) does not.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "helpers.hpp"

namespace {

struct Run {
  double images_per_second = 0;
  std::vector<std::string> notes;
};

Run estimate(const std::string& model, const std::string& gpu, const std::string& mode, const std::string& batch, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{"estimate", "--model", model, "--mode", mode, "--precision", "fp16", "--batch", batch, "--gpu", gpu, "--format", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = test::run(args);
  REQUIRE(r.code == 0);
  const auto j = r.json();
  Run out;
  out.images_per_second = j["time"]["images_per_second"].get<double>();
  for (const auto& n : j["notes"]) out.notes.push_back(n.get<std::string>());
  return out;
}

bool has_note(const Run& r, const std::string& part) {
  for (const auto& n : r.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("vision time: channels-first ResNet-50 training pays cuDNN's transposes, worked by hand", "[vision][time]") {
  // ResNet-50 v1.5 at 224 px, the dense convolutions' inputs and outputs per image: the stem (3 + 64/4 channels over
  // 50,176 positions = 953,344), then per bottleneck block conv1 (in + width at the input's positions), conv2 (width
  // in at the input's positions, width out), conv3 (width in, 4·width out) and the first block's projection:
  // stage widths 64, 128, 256, 512 at 3,136, 784, 196, 49 positions, 3, 4, 6, 3 blocks: 21,776,384 elements.
  // Stage by stage: 7,626,752 (the first block 2,809,856 with its projection of 64 -> 256), 7,024,640, 4,716,544, 1,455,104.
  const double io = 953344.0 + 7626752.0 + 7024640.0 + 4716544.0 + 1455104.0;
  REQUIRE(io == Approx(21776384.0));
  const Run nhwc = estimate("resnet-50", "rtx-3090-24gb", "train", "512");
  const Run nchw = estimate("resnet-50", "rtx-3090-24gb", "train", "512", {"--no-channels-last"});
  // Five 16-bit accesses per element in a training step at 0.8 of the RTX 3090's 936 GB/s: 0.1489 s a step of 512.
  const double transposes = 512.0 * io * 5.0 * 2.0 / (0.8 * 936e9);
  CHECK(512.0 / nchw.images_per_second - 512.0 / nhwc.images_per_second == Approx(transposes).epsilon(1e-6));
  CHECK(has_note(nhwc, "timed channels_last"));
  CHECK(has_note(nchw, "cuDNN transposes every convolution"));
  // --channels-last is the default said aloud: the same speed, no note on the other layout.
  const Run asked = estimate("resnet-50", "rtx-3090-24gb", "train", "512", {"--channels-last"});
  CHECK(asked.images_per_second == Approx(nhwc.images_per_second));
  CHECK_FALSE(has_note(asked, "timed channels_last"));
}

TEST_CASE("vision time: channels-first inference pays one access, compiled, TensorRT and ROCm runs none", "[vision][time]") {
  const double io = 21776384.0;
  const Run nhwc = estimate("resnet-50", "rtx-4090-24gb", "inference", "256");
  const Run nchw = estimate("resnet-50", "rtx-4090-24gb", "inference", "256", {"--no-channels-last"});
  CHECK(256.0 / nchw.images_per_second - 256.0 / nhwc.images_per_second == Approx(256.0 * io * 2.0 / (0.8 * 1008e9)).epsilon(1e-6));
  // torch.compile's Inductor makes the convolutions channels_last itself (layout_optimization); MIOpen is not counted.
  CHECK(estimate("resnet-50", "rtx-4090-24gb", "inference", "256", {"--no-channels-last", "--compile"}).images_per_second ==
        Approx(estimate("resnet-50", "rtx-4090-24gb", "inference", "256", {"--compile"}).images_per_second));
  CHECK(estimate("resnet-50", "rtx-4090-24gb", "inference", "256", {"--no-channels-last", "--framework", "tensorrt"}).images_per_second ==
        Approx(estimate("resnet-50", "rtx-4090-24gb", "inference", "256", {"--framework", "tensorrt"}).images_per_second));
  const Run rocm = estimate("resnet-50", "mi300x-192gb", "inference", "256", {"--no-channels-last"});
  CHECK(rocm.images_per_second == Approx(estimate("resnet-50", "mi300x-192gb", "inference", "256").images_per_second));
  CHECK(has_note(rocm, "timed for cuDNN only: channels-first is not counted"));
}

TEST_CASE("cli: the memory format is refused where it is not timed and when both are given", "[vision][cli]") {
  auto r = test::run({"estimate", "--model", "yolov8-m", "--mode", "train", "--no-channels-last", "--gpu", "rtx-3090-24gb"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--no-channels-last:") != std::string::npos);
  CHECK(r.err.find("ResNet, ResNeXt, EfficientNet") != std::string::npos);
  r = test::run({"estimate", "--model", "resnet-50", "--mode", "train", "--channels-last", "--no-channels-last", "--gpu", "rtx-3090-24gb"});
  CHECK(r.code == 2);
  CHECK(r.err.find("contradicts --channels-last") != std::string::npos);
}

TEST_CASE("vision memory: a ResNet-18 keeps its stem's maps at every position, and two norm inputs a basic block", "[vision][memory]") {
  // The stem keeps, per input position, the image (3), the norm's input and the pooling's input (64/4 each) and the
  // pooling's output and indices (64/16 each): 43 x 50,176 = 2,157,568 elements at 224 px.
  // A basic block keeps its two conv inputs (block input, first ReLU output) and its two norms' inputs:
  // (in + w + 2w) positions: stage 1 2 x 256 x 3,136; stage 2 (448 + 512) x 784; stage 3 (896 + 1,024) x 196;
  // stage 4 (1,792 + 2,048) x 49: 1,605,632 + 752,640 + 376,320 + 188,160 = 2,922,752.
  const double kept = 2157568.0 + 2922752.0;
  const auto r = test::run({"estimate", "--model", "resnet-18", "--mode", "train", "--precision", "fp16", "--batch", "256", "--gpu", "rtx-3090-24gb",
                            "--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = r.json();
  double activations = 0;
  for (const auto& e : j["memory"]["explain"])
    if (e["component"] == "activations") activations = e["bytes"].get<double>();
  // 256 images x 2 bytes x the CNN transient factor 1.35 (method.md §12.2).
  CHECK(activations == Approx(256.0 * kept * 2.0 * 1.35).epsilon(1e-9));
}

TEST_CASE("vision time: a GeForce card's convolutions reach more of its half-rate fp16 peak, its workstation twin does not", "[vision][time][family]") {
  // GeForce runs fp16 with fp32 accumulation at half the fp16-accumulate rate: the 0.43 of the tensor time that keeps a
  // convolution at 0.7 of a full-rate peak does not double, so it reaches 1 / (1 + (1/0.7 - 1) / 2) = 0.8235 (§12.3).
  auto utilization = [](const std::string& gpu, const std::string& precision) {
    const auto r = test::run({"estimate", "--model", "resnet-50", "--mode", "inference", "--precision", precision, "--batch", "256", "--gpu", gpu,
                              "--format", "json"});
    REQUIRE(r.code == 0);
    return r.json()["time"]["utilization"].get<double>();
  };
  CHECK(utilization("rtx-4090-24gb", "fp16") == Approx(1.0 / (1.0 + (1.0 / 0.7 - 1.0) / 2.0)));
  CHECK(utilization("rtx-3090-24gb", "bf16") == Approx(0.823529).epsilon(1e-5));
  // The RTX 6000 Ada (the same AD102) and the L40S accumulate in fp32 at the full rate; TF32 is not halved.
  CHECK(utilization("rtx-6000-ada-48gb", "fp16") == Approx(0.7));
  CHECK(utilization("l40s-48gb", "fp16") == Approx(0.7));
  CHECK(utilization("rtx-4090-24gb", "tf32") == Approx(0.7));
}
