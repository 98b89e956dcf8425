// llama.cpp's expert offload (--offload experts, its --n-cpu-moe; method.md §8.3): the routed experts of some layers
// in host memory, run by the CPU, the rest of the model on the GPU; numbers worked out by hand from the model's
// shapes and the coefficients they rest on.
#include <catch2/catch.hpp>

#include <cmath>
#include <fmt/format.h>

#include "helpers.hpp"

namespace {
// gpt-oss-120b: 36 layers of 128 routed experts, each three 2,880 x 2,880 matrices (gate, up, down), 4 routed per
// token; its MXFP4 checkpoint stores them in E2M1 with an E8M0 scale per 32 weights, 4.25 bits per weight.
constexpr double k_expert_params = 36.0 * 128.0 * 3.0 * 2880.0 * 2880.0;
constexpr double k_fp4_bytes = 4.25 / 8.0;

nlohmann::json at(int gpu_layers) {
  const auto r = test::run({"estimate", "--model", "gpt-oss-120b", "--mode", "inference", "--framework", "llamacpp", "--gpu", "rtx-4090-24gb", "--offload",
                            "experts", "--gpu-layers", std::to_string(gpu_layers), "--format", "json"});
  REQUIRE(r.code == 0);
  return r.json();
}
}  // namespace

TEST_CASE("expert offload: the host holds the experts of the --n-cpu-moe layers, the GPU the rest and every KV cache", "[offload][llamacpp][moe]") {
  const auto twelve = at(12), twenty_four = at(24);
  // --gpu-layers 12: the experts of 36 - 12 = 24 layers in host memory, 114.66e9 x 24/36 x 4.25/8 = 40.609 GB.
  const auto& host = twelve["memory"]["host_offload"];
  CHECK(host["cpu_moe_layers"] == 24);
  CHECK(host["gpu_layers"] == 12);
  CHECK(host["weights_bytes"].get<double>() == Approx(k_expert_params * 24.0 / 36.0 * k_fp4_bytes).epsilon(1e-9));
  CHECK(host["kv_cache_bytes"] == 0);
  CHECK(twenty_four["memory"]["host_offload"]["weights_bytes"].get<double>() == Approx(k_expert_params * 12.0 / 36.0 * k_fp4_bytes).epsilon(1e-9));
  // What leaves the GPU is what the host holds: the two split the same weights.
  const double gpu12 = twelve["memory"]["components"]["weights"].get<double>(), gpu24 = twenty_four["memory"]["components"]["weights"].get<double>();
  CHECK(gpu24 - gpu12 == Approx(k_expert_params * 12.0 / 36.0 * k_fp4_bytes).epsilon(1e-9));
  // The KV cache stays whole on the GPU: the same at either split.
  CHECK(twelve["memory"]["components"]["kv_cache"] == twenty_four["memory"]["components"]["kv_cache"]);
  // llama.cpp's command: every layer on the GPU but the experts of the first 24.
  const auto r = test::run({"estimate", "--model", "gpt-oss-120b", "--mode", "inference", "--framework", "llamacpp", "--gpu", "rtx-4090-24gb", "--offload",
                            "experts", "--gpu-layers", "12"});
  CHECK(r.out.find("--n-cpu-moe 24") != std::string::npos);
  CHECK(twelve["time"]["bound"] == "the CPU's experts in host memory");
}

