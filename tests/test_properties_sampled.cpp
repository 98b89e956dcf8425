// Invariants of every ranking row over sampled questions (method.md §9, issue "one answer"): a seeded sample of
// models, modes, precisions, frameworks, batches and job sizes, each ranked over the whole catalogue, every row
// and recommendation checked. A question the CLI refuses (exit 2, a flag that does not apply) is counted apart;
// the test fails when too few questions were ranked, so it cannot pass by matching nothing.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "helpers.hpp"

namespace {
struct Sampler {
  std::mt19937 rng{20261205};
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
  }
  bool coin(double p) { return std::bernoulli_distribution(p)(rng); }
};

// One sampled question as CLI arguments.
std::vector<std::string> sample(Sampler& s) {
  const std::vector<std::string> llms{"llama-3.1-8b", "llama-3.1-70b", "qwen3-30b-a3b", "mixtral-8x7b", "gpt-oss-20b", "7B", "1B", "bert-base-uncased"};
  const std::vector<std::string> vision{"resnet-50", "yolov8-m", "vit-b-16"};
  const std::vector<std::string> generation{"sdxl-base-1.0", "flux-1-dev"};
  std::vector<std::string> a;
  const int kind = std::uniform_int_distribution<int>(0, 9)(s.rng);
  if (kind < 7) {
    const std::string model = s.pick(llms);
    const std::string mode = s.pick(std::vector<std::string>{"train", "finetune", "lora", "qlora", "inference", "inference"});
    a = {"--model", model, "--mode", mode};
    if (mode == "inference") {
      const std::string fw = s.pick(std::vector<std::string>{"hf", "vllm", "sglang", "llamacpp"});
      a.insert(a.end(), {"--framework", fw});
      if (fw == "llamacpp") a.insert(a.end(), {"--precision", "q4_k_m"});
      else if (s.coin(0.3)) a.insert(a.end(), {"--precision", s.pick(std::vector<std::string>{"fp8", "int4", "bf16"})});
      if (s.coin(0.6)) a.insert(a.end(), {"--requests", "10k", "--input-tokens", s.pick(std::vector<std::string>{"128", "1000", "4000"}), "--output-tokens", "200"});
      if (s.coin(0.3)) a.insert(a.end(), {"--batch", s.pick(std::vector<std::string>{"1", "8", "64"})});
    } else {
      if (s.coin(0.4)) a.insert(a.end(), {"--framework", s.pick(std::vector<std::string>{"megatron", "torchtitan"})});
      if (s.coin(0.6)) a.insert(a.end(), {"--tokens", s.pick(std::vector<std::string>{"10M", "1B", "100B"})});
      if (s.coin(0.3)) a.insert(a.end(), {"--seq-len", s.pick(std::vector<std::string>{"512", "4096", "8192"})});
      if (s.coin(0.3)) a.insert(a.end(), {"--batch", s.pick(std::vector<std::string>{"1", "4"})});
    }
  } else if (kind < 9) {
    const std::string model = s.pick(vision);
    const bool train = s.coin(0.5);
    a = {"--model", model, "--mode", train ? "train" : "inference"};
    if (train) a.insert(a.end(), {"--images", "100k", "--epochs", "10"});
    else if (s.coin(0.5)) a.insert(a.end(), {"--images", "1M"});
  } else {
    a = {"--model", s.pick(generation), "--mode", "inference"};
    if (s.coin(0.5)) a.insert(a.end(), {"--images", "1000"});
  }
  if (s.coin(0.2)) a.insert(a.end(), {"--rank-by", s.pick(std::vector<std::string>{"time", "cost", "gpus"})});
  return a;
}
}  // namespace

TEST_CASE("properties: every row of sampled rankings keeps the invariants, and every recommendation names a row that fits", "[properties][invariants]") {
  Sampler s;
  int ranked = 0, refused = 0;
  std::size_t rows = 0;
  for (int i = 0; i < 400; ++i) {
    std::vector<std::string> args = sample(s);
    args.insert(args.end(), {"--format", "json"});
    const auto r = test::run(args);
    std::string line;
    for (const auto& x : args) line += x + " ";
    INFO(line);
    REQUIRE((r.code == 0 || r.code == 2));  // never a crash or an internal error
    if (r.code == 2) {
      ++refused;
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);  // one line naming the flag
      continue;
    }
    ++ranked;
    const auto j = r.json();
    std::set<std::string> fitting;
    bool seen_unfit = false;
    for (const auto& row : j["ranking"]) {
      ++rows;
      INFO(row["gpu"].get<std::string>() << ": " << row["layout"].get<std::string>());
      const auto& mem = row["memory"];
      CHECK(mem["device_peak_bytes"].get<double>() >= mem["tensor_peak_bytes"].get<double>());
      const bool fits = row["fits"].get<bool>();
      const auto& t = row["time"];
      if (!fits) {
        seen_unfit = true;
        // A row that does not fit carries no speed, hours, dollars or value.
        for (const char* k : {"train_tokens_per_second_per_gpu", "decode_tokens_per_second", "images_per_second", "job_seconds", "requests_per_second"})
          CHECK(t[k].is_null());
        CHECK(row["cost"]["job_usd"].is_null());
        CHECK(row["value"]["usd"].is_null());
        continue;
      }
      CHECK_FALSE(seen_unfit);  // fits (and tight) before what does not fit
      if (!row["tight"].get<bool>()) fitting.insert(row["gpu"].get<std::string>());
      if (!t["job_seconds"].is_null()) {
        CHECK(std::isfinite(t["job_seconds"].get<double>()));
        CHECK(t["job_seconds"].get<double>() > 0);
        if (!row["cost"]["usd_per_hour"].is_null()) CHECK(row["cost"]["job_usd"].get<double>() > 0);
      }
      // A plan's memory is within its card's (engines fill their own share, which is within it too).
      CHECK(mem["device_peak_bytes"].get<double>() <= row["capacity_bytes"].get<double>() * 1.0000001);
    }
    for (const auto& rec : j["recommendations"]) {
      INFO(rec["label"].get<std::string>() << ": " << rec["gpu"].get<std::string>());
      if (rec["label"] == "on a CPU") continue;  // a CPU instance, beside the GPU rows
      CHECK(fitting.count(rec["gpu"].get<std::string>()) == 1);
    }
  }
  INFO("ranked " << ranked << ", refused " << refused << ", rows " << rows);
  CHECK(ranked >= 250);
  CHECK(rows >= 250 * 20);
}
