// The rest of the system a plan needs (docs/method.md §13): host memory, CPU cores, checkpoints and disk,
// each from the rule servers.md Table 3 gives, worked by hand.
#include <catch2/catch.hpp>
#include <cmath>

#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/perf.hpp"
#include "gpuadvise/system.hpp"
#include "helpers.hpp"

using namespace gpuadvise;

namespace {
SystemNeeds needs(std::initializer_list<std::pair<const char*, std::string>> kv, const char* gpu) {
  const auto w = test::wl(kv);
  const auto m = test::model(w.model);
  const auto* g = test::gpus().find(gpu);
  return system_needs(w, m, *g, estimate_memory(w, m, g));
}
}  // namespace

TEST_CASE("system: a full fine-tune's checkpoint is 14 B per parameter and disk holds two of them", "[system]") {
  // Llama 3.1 8B (8.03e9 parameters), AdamW with fp32 master weights: 2 (bf16) + 4 (master) + 8 (moments)
  // = 14 B per parameter = 112.4 GB (BLOOM-176B: 2.3 TB, about 13-14 B per parameter). Disk: the 16-bit
  // download (16.06 GB) and two checkpoints. Host memory: the fp32 model built on the CPU, 4 B x 8.03e9.
  const auto s = needs({{"model", "llama-3.1-8b"}, {"mode", "finetune"}}, "h100-sxm-80gb");
  const double n = 8.030261248e9;
  REQUIRE(s.checkpoint_bytes);
  CHECK(*s.checkpoint_bytes == Approx(14.0 * n).epsilon(0.002));
  CHECK(s.disk_bytes == Approx(2.0 * n + 2.0 * 14.0 * n).epsilon(0.002));
  CHECK(s.host_ram_bytes == Approx(4.0 * n).epsilon(0.002));
  CHECK(s.cpu_cores == Approx(6.0));  // 4 per GPU + 2
  // 8-bit AdamW keeps 2 B of moments: 2 + 4 + 2 = 8 B per parameter.
  const auto b8 = needs({{"model", "llama-3.1-8b"}, {"mode", "finetune"}, {"optimizer", "adamw-8bit"}}, "h100-sxm-80gb");
  CHECK(*b8.checkpoint_bytes == Approx(8.0 * n).epsilon(0.002));
}

TEST_CASE("system: a LoRA base streams in shard by shard, so host memory is a shard per GPU, not the model per GPU", "[system]") {
  // DeepSeek-V3 LoRA, each of 8 H200s of a node holding the whole 16-bit base (671 B parameters, 1,342 GB): built on
  // the CPU per rank it would need 8 x 1,342 = 10,736 GB per node; loaded on the meta device and filled from the
  // checkpoint's 5 GB shards one at a time, 8 x 5 = 40 GB. Llama 3.2 1B's whole 16-bit base (2.47 GB) is smaller
  // than a shard: one per GPU.
  const auto big = needs({{"model", "deepseek-v3"}, {"mode", "lora"}, {"gpus", "8"}}, "h200-sxm-141gb");
  CHECK(big.host_ram_bytes == Approx(8.0 * 5e9));
  const auto small = needs({{"model", "llama-3.2-1b"}, {"mode", "lora"}}, "h100-sxm-80gb");
  CHECK(small.host_ram_bytes == Approx(2.0 * count_params(test::model("llama-3.2-1b")).total));
  // Full fine-tuning still builds the fp32 model per rank ([DS-MEM]).
  const auto full = needs({{"model", "llama-3.2-1b"}, {"mode", "finetune"}}, "h100-sxm-80gb");
  CHECK(full.host_ram_bytes == Approx(4.0 * count_params(test::model("llama-3.2-1b")).total));
}

