// Context parallelism (--cp; method.md §4, §8.4, §9): each training sequence split over cp GPUs, ring attention
// passing the keys and values round; its memory, links, bad input and the planner's use of it.
#include <catch2/catch.hpp>

#include "gpuadvise/memory.hpp"
#include "gpuadvise/perf.hpp"
#include <fmt/format.h>
#include "helpers.hpp"

using namespace gpuadvise;

TEST_CASE("context parallel: each GPU keeps s/cp of every sequence, so activations and logits halve at cp 2", "[context-parallel][memory]") {
  // Llama 3.1 8B at 16,384 tokens on 8 GPUs, TP 4: every activation and the logits scale with the b·s/cp tokens a GPU
  // holds (method.md §4), the weights and optimizer states with the tp·pp split alone (ZeRO-1 over dp x cp = 2
  // replicas either way).
  auto mem = [](const char* cp) {
    const auto w = test::wl({{"model", "llama-3.1-8b"}, {"mode", "train"}, {"seq_len", "16384"}, {"gpus", "8"}, {"tp", "4"}, {"cp", cp},
                             {"sharding", "zero1"}, {"framework", "megatron"}});
    return estimate_memory(w, test::model("llama-3.1-8b"), nullptr);
  };
  const auto one = mem("1"), two = mem("2");
  CHECK(two.activations == Approx(one.activations / 2.0));
  CHECK(two.logits == Approx(one.logits / 2.0));
  CHECK(two.weights == Approx(one.weights));
  CHECK(two.optimizer_states == Approx(one.optimizer_states));
}

TEST_CASE("context parallel: the ring of cp GPUs sits tp apart, inside a node while tp x cp fits one", "[context-parallel][links]") {
  // HGX H100: TP 4 x CP 2 = 8 GPUs, one node: NVLink. TP 8 x CP 2 spans two nodes: each GPU's own NIC (400 Gb/s at
  // the network efficiency).
  const GpuSpec& g = *test::gpus().find("h100-sxm-80gb");
  Workload w;
  w.mode = Mode::train;
  w.gpus = 16;
  w.nodes = 2;
  w.tp = 4;
  w.cp = 2;
  const LinkPlan inside = plan_links(g, w);
  CHECK(inside.cp_link == Link::fast);
  w.tp = 8;
  const LinkPlan across = plan_links(g, w);
  CHECK(across.cp_link == Link::network);
  CHECK(across.cp_bytes_per_s == Approx(inter_node_bytes_per_s(g)));
  CHECK(inter_node_bytes_per_s(g) < inside.cp_bytes_per_s);
}

TEST_CASE("context parallel: --cp is bad input for inference and where it does not split the sequence", "[context-parallel][cli]") {
  const auto serving = test::run({"estimate", "--model", "7B", "--mode", "inference", "--cp", "2"});
  CHECK(serving.code == 2);
  CHECK(serving.err.find("--cp: context parallelism splits training sequences") != std::string::npos);
  const auto odd = test::run({"estimate", "--model", "7B", "--mode", "train", "--gpus", "6", "--cp", "3", "--seq-len", "4096"});
  CHECK(odd.code == 2);
  CHECK(odd.err.find("--cp: 3 does not split --seq-len 4096 into 6 equal chunks") != std::string::npos);
  const auto count = test::run({"estimate", "--model", "7B", "--mode", "train", "--gpus", "6", "--tp", "2", "--cp", "2", "--seq-len", "4096"});
  CHECK(count.code == 2);
  CHECK(count.err.find("--gpus must be a multiple of --tp x --pp x --cp") != std::string::npos);
}

TEST_CASE("context parallel: the own pick for Llama 3.1 405B FP8 on 1,024 H100s uses CP 2 and comes within 20 % of Megatron-Bridge", "[context-parallel][scale]") {
  // Megatron-Bridge 25.11, DGX-H100: Llama 3.1 405B FP8-CS on 1,024 GPUs, GBS 512, sequence 8,192, TP 8, PP 8, CP 2,
  // VP 8: 292 tokens/s per GPU (docs/performance-summary-archive.md). The planner, given the model, the GPU, the
  // framework, the batch and 1,024 GPUs at most, picks its own layout.
  const auto r = test::run({"--model", "llama-3.1-405b", "--mode", "train", "--precision", "fp8", "--framework", "megatron", "--only", "h100-sxm-80gb",
                            "--seq-len", "8192", "--global-batch", "512", "--tokens", "15T", "--max-gpus", "1024", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto doc = r.json();
  const auto& row = doc["ranking"][0];
  CHECK(row["plan"]["cp"] == 2);
  CHECK(row["plan"]["tp"] == 8);
  CHECK(row["layout"].get<std::string>().find("context parallel 2") != std::string::npos);
  // The ZeRO shards span data x context parallel; the text names both, so its numbers multiply to the GPUs:
  // 8 x 32 x 2 x 2 = 1,024.
  const auto dp = 1024 / (8 * row["plan"]["pp"].get<int>() * 2);
  CHECK(row["layout"].get<std::string>().find(fmt::format("ZeRO-1 over {} ({} data parallel x 2 context parallel)", 2 * dp, dp)) != std::string::npos);
  CHECK(row["time"]["train_tokens_per_second_per_gpu"].get<double>() == Approx(292).epsilon(0.2));
}
