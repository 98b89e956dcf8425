// llama.cpp's partial offload (--offload layers, its -ngl; method.md §8.3): the layers past -ngl in host memory, run
// by the CPU, numbers worked out by hand from the coefficients they rest on.
#include <catch2/catch.hpp>

#include "helpers.hpp"

namespace {
const std::vector<std::string> k_70b_q4{"estimate", "--model", "llama-3.1-70b", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m",
                                        "--gpu", "rtx-4090-24gb", "--offload", "layers"};

nlohmann::json at_layers(int n) {
  auto args = k_70b_q4;
  args.insert(args.end(), {"--gpu-layers", std::to_string(n), "--format", "json"});
  const auto r = test::run(args);
  REQUIRE(r.code == 0);
  return r.json();
}
}  // namespace

TEST_CASE("layer offload: the GPU keeps its layers' share, the host the rest, and the CPU reads the rest each token", "[offload][llamacpp]") {
  const auto all = at_layers(80), half = at_layers(40), one = at_layers(1);
  const double w80 = all["memory"]["components"]["weights"].get<double>();
  // The output layer stays in host memory until -ngl passes the last layer: 128,256 x 8,192 weights at Q4_K_M's
  // 4.8944 bits (GGUF's average over the file) = 0.6428 GB, in host memory even with all 80 layers on the GPU.
  const double head = 128256.0 * 8192.0 * 4.8944 / 8.0;
  CHECK(all["memory"]["host_offload"]["weights_bytes"].get<double>() == Approx(head).epsilon(1e-6));
  // 40 of 80 layers: half the layers' weights on the GPU, the other half and the output layer in host memory.
  CHECK(half["memory"]["components"]["weights"].get<double>() == Approx(w80 / 2).epsilon(1e-6));
  CHECK(half["memory"]["host_offload"]["weights_bytes"].get<double>() == Approx(w80 / 2 + head).epsilon(1e-6));
  CHECK(half["memory"]["host_offload"]["gpu_layers"] == 40);
  // One layer on the GPU: each token reads 79/80 of the weights and KV cache from host memory at 0.7 of two DDR5-5600
  // channels (89.6e9 x 0.7 = 62.72 GB/s); the GPU's one layer and the per-token fixed costs add under 2 %.
  const double host = one["memory"]["host_offload"]["weights_bytes"].get<double>() + one["memory"]["host_offload"]["kv_cache_bytes"].get<double>();
  CHECK(host == Approx(w80 * 79.0 / 80.0 + head).epsilon(0.02));
  const double tpot = one["time"]["tpot_seconds"].get<double>();
  CHECK(tpot > host / 62.72e9);
  CHECK(tpot == Approx(host / 62.72e9).epsilon(0.02));
  CHECK(one["time"]["bound"] == "the CPU's layers in host memory");
  // A prompt of 2,047 tokens is 4 micro-batches of 512: each copies the CPU's layers' weights over PCIe 4.0 to the GPU
  // (16e9 x 2 x 0.8 = 25.6 GB/s); nothing else in it depends on where the layers sit (with all 80 on the GPU, only the
  // output layer is copied).
  const double copied = one["memory"]["host_offload"]["weights_bytes"].get<double>() - all["memory"]["host_offload"]["weights_bytes"].get<double>();
  CHECK(one["time"]["ttft_seconds"].get<double>() - all["time"]["ttft_seconds"].get<double>() == Approx(4.0 * copied / 25.6e9).epsilon(1e-3));
}

