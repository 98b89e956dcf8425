// Megatron-Core's CPU offload of activations (--offload activations; method.md §4.5): the memory kept and moved,
// the transfer beside the compute, what Megatron refuses, the launch line, and the planner's use of it.
#include <catch2/catch.hpp>

#include "helpers.hpp"

namespace {
std::vector<std::string> llama70b_fsdp(const char* gpu) {
  // Megatron-Bridge's Llama 3 70B FP8 pre-training layout: Megatron-FSDP over 64 GPUs, micro-batch 2 of 8,192 tokens.
  return {"estimate", "--model", "llama-3-70b", "--mode", "train", "--framework", "megatron", "--precision", "fp8", "--seq-len", "8192", "--gpu",
          gpu, "--gpus", "64", "--batch", "2", "--global-batch", "256", "--sharding", "zero3", "--grad-dtype", "bf16", "--format", "json"};
}
std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}
std::vector<std::string> llama8b_fsdp8(const char* gpu) {
  return {"estimate", "--model", "llama-3-8b", "--mode", "train", "--framework", "megatron", "--precision", "bf16", "--seq-len", "8192", "--gpu",
          gpu, "--gpus", "8", "--sharding", "zero3", "--batch", "2", "--format", "json"};
}
const nlohmann::json* note_with(const nlohmann::json& notes, const std::string& text) {
  for (const auto& n : notes)
    if (n.get<std::string>().find(text) != std::string::npos) return &n;
  return nullptr;
}
}  // namespace

TEST_CASE("activation offload: the GPU keeps the last K layers' activations, the host the other L - K", "[offload][memory]") {
  // Llama 3 70B (80 layers, hidden 8,192), micro-batch 2 x 8,192 = 16,384 tokens. Without the offload the activations
  // are 80 layers' worth plus the edges (the embedding output and the final norm's input, 2 x 16,384 x 8,192 x 2 B =
  // 536,870,912 B); keeping 60 layers, the GPU holds 60 of the 80 and the host the other 20 (Megatron's
  // --cpu-offloading-num-layers 20, the GB300 recipe's).
  const auto none = test::run_json(llama70b_fsdp("gb300-nvl72-279gb"));
  const auto off = test::run_json(with(llama70b_fsdp("gb300-nvl72-279gb"), {"--offload", "activations", "--gpu-layers", "60"}));
  const double edges = 2.0 * 16384 * 8192 * 2;
  CHECK(edges == 536870912.0);
  const double layer = (none["memory"]["components"]["activations"].get<double>() - edges) / 80.0;
  CHECK(layer / 16384 / 8192 == Approx(27.0).epsilon(0.01));  // about 27 B per token and hidden unit, FP8 linears' inputs in 1 B
  CHECK(off["memory"]["components"]["activations"].get<double>() == Approx(60 * layer + edges).epsilon(1e-9));
  const auto& host = off["memory"]["host_offload"];
  CHECK(host["gpu_layers"] == 60);
  CHECK(host["activations_bytes"].get<double>() == Approx(20 * layer).epsilon(1e-9));
  CHECK(host["weights_bytes"] == 0);
  // Keeping one layer: the double buffer's two offloaded layers in flight are the peak, not the one kept.
  const auto one = test::run_json(with(llama70b_fsdp("gb300-nvl72-279gb"), {"--offload", "activations", "--gpu-layers", "1"}));
  CHECK(one["memory"]["components"]["activations"].get<double>() == Approx(2 * layer + edges).epsilon(1e-9));
  // Without --gpu-layers, the most layers that leave 5 % of the GPU free: 36 on a GB200 (the recipe's 40 come to
  // 202.5 GB in this model, over the 198.7 GB usable: about 2 % more than the recipe shows fits; the FP8 weights are
  // one copy on a Blackwell, method.md §3.1).
  const auto settled = test::run_json(with(llama70b_fsdp("gb200-nvl72-186gb"), {"--offload", "activations"}));
  CHECK(settled["fits"] == true);
  CHECK(settled["memory"]["host_offload"]["gpu_layers"] == 36);
  const auto forty = test::run_json(with(llama70b_fsdp("gb200-nvl72-186gb"), {"--offload", "activations", "--gpu-layers", "40"}));
  CHECK(forty["fits"] == false);
  CHECK(forty["memory"]["device_peak_bytes"].get<double>() / 1e9 == Approx(202.5).epsilon(0.001));
  // Its loss: Megatron's vocab-parallel cross-entropy holds the 16-bit logits and their fp32 softmax, 16,384 tokens x
  // 128,256 x (2 + 4) B = 12.61 GB (core/tensor_parallel/cross_entropy.py; method.md §4.3).
  CHECK(forty["memory"]["components"]["logits"].get<double>() == Approx(16384.0 * 128256 * 6).epsilon(1e-9));
}

