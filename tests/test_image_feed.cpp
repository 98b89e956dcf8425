// The images a second a vision model's input pipeline feeds one GPU (image_feed.cpp, method.md §14), and the job
// running at the lesser of that and the GPU's own rate.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

#include "gpuadvise/image_feed.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/perf.hpp"
#include "helpers.hpp"

using namespace gpuadvise;

TEST_CASE("image feed: the host's data loader workers decode 190 ImageNet-size JPEGs a second each", "[vision][system]") {
  // timm#1491: ten Pillow workers fed 1,923 images/s to an A100 (190 each). An 8-GPU cloud server has 24 logical
  // CPUs per GPU (p5.48xlarge: 192 vCPU for 8), a desktop or workstation 12: 24 x 190 = 4,560 and 12 x 190 = 2,280.
  const GpuSpec& h100 = *test::gpus().find("h100-sxm-80gb");
  const GpuSpec& rtx4090 = *test::gpus().find("rtx-4090-24gb");
  const Workload cpu = test::wl({{"model", "resnet-50"}, {"mode", "train"}});
  CHECK(host_cpus_per_gpu(h100) == 24.0);
  CHECK(host_cpus_per_gpu(rtx4090) == 12.0);
  REQUIRE(image_feed(cpu, h100, 224, 224).per_gpu);
  CHECK(*image_feed(cpu, h100, 224, 224).per_gpu == Approx(4560.0));
  CHECK(*image_feed(cpu, rtx4090, 224, 224).per_gpu == Approx(2280.0));
  // Decoding scales with the pixels, ImageNet's JPEGs being 469 x 387 = 181,503 on average: a 640 x 640 input (a YOLO
  // detector's) costs 409,600, 190 x 181,503 / 409,600 = 84.2 a second per worker, 24 x 84.2 = 2,021 per GPU.
  CHECK(cpu_decode_images_per_second(640, 640) == Approx(84.19).epsilon(0.001));
  CHECK(*image_feed(cpu, h100, 640, 640).per_gpu == Approx(2020.6).epsilon(0.001));
  // Smaller inputs than ImageNet's JPEGs do not decode faster (the JPEG is read whole): 224 x 224 and 32 x 32 alike.
  CHECK(cpu_decode_images_per_second(224, 224) == Approx(190.0));
  CHECK(cpu_decode_images_per_second(32, 32) == Approx(190.0));
  // Decoded tensors: nothing limits. On the GPU: not counted, and the note names the vendor's own library.
  const ImageFeed none = image_feed(test::wl({{"model", "resnet-50"}, {"image_decode", "none"}}), h100, 224, 224);
  CHECK_FALSE(none.per_gpu);
  CHECK_FALSE(none.unknown);
  const Workload gpu = test::wl({{"model", "resnet-50"}, {"image_decode", "gpu"}});
  const ImageFeed on_h100 = image_feed(gpu, h100, 224, 224);
  CHECK_FALSE(on_h100.per_gpu);
  CHECK(on_h100.unknown);
  CHECK(on_h100.how.find("NVIDIA DALI with nvJPEG") != std::string::npos);
  const ImageFeed on_mi300x = image_feed(gpu, *test::gpus().find("mi300x-192gb"), 224, 224);
  CHECK(on_mi300x.how.find("AMD rocAL with rocJPEG") != std::string::npos);
  CHECK(on_mi300x.how.find("NVIDIA") == std::string::npos);
}

TEST_CASE("image feed: a job runs at its input's pace, and the GPU's own rate stays what benchmarks compare", "[vision][time]") {
  // ResNet-50 training on one H100, micro-batch 256: the GPU runs 4,821.1 images/s (test_system.cpp); the host feeds
  // 4,560. 90 epochs of ImageNet's 1.28 M images: 1.28e6 x 90 / 4,560 = 25,263 s, against 23,895 s at the GPU's rate.
  const auto m = test::model("resnet-50");
  const GpuSpec& h100 = *test::gpus().find("h100-sxm-80gb");
  auto time = [&](const char* decode) {
    const Workload w = test::wl({{"model", "resnet-50"}, {"mode", "train"}, {"batch", "256"}, {"images", "1.28M"}, {"epochs", "90"}, {"image_decode", decode}});
    return estimate_time(w, m, h100, estimate_memory(w, m, &h100));
  };
  const TimeEstimate host = time("cpu"), none = time("none"), gpu = time("gpu");
  REQUIRE(host.images_per_second);
  CHECK(*host.images_per_second == Approx(4821.1).epsilon(0.002));
  CHECK(*host.input_images_per_second == Approx(4560.0));
  CHECK(host.input_bound());
  CHECK(*host.paced_images_per_second() == Approx(4560.0));
  CHECK(*host.job_seconds == Approx(1.28e6 * 90 / 4560.0));
  CHECK(*host.job_seconds == Approx(25263.0).epsilon(0.001));
  CHECK(host.bound == "input (JPEG decoding on the host)");
  CHECK(*none.images_per_second == Approx(*host.images_per_second));
  CHECK_FALSE(none.input_images_per_second);
  CHECK(*none.job_seconds == Approx(1.28e6 * 90 / *none.images_per_second));
  CHECK(*gpu.job_seconds == Approx(*none.job_seconds));
  // A GPU slower than its host's feed runs at its own rate: a T4 (under 1,900 images/s) against the 4,560 its host feeds.
  const GpuSpec& t4 = *test::gpus().find("t4-16gb");
  const Workload wt4 = test::wl({{"model", "resnet-50"}, {"mode", "train"}, {"batch", "64"}, {"precision", "fp16"}, {"images", "1.28M"}});
  const TimeEstimate tt4 = estimate_time(wt4, m, t4, estimate_memory(wt4, m, &t4));
  CHECK_FALSE(tt4.input_bound());
  CHECK(*tt4.job_seconds == Approx(1.28e6 / *tt4.images_per_second));
}