TEST_CASE("layer offload: on one card the planner keeps the most layers that leave the margin free, and the hint says -ngl", "[offload][llamacpp]") {
  const auto r = test::run({"--model", "llama-3.1-70b", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m", "--only", "rtx-4090-24gb",
                            "--max-gpus", "1", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto row = r.json()["ranking"][0];
  REQUIRE(row["fits"] == true);
  CHECK(row["plan"]["offload"] == "layers");
  const int n = row["plan"]["gpu_layers"].get<int>();
  CHECK(row["launch_hints"]["server"].get<std::string>().find("-ngl " + std::to_string(n)) != std::string::npos);
  // 5 % of the card (24,564 MiB) free at n layers, less at n + 1: the planner kept as many as the margin allows.
  const double card = 24564.0 * 1048576.0;
  CHECK(at_layers(n)["headroom_bytes"].get<double>() >= 0.05 * card);
  CHECK(at_layers(n + 1)["headroom_bytes"].get<double>() < 0.05 * card);
  // estimate without --gpu-layers keeps the same count (its default margin is the ranking's, 5 %).
  auto args = k_70b_q4;
  args.insert(args.end(), {"--format", "json"});
  const auto est = test::run(args);
  REQUIRE(est.code == 0);
  CHECK(est.json()["memory"]["host_offload"]["gpu_layers"] == n);
  // With two cards allowed, llama.cpp's layer split over both wins: offload is the last resort on one.
  const auto two = test::run({"--model", "llama-3.1-70b", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m", "--only", "rtx-4090-24gb",
                              "--max-gpus", "2", "--format", "json"});
  REQUIRE(two.code == 0);
  CHECK(two.json()["ranking"][0]["plan"]["offload"] == "none");
  CHECK(two.json()["ranking"][0]["gpus"] == 2);
}

TEST_CASE("layer and expert offload: asked of an engine, model or layout they do not apply to, they are refused with the valid values", "[offload][llamacpp][cli]") {
  // Each case: the model, mode, engine and the flags that make it wrong, then what the one error line must say.
  struct Refusal {
    const char* model;
    const char* mode;
    const char* engine;
    std::vector<std::string> flags;
    const char* says;
  };
  const std::vector<Refusal> cases{
      {"llama-3.1-70b", "inference", "vllm", {"--offload", "layers"}, "layers is llama.cpp's partial offload"},
      {"llama-3.1-8b", "lora", "llamacpp", {"--offload", "layers"}, "valid here: none, optimizer, optimizer+params"},
      {"llama-3.1-70b", "inference", "llamacpp", {"--offload", "layers", "--gpus", "2", "--tp", "2"}, "runs with llama.cpp's layer split in one machine"},
      {"llama-3.1-70b", "inference", "llamacpp", {"--gpu-layers", "40"}, "--gpu-layers: applies with --offload layers"},
      {"llama-3.1-70b", "inference", "llamacpp", {"--offload", "layers", "--gpu-layers", "81"}, "valid: 1-80"},
      // Expert offload (--n-cpu-moe) needs routed experts, llama.cpp and its layer split in one machine.
      {"llama-3.1-8b", "inference", "llamacpp", {"--offload", "experts"}, "llama-3.1-8b has no routed experts); valid here: none, layers"},
      {"gpt-oss-120b", "inference", "vllm", {"--offload", "experts"}, "experts is llama.cpp's --n-cpu-moe"},
      {"gpt-oss-120b", "inference", "llamacpp", {"--offload", "experts", "--gpus", "4", "--pp", "2", "--tp", "2"}, "(--gpus N alone, its --split-mode layer"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args{"estimate", "--model", c.model, "--mode", c.mode, "--framework", c.engine, "--gpu", "rtx-4090-24gb"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    INFO(c.says);
    const auto r = test::run(args);
    CHECK(r.code == 2);
    CHECK(r.err.find(c.says) != std::string::npos);
  }
}

TEST_CASE("layer offload: a mixture of experts' CPU layers read only the experts a token routes to, and the whole output layer", "[offload][llamacpp][moe]") {
  // Qwen3-30B-A3B routes each token to 8 of 128 experts: half its layers on the CPU read a sixteenth of their
  // experts' weights each token, not all of them; the output layer (151,936 x 2,048 weights) is read whole.
  const auto r = test::run({"estimate", "--model", "qwen3-30b-a3b", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m", "--gpu",
                            "rtx-4070-ti-super-16gb", "--offload", "layers", "--gpu-layers", "24", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = r.json();
  const double host = j["memory"]["host_offload"]["weights_bytes"].get<double>();
  const double head = 151936.0 * 2048.0 * 4.8944 / 8.0;
  const double tpot = j["time"]["tpot_seconds"].get<double>();
  CHECK(host > 5e9);
  CHECK(tpot < 0.3 * host / 62.72e9);  // reading every expert in host memory would take host / 62.72 GB/s
  CHECK(tpot > head / 62.72e9);
}

TEST_CASE("layer offload: check and fit keep the layers the ranking keeps at the same margin, and as given say the offload exists", "[offload][llamacpp][check]") {
  const std::vector<std::string> job{"--model", "llama-3.1-70b", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m"};
  auto run = [&](std::vector<std::string> head, std::vector<std::string> tail) {
    head.insert(head.end(), job.begin(), job.end());
    head.insert(head.end(), tail.begin(), tail.end());
    return test::run(head);
  };
  // The ranking at a 10 % margin keeps some count of layers; check with --offload layers at the same margin keeps the
  // same and passes (it resolved -ngl at 5 % and failed its own margin before).
  const auto ranked = run({}, {"--only", "rtx-4090-24gb", "--max-gpus", "1", "--min-headroom", "10", "--format", "json"});
  REQUIRE(ranked.code == 0);
  const int n = ranked.json()["ranking"][0]["plan"]["gpu_layers"].get<int>();
  const auto checked = run({"check"}, {"--offload", "layers", "--gpu", "rtx-4090-24gb", "--min-headroom", "10"});
  CHECK(checked.code == 0);
  CHECK(checked.out.find("(-ngl " + std::to_string(n) + ")") != std::string::npos);
  // As given (every layer on the card) it fails, and says what the ranking does instead.
  const auto as_given = run({"check"}, {"--gpu", "rtx-4090-24gb", "--min-headroom", "10"});
  CHECK(as_given.code == 1);
  CHECK(as_given.out.find("--offload layers keeps " + std::to_string(n) + " of 80 on it") != std::string::npos);
  // fit holds -ngl at the workload's own count while the sequence grows: one layer per 2 k tokens would otherwise be
  // traded for the KV cache, and the answer would be the length at one layer on the GPU.
  const auto fitted = run({"fit"}, {"--offload", "layers", "--gpu", "rtx-4090-24gb", "--maximize", "seq-len", "--format", "json"});
  REQUIRE(fitted.code == 0);
  auto est = k_70b_q4;
  est.insert(est.end(), {"--format", "json"});
  const int at5 = test::run(est).json()["memory"]["host_offload"]["gpu_layers"].get<int>();  // the estimate's count at 5 %
  const auto pinned = run({"fit"}, {"--offload", "layers", "--gpu-layers", std::to_string(at5), "--gpu", "rtx-4090-24gb", "--maximize", "seq-len",
                                   "--format", "json"});
  REQUIRE(pinned.code == 0);
  CHECK(fitted.json()["value"] == pinned.json()["value"]);
  CHECK(fitted.json()["value"].get<int>() < 8192);
}