TEST_CASE("expert offload: a token reads the experts it routes to, on the CPU at the host's rate and on the GPU at its own", "[offload][llamacpp][moe]") {
  // At batch 1 a token reads 4 of each layer's 128 experts: 1/32 of the experts wherever they sit. Moving 12 layers'
  // experts (20.305 GB) from the GPU to the host moves 20.305e9 / 32 = 0.63452 GB of each token's reads from the
  // RTX 4090's 1,008 GB/s at llama.cpp's 0.8 (806.4 GB/s) to the host's 0.7 x 89.6 GB/s (62.72 GB/s): the time per
  // token grows by 0.63452e9 x (1/62.72e9 - 1/806.4e9) = 9.330 ms; nothing else in the step depends on where they sit.
  const double moved = k_expert_params * 12.0 / 36.0 * k_fp4_bytes / 32.0;
  const double delta = at(12)["time"]["tpot_seconds"].get<double>() - at(24)["time"]["tpot_seconds"].get<double>();
  CHECK(moved / 62.72e9 == Approx(10.117e-3).epsilon(1e-3));
  CHECK(delta == Approx(moved * (1.0 / 62.72e9 - 1.0 / 806.4e9)).epsilon(1e-6));
  CHECK(delta == Approx(9.330e-3).epsilon(1e-3));
}

TEST_CASE("expert offload: on one card the planner weighs it against layer offload and keeps the most expert layers the margin allows",
          "[offload][llamacpp][moe]") {
  const auto r = test::run({"--model", "gpt-oss-120b", "--mode", "inference", "--framework", "llamacpp", "--only", "rtx-4090-24gb", "--max-gpus", "1",
                            "--format", "json"});
  REQUIRE(r.code == 0);
  const auto row = r.json()["ranking"][0];
  REQUIRE(row["fits"] == true);
  // Layer offload keeps about a third of the layers and reads the rest's attention, experts and output layer in
  // host memory; expert offload keeps every layer's attention on the GPU and reads a token's 4 experts there: faster.
  CHECK(row["plan"]["offload"] == "experts");
  const int n = row["plan"]["gpu_layers"].get<int>();
  CHECK(row["launch_hints"]["server"].get<std::string>().find("-ngl 999 --n-cpu-moe " + std::to_string(36 - n)) != std::string::npos);
  const double card = 24564.0 * 1048576.0;
  CHECK(at(n)["headroom_bytes"].get<double>() >= 0.05 * card);
  CHECK(at(n + 1)["headroom_bytes"].get<double>() < 0.05 * card);
  const auto layers = test::run({"estimate", "--model", "gpt-oss-120b", "--mode", "inference", "--framework", "llamacpp", "--gpu", "rtx-4090-24gb", "--offload",
                                 "layers", "--format", "json"});
  REQUIRE(layers.code == 0);
  CHECK(layers.json()["time"]["tpot_seconds"].get<double>() > 2.0 * at(n)["time"]["tpot_seconds"].get<double>());
  // check as given says both last resorts, with the counts the ranking keeps.
  const auto as_given = test::run({"check", "--model", "gpt-oss-120b", "--mode", "inference", "--framework", "llamacpp", "--gpu", "rtx-4090-24gb"});
  CHECK(as_given.code == 1);
  CHECK(as_given.out.find("(--n-cpu-moe " + std::to_string(36 - n) + ")") != std::string::npos);
}