TEST_CASE("system: DeepSpeed offload needs its host memory, and a node that lacks it says so", "[system]") {
  // Llama 3.1 70B (70.55e9), ZeRO-3 with optimizer offload on one 8-GPU node: 16 B x 1.5 = 24 B per parameter
  // = 1,693 GB ([DS-MEM]: "70B, 1 node: 1.68 TB"); with the parameters offloaded too, 27 B = 1,905 GB.
  const auto opt = needs({{"model", "llama-3.1-70b"}, {"mode", "finetune"}, {"gpus", "8"}, {"sharding", "zero3"}, {"offload", "optimizer"}},
                         "h100-sxm-80gb");
  CHECK(opt.host_ram_bytes / 1e9 == Approx(24.0 * 70.554e9 / 1e9).epsilon(0.002));
  const auto both = needs({{"model", "llama-3.1-70b"}, {"mode", "finetune"}, {"gpus", "8"}, {"sharding", "zero3"}, {"offload", "optimizer+params"}},
                          "h100-sxm-80gb");
  CHECK(both.host_ram_bytes / 1e9 == Approx(27.0 * 70.554e9 / 1e9).epsilon(0.002));
  // A 4-GPU workstation of RTX 6000 Ada cards (400 GB of host memory) falls short for 70B with offload (1,905 GB).
  const auto ws = needs({{"model", "llama-3.1-70b"}, {"mode", "finetune"}, {"gpus", "4"}, {"sharding", "zero3"}, {"offload", "optimizer+params"}},
                        "rtx-6000-ada-48gb");
  CHECK(ws.host_ram_bytes > node_host_ram_bytes(*test::gpus().find("rtx-6000-ada-48gb"), 1));
  REQUIRE_FALSE(ws.notes.empty());
  CHECK(ws.notes.front().text().find("host memory per node") != std::string::npos);
}

TEST_CASE("system: offload over two nodes halves each host's share, and a count of two nodes given alone tries it", "[system][offload]") {
  // 70B fully fine-tuned on 16 H100s in two nodes, ZeRO-3 with optimizer offload: 24 B per parameter over the job
  // (1,693 GB), each node's host holding its own eight ranks' half, 847 GB.
  const auto two = needs({{"model", "llama-3.1-70b"}, {"mode", "finetune"}, {"gpus", "16"}, {"nodes", "2"}, {"sharding", "zero3"}, {"offload", "optimizer"}},
                         "h100-sxm-80gb");
  CHECK(two.host_ram_bytes / 1e9 == Approx(24.0 * 70.554e9 / 2 / 1e9).epsilon(0.002));
  // No layout of the 16 fits without an offload (ZeRO-3 over 16 with full recomputation: 104 GB at the optimizer
  // step); the planner tried offload on one node only and answered that nothing fits, though eight of the GPUs
  // with offload did. A count given alone now tries its own offload layouts, over both nodes.
  const auto r = test::run({"check", "--model", "llama-3.1-70b", "--mode", "finetune", "--tokens", "1B", "--gpu", "h100-sxm-80gb", "--gpus", "16"});
  CHECK(r.code == 0);
  CHECK(r.out.find("on 16 GPUs in 2 nodes") != std::string::npos);
  CHECK(r.out.find("optimizer offload") != std::string::npos);
  // A plan that does not fit has no job figures: the check says so, not that the job size is missing.
  const auto no = test::run({"check", "--model", "llama-3.1-70b", "--mode", "finetune", "--tokens", "1B", "--gpu", "h100-sxm-80gb", "--gpus", "8", "--tp",
                             "8", "--max-cost", "2000"});
  CHECK(no.code == 1);
  CHECK(no.out.find("--max-cost 2000 cannot be checked: the plan does not fit") != std::string::npos);
  CHECK(no.out.find("no job size") == std::string::npos);
}