TEST_CASE("activation offload: the bytes cross the host link beside the forward and the backward, only the excess shows", "[offload][time]") {
  // Llama 3 8B with FSDP over 8 GPUs, micro-batch 2 x 8,192, 24 of 32 layers offloaded: 54.8 GB each way. An H100's
  // PCIe 5.0 carries 64 GB/s one way x link_efficiency 0.8 = 51.2 GB/s: 1,071 ms, against a forward of a third of
  // the compute (613 ms) and a backward of two thirds (1,226 ms): 1,071 - 613 = 458 ms more, 25 % of the 1,839 ms of
  // compute. A GB200's share of its Grace's NVLink-C2C (900 GB/s for two GPUs: 225 GB/s one way, x 0.8 = 180 GB/s):
  // 305 ms against a 275 ms forward, 4 %.
  const auto h100 = test::run_json(with(llama8b_fsdp8("h100-sxm-80gb"), {"--offload", "activations", "--gpu-layers", "8"}));
  const double bytes = h100["memory"]["host_offload"]["activations_bytes"].get<double>();
  CHECK(bytes / 1e9 == Approx(54.8).epsilon(0.001));
  const double pcie = 64e9 * 0.8, move_ms = bytes / pcie * 1e3;
  CHECK(move_ms == Approx(1071).epsilon(0.001));
  const auto* note = note_with(h100["notes"], "CPU offload of activations: 24 layers' 54.8 GB per micro-batch cross PCIe 5.0 each way, 1071 ms against a 613 ms forward");
  REQUIRE(note != nullptr);
  CHECK(note->get<std::string>().find(fmt::format("{:.0f}% added", 100.0 * (move_ms - 613.0) / (3 * 613.0))) != std::string::npos);
  const auto gb200 = test::run_json(with(llama8b_fsdp8("gb200-nvl72-186gb"), {"--offload", "activations", "--gpu-layers", "8"}));
  const double c2c = 900e9 / 2 / 2 * 0.8;
  CHECK(bytes / c2c * 1e3 == Approx(305).epsilon(0.002));
  CHECK(note_with(gb200["notes"], "cross NVLink-C2C each way, 305 ms against a 275 ms forward: 4% added") != nullptr);
  // Where the transfer hides behind the forward, the step is the same as without it: 4 layers offloaded on GB200s.
  const auto hidden = test::run_json(with(llama8b_fsdp8("gb200-nvl72-186gb"), {"--offload", "activations", "--gpu-layers", "28"}));
  const auto plain = test::run_json(llama8b_fsdp8("gb200-nvl72-186gb"));
  CHECK(note_with(hidden["notes"], "hidden behind the compute") != nullptr);
  CHECK(hidden["time"]["train_tokens_per_second_per_gpu"].get<double>() == Approx(plain["time"]["train_tokens_per_second_per_gpu"].get<double>()));
  // Offloading no layer (--gpu-layers 32) is the plain plan: the optimizer step stays on the GPU.
  const auto all = test::run_json(with(llama8b_fsdp8("h100-sxm-80gb"), {"--offload", "activations", "--gpu-layers", "32"}));
  const auto bare = test::run_json(llama8b_fsdp8("h100-sxm-80gb"));
  CHECK(all["time"]["train_tokens_per_second_per_gpu"].get<double>() == Approx(bare["time"]["train_tokens_per_second_per_gpu"].get<double>()));
}

TEST_CASE("activation offload: what Megatron-Core refuses is bad input naming the field", "[offload][cli]") {
  const std::vector<std::string> base{"estimate", "--model", "llama-3-70b", "--gpu", "h100-sxm-80gb", "--offload", "activations"};
  struct Case {
    std::vector<std::string> extra;
    const char* says;
  };
  for (const Case& c : {Case{{"--mode", "inference"}, "--offload: activations is Megatron-Core's CPU offload"},
                        Case{{"--mode", "train"}, "--offload: activations is Megatron-Core's CPU offloading (--framework megatron"},
                        Case{{"--mode", "lora", "--framework", "megatron"}, "(--mode train or finetune with --framework megatron)"},
                        Case{{"--mode", "train", "--framework", "megatron", "--gpus", "2", "--pp", "2"}, "--pp: 2 stages with --offload activations"},
                        Case{{"--mode", "train", "--framework", "megatron", "--gradient-checkpointing", "selective"},
                             "--gradient-checkpointing: selective with --offload activations"},
                        Case{{"--mode", "train", "--framework", "megatron", "--gpu-layers", "81"}, "--gpu-layers: 81 is more than llama-3-70b's 80 layers"}}) {
    const auto r = test::run(with(base, c.extra));
    INFO(c.says);
    CHECK(r.code == 2);
    CHECK(r.err.find(c.says) != std::string::npos);
  }
}

