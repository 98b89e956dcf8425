// fit and sweep answer the same question the same way (method.md §9): the same margin (5 % of the card free, as the
// ranking's tight rule), and the same word for a training workload that fits only with activation checkpointing.
#include <catch2/catch.hpp>

#include <string>

#include "helpers.hpp"

TEST_CASE("sweep and fit: the largest batch is the same, a tight point is not a fit, and both name the saver", "[cli][sweep][fit]") {
  // Llama 3.1 8B LoRA on an RTX 4090 (25.8 GB usable) with full checkpointing: batch 1 needs 21.2 GB, batch 2
  // 25.1 GB, which leaves 0.7 GB free, less than 5 % of the card (1.29 GB): fit's largest batch is 1, and the sweep's
  // last fit is 1 with batch 2 marked tight.
  const std::vector<std::string> job{"--model", "llama-3.1-8b", "--mode", "lora", "--gpu", "rtx-4090-24gb"};
  auto run = [&](std::vector<std::string> head, std::vector<std::string> tail) {
    head.insert(head.end(), job.begin(), job.end());
    head.insert(head.end(), tail.begin(), tail.end());
    return test::run(head);
  };
  const auto fit = run({"fit"}, {"--gradient-checkpointing", "--format", "json"});
  REQUIRE(fit.code == 0);
  CHECK(fit.json()["value"] == 1);
  const auto sweep = run({"sweep"}, {"--gradient-checkpointing", "--vary", "batch", "--from", "1", "--to", "4", "--format", "json"});
  REQUIRE(sweep.code == 0);
  const auto s = sweep.json();
  CHECK(s["points"][0]["gpus"][0]["fits"] == true);
  CHECK(s["points"][1]["gpus"][0]["fits"] == false);
  CHECK(s["points"][1]["gpus"][0]["fit_reason"].get<std::string>().rfind("tight", 0) == 0);
  const double peak = s["points"][1]["gpus"][0]["device_peak_bytes"].get<double>(), cap = s["points"][1]["gpus"][0]["capacity_bytes"].get<double>();
  CHECK(cap - peak > 0);
  CHECK(cap - peak < 0.05 * cap);
  // Without checkpointing nothing fits; both say what the ranking would add: fit names the ranking's own plan on the
  // card (full checkpointing), the sweep the saver.
  const auto bare = run({"fit"}, {});
  REQUIRE(bare.code == 0);
  CHECK(bare.out.find("as given it does not fit; the ranking's plan on one GPU does: single GPU, full checkpointing") != std::string::npos);
  const auto bare_sweep = run({"sweep"}, {"--vary", "batch", "--from", "1", "--to", "4"});
  REQUIRE(bare_sweep.code == 0);
  CHECK(bare_sweep.out.find("without activation checkpointing") != std::string::npos);
}

TEST_CASE("check: a tight plan passes without a margin of its own and says what the other answers call it", "[cli][check]") {
  // The same batch 2 (0.7 GB of 25.8 free, 2.6 %): check asserts only the margin it is given, so it passes, and its
  // note names the 5 % that fit, sweep and the ranking keep; --min-headroom 5 makes it a failure (exit 1).
  const std::vector<std::string> job{"check", "--model", "llama-3.1-8b", "--mode", "lora", "--gpu", "rtx-4090-24gb", "--gradient-checkpointing",
                                     "--batch", "2"};
  const auto plain = test::run(job);
  CHECK(plain.code == 0);
  CHECK(plain.out.find("tight: 2.6% of the card free") != std::string::npos);
  auto strict = job;
  strict.insert(strict.end(), {"--min-headroom", "5"});
  CHECK(test::run(strict).code == 1);
}

TEST_CASE("sweep and check take --gpu as the ranking does: repeatable or comma-separated", "[sweep][check][cli]") {
  const std::vector<std::string> job = {"--model", "llama-3.1-8b", "--mode", "lora"};
  auto with = [&](std::vector<std::string> head, std::vector<std::string> tail) {
    head.insert(head.end(), job.begin(), job.end());
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  };
  const auto comma = test::run(with({"sweep"}, {"--vary", "seq-len", "--from", "1024", "--to", "4096", "--gpu", "rtx-4090-24gb,a100-sxm-80gb"}));
  const auto twice = test::run(with({"sweep"}, {"--vary", "seq-len", "--from", "1024", "--to", "4096", "--gpu", "rtx-4090-24gb", "--gpu", "a100-sxm-80gb"}));
  REQUIRE(comma.code == 0);
  CHECK(comma.out == twice.out);
  CHECK(comma.out.find("a100-sxm-80gb: fits") != std::string::npos);
  const auto check = test::run(with({"check"}, {"--gpu", "rtx-4090-24gb,a100-sxm-80gb", "--format", "json"}));
  REQUIRE(check.code == 1);  // the 4090 does not hold 8B LoRA at 2,048 tokens without checkpointing; the A100 does
  CHECK(check.json()["results"].size() == 2);
  CHECK(check.json()["failed"] == 1);
}