TEST_CASE("system: vision training asks for the data loader's CPUs, inference for no checkpoint", "[system]") {
  // FFCV's ResNet-50 recipe: 2 x (4 workers + 1) = 10 logical CPUs per GPU; 8 GPUs: 80.
  const auto v = needs({{"model", "resnet-50"}, {"mode", "train"}, {"batch", "256"}, {"gpus", "8"}}, "a100-sxm-80gb");
  CHECK(v.cpu_cores == Approx(80.0));
  const auto inf = needs({{"model", "llama-3.1-8b"}, {"mode", "inference"}}, "h100-sxm-80gb");
  CHECK_FALSE(inf.checkpoint_bytes);
  CHECK(inf.disk_bytes == Approx(inf.host_ram_bytes));  // the 16-bit weights: downloaded once, read once
  // Every output carries the block.
  const auto r = test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "lora", "--gpu", "h100-sxm-80gb", "--format", "json"});
  REQUIRE(r.code == 0);
  CHECK(r.json()["system"]["checkpoint_bytes"].get<double>() > 0);
}

TEST_CASE("system: the data loaders a vision plan needs follow the images per second its input reaches", "[system][vision]") {
  // ResNet-50 training on one H100 at micro-batch 256: the GPU runs 4,821.1 images/s, but the 24 logical CPUs per GPU
  // of an 8-GPU cloud host decode 24 x 190 = 4,560 (test_image_feed.cpp), so the job runs at 4,560 and needs 24 workers.
  const auto w = test::wl({{"model", "resnet-50"}, {"mode", "train"}, {"batch", "256"}});
  const auto m = test::model("resnet-50");
  const GpuSpec& h100 = *test::gpus().find("h100-sxm-80gb");
  const MemoryEstimate mem = estimate_memory(w, m, &h100);
  const TimeEstimate t = estimate_time(w, m, h100, mem);
  REQUIRE(t.paced_images_per_second());
  CHECK(*t.paced_images_per_second() == Approx(4560.0));
  const SystemNeeds s = system_needs(w, m, h100, mem, &t);
  CHECK(s.cpu_cores == 24.0);
  // Host memory: the model built in fp32 at load (4 B x 25,557,032 parameters) and the workers' prefetched batches,
  // 2 per worker plus one pinned, each 256 images of 3 x 224 x 224 float32 (602,112 B): (2 x 24 + 1) x 154.1 MB.
  CHECK(s.host_ram_bytes == Approx(4.0 * mem.params_total + (2.0 * 24.0 + 1.0) * 256.0 * 3.0 * 224.0 * 224.0 * 4.0));
  CHECK(s.host_ram_bytes == Approx(7.66e9).epsilon(0.01));
  CHECK(s.notes.empty());  // the limit is the time estimate's to state
  // Decoded on the GPU, the loader only reads and batches: FFCV's 10 logical CPUs per GPU, one prefetch worker.
  const auto wg = test::wl({{"model", "resnet-50"}, {"mode", "train"}, {"batch", "256"}, {"image_decode", "gpu"}});
  const TimeEstimate tg = estimate_time(wg, m, h100, mem);
  const SystemNeeds sg = system_needs(wg, m, h100, mem, &tg);
  CHECK(sg.cpu_cores == 10.0);
  CHECK(sg.host_ram_bytes == Approx(4.0 * mem.params_total + 3.0 * 256.0 * 3.0 * 224.0 * 224.0 * 4.0));
  // At a rate the host feeds, training keeps FFCV's 10 logical CPUs per GPU as its floor: a T4.
  const GpuSpec& t4 = *test::gpus().find("t4-16gb");
  const Workload slow = test::wl({{"model", "resnet-50"}, {"mode", "train"}, {"batch", "64"}, {"precision", "fp16"}});
  const MemoryEstimate mt4 = estimate_memory(slow, m, &t4);
  const TimeEstimate tt4 = estimate_time(slow, m, t4, mt4);
  REQUIRE(tt4.images_per_second);
  CHECK(*tt4.images_per_second < 1900.0);
  CHECK_FALSE(tt4.input_bound());
  const SystemNeeds s4 = system_needs(slow, m, t4, mt4, &tt4);
  CHECK(s4.cpu_cores == 10.0);
  CHECK(s4.notes.empty());
  // The estimate says it in every output.
  const auto r = test::run({"estimate", "--model", "resnet-50", "--mode", "train", "--batch", "256", "--gpu", "h100-sxm-80gb", "--format", "json"});
  REQUIRE(r.code == 0);
  CHECK(r.json()["system"]["cpu_cores"] == 24);
}