TEST_CASE("image feed: every output states the input's pace, and the ranking runs its rows at it", "[vision][cli]") {
  const std::vector<std::string> job{"--model", "resnet-50", "--mode", "train", "--batch", "256", "--images", "1.28M", "--epochs", "90"};
  const auto j = test::run_json(test::args({"estimate", "--gpu", "h100-sxm-80gb"}, job));
  CHECK(j["time"]["input_images_per_second"].get<double>() == Approx(4560.0));
  CHECK(j["time"]["images_per_second"].get<double>() == Approx(4821.1).epsilon(0.002));
  CHECK(j["time"]["job_seconds"].get<double>() == Approx(1.28e6 * 90 / 4560.0));
  // The same job ranked on that one GPU: the same pace, the same job time, and the table says what limits it.
  const auto row = test::run_json(test::args({"--only", "h100-sxm-80gb", "--max-gpus", "1"}, job))["ranking"][0];
  CHECK(row["time"]["job_seconds"].get<double>() == Approx(j["time"]["job_seconds"].get<double>()));
  const auto table = test::run(test::args({"--only", "h100-sxm-80gb", "--max-gpus", "1"}, job));
  REQUIRE(table.code == 0);
  CHECK(table.out.find("limit") != std::string::npos);
  CHECK(table.out.find(" 4560 input ") != std::string::npos);
  const auto text = test::run(test::args({"estimate", "--gpu", "h100-sxm-80gb"}, job));
  CHECK(text.out.find("input: 4560 images/s per GPU reach it") != std::string::npos);
  CHECK(text.out.find("--image-decode gpu: NVIDIA DALI with nvJPEG") != std::string::npos);
  // Decoded elsewhere: no input figure in JSON, no limit column.
  const auto none = test::run_json(test::args({"estimate", "--gpu", "h100-sxm-80gb", "--image-decode", "none"}, job));
  CHECK(none["time"]["input_images_per_second"].is_null());
}

TEST_CASE("image feed: --image-decode takes cpu, gpu or none, for vision models fed JPEG files only", "[vision][input]") {
  auto refused = [](std::vector<std::string> a, const std::string& says) {
    const auto r = test::run(std::move(a));
    CHECK(r.code == 2);
    CHECK(r.err.find(says) != std::string::npos);
  };
  refused({"--model", "resnet-50", "--image-decode", "gpus"}, "--image-decode: unknown image decode 'gpus' (valid: cpu, gpu, none)");
  refused({"--model", "7B", "--image-decode", "gpu"}, "--image-decode: applies to vision models; 7B is a language model");
  refused({"--model", "flux-1-dev", "--mode", "inference", "--image-decode", "cpu"}, "flux-1-dev is an image-generation pipeline");
  refused({"--model", "yolov8-s", "--mode", "inference", "--streams", "10", "--image-decode", "gpu"}, "video frames are decoded by the GPU's NVDEC engines");
}

TEST_CASE("image feed: a calibration corrects the GPU's rate, not its input's, and applies to the default vision framework", "[vision][calibrate]") {
  // A probe of ResNet-50 training on an H100 at 1.2x the estimate (5,785.3 images/s against 4,821.1), saved without
  // --framework (vision's default, PyTorch). The corrected GPU still outruns the host's 4,560: 90 epochs stay
  // 1.28e6 x 90 / 4,560 = 25,263 s; decoded tensors run at the corrected 5,785.3: 19,912 s.
  const std::string dir = "/tmp/gpuadvise-test-feed-" + std::to_string(::getpid());
  setenv("GPUADVISE_CALIBRATION", (dir + "/calibration.json").c_str(), 1);
  const std::string probe =
      R"({"schema": "gpuadvise-probe/1", "estimate_args": "--model resnet-50 --mode train --batch 256", "gpu_name": "NVIDIA H100 80GB HBM3",)"
      R"( "measured": {"max_memory_allocated_bytes": 14000000000, "max_memory_reserved_bytes": 14500000000, "device_used_bytes": 15000000000,)"
      R"( "step_seconds": 0.044, "unit": "images", "per_second": 5785.3}})";
  const auto saved = test::run({"calibrate", "-", "--save"}, probe);
  INFO(saved.err);
  CHECK(saved.code == 0);
  const std::vector<std::string> job{"estimate", "--model", "resnet-50", "--mode", "train", "--batch", "256", "--gpu", "h100-sxm-80gb", "--images", "1.28M", "--epochs", "90"};
  const auto host = test::run_json(job);
  const auto none = test::run_json(test::args(job, {"--image-decode", "none"}));
  unsetenv("GPUADVISE_CALIBRATION");
  std::filesystem::remove_all(dir);
  CHECK(test::says(host["notes"], "corrected by your calibration of h100-sxm-80gb with pytorch"));
  CHECK(host["time"]["images_per_second"].get<double>() == Approx(5785.3).epsilon(0.001));
  CHECK(host["time"]["job_seconds"].get<double>() == Approx(1.28e6 * 90 / 4560.0));
  CHECK(none["time"]["job_seconds"].get<double>() == Approx(1.28e6 * 90 / 5785.3).epsilon(0.001));
}
