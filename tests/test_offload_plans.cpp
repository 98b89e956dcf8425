// CPU offload as the planner's last resort (src/core/planner.cpp, method.md §9 step 4): offload is tried on every
// layout of one node that keeps one copy of the offloaded states on the host, and the order asked chooses.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "helpers.hpp"

using namespace gpuadvise;

namespace {
nlohmann::json pick(std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "json"});
  const auto r = test::run(args);
  REQUIRE(r.code == 0);
  return r.json()["ranking"][0];
}
}  // namespace

TEST_CASE("offload plans: Megatron pre-training that a node cannot hold splits the model eight ways and offloads the optimizer", "[plan-choice][offload]") {
  // Llama 3.1 70B under Megatron on at most 8 H100s: 16 B per parameter of bf16 weights, fp32 main gradients and
  // fp32 master weights with Adam's two moments (method.md §3.1) is 70.55e9 x 16 = 1,129 GB, more than 8 x 80 GB,
  // so nothing fits without offload. Megatron shards no weights by data parallel (no ZeRO-3): tensor or pipeline
  // parallel 8 with the optimizer states on the host holds, per GPU, the 16-bit weights and fp32 main gradients of an
  // eighth (the pipeline's first stage with the embedding, its last with the output layer: the same size here).
  const ModelSpec m = test::model("llama-3.1-70b");
  const double params = count_params(m).total;
  const auto r = pick({"--model", "llama-3.1-70b", "--mode", "train", "--precision", "bf16", "--framework", "megatron", "--tokens", "1T", "--seq-len",
                       "8192", "--only", "h100-sxm-80gb", "--max-gpus", "8", "--rank-by", "time"});
  REQUIRE(r["fits"] == true);
  const auto& plan = r["plan"];
  CHECK(plan["gpus"] == 8);
  CHECK(plan["tp"].get<int>() * plan["pp"].get<int>() == 8);
  CHECK(plan["offload"] == "optimizer");  // the parameters stay on the GPUs: their offload is the later resort
  const auto& parts = r["memory"]["components"];
  CHECK(parts["weights"].get<double>() == Approx(params * 2.0 / 8.0).epsilon(1e-6));
  CHECK(parts["gradients"].get<double>() == Approx(params * 4.0 / 8.0).epsilon(1e-6));
  CHECK(parts["optimizer_states"].get<double>() == 0.0);
  // The host holds one copy of the states: (16 B per trainable parameter) x 1.5 ([DS-MEM]), 1,693 GB of a 2 TB node.
  CHECK(r["system"]["host_ram_bytes"].get<double>() == Approx(params * 16.0 * 1.5).epsilon(1e-6));
}

TEST_CASE("offload plans: the offload over more cards of a box is kept when it is faster and cheaper", "[plan-choice][offload]") {
  // A 7B full fine-tune (1B tokens, the fine-tuning batch of 128 sequences) on RTX 5090s, four to a box: 7e9 x 16 B
  // = 112 GB over four cards leaves too little room without offload. With the optimizer on the host, ZeRO-2 over
  // four cards keeps the 16-bit weights whole (14 GB) and a quarter of the 16-bit gradients (3.5 GB) on each, each
  // card updating a quarter of the states on the CPU once per 32 sequences (its states cross PCIe 5.0 to host memory
  // at 51.2 GB/s, with or without peer-to-peer between the cards). Holding a quarter of the gradients, each card
  // reduce-scatters every micro-batch's 14 GB of them (3/4 of it leaves the card) beside that micro-batch's backward, not
  // once per step as whole gradients would allow (DeepSpeed's stage 2 reduces at every micro-step): 26.9 h and $74.26
  // (24.3 h and $67.04 when it reduced once per step).
  const auto r = pick({"--model", "7B", "--mode", "finetune", "--tokens", "1B", "--only", "rtx-5090-32gb"});
  REQUIRE(r["fits"] == true);
  const auto& plan = r["plan"];
  CHECK(plan["gpus"] == 4);
  CHECK(plan["sharding"] == "zero2");
  CHECK(plan["offload"] == "optimizer");
  CHECK(plan["grad_accum"] == 32);  // 128 sequences / 4 ranks
  const auto& parts = r["memory"]["components"];
  CHECK(parts["weights"].get<double>() == Approx(7e9 * 2.0));
  CHECK(parts["gradients"].get<double>() == Approx(7e9 * 2.0 / 4.0));
  CHECK(r["system"]["host_ram_bytes"].get<double>() == Approx(7e9 * 16.0 * 1.5));
  CHECK(r["cost"]["hours"]["wall"].get<double>() == Approx(26.9).epsilon(0.005));
  CHECK(r["cost"]["job_usd"].get<double>() == Approx(74.26).epsilon(0.001));
  // Plain data parallel would keep a copy of the states per card on the host: never a plan here.
  for (const auto& f : r["frontier"]) CHECK(f["layout"].get<std::string>().find("data parallel") == std::string::npos);
}

