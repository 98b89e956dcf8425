// A saved correction applies only to workloads like the one measured (docs/method.md §15,
// include/gpuadvise/correction.hpp), and every answer it changes, or would have changed, says so.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <fmt/format.h>

#include "gpuadvise/correction.hpp"
#include "helpers.hpp"

using gpuadvise::make_correction_scope;
using gpuadvise::scope_difference;

TEST_CASE("correction scope: the same mode, precision, recompute and layout, within 2x parameters and 4x step elements", "[calibrate][scope]") {
  // Measured: LoRA in bf16 without recompute, one GPU, an 8B model, batch 2 x 2,048 = 4,096 elements per step.
  const auto measured = make_correction_scope("lora", "bf16", "none", "none", 1, 1, 1, 8e9, 2, 2048);
  CHECK(measured.step_elements == 4096);
  CHECK(measured.layout == "data parallel");
  CHECK(gpuadvise::scope_text(measured) == "lora in bf16 with recompute none, data parallel, models of 4B-16B parameters, 1.02k-16.4k elements per step");
  auto like = [&](const gpuadvise::CorrectionScope& asked) { return !scope_difference(measured, asked).has_value(); };
  // Data parallelism copies the model: 8 GPUs hold per GPU what one held.
  CHECK(like(make_correction_scope("lora", "bf16", "none", "none", 8, 1, 1, 8e9, 2, 2048)));
  // The edges are inside: 2x the parameters (16B), half of them (4B), 4x the elements (batch 8), a quarter (seq 1,024).
  CHECK(like(make_correction_scope("lora", "bf16", "none", "none", 1, 1, 1, 16e9, 2, 2048)));
  CHECK(like(make_correction_scope("lora", "bf16", "none", "none", 1, 1, 1, 4e9, 2, 2048)));
  CHECK(like(make_correction_scope("lora", "bf16", "none", "none", 1, 1, 1, 8e9, 8, 2048)));
  CHECK(like(make_correction_scope("lora", "bf16", "none", "none", 1, 1, 1, 8e9, 1, 1024)));
  // Just past them, or any other mode, precision, recompute or sharded layout, is another workload.
  CHECK(*scope_difference(measured, make_correction_scope("lora", "bf16", "none", "none", 1, 1, 1, 16.1e9, 2, 2048)) ==
        "measured on a 8B model, this one has 16.1B parameters (it applies within 2x)");
  CHECK(*scope_difference(measured, make_correction_scope("lora", "bf16", "none", "none", 1, 1, 1, 70e9, 2, 2048)) ==
        "measured on a 8B model, this one has 70B parameters (it applies within 2x)");
  CHECK(*scope_difference(measured, make_correction_scope("lora", "bf16", "none", "none", 1, 1, 1, 8e9, 9, 2048)) ==
        "measured at 4.1k elements per step (batch x sequence or pixels), this has 18.4k (it applies within 4x)");
  CHECK_FALSE(like(make_correction_scope("lora", "bf16", "none", "none", 1, 1, 1, 8e9, 1, 1023)));
  CHECK(*scope_difference(measured, make_correction_scope("finetune", "bf16", "none", "none", 1, 1, 1, 8e9, 2, 2048)) ==
        "measured on lora, this is finetune");
  CHECK(*scope_difference(measured, make_correction_scope("lora", "fp8", "none", "none", 1, 1, 1, 8e9, 2, 2048)) == "measured in bf16, this is fp8");
  CHECK(*scope_difference(measured, make_correction_scope("lora", "bf16", "full", "none", 1, 1, 1, 8e9, 2, 2048)) ==
        "measured with recompute none, this has full");
  CHECK(*scope_difference(measured, make_correction_scope("lora", "bf16", "none", "zero3", 8, 1, 1, 8e9, 2, 2048)) ==
        "measured as data parallel, this is zero3 over 8 GPUs, TP 1 x PP 1");
  CHECK_FALSE(like(make_correction_scope("lora", "bf16", "none", "none", 2, 2, 1, 8e9, 2, 2048)));
}

namespace {

// A calibration directory of this test process's own, removed at the end.
struct CalibrationDir {
  std::string dir = "/tmp/gpuadvise-test-scope-" + std::to_string(::getpid());
  std::string file = dir + "/calibration.json";
  CalibrationDir() { setenv("GPUADVISE_CALIBRATION", file.c_str(), 1); }
  ~CalibrationDir() {
    unsetenv("GPUADVISE_CALIBRATION");
    std::filesystem::remove_all(dir);
  }
};

// Llama 3.1 8B LoRA on an H100 at batch (default 2) x 2,048, with more flags.
std::vector<std::string> lora_8b(std::vector<std::string> more, const std::string& batch = "2") {
  std::vector<std::string> args{"estimate", "--model", "llama-3.1-8b", "--mode", "lora", "--batch", batch, "--seq-len", "2048", "--gpu", "h100-sxm-80gb",
                                "--format", "json"};
  for (auto& a : more) args.push_back(std::move(a));
  return args;
}

}  // namespace

