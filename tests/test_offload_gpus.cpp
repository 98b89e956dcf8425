// llama.cpp's offloads over several GPUs (method.md §8.3): its layer split (--split-mode layer) with some layers, or
// some layers' routed experts, in host memory; numbers worked out by hand from the model's shapes.
#include <catch2/catch.hpp>

#include <numeric>
#include <string>

#include "helpers.hpp"
#include "layer_offload.hpp"

namespace {
// gpt-oss-120b: 36 layers of 128 routed experts, each three 2,880 x 2,880 matrices, stored in MXFP4 (4.25 bits); its
// output layer (201,088 x 2,880) in bf16.
constexpr double k_expert_params = 36.0 * 128.0 * 3.0 * 2880.0 * 2880.0;
constexpr double k_head_bytes = 201088.0 * 2880.0 * 2.0;

nlohmann::json at(int gpus, int gpu_layers) {
  const auto r = test::run({"estimate", "--model", "gpt-oss-120b", "--mode", "inference", "--framework", "llamacpp", "--gpu", "rtx-3090-24gb", "--gpus",
                            std::to_string(gpus), "--offload", "experts", "--gpu-layers", std::to_string(gpu_layers), "--format", "json"});
  REQUIRE(r.code == 0);
  return r.json();
}
}  // namespace

TEST_CASE("expert offload over two GPUs: the host holds the same experts as beside one, each GPU half of the rest", "[offload][llamacpp][moe]") {
  const auto one = at(1, 12), two = at(2, 12);
  // --gpu-layers 12: the experts of 24 layers in host memory whatever the GPUs, 114.66e9 x 24/36 x 4.25/8 = 40.609 GB.
  for (const auto* j : {&one, &two})
    CHECK((*j)["memory"]["host_offload"]["weights_bytes"].get<double>() == Approx(k_expert_params * 24.0 / 36.0 * 4.25 / 8.0).epsilon(1e-9));
  // The rest splits over the two stages; the last also holds the output layer: 2 x w2 - w1 = the output layer.
  const double w1 = one["memory"]["components"]["weights"].get<double>(), w2 = two["memory"]["components"]["weights"].get<double>();
  CHECK(2.0 * w2 - w1 == Approx(k_head_bytes).epsilon(1e-9));
  // Each GPU holds half the KV cache (its layers').
  CHECK(two["memory"]["components"]["kv_cache"].get<double>() * 2.0 == Approx(one["memory"]["components"]["kv_cache"].get<double>()));
}

TEST_CASE("expert offload over two GPUs: the CPU's share of a token is paid once, not once per stage", "[offload][llamacpp][moe]") {
  // The layer split runs the stages one after another, each reading its own weights (the output layer on the last
  // one only), and the CPU's experts once: at the same --n-cpu-moe a token costs what it costs beside one card plus one
  // stage boundary (20 us), not the CPU's 20 ms again, nor the output layer's 1.158 GB on both stages (1.547 ms at
  // 0.8 x 936 GB/s).
  const double one = at(1, 12)["time"]["tpot_seconds"].get<double>(), two = at(2, 12)["time"]["tpot_seconds"].get<double>();
  CHECK(two - one == Approx(20e-6).epsilon(0.01));
  CHECK(two - one < k_head_bytes / (0.8 * 936e9) / 10.0);
}

