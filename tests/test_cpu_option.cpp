// The CPU as an option (docs/method.md §16): CPU instances from data/cpus.json, planned as one device each, beside
// the GPUs; "on a CPU" when one finishes the job within a day. Figures worked by hand from the cited per-core rates.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "helpers.hpp"

using namespace gpuadvise;

namespace {
const GpuCatalog& cpus() {
  static const GpuCatalog cat = parse_cpu_catalog(bundled_cpu_catalog(), "data/cpus.json");
  return cat;
}
const nlohmann::json* recommendation(const nlohmann::json& doc, const std::string& label) {
  for (const auto& r : doc["recommendations"])
    if (r["label"] == label) return &r;
  return nullptr;
}
}  // namespace

TEST_CASE("cpu: the catalogue's peaks are cores x per-core rate x the base clock, bandwidth eight DDR5-4800 channels a socket", "[cpu]") {
  // c7i.24xlarge: 96 vCPUs = 48 cores of one Xeon Platinum 8488C at 2.4 GHz. AMX: 1,024 bf16 and 2,048 int8
  // operations per core and cycle; AVX-512: 64 fp32. 48 x 1024 x 2.4e9 = 117.96 TFLOP/s; 48 x 64 x 2.4e9 = 7.37.
  const GpuSpec* c = cpus().find("c7i.24xlarge");
  REQUIRE(c);
  CHECK(c->stack == "cpu");
  CHECK(*c->peak_flops("bf16") == Approx(48.0 * 1024 * 2.4e9).epsilon(1e-3));
  CHECK(*c->peak_flops("fp32") == Approx(48.0 * 64 * 2.4e9).epsilon(1e-3));
  CHECK(*c->peak_flops("int8") == Approx(48.0 * 2048 * 2.4e9).epsilon(1e-3));
  CHECK_FALSE(c->peak_flops("fp16").has_value());  // no fp16 matrix unit on Sapphire Rapids: unknown, never invented
  CHECK(*c->bandwidth_gb_per_s == Approx(4800e6 * 8 * 8 / 1e9));
  CHECK(c->memory_bytes == 192LL * 1024 * 1024 * 1024);
  CHECK(*c->cheapest_offer()->usd_per_gpu_hour == Approx(4.284));
  // Two sockets: twice the cores and channels.
  CHECK(*cpus().find("c7i.48xlarge")->bandwidth_gb_per_s == Approx(614.4));
  // A GPU catalogue never takes the stack "cpu", the CPU catalogue nothing else.
  CHECK_THROWS_WITH(parse_cpu_catalog(R"({"schema_version": 1, "catalog_version": "x", "gpus": []})", "cpus.json"), Catch::Contains("cpus"));
}

TEST_CASE("cpu: a batch-1 decode reads the weights over the DDR5 channels", "[cpu]") {
  // Llama 3.1 8B in bf16 on a c7i.24xlarge: 16.06 GB of weights per token at 0.8 of 307.2 GB/s = 65.35 ms, plus
  // the KV reads and Hugging Face's per-layer host time; the answer is bandwidth-bound.
  const auto doc = test::run_json({"estimate", "--model", "llama-3.1-8b", "--mode", "inference", "--gpu", "c7i.24xlarge"});
  const double weights = doc["memory"]["components"]["weights"].get<double>();
  const double read = weights / (307.2e9 * 0.8);
  CHECK(read == Approx(0.06535).epsilon(1e-3));
  const double tpot = doc["time"]["tpot_seconds"].get<double>();
  CHECK(tpot > read);
  CHECK(tpot < 1.3 * read);
  CHECK(doc["time"]["bound"] == "memory bandwidth");
  CHECK(doc["memory"]["components"]["runtime"].get<double>() == Approx(2.0 * 1024 * 1024 * 1024));  // the OS and the process
}