TEST_CASE("activation offload: the launch line counts the offloaded layers, Megatron-FSDP beside it", "[offload][hints]") {
  const auto j = test::run_json(with(llama70b_fsdp("gb300-nvl72-279gb"), {"--offload", "activations", "--gpu-layers", "60", "--hints"}));
  const std::string line = j["launch_hints"]["torchrun"].get<std::string>();
  CHECK(line.find("--use-megatron-fsdp") != std::string::npos);
  CHECK(line.find("--cpu-offloading-num-layers 20") != std::string::npos);
  CHECK(line.find("--use-distributed-optimizer") == std::string::npos);
}

TEST_CASE("activation offload: the planner offloads on NVLink-C2C hosts where it is faster, never over PCIe unless asked", "[offload][plan-choice]") {
  // Llama 3 70B FP8 at 8,192 tokens on 64 GPUs, global batch 256. On GB300s the fastest plan found is tensor parallel 2
  // with ZeRO-1 and 7 of the 80 layers' activations in host memory, 3,975 tokens/s per GPU (Megatron-Bridge's FSDP
  // recipe with 20 layers offloaded: 4,520). On GB200s, with less memory, tensor parallel 4 without the offload is
  // faster (3,916; the recipe, FSDP with 40 layers offloaded: 4,312).
  auto pick = [](const char* gpu) {
    const auto j = test::run_json({"--model", "llama-3-70b", "--mode", "train", "--framework", "megatron", "--precision", "fp8", "--seq-len", "8192",
                                   "--only", gpu, "--gpus", "64", "--global-batch", "256", "--rank-by", "time", "--format", "json"});
    return j["ranking"][0];
  };
  const auto gb300 = pick("gb300-nvl72-279gb");
  CHECK(gb300["plan"]["offload"] == "activations");
  CHECK(gb300["plan"]["tp"] == 2);
  CHECK(gb300["layout"].get<std::string>().find("7 layers' activations in host memory") != std::string::npos);
  CHECK(gb300["time"]["train_tokens_per_second_per_gpu"].get<double>() == Approx(3975).epsilon(0.001));
  CHECK(gb300["time"]["train_tokens_per_second_per_gpu"].get<double>() == Approx(4520).epsilon(0.15));
  // Each GPU offloads 7 layers of a micro-batch of 8,192 tokens, split over tensor parallel 2 with sequence
  // parallelism: 7 x 221,440 B per token and layer x 8,192 / 2 = 6.35 GB; the rack's host memory holds every GPU's
  // (pre-training builds nothing on the host: Megatron initialises on the GPU), 64 x 6.35 = 406 GB.
  const double host = gb300["memory"]["host_offload"]["activations_bytes"].get<double>();
  CHECK(host == Approx(7.0 * 221440 * 8192 / 2).epsilon(1e-6));
  CHECK(gb300["system"]["host_ram_bytes"].get<double>() == Approx(64 * host).epsilon(1e-9));
  const auto gb200 = pick("gb200-nvl72-186gb");
  CHECK(gb200["plan"]["offload"] != "activations");
  CHECK(gb200["plan"]["tp"] == 4);
  CHECK(gb200["time"]["train_tokens_per_second_per_gpu"].get<double>() == Approx(3916).epsilon(0.001));
  CHECK(gb200["time"]["train_tokens_per_second_per_gpu"].get<double>() == Approx(4312).epsilon(0.12));
  const auto h100 = pick("h100-sxm-80gb");
  CHECK(h100["plan"]["offload"] != "activations");
}

TEST_CASE("activation offload: a check that does not fit says to keep fewer layers on the GPU, not to recompute", "[offload][check]") {
  // Recomputation does not run beside Megatron-Core's CPU offload (method.md §4.5): the hint is the layer count.
  const auto r = test::run({"check", "--model", "llama-3-70b", "--mode", "train", "--framework", "megatron", "--precision", "fp8", "--seq-len", "8192",
                            "--gpus", "64", "--batch", "2", "--sharding", "zero3", "--offload", "activations", "--gpu-layers", "40", "--gpu",
                            "gb200-nvl72-186gb"});
  CHECK(r.code == 1);
  CHECK(r.out.find("40 layers' activations in host memory") != std::string::npos);
  CHECK(r.out.find("fewer --gpu-layers (or none given, the most that fit) keep less on the GPU") != std::string::npos);
  CHECK(r.out.find("--gradient-checkpointing selective or full") == std::string::npos);
}