TEST_CASE("offload plans: parameters in host memory cross PCIe every micro-batch", "[plan-choice][offload][time]") {
  // An 8B model (8.00e9 parameters) trained on one H100 with full recomputation and 1,000 accumulation steps: with the
  // optimizer alone on the host the weights stay on the GPU; with the parameters there too (ZeRO-Infinity,
  // arXiv:2104.07857 §4) each micro-batch loads the 16-bit weights for the forward, the backward and the recomputed
  // forward and writes the 16-bit gradients back: (3 x 2 + 2) B x 8e9 = 64 GB over PCIe 5.0 at 64 GB/s x 0.8 = 1.25 s.
  // Prefetched beside the compute t_c, it adds 0.189 t_c + (1.25 - t_c - 0.189 t_c) = 1.25 - t_c where it outlasts it
  // (method.md §8.4's overlap rule), everything else alike.
  auto run = [](const char* offload) {
    return test::run_json({"estimate", "--model", "8B", "--mode", "train", "--gpu", "h100-sxm-80gb", "--offload", offload, "--gradient-checkpointing",
                           "full", "--grad-accum", "1000", "--format", "json"});
  };
  const auto opt = run("optimizer"), params = run("optimizer+params");
  const double tokens = 2048.0;  // batch 1 x the default 2,048-token sequence
  const double t_c = tokens * opt["time"]["train_flops_per_token"].get<double>() / (989.4e12 * opt["time"]["utilization"].get<double>());
  REQUIRE(t_c < 1.25);
  const double step_opt = tokens / opt["time"]["train_tokens_per_second_per_gpu"].get<double>();
  const double step_params = tokens / params["time"]["train_tokens_per_second_per_gpu"].get<double>();
  CHECK(step_params - step_opt == Approx(1.25 - t_c).epsilon(1e-6));
  // What a larger micro-batch amortises: the planner grows it for such a plan (one H100, nothing else allowed).
  const auto r = pick({"--model", "8B", "--mode", "train", "--tokens", "100B", "--only", "h100-sxm-80gb", "--max-gpus", "1"});
  REQUIRE(r["plan"]["offload"] == "optimizer+params");
  CHECK(r["plan"]["micro_batch"].get<double>() > 1.0);
}

TEST_CASE("offload plans: the offload note names the link the weights cross, PCIe or GH200's NVLink-C2C", "[offload][time]") {
  // The host link is the GPU's own (perf_common.hpp host_to_device_bytes_per_s): an H100 SXM reaches its CPU over
  // PCIe 5.0, a GH200 over NVLink-C2C (900 GB/s, gpus.json), and the note says which one the time was worked on.
  auto note_for = [](const char* gpu) {
    const auto r = test::run_json({"estimate", "--model", "8B", "--mode", "train", "--gpu", gpu, "--offload", "optimizer+params"});
    std::string found;
    for (const auto& n : r["notes"])
      if (n.get<std::string>().rfind("CPU offload: the weights cross", 0) == 0) found = n.get<std::string>();
    return found;
  };
  CHECK(note_for("h100-sxm-80gb").find("cross PCIe 5.0 every micro-batch") != std::string::npos);
  CHECK(note_for("gh200-96gb").find("cross NVLink-C2C every micro-batch") != std::string::npos);
}