TEST_CASE("cpu: a small fine-tune names a CPU instance beside the GPUs, a large one does not", "[cpu]") {
  const auto small = test::run_json({"--model", "bert-base-uncased", "--mode", "finetune", "--tokens", "10M"});
  const auto* line = recommendation(small, "on a CPU");
  REQUIRE(line);
  CHECK((*line)["gpu"] == "c7i.24xlarge");  // the cheapest instance that finishes within a day
  REQUIRE(small["cpus"].size() == 3);
  for (const auto& c : small["cpus"]) {
    CHECK(c["fits"].get<bool>());
    CHECK(c["gpus"] == 1);
    CHECK(c["layout"].get<std::string>().rfind("one instance", 0) == 0);
  }
  for (const auto& g : small["ranking"]) CHECK(g["gpu"].get<std::string>().find("c7i") == std::string::npos);
  // The CPU's job costs what its hours cost: price x (compute + the start every job pays).
  const auto& c = small["cpus"][0];
  CHECK(c["cost"]["job_usd"].get<double>() == Approx(4.284 * c["cost"]["hours"]["wall"].get<double>()).epsilon(1e-9));
  // 70B fully fine-tuned on 1B tokens: months on a CPU, no line; 405B does not fit 768 GiB and shows no speed.
  const auto large = test::run_json({"--model", "llama-3.1-70b", "--mode", "finetune", "--tokens", "1B"});
  CHECK_FALSE(recommendation(large, "on a CPU"));
  const auto huge = test::run_json({"--model", "llama-3.1-405b", "--mode", "finetune", "--tokens", "1B"});
  for (const auto& row : huge["cpus"]) {
    CHECK_FALSE(row["fits"].get<bool>());
    CHECK(row["time"]["train_tokens_per_second_per_gpu"].is_null());
    CHECK(row["cost"]["job_usd"].is_null());
  }
}

TEST_CASE("cpu: not offered for video streams, NVIDIA-only engines or GPUs named alone", "[cpu]") {
  CHECK(test::run_json({"--model", "yolov8-n", "--mode", "inference", "--streams", "10"})["cpus"].empty());
  CHECK(test::run_json({"--model", "llama-3.1-8b", "--mode", "inference", "--framework", "trtllm"})["cpus"].empty());
  CHECK(test::run_json({"--model", "bert-base-uncased", "--mode", "finetune", "--gpu", "h100-sxm-80gb"})["cpus"].empty());
}

TEST_CASE("cpu: an instance named is the same answer in every command", "[cpu]") {
  // The ranking of the instance alone, its CPU row beside the GPUs, and estimate agree on fit, rate and cost.
  const std::vector<std::string> job{"--model", "bert-base-uncased", "--mode", "finetune", "--tokens", "10M"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = job;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const auto alone = test::run_json(with({"--gpu", "c7i.24xlarge"}));
  REQUIRE(alone["ranking"].size() == 1);
  CHECK(alone["ranking"][0]["gpu"] == "c7i.24xlarge");
  CHECK_FALSE(recommendation(alone, "one card"));  // an instance is not a card
  const auto beside = test::run_json(job)["cpus"][0];
  CHECK(alone["ranking"][0]["cost"]["job_usd"].get<double>() == Approx(beside["cost"]["job_usd"].get<double>()));
  const auto plan = beside["plan"];  // the micro-batch and accumulation the CPU row chose
  auto est_args = with({"--gpu", "c7i.24xlarge", "--batch", plan["micro_batch"].dump(), "--grad-accum", plan["grad_accum"].dump()});
  est_args.insert(est_args.begin(), "estimate");
  const auto est = test::run_json(est_args);
  CHECK(est["time"]["train_tokens_per_second_per_gpu"].get<double>() == Approx(beside["time"]["train_tokens_per_second_per_gpu"].get<double>()));
  const auto check = test::run({"check", "--model", "llama-3.1-8b", "--mode", "inference", "--gpu", "c7i.24xlarge"});
  CHECK(check.code == 0);
  CHECK(test::run({"fit", "--model", "llama-3.1-8b", "--mode", "lora", "--gpu", "c7i.24xlarge", "--maximize", "seq-len"}).code == 0);
}