TEST_CASE("llama.cpp serves an MXFP4 checkpoint as it is, on any CUDA card", "[llamacpp][precision]") {
  // ggml-org's gpt-oss GGUFs keep the MXFP4 experts: without --precision llama.cpp serves fp4 (13.7 GB for the 20B
  // model, its experts at 4.25 bits, not bf16's 42 GB), weight-only on a card without FP4 tensor cores.
  const auto r = test::run({"estimate", "--model", "gpt-oss-20b", "--mode", "inference", "--framework", "llamacpp", "--gpu", "rtx-3090-24gb", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = r.json();
  CHECK(j["fits"] == true);
  CHECK(j["time"]["compute_precision"] == "bf16");
  CHECK(j["memory"]["components"]["weights"].get<double>() < 14e9);
  CHECK(j["time"]["decode_tokens_per_second"].get<double>() > 0);
}

TEST_CASE("expert offload: more in host memory than a desktop board holds is read at a server socket's rate", "[offload][llamacpp][moe]") {
  // DeepSeek-V3 Q4_K_M beside an RTX 4090 keeps 393 GB of experts in host memory, more than a desktop's four DIMM
  // slots hold (256 GB): the host is a server socket, read at 0.7 x 307.2 GB/s = 215 GB/s, not a desktop's 62.72.
  // gpt-oss-120b's 43 GB stay on a desktop.
  const auto big = test::run({"estimate", "--model", "deepseek-v3", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m", "--gpu",
                              "rtx-4090-24gb", "--offload", "experts"});
  REQUIRE(big.code == 0);
  CHECK(big.out.find("at 215 GB/s (a server socket's: 393 GB in host memory is more than a desktop board holds)") != std::string::npos);
  const auto small = test::run({"estimate", "--model", "gpt-oss-120b", "--mode", "inference", "--framework", "llamacpp", "--gpu", "rtx-4090-24gb", "--offload",
                                "experts"});
  REQUIRE(small.code == 0);
  CHECK(small.out.find("at 63 GB/s, against") != std::string::npos);
}

TEST_CASE("expert offload: sweep holds the count the workload as given keeps, as fit does, so a longer sequence needs more memory", "[offload][llamacpp][sweep]") {
  const std::vector<std::string> job{"--model", "qwen3-30b-a3b", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m", "--offload", "experts",
                                     "--gpu", "rtx-4070-ti-super-16gb"};
  std::vector<std::string> est{"estimate"};
  est.insert(est.end(), job.begin(), job.end());
  est.insert(est.end(), {"--format", "json"});
  const auto e = test::run(est);
  REQUIRE(e.code == 0);
  const int n = e.json()["memory"]["host_offload"]["gpu_layers"].get<int>();
  std::vector<std::string> sweep{"sweep"};
  sweep.insert(sweep.end(), job.begin(), job.end());
  sweep.insert(sweep.end(), {"--vary", "seq-len", "--from", "1024", "--to", "32768"});
  const auto s = test::run(sweep);
  REQUIRE(s.code == 0);
  CHECK(s.out.find("llama.cpp keeps " + std::to_string(n) + " layers' experts on the GPU at every point (--gpu-layers " + std::to_string(n) + ")") !=
        std::string::npos);
  // Re-settled at each point, every length would fit by moving experts to the CPU; held, 32,768 tokens do not.
  CHECK(s.out.find("fits the whole range") == std::string::npos);
  CHECK(s.out.find("fits up to --seq-len") != std::string::npos);
}

TEST_CASE("an MXFP4 checkpoint holds its routed experts at 4.25 bits and the rest in bf16", "[memory][moe][precision]") {
  // gpt-oss's quantization_config leaves attention, router, embeddings and output layer unconverted: 114.66 B expert
  // weights x 4.25/8 + the other 2.13 B parameters x 2 B = 60.913 + 4.255 = 65.17 GB, whichever engine serves it (at
  // 4.5 bits everywhere it was 67.4 GB; the 20B model, 12.3 GB against its 13.7).
  // llama.cpp keeps the token embedding (201,088 x 2,880 in bf16, 1.158 GB) in host memory.
  const double embedding = 201088.0 * 2880.0 * 2.0;
  for (const char* engine : {"vllm", "llamacpp"}) {
    INFO(engine);
    const auto j = test::run_json({"estimate", "--model", "gpt-oss-120b", "--mode", "inference", "--framework", engine, "--gpu", "h100-sxm-80gb"});
    const double params = j["model"]["params"].get<double>();
    const double on_gpu = k_expert_params * 4.25 / 8.0 + (params - k_expert_params) * 2.0 - (std::string(engine) == "llamacpp" ? embedding : 0.0);
    CHECK(j["memory"]["components"]["weights"].get<double>() == Approx(on_gpu).epsilon(1e-6));
  }
}

TEST_CASE("expert offload: a prompt under 32 tokens runs the host's experts on the CPU instead of copying them over PCIe", "[offload][llamacpp][moe]") {
  // llama.cpp copies host-resident weights to the GPU only for a batch of 32 tokens or more. 16 prompt tokens touch
  // 1 - (1 - 4/128)^16 = 0.39828 of each layer's experts: 40.609 GB x 0.39828 = 16.174 GB read by the CPU at 62.72
  // GB/s, 0.2579 s, and the GPU's own reads (its 12 layers' touched experts and the bf16 rest, about 12 GB at 806
  // GB/s) add about 15 ms. At 40 tokens the 40.609 GB cross PCIe 4.0 once (25.6 GB/s): 1.586 s.
  auto ttft = [](int prompt) {
    const auto r = test::run({"estimate", "--model", "gpt-oss-120b", "--mode", "inference", "--framework", "llamacpp", "--gpu", "rtx-4090-24gb", "--offload",
                              "experts", "--gpu-layers", "12", "--input-tokens", std::to_string(prompt), "--output-tokens", "100", "--format", "json"});
    REQUIRE(r.code == 0);
    return r.json()["time"]["ttft_seconds"].get<double>();
  };
  const double cpu = k_expert_params * 24.0 / 36.0 * k_fp4_bytes * (1.0 - std::pow(1.0 - 4.0 / 128.0, 16.0)) / 62.72e9;
  CHECK(cpu == Approx(0.2579).epsilon(1e-3));
  const double short_prompt = ttft(16), long_prompt = ttft(40);
  CHECK(short_prompt > cpu);
  CHECK(short_prompt < cpu + 0.03);
  CHECK(long_prompt > k_expert_params * 24.0 / 36.0 * k_fp4_bytes / 25.6e9);
  CHECK(long_prompt < k_expert_params * 24.0 / 36.0 * k_fp4_bytes / 25.6e9 + 0.05);
}

TEST_CASE("expert offload: where more cards fit too, the order asked chooses between one card and the CPU and the cards alone", "[offload][llamacpp][moe][plan-choice]") {
  // gpt-oss-120b on RTX 3090s: four cards in a pipeline run it at about 75 tokens/s for 4 x $0.22 an hour; one card
  // with 24 layers' experts on the CPU at about 37 for $0.22, the less per token. Value takes the one card, time the
  // four; both are on the row's frontier, and the reason does not claim nothing else fits.
  const std::vector<std::string> job{"--model", "gpt-oss-120b", "--mode", "inference", "--framework", "llamacpp", "--only", "rtx-3090-24gb", "--format", "json"};
  const auto value = test::run(job);
  REQUIRE(value.code == 0);
  const auto row = value.json()["ranking"][0];
  CHECK(row["gpus"] == 1);
  CHECK(row["plan"]["offload"] == "experts");
  CHECK(row["why"].get<std::string>().find("nothing else fits") == std::string::npos);
  // The frontier carries each point's rate: the four cards' is the higher, and the header's fastest names it, though
  // the row shows the best value.
  double one_rate = 0, cards_rate = 0;
  for (const auto& f : row["frontier"]) (f["gpus"].get<int>() > 1 ? cards_rate : one_rate) = f["rate"].get<double>();
  CHECK(one_rate == Approx(row["time"]["decode_tokens_per_second"].get<double>()));
  CHECK(cards_rate > 1.5 * one_rate);
  auto text = job;
  text.resize(text.size() - 2);  // without --format json
  const auto header = test::run(text);
  CHECK(header.out.find(fmt::format("{:.0f} output tokens/s (1 sequence at once) on 4 GPUs: pipeline parallel 4 (its row shows the best value", cards_rate)) !=
        std::string::npos);
  auto by_time = job;
  by_time.insert(by_time.end(), {"--rank-by", "time"});
  const auto fast = test::run(by_time);
  REQUIRE(fast.code == 0);
  const auto fast_row = fast.json()["ranking"][0];
  CHECK(fast_row["gpus"].get<int>() > 1);
  CHECK(fast_row["plan"]["offload"] == "none");
  CHECK(fast_row["time"]["decode_tokens_per_second"].get<double>() > row["time"]["decode_tokens_per_second"].get<double>());
  CHECK(fast_row["value"]["usd"].get<double>() > row["value"]["usd"].get<double>());
}