TEST_CASE("system: diffusers' CPU offload keeps the pipeline in host memory, and on an edge module that memory is the GPU's", "[system][offload][fit]") {
  // FLUX.1-dev in bf16: 16.867e9 parameters (denoiser, both text encoders, VAE) x 2 B = 33.7 GB. Sequential offload
  // (accelerate's cpu_offload) keeps every weight on the host and copies each block in as it runs, so the host holds
  // all 33.7 GB beside the GPU's one block. A Jetson's CPU and GPU share one memory (8 GB on an Orin Nano): the
  // offload saves nothing there, and estimate, check and the ranking all say it does not fit.
  auto run = [](const char* gpu, std::vector<std::string> head = {"estimate"}) {
    std::vector<std::string> args = std::move(head);
    for (const char* a : {"--model", "flux-1-dev", "--mode", "inference", "--gpu", gpu, "--offload", "sequential", "--format", "json"}) args.emplace_back(a);
    return test::run(args);
  };
  const auto desk = run("rtx-4090-24gb");
  REQUIRE(desk.code == 0);
  const auto d = desk.json();
  CHECK(d["fits"] == true);
  CHECK(d["system"]["host_ram_bytes"].get<double>() > 16.867e9 * 2.0 * 0.999);
  const auto nano = run("jetson-orin-nano-8gb");
  REQUIRE(nano.code == 0);
  const auto n = nano.json();
  CHECK(n["fits"] == false);
  CHECK(n["fit_reason"].get<std::string>().find("share one 8.0 GB memory") != std::string::npos);
  CHECK(run("jetson-orin-nano-8gb", {"check"}).code == 1);
}

TEST_CASE("system: under expert parallelism each rank builds only its own experts on the host", "[system][moe]") {
  // DeepSeek-V3 FP8 fine-tuning on 256 B200s, PP 4, EP 64: a rank of a pipeline stage builds its quarter of the
  // shared weights and 4 of the 256 experts of each MoE layer (Megatron's num_local_experts) in fp32, 4 B per
  // parameter, for each of the node's 8 GPUs: (N - routed x 63/64) / 4 x 4 B x 8 = about 219 GB, where counting every
  // expert on every rank said 5,368 GB, three times the node's 1,800 GB. Pre-training builds nothing on the host:
  // Megatron-LM initialises each rank's share on its GPU (--use-cpu-initialization is off by default).
  const auto pre = needs({std::pair<const char*, std::string>{"model", "deepseek-v3"}, {"mode", "train"}, {"framework", "megatron"}, {"precision", "fp8"},
                          {"seq_len", "4096"}, {"gpus", "256"}, {"pp", "4"}, {"ep", "64"}, {"sharding", "zero1"}},
                         "b200-hgx-180gb");
  CHECK(pre.host_ram_bytes == 0);
  const auto w = {std::pair<const char*, std::string>{"model", "deepseek-v3"}, {"mode", "finetune"}, {"framework", "megatron"}, {"precision", "fp8"},
                  {"seq_len", "4096"}, {"gpus", "256"}, {"pp", "4"}, {"ep", "64"}, {"sharding", "zero1"}};
  const auto s = needs(w, "b200-hgx-180gb");
  const ParamCounts pc = count_params(test::model("deepseek-v3"));
  const double local = pc.total - pc.routed_experts * 63.0 / 64.0;
  CHECK(s.host_ram_bytes == Approx(local / 4.0 * 4.0 * 8.0).epsilon(0.01));
  CHECK(s.host_ram_bytes == Approx(219e9).epsilon(0.01));
  // On a GB200 rack all 72 GPUs of the node build theirs: 72 / 8 times as much, under the rack's 17,280 GB.
  const auto r = needs(w, "gb200-nvl72-186gb");
  CHECK(r.host_ram_bytes == Approx(local * 72.0).epsilon(0.01));
  CHECK(r.host_ram_bytes < 17280e9);
}