TEST_CASE("expert offload over several GPUs: the planner weighs 1, 2 and 4 cards, and the hint balances the split by bytes", "[offload][llamacpp][moe]") {
  // Qwen3-235B-A22B at Q4_K_M (about 142 GB) on RTX 3090s: no count of four cards holds it, so each count keeps some
  // layers' experts on the CPU; four cards keep the most on the GPUs and finish first, one card costs the least.
  const std::vector<std::string> base{"--model", "qwen3-235b-a22b", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m",
                                      "--only", "rtx-3090-24gb", "--max-gpus", "4", "--format", "json"};
  auto row = [&](const char* order) {
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--rank-by", order});
    const auto r = test::run(args);
    REQUIRE(r.code == 0);
    return r.json()["ranking"][0];
  };
  const auto fastest = row("time"), cheapest = row("value");
  CHECK(fastest["gpus"] == 4);
  CHECK(fastest["plan"]["offload"] == "experts");
  CHECK(cheapest["gpus"] == 1);
  CHECK(cheapest["plan"]["offload"] == "experts");
  // Four cards keep more experts than one: fewer layers' experts on the CPU.
  const int k4 = fastest["memory"]["host_offload"]["cpu_moe_layers"].get<int>(), k1 = cheapest["memory"]["host_offload"]["cpu_moe_layers"].get<int>();
  CHECK(k4 < k1);
  // The hint: every layer on the GPUs but the first k4 layers' experts, split so each card holds about the same bytes:
  // the first card takes the k4 light layers and some full ones; the four counts add up to the 94 layers.
  const std::string server = fastest["launch_hints"]["server"].get<std::string>();
  CHECK(server.find("-ngl 999 --n-cpu-moe " + std::to_string(k4) + " --split-mode layer --tensor-split ") != std::string::npos);
  const std::string split = server.substr(server.find("--tensor-split ") + 15);
  int total = 0, parts = 0, first = 0;
  for (std::size_t at = 0; at < split.size(); ++parts) {
    const std::size_t comma = split.find(',', at);
    const int n = std::stoi(split.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (parts == 0) first = n;
    total += n;
    at = comma == std::string::npos ? split.size() : comma + 1;
  }
  CHECK(parts == 4);
  CHECK(total == 94);
  CHECK(first > k4);
  // JSON carries the same split.
  const auto& split_json = fastest["memory"]["host_offload"]["layers_per_gpu"];
  REQUIRE(split_json.size() == 4);
  CHECK(split_json[0].get<int>() == first);
}

TEST_CASE("expert offload: the layer split balanced by bytes, worked by hand", "[offload][llamacpp]") {
  // Ten layers, the first four 1 byte each (their experts on the host), the rest 10: 64 bytes, 32 a GPU. The first GPU
  // takes layers while the next would carry it past 32 by more than half of it: 4 + 10 + 10 + 10 = 34 (the fourth full
  // layer's half brings it to 29, under 32); the fifth would be 44: the second takes the last three, 30.
  CHECK(gpuadvise::balanced_layer_split(1.0, 9.0, 10, 4, 2) == std::vector<std::int64_t>{7, 3});
  // Without experts on the host the layers split evenly.
  CHECK(gpuadvise::balanced_layer_split(1.0, 9.0, 12, 0, 4) == std::vector<std::int64_t>{3, 3, 3, 3});
}

TEST_CASE("expert offload: check plans llama.cpp's count at the ranking's margin, whether it names the offload or plans it", "[offload][llamacpp][check]") {
  // The ranking keeps --n-cpu-moe at 5 % free; check asserts no margin of its own unless asked, but the count it plans
  // is the same one: named (--offload experts), planned on one card (--max-gpus 2: one card and the CPU is the best
  // value) or on the four cards given.
  const std::vector<std::string> model{"--model", "qwen3-235b-a22b", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m"};
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin() + 1, model.begin(), model.end());
    const auto r = test::run(args);
    REQUIRE(r.code == 0);
    return r.out;
  };
  auto ranked = [&](const char* gpus_flag, const char* n) {
    const auto r = test::run({"--model", "qwen3-235b-a22b", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m", "--only",
                              "rtx-3090-24gb", gpus_flag, n, "--format", "json"});
    REQUIRE(r.code == 0);
    return r.json()["ranking"][0]["memory"]["host_offload"]["cpu_moe_layers"].get<int>();
  };
  const std::string one = "(--n-cpu-moe " + std::to_string(ranked("--max-gpus", "2")) + ")";
  CHECK(run({"check", "--gpu", "rtx-3090-24gb", "--offload", "experts"}).find(one) != std::string::npos);
  CHECK(run({"check", "--gpu", "rtx-3090-24gb", "--max-gpus", "2"}).find(one) != std::string::npos);
  const std::string four = "(--n-cpu-moe " + std::to_string(ranked("--gpus", "4")) + ")";
  CHECK(run({"check", "--gpu", "rtx-3090-24gb", "--gpus", "4"}).find(four) != std::string::npos);
  // The layer split as given (--pp 4), every layer on the four cards, does not fit: check fails and names the same count.
  std::vector<std::string> as_given{"check", "--model", "qwen3-235b-a22b", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m",
                                    "--gpu", "rtx-3090-24gb", "--gpus", "4", "--pp", "4"};
  const auto r = test::run(as_given);
  CHECK(r.code == 1);
  CHECK(r.out.find("every layer on the 4 GPUs") != std::string::npos);
  CHECK(r.out.find(four) != std::string::npos);
  // sweep over the count plans each count as the ranking does: the same --n-cpu-moe at one and at four cards.
  const auto sw = test::run({"sweep", "--model", "qwen3-235b-a22b", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m", "--gpu",
                             "rtx-3090-24gb", "--vary", "gpus", "--from", "1", "--to", "4"});
  REQUIRE(sw.code == 0);
  CHECK(sw.out.find("device peak") != std::string::npos);
  const auto swj = test::run({"sweep", "--model", "qwen3-235b-a22b", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m", "--gpu",
                              "rtx-3090-24gb", "--vary", "gpus", "--from", "1", "--to", "4", "--format", "json"});
  REQUIRE(swj.code == 0);
  const auto points = swj.json()["points"];
  REQUIRE(points.size() == 3);
  std::string layouts;
  for (const auto& point : points) layouts += point["gpus"][0]["layout"].get<std::string>() + "\n";
  CHECK(layouts.find(one) != std::string::npos);
  CHECK(layouts.find(four) != std::string::npos);
  // estimate says the same where the cards given do not hold the model.
  as_given[0] = "estimate";
  const auto e = test::run(as_given);
  CHECK(e.code == 0);
  CHECK(e.out.find("does not fit") != std::string::npos);
  CHECK(e.out.find(four) != std::string::npos);
}
