// The optimizer step as memory traffic (method.md §8.2, §12.3): one tally of the bytes each optimizer reads and
// writes per trained parameter, the same for language models and vision networks.
#include <catch2/catch.hpp>

#include "helpers.hpp"

namespace {
// Seconds per step of an estimate: a step's samples over the rate the estimate reports.
double step_seconds(std::vector<std::string> args, const char* rate, double samples) {
  args.insert(args.begin(), "estimate");
  args.insert(args.end(), {"--format", "json"});
  const auto r = test::run(args);
  REQUIRE(r.code == 0);
  return samples / r.json()["time"][rate].get<double>();
}
}  // namespace

TEST_CASE("optimizer step: SGD's momentum buffer adds 8 bytes per parameter to a step, for a vision network and a language model alike", "[time][optimizer]") {
  // SGD reads the fp32 weight (4) and gradient (4) and writes the weight (4): 12 bytes; momentum reads and writes its
  // fp32 buffer: 8 more, 20; AdamW 30. At 80 % of the peak bandwidth, once a step (grad-accum 1).
  // ResNet-50 (25,557,032 parameters, torchvision) on an A100 SXM 80GB (2,039 GB/s), batch 64:
  // 8 x 25.557e6 / (2,039e9 x 0.8) = 125.3 us a step; AdamW's 30 against SGD's 12: 18 bytes, 282.0 us.
  const std::vector<std::string> vision{"--model", "resnet-50", "--mode", "train", "--precision", "fp32", "--batch", "64", "--gpu", "a100-sxm-80gb", "--optimizer"};
  auto v = [&](const char* o) {
    auto a = vision;
    a.push_back(o);
    return step_seconds(a, "images_per_second", 64.0);
  };
  const double sgd = v("sgd");
  CHECK(v("sgd-momentum") - sgd == Approx(125.3e-6).epsilon(0.002));
  CHECK(v("adamw") - sgd == Approx(282.0e-6).epsilon(0.002));
  // Llama 3.2 1B (1,235,814,400 parameters), full fine-tune in bf16 on an H100 SXM (3,350 GB/s), one 512-token
  // sequence a step (--global-batch 1, not the recipes' 128): 8 x 1.2358e9 / (3,350e9 x 0.8) = 3.689 ms a step.
  const std::vector<std::string> llm{"--model", "llama-3.2-1b", "--mode", "finetune", "--precision", "bf16", "--batch", "1", "--seq-len", "512", "--global-batch", "1", "--gpu", "h100-sxm-80gb", "--optimizer"};
  auto l = [&](const char* o) {
    auto a = llm;
    a.push_back(o);
    return step_seconds(a, "train_tokens_per_second_per_gpu", 512.0);
  };
  CHECK(l("sgd-momentum") - l("sgd") == Approx(3.689e-3).epsilon(0.002));
}