TEST_CASE("correction scope: a probe of 8B LoRA corrects 8B LoRA answers only, and the others say why not", "[cli][calibrate][scope]") {
  CalibrationDir cal;
  // Before any correction: the tensor peaks the later answers must keep where the correction does not apply.
  auto peak_of = [](const std::vector<std::string>& args) { return test::run(args).json()["memory"]["tensor_peak_bytes"].get<double>(); };
  const double peak = peak_of(lora_8b({}));
  const double tps = test::run(lora_8b({})).json()["time"]["train_tokens_per_second_per_gpu"].get<double>();
  const std::vector<std::string> big{"estimate", "--model", "llama-3.1-70b", "--mode", "lora", "--batch", "2", "--seq-len", "2048", "--gpu",
                                     "h100-sxm-80gb", "--format", "json"};
  const double big_peak = peak_of(big);
  const double batch16_peak = peak_of(lora_8b({}, "16"));
  const double recompute_peak = peak_of(lora_8b({"--gradient-checkpointing"}));
  // A measurement 10 % above the estimate's tensor peak, 20 % faster.
  const std::string probe = fmt::format(
      R"({{"schema": "gpuadvise-probe/1", "estimate_args": "--batch 2 --mode lora --model llama-3.1-8b --seq-len 2048", "gpu_name": "NVIDIA H100 80GB HBM3",)"
      R"( "measured": {{"max_memory_allocated_bytes": {:.0f}, "max_memory_reserved_bytes": {:.0f}, "device_used_bytes": {:.0f}, "step_seconds": 0.5,)"
      R"( "unit": "tokens", "per_second": {:.3f}}}}})",
      peak * 1.1, peak * 1.15, peak * 1.2, tps * 1.2);
  const auto saved = test::run({"calibrate", "-", "--save"}, probe);
  INFO(saved.err);
  REQUIRE(saved.code == 0);
  // The view says what it will apply to: 8.03B parameters, 4,096 elements per step.
  CHECK(saved.out.find("It applies to lora in bf16 with recompute none, data parallel, models of 4.02B-16.1B parameters, 1.02k-16.4k elements per step") !=
        std::string::npos);
  // Like the measured one (and 8 data-parallel GPUs, and batch 8 = 4x): corrected, and it says to what it applies.
  const auto same = test::run(lora_8b({})).json();
  CHECK(same["memory"]["tensor_peak_bytes"].get<double>() == Approx(peak * 1.1).epsilon(0.001));
  CHECK(test::says(same["notes"], "which applies to lora in bf16 with recompute none"));
  CHECK(test::says(test::run(lora_8b({}, "8")).json()["notes"], "corrected by your calibration"));
  // Not like it: the plain estimate, and a note saying why.
  const auto other = test::run(big).json();
  CHECK(other["memory"]["tensor_peak_bytes"].get<double>() == Approx(big_peak));
  CHECK(test::says(other["notes"], "is not applied here: measured on a 8.03B model, this one has 70.6B parameters"));
  const auto batch16 = test::run(lora_8b({}, "16")).json();
  CHECK(batch16["memory"]["tensor_peak_bytes"].get<double>() == Approx(batch16_peak));
  CHECK(test::says(batch16["notes"], "elements per step"));
  const auto recompute = test::run(lora_8b({"--gradient-checkpointing"})).json();
  CHECK(recompute["memory"]["tensor_peak_bytes"].get<double>() == Approx(recompute_peak));
  CHECK(test::says(recompute["notes"], "measured with recompute none, this has full"));
  // The same job is corrected the same way by check as by estimate.
  const auto checked = test::run({"check", "--model", "llama-3.1-8b", "--mode", "lora", "--batch", "2", "--seq-len", "2048", "--gpu", "h100-sxm-80gb",
                                  "--format", "json"});
  REQUIRE(checked.code == 0);
  CHECK(checked.json()["results"][0]["device_peak_bytes"].get<double>() == Approx(same["memory"]["device_peak_bytes"].get<double>()));
}

TEST_CASE("correction scope: an entry saved without a scope applies to nothing, and the answer says so", "[cli][calibrate][scope]") {
  CalibrationDir cal;
  const double peak = test::run(lora_8b({})).json()["memory"]["tensor_peak_bytes"].get<double>();
  std::filesystem::create_directories(cal.dir);
  std::ofstream(cal.file) << R"({"corrections": [{"gpu": "h100-sxm-80gb", "framework": "hf", "training": true, "memory_factor": 1.5,
                                 "speed_factor": 1.0, "source": "old.json", "saved": "2026-01-01"}]})";
  const auto j = test::run(lora_8b({})).json();
  CHECK(j["memory"]["tensor_peak_bytes"].get<double>() == Approx(peak));
  CHECK(test::says(j["notes"], "is not applied here: it was saved without the workload it measured (an older file); save it again"));
  // A scope that is not an object, or lacks a field, is bad input naming it.
  std::ofstream(cal.file) << R"({"corrections": [{"gpu": "h100-sxm-80gb", "framework": "hf", "training": true, "memory_factor": 1.5,
                                 "speed_factor": 1.0, "scope": {"mode": "lora"}}]})";
  const auto bad = test::run(lora_8b({}));
  CHECK(bad.code == 2);
  CHECK(bad.err.find("corrections[0].scope.precision") != std::string::npos);
}
