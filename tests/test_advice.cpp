// The planner's answers to the questions of docs/advice.md, pinned with numbers worked out by hand from the
// catalogue (data/gpus.json) and the formulas of docs/method.md §8.4 and §9.
#include <catch2/catch.hpp>

#include <set>

#include "gpuadvise/perf.hpp"
#include "gpuadvise/ranking.hpp"
#include "helpers.hpp"

using namespace gpuadvise;
using test::wl;

namespace {

nlohmann::json rank_json(std::vector<std::string> args) { return test::run_json(std::move(args)); }

const nlohmann::json& row(const nlohmann::json& j, const std::string& gpu) {
  for (const auto& r : j["ranking"])
    if (r["gpu"] == gpu) return r;
  FAIL("no row for " << gpu);
  static nlohmann::json none;
  return none;
}

}  // namespace

TEST_CASE("advice: collective bandwidths come from the links of the catalogue", "[advice][links]") {
  const auto& cat = test::gpus();
  // H100 SXM: NVLink 4, 900 GB/s both directions: 450 GB/s one way x 0.8 achieved = 360 GB/s inside the node.
  CHECK(intra_node_bytes_per_s(*cat.find("h100-sxm-80gb"), 8) == Approx(360e9));
  // 400 Gb/s InfiniBand per GPU: 50 GB/s x 0.94 = 47 GB/s per NIC between nodes (nccl-tests#290: 46-48).
  CHECK(inter_node_bytes_per_s(*cat.find("h100-sxm-80gb")) == Approx(47e9));
  // RTX 4090: PCIe 4.0 is 32 GB/s per direction; without peer-to-peer every transfer crosses PCIe twice:
  // 16 GB/s x 0.8 = 12.8 GB/s.
  CHECK(intra_node_bytes_per_s(*cat.find("rtx-4090-24gb"), 2) == Approx(12.8e9));
  CHECK(inter_node_bytes_per_s(*cat.find("rtx-4090-24gb")) == 0.0);
  // An NVLink bridge joins pairs: 4 A100 PCIe cards talk over PCIe 4.0, 32 GB/s x 0.8.
  CHECK(intra_node_bytes_per_s(*cat.find("a100-pcie-80gb"), 2) == Approx(600e9 / 2 * 0.8));
  CHECK(intra_node_bytes_per_s(*cat.find("a100-pcie-80gb"), 4) == Approx(32e9 * 0.8));
  // MI350X: Infinity Fabric 7 x 153.6 GB/s = 1,075.2 GB/s, not PCIe.
  CHECK(intra_node_bytes_per_s(*cat.find("mi350x-288gb"), 8) == Approx(1075.2e9 / 2 * 0.8));
}

TEST_CASE("advice: a ring across nodes runs over every rail of the group's GPUs", "[advice][links]") {
  const auto& cat = test::gpus();
  const GpuSpec& h100 = *cat.find("h100-sxm-80gb");
  // Two HGX H100 nodes, a data-parallel group of all 16: each ring leaves a node over the 8 NICs of its GPUs,
  // 8 x 47 = 376 GB/s, more than NVSwitch's achieved 360 GB/s: the ring runs at 360 GB/s, as inside one node.
  CHECK(ring_bytes_per_s_across_nodes(h100, 8) == Approx(360e9));
  // A 16 GB (8B parameters in bf16) gradient all-reduce over the 16 GPUs: 2 x 15/16 x 16 GB / 360 GB/s = 83 ms.
  Workload w;
  w.gpus = 16;
  w.nodes = 2;
  w.sharding = Sharding::zero1;
  const LinkPlan two_nodes = plan_links(h100, w);
  CHECK(two_nodes.dp_link == Link::network);
  CHECK(2.0 * 15.0 / 16.0 * 16e9 / two_nodes.dp_bytes_per_s == Approx(0.0833).epsilon(0.001));
  // Tensor parallel 8 in each node: the data-parallel groups have one GPU per node and one rail each, 47 GB/s.
  w.tp = 8;
  CHECK(plan_links(h100, w).dp_bytes_per_s == Approx(47e9));
  // Tensor parallel 4: two GPUs of each group per node, two rails: 94 GB/s.
  w.tp = 4;
  CHECK(plan_links(h100, w).dp_bytes_per_s == Approx(94e9));
  // Tensor parallel 8 over 8 GPUs x pipeline 2 over the 2 nodes: data parallel 1, the stage sends over one rail.
  w.tp = 8;
  w.pp = 2;
  const LinkPlan pipeline = plan_links(h100, w);
  CHECK(pipeline.dp_link == Link::none);
  CHECK(pipeline.pp_link == Link::network);
  CHECK(pipeline.pp_bytes_per_s == Approx(47e9));
  // Expert parallel 8 over 16 H100s in two nodes: each expert lives on one GPU per node, so its gradients are
  // all-reduced over 2 ranks, one per node, on one rail (47 GB/s); the dense part rings over all 16 (360 GB/s).
  Workload moe;
  moe.gpus = 16;
  moe.nodes = 2;
  moe.ep = 8;
  const LinkPlan experts = plan_links(h100, moe);
  CHECK(experts.dp_bytes_per_s == Approx(360e9));
  CHECK(experts.expert_dp_bytes_per_s == Approx(47e9));
  moe.nodes = 1;
  moe.gpus = 8;
  CHECK(plan_links(h100, moe).expert_dp_bytes_per_s == Approx(360e9));
  // A100 nodes as Azure's ND A100 v4 (8 x 200 Gb/s HDR, 25 GB/s x 0.94 per GPU) over 3 nodes: the rails carry
  // 8 x 23.5 = 188 GB/s, below NVLink 3's achieved 300 x 0.8 = 240 GB/s: the network sets the ring's rate.
  Workload a;
  a.gpus = 24;
  a.nodes = 3;
  const GpuSpec& a100 = *cat.find("a100-sxm-80gb");
  REQUIRE(a100.node.network_gbit_per_gpu.value_or(0) == 200.0);
  CHECK(plan_links(a100, a).dp_bytes_per_s == Approx(188e9));
}

TEST_CASE("advice: catalogue facts a planner needs", "[advice][catalog]") {
  const auto& cat = test::gpus();
  CHECK(cat.find("rtx-6000-ada-48gb")->fp8);
  CHECK(*cat.find("rtx-6000-ada-48gb")->peak_flops("fp8") == Approx(728.5e12));  // 1,457 sparse / 2
  CHECK(cat.find("rtx-pro-6000-blackwell-se-96gb")->fp8);
  CHECK(*cat.find("rtx-pro-6000-blackwell-se-96gb")->peak_flops("bf16") == Approx(483.6e12));  // 503.8 x 120/125
  CHECK(cat.find("rtx-pro-6000-blackwell-ws-96gb")->fp4);
  CHECK_FALSE(cat.find("a100-sxm-80gb")->fp8);
  CHECK(cat.find("a10g-24gb")->memory_bytes == 23028LL * 1048576);  // nvidia-smi total
  CHECK(cat.find("a10g-24gb")->capacity_basis == "reported");
  CHECK(cat.find("gh200-96gb")->gpus_per_node() == 1);
  CHECK(cat.find("h100-sxm-80gb")->gpus_per_node() == 8);
  CHECK_FALSE(cat.find("rtx-5090-32gb")->multi_node());
  CHECK(cat.find("mi350x-288gb")->has_nvlink());  // the fast-link test covers xGMI too
  // CoreWeave's HGX H100 node is $49.24 an hour for 8 GPUs: $6.155 per GPU-hour, not $2.23.
  bool coreweave = false;
  for (const auto& p : cat.find("h100-sxm-80gb")->prices)
    if (p.provider == "CoreWeave") {
      coreweave = true;
      CHECK(*p.usd_per_gpu_hour == Approx(49.24 / 8));
    }
  CHECK(coreweave);
  // Hivenet rents RTX 5090s (no sourced price) and withdrew the RTX 4090.
  CHECK(cat.find("rtx-5090-32gb")->offered_by("hivenet"));
  CHECK_FALSE(cat.find("rtx-4090-24gb")->offered_by("hivenet"));
}

TEST_CASE("advice: the README's 7B full fine-tune scales out instead of offloading", "[advice]") {
  const auto j = rank_json({"--model", "7B", "--precision", "bf16", "--mode", "finetune"});
  // Mixed-precision AdamW keeps 16 B per parameter ([ZERO] K = 12 + 2 + 2): 7e9 x 16 = 112 GB of states, more
  // than an 80 GB H100 holds; ZeRO-2 over 2 leaves 14 GB of weights + 98/2 GB = 63 GB + activations per GPU.
  const auto& h100 = row(j, "h100-sxm-80gb");
  CHECK(h100["gpus"] == 2);
  CHECK(h100["plan"]["offload"] == "none");
  CHECK(h100["headroom_pct"].get<double>() >= 5.0);
  // The first pick runs on one GPU without offload and is the best value per million training tokens.
  const auto& top = j["ranking"][0];
  CHECK(top["plan"]["offload"] == "none");
  CHECK(top["fits"] == true);
  CHECK(top["tight"] == false);
  CHECK(j["recommendations"][0]["label"] == "best value");
  // Its value is its hourly price over its throughput: USD/h / (tokens/s x 3600) x 1e6.
  const double price = top["cost"]["price"]["usd_per_gpu_hour"].get<double>() * top["gpus"].get<double>();
  const double tps = top["time"]["train_tokens_per_second_per_gpu"].get<double>() * top["gpus"].get<double>();
  CHECK(top["value"]["usd"].get<double>() == Approx(price / (tps * 3600.0) * 1e6));
  CHECK(top["value"]["unit"] == "M training tokens");
  // GH200 cloud nodes hold one superchip and no network between them is known: offload is its only plan. The
  // CPU's Adam step (7e9 parameters at DeepSpeed's 1e9 a second: 7 s) is not hidden, but runs once per the recipes'
  // 128 sequences of 2,048 tokens (262,144 tokens a step), so the superchip keeps most of an H100's rate.
  const auto& gh = row(j, "gh200-96gb");
  CHECK(gh["gpus"] == 1);
  CHECK(gh["plan"]["offload"] != "none");
  CHECK(gh["plan"]["grad_accum"] == 128);
  const double gh_rate = gh["time"]["train_tokens_per_second_per_gpu"].get<double>();
  const double h100_rate = h100["time"]["train_tokens_per_second_per_gpu"].get<double>();
  CHECK(gh_rate < h100_rate);
  CHECK(gh_rate > 0.5 * h100_rate);
}

TEST_CASE("advice: LoRA of an 8B model fits one 24 GB card with gradient checkpointing", "[advice]") {
  const auto j = rank_json({"--model", "llama-3.1-8b", "--mode", "lora", "--only", "rtx-4090-24gb", "--only", "rtx-3090-24gb", "--only",
                            "l4-24gb", "--only", "a10g-24gb"});
  for (const auto& r : j["ranking"]) {
    INFO(r["gpu"]);
    CHECK(r["gpus"] == 1);
    CHECK(r["plan"]["gradient_checkpointing"] == "full");
    // 16 GB of bf16 weights + adapters + one layer's activations: 21.2 GB at the device peak.
    CHECK(r["memory"]["device_peak_bytes"].get<double>() == Approx(21.2e9).epsilon(0.02));
  }
}

TEST_CASE("advice: QLoRA of a 70B model gets one answer on every 48 GB card", "[advice]") {
  const auto j = rank_json({"--model", "llama-3.1-70b", "--mode", "qlora", "--only", "rtx-a6000-48gb", "--only", "rtx-6000-ada-48gb", "--only",
                            "l40s-48gb"});
  std::set<std::string> layouts;
  for (const auto& r : j["ranking"]) {
    CHECK(r["gpus"] == 2);
    layouts.insert(r["plan"]["sharding"].get<std::string>() + "/" + r["plan"]["gradient_checkpointing"].get<std::string>());
  }
  CHECK(layouts.size() == 1);
}

TEST_CASE("advice: every plan is buildable", "[advice]") {
  const auto& cat = test::gpus();
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--model", "7B", "--mode", "finetune", "--tokens", "10B"},
           {"--model", "llama-3.1-70b", "--mode", "finetune", "--tokens", "1B"},
           {"--model", "1B", "--mode", "train", "--tokens", "100B", "--deadline", "3d"}}) {
    const auto j = rank_json(args);
    for (const auto& r : j["ranking"]) {
      if (r["fits"] != true) continue;
      const GpuSpec& g = *cat.find(r["gpu"].get<std::string>());
      INFO(g.id << ": " << r["layout"]);
      const auto gpus = r["plan"]["gpus"].get<std::int64_t>(), nodes = r["plan"]["nodes"].get<std::int64_t>();
      CHECK(gpus / nodes <= g.gpus_per_node());                       // a node holds what its server holds
      if (nodes > 1) CHECK(g.multi_node());                            // nodes only where a network joins them
      CHECK(r["plan"]["tp"].get<std::int64_t>() <= g.gpus_per_node());  // tensor parallel never across nodes
    }
  }
}

TEST_CASE("advice: a deadline scales out and keeps the cheapest plan that meets it", "[advice][deadline]") {
  const auto j = rank_json({"--model", "1B", "--mode", "train", "--tokens", "100B", "--deadline", "3d"});
  std::set<std::string> kept;
  for (const auto& r : j["ranking"]) {
    if (r["fits"] != true) continue;
    kept.insert(r["gpu"].get<std::string>());
    CHECK(r["cost"]["hours"]["wall"].get<double>() <= 72.0);
    // The pick is on the GPU's frontier or cheaper than every frontier point that meets the deadline.
    for (const auto& f : r["frontier"])
      if (!f["hours"].is_null() && f["hours"].get<double>() <= 72.0 && !f["usd"].is_null())
        CHECK(r["cost"]["job_usd"].get<double>() <= f["usd"].get<double>() * 1.0 / 0.98 + 1e-6);
  }
  // Priced GPUs that can meet it stay; a card with no network between nodes cannot scale far enough.
  CHECK(kept.count("h100-sxm-80gb") == 1);
  CHECK(kept.count("mi300x-192gb") == 1);
  bool rtx4090_dropped = false;
  for (const auto& d : j["dropped"])
    if (d["gpu"] == "rtx-4090-24gb") rtx4090_dropped = true;
  CHECK(rtx4090_dropped);
  // H100 SXM: 100e9 tokens / (tokens/s per GPU x GPUs) / 3600 = the compute hours, within the deadline.
  const auto& h = row(j, "h100-sxm-80gb");
  const double hours = 100e9 / (h["time"]["train_tokens_per_second_per_gpu"].get<double>() * h["gpus"].get<double>()) / 3600.0;
  CHECK(hours <= 72.0);
  CHECK(h["cost"]["hours"]["compute"].get<double>() == Approx(hours).epsilon(1e-6));
  // The order line says what the deadline does (not the value band's 24 h target), and the rows follow the job's cost.
  CHECK(j["order_text"].get<std::string>().find("then per GPU the cheapest plan that meets --deadline 3.0 d, the GPUs by the lowest cost") != std::string::npos);
  for (std::size_t i = 1; i < j["ranking"].size(); ++i)
    if (const auto &a = j["ranking"][i - 1]["cost"]["job_usd"], &b = j["ranking"][i]["cost"]["job_usd"]; a.is_number() && b.is_number())
      CHECK(a.get<double>() <= b.get<double>());
}

TEST_CASE("advice: an unknown time or cost never passes a deadline or a budget", "[advice][budget]") {
  const auto j = rank_json({"--model", "1B", "--mode", "train", "--tokens", "100B", "--budget", "100000"});
  for (const auto& r : j["ranking"])
    if (r["fits"] == true) CHECK_FALSE(r["cost"]["job_usd"].is_null());
  bool gaudi = false;
  for (const auto& d : j["dropped"])
    if (d["gpu"] == "gaudi3-128gb") {
      gaudi = true;
      CHECK(d["reason"].get<std::string>().find("unknown") != std::string::npos);
    }
  CHECK(gaudi);
  const auto w = rank_json({"--model", "7B", "--mode", "train", "--tokens", "1B", "--deadline", "30d"});
  for (const auto& d : w["dropped"])
    if (d["gpu"] == "radeon-pro-w7900-48gb") CHECK(d["reason"].get<std::string>().find("unknown") != std::string::npos);
}

TEST_CASE("advice: without a job size the value order puts unknown prices after known ones", "[advice]") {
  const auto j = rank_json({"--model", "llama-3.1-8b", "--mode", "lora"});
  bool seen_unknown = false;
  double last = 0;
  for (const auto& r : j["ranking"]) {
    if (r["fits"] != true || r["tight"] == true) continue;
    if (r["value"]["usd"].is_null()) {
      seen_unknown = true;
      CHECK_FALSE(r["value"]["unknown"].is_null());
      continue;
    }
    CHECK_FALSE(seen_unknown);
    CHECK(r["value"]["usd"].get<double>() >= last);
    last = r["value"]["usd"].get<double>();
  }
}

TEST_CASE("advice: a plan under --min-headroom is tight, not a fit", "[advice]") {
  // 7B full fine-tune on one B200: 112 GB of model states alone leave at most (192.3 - 112) / 192.3 = 42 % free,
  // so a 45 % margin cannot hold on one GPU whatever the checkpointing: the planner adds a second GPU (ZeRO-1
  // halves the optimizer states).
  const auto j = rank_json({"--model", "7B", "--mode", "finetune", "--only", "b200-hgx-180gb", "--min-headroom", "45"});
  const auto& r = j["ranking"][0];
  CHECK(r["gpus"].get<int>() >= 2);
  CHECK(r["headroom_pct"].get<double>() >= 45.0);
  // Llama 3.1 8B inference on one RTX 4090: 16.1 GB of bf16 weights of 25.8 GB leave under 40 % free, and one
  // GPU is all it may use: the plan is listed as tight, after the fits, with its reason.
  const auto t = rank_json({"--model", "llama-3.1-8b", "--mode", "inference", "--only", "rtx-4090-24gb", "--min-headroom", "40", "--max-gpus", "1"});
  CHECK(t["ranking"][0]["fits"] == true);
  CHECK(t["ranking"][0]["tight"] == true);
  CHECK(t["ranking"][0]["headroom_pct"].get<double>() < 40.0);
  CHECK(t["ranking"][0]["why"].get<std::string>().find("under the 40% margin") != std::string::npos);
}

TEST_CASE("advice: a tensor-parallel degree that does not divide the heads is bad input", "[advice][cli]") {
  // Llama 3.1 8B: 32 attention heads, 8 KV heads. Training needs tp | 8; inference may replicate KV heads (tp = 16).
  auto bad = test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "finetune", "--gpus", "3", "--tp", "3"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--tp: 3 does not divide") != std::string::npos);
  CHECK(bad.err.find("valid: 1, 2, 4, 8") != std::string::npos);
  CHECK(test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "finetune", "--gpus", "16", "--tp", "16"}).code == 2);
  CHECK(test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "inference", "--gpus", "16", "--tp", "16"}).code == 0);
  CHECK(test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "finetune", "--gpus", "4", "--pp", "3"}).code == 2);
  CHECK(test::run({"estimate", "--model", "llama-3.1-8b", "--ep", "2"}).code == 2);  // no experts
}

TEST_CASE("advice: TensorRT pipelines rank NVIDIA GPUs only", "[advice]") {
  const auto j = rank_json({"--model", "yolov8-s", "--mode", "inference", "--precision", "fp16", "--streams", "16", "--framework", "tensorrt"});
  const auto& cat = test::gpus();
  for (const auto& r : j["ranking"])
    if (r["fits"] == true) CHECK(cat.find(r["gpu"].get<std::string>())->stack == "cuda");
  CHECK(row(j, "mi300x-192gb")["supported"] == false);
  // llama.cpp (and the ExLlama kernels) have no Intel Gaudi backend: Gaudi 3 is not supported there, as vLLM supports it.
  CHECK(row(rank_json({"--model", "llama-3.1-8b", "--mode", "inference", "--framework", "llamacpp"}), "gaudi3-128gb")["supported"] == false);
  CHECK(row(rank_json({"--model", "llama-3.1-8b", "--mode", "inference", "--framework", "vllm"}), "gaudi3-128gb")["supported"] == true);
}

TEST_CASE("advice: a provider keeps the GPUs it rents and says when their price is unknown", "[advice]") {
  const auto j = rank_json({"--model", "7B", "--mode", "lora", "--provider", "hivenet"});
  REQUIRE(j["ranking"].size() == 1);
  CHECK(j["ranking"][0]["gpu"] == "rtx-5090-32gb");
  CHECK(j["ranking"][0]["cost"]["price"].is_null());
  CHECK(j["ranking"][0]["value"]["unknown"].get<std::string>().find("Hivenet rents it") != std::string::npos);
}

TEST_CASE("advice: CPU offload needs the host memory to hold the states", "[advice]") {
  // DeepSpeed's guide: (16 B per trainable parameter + 2 B per offloaded parameter) x 1.5. A 405B model's
  // optimizer offload needs 405e9 x 16 x 1.5 = 9.7 TB, more than the largest node (4 TB): no offload plan.
  const auto j = rank_json({"--model", "llama-3.1-405b", "--mode", "finetune", "--max-gpus", "8", "--only", "b300-hgx-288gb"});
  const auto& r = j["ranking"][0];
  CHECK(r["fits"] == false);
  CHECK(r["why"].get<std::string>().find("host memory") != std::string::npos);
}

TEST_CASE("advice: FSDP LoRA pays the all-gathers of the frozen base", "[advice][time]") {
  // Llama 3.1 8B LoRA under ZeRO-3 over 2 RTX 4090s: every micro-batch gathers the 16-bit weights twice,
  // (2-1)/2 x 2 x 16.06 GB = 16.06 GB over 12.8 GB/s = 1.25 s, against about 1.05 s of compute for 2,048 tokens:
  // the step is bound by the gathers, so the pair is slower per GPU than one card alone.
  const auto m = test::model("llama-3.1-8b");
  const auto& g = *test::gpus().find("rtx-4090-24gb");
  auto one = wl({{"model", "llama-3.1-8b"}, {"mode", "lora"}, {"gradient_checkpointing", "full"}});
  auto two = wl({{"model", "llama-3.1-8b"}, {"mode", "lora"}, {"gradient_checkpointing", "full"}, {"gpus", "2"}, {"sharding", "zero3"}});
  const auto t1 = estimate_time(one, m, g, estimate_memory(one, m, &g));
  const auto t2 = estimate_time(two, m, g, estimate_memory(two, m, &g));
  REQUIRE(t1.train_tokens_per_second_per_gpu);
  REQUIRE(t2.train_tokens_per_second_per_gpu);
  const double compute = 2048.0 / *t1.train_tokens_per_second_per_gpu;
  const double adapters = estimate_memory(two, m, &g).params_trainable;
  // (n-1)/n x (two gathers of the 16-bit weights + the adapters' 16-bit gradients) over 12.8 GB/s, hidden
  // behind the compute as far as it goes.
  // Each of the 32 blocks pays NCCL's latency three times (two gathers, a reduce-scatter): 8.4 us + one 5.7 us PCIe
  // hop each, 1.35 ms in all.
  const double gathers = 0.5 * (2.0 * count_params(m).total * 2.0 + adapters * 2.0) / 12.8e9 + 3.0 * 32 * (8.4e-6 + 5.7e-6);
  CHECK(gathers == Approx(1.25).epsilon(0.03));
  // The compute beside the gathers runs 18.9 % slower ([OVERLAP], method.md §8.4): the step is the longer of the
  // slowed compute and the gathers (the adapters' optimizer step adds well under 0.1 %).
  CHECK(2048.0 / *t2.train_tokens_per_second_per_gpu == Approx(std::max(compute + 0.189 * std::min(gathers, compute), gathers)).epsilon(1e-3));
  CHECK(*t2.train_tokens_per_second_per_gpu < *t1.train_tokens_per_second_per_gpu);
}

TEST_CASE("advice: compute beside the data-parallel all-reduce and its latency runs 18.9 % slower while it lasts", "[advice][time]") {
  // Llama 3.1 8B full fine-tuning, data parallel over 8 H100s of one HGX node at a given utilisation (end to end:
  // no optimizer-step term). The all-reduce of the gradients, fp32 under Hugging Face's AMP (fp32 parameters, DDP
  // reduces their gradients as they are), 2 x 7/8 x 32.12 GB over NVLink at 80 % of 450 GB/s = 156 ms, hides behind
  // the last backward (2/3 of a micro-batch's compute, longer here), and the compute it overlaps runs 18.9 % slower
  // ([OVERLAP], method.md §8.4): 0.189 x 156 ms = 29.6 ms per step, spread over the 4 micro-batches of gradient
  // accumulation.
  const auto m = test::model("llama-3.1-8b");
  const auto& g = *test::gpus().find("h100-sxm-80gb");
  auto one = wl({{"model", "llama-3.1-8b"}, {"mode", "finetune"}, {"batch", "4"}, {"grad_accum", "4"}, {"mfu", "0.4"}});
  auto eight = wl({{"model", "llama-3.1-8b"}, {"mode", "finetune"}, {"batch", "4"}, {"grad_accum", "4"}, {"mfu", "0.4"}, {"gpus", "8"}});
  const auto t1 = estimate_time(one, m, g, estimate_memory(one, m, &g));
  const auto t8 = estimate_time(eight, m, g, estimate_memory(eight, m, &g));
  REQUIRE(t1.train_tokens_per_second_per_gpu);
  REQUIRE(t8.train_tokens_per_second_per_gpu);
  const double tokens = 4.0 * 2048.0;
  const double compute = tokens / *t1.train_tokens_per_second_per_gpu;
  const double allreduce = 2.0 * 7.0 / 8.0 * count_params(m).total * 4.0 / intra_node_bytes_per_s(g, 8);
  CHECK(intra_node_bytes_per_s(g, 8) == Approx(360e9));
  CHECK(allreduce == Approx(0.156).epsilon(0.01));
  // The gradients go in Megatron's buckets of 4e7 parameters (8 ranks: max(4e7, 8 x 1e6)), 201 of them, each an
  // all-reduce paying NCCL's latency: 8.4 us + 2 x 7 ring steps x 3.4 us over NVLink = 56 us, 11.3 ms in all.
  const double buckets = std::ceil(count_params(m).total / 4e7);
  CHECK(buckets == 201);
  const double latency = buckets * (8.4e-6 + 2.0 * 7.0 * 3.4e-6);
  CHECK(latency == Approx(0.01126).epsilon(0.001));
  REQUIRE(allreduce + latency < 2.0 / 3.0 * compute);  // hidden: only the slowdown shows
  CHECK(tokens / *t8.train_tokens_per_second_per_gpu - compute == Approx(0.189 * (allreduce + latency) / 4.0).epsilon(1e-6));
}

TEST_CASE("advice: pipeline stages idle (p-1)/(m+p-1) of the step", "[advice][time]") {
  const auto m = test::model("llama-3.1-8b");
  const auto& g = *test::gpus().find("h100-sxm-80gb");
  // A given utilisation is end to end (no separate optimizer-step term), which isolates the bubble.
  auto base = wl({{"model", "llama-3.1-8b"}, {"mode", "finetune"}, {"gpus", "4"}, {"pp", "4"}, {"grad_accum", "4"}, {"mfu", "0.4"}});
  auto more = wl({{"model", "llama-3.1-8b"}, {"mode", "finetune"}, {"gpus", "4"}, {"pp", "4"}, {"grad_accum", "12"}, {"mfu", "0.4"}});
  const auto a = estimate_time(base, m, g, estimate_memory(base, m, &g));
  const auto b = estimate_time(more, m, g, estimate_memory(more, m, &g));
  // Bubble 3/7 with 4 micro-batches, 3/15 with 12: throughput ratio (1 - 3/15) / (1 - 3/7) = 1.4.
  CHECK(*b.train_tokens_per_second_per_gpu / *a.train_tokens_per_second_per_gpu == Approx((1.0 - 3.0 / 15.0) / (1.0 - 3.0 / 7.0)).epsilon(1e-6));
}

TEST_CASE("advice: a ranked plan keeps only its shape, and the shape rebuilds the workload it was evaluated at", "[advice][plan]") {
  // A row keeps the layout, savers, batch and precision the planner chose (PlanShape), not the whole workload:
  // the workload as asked with that shape must evaluate to the same plan, on every GPU, for every kind of search
  // (ZeRO and tensor parallel, checkpointing and micro-batches, quantised serving, a serving pool's batch, CPU
  // offload, diffusers' offload with tiled decoding, several nodes, expert parallelism). And the ranking, whose GPUs
  // share each layout's tensor memory, must plan each GPU as `plan` does on its own.
  const auto& cat = test::gpus();
  struct Case {
    std::string model;
    Workload w;
  };
  const std::vector<Case> cases{
      {"7B", wl({{"model", "7B"}, {"mode", "finetune"}, {"batch", "8"}, {"tokens", "1e9"}})},
      {"llama-3.1-70b", wl({{"model", "llama-3.1-70b"}, {"mode", "finetune"}, {"seq_len", "4096"}})},
      {"llama-3.1-70b", wl({{"model", "llama-3.1-70b"}, {"mode", "inference"}, {"allow_quantization", "true"}})},
      {"llama-3.1-8b", wl({{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"framework", "vllm"}, {"requests", "1e5"}, {"output_tokens", "200"}})},
      {"sdxl-base-1.0", wl({{"model", "sdxl-base-1.0"}, {"mode", "inference"}, {"batch", "8"}, {"image_size", "2048"}})},
      {"llama-3.1-405b", wl({{"model", "llama-3.1-405b"}, {"mode", "finetune"}, {"tokens", "1e9"}})},  // several nodes
      {"mixtral-8x7b", wl({{"model", "mixtral-8x7b"}, {"mode", "finetune"}})},                       // expert parallel
  };
  std::size_t checked = 0;
  for (const auto& k : cases) {
    const ModelSpec m = resolve_model(k.model, test::models(), [](const std::string&) { return std::optional<std::string>(); });
    const Ranking r = rank_gpus(k.w, m, cat, RankOptions{});
    for (const Candidate& c : r.rows) {
      INFO(k.model << " on " << c.gpu->id << ": " << c.layout);
      const Workload planned = c.planned.applied_to(k.w);
      CHECK(planned.gpus == c.planned.gpus);
      CHECK(planned.model == k.w.model);
      const Candidate again = evaluate(planned, m, *c.gpu);
      CHECK(again.memory.device_peak == Approx(c.memory.device_peak));
      CHECK(c.memory.device_peak >= c.memory.tensor_peak);  // device = tensor + reserve + runtime, engines too
      CHECK(again.fits == c.fits);
      CHECK(again.layout == c.layout);
      CHECK(again.planned == c.planned);
      if (c.fits) {
        CHECK(again.time.job_seconds.has_value() == c.time.job_seconds.has_value());
        CHECK(again.time.train_tokens_per_second_per_gpu.value_or(0) == Approx(c.time.train_tokens_per_second_per_gpu.value_or(0)));
        CHECK(again.time.decode_tokens_per_second.value_or(0) == Approx(c.time.decode_tokens_per_second.value_or(0)));
      } else {
        // A row that does not fit carries no speed, hours, dollars or value (its reason instead).
        CHECK_FALSE(c.time.job_seconds);
        CHECK_FALSE(c.time.train_tokens_per_second_per_gpu);
        CHECK_FALSE(c.time.decode_tokens_per_second);
        CHECK_FALSE(c.time.images_per_second);
        CHECK_FALSE(c.cost.total_usd);
        CHECK_FALSE(c.value_usd);
        CHECK((!c.why.empty() || !c.supported));  // why, or the precision it cannot run
      }
      const Candidate alone = plan(k.w, m, *c.gpu, RankOptions{}, r.order);
      CHECK(alone.memory.device_peak == Approx(c.memory.device_peak));
      CHECK(alone.layout == c.layout);
      CHECK(alone.planned == c.planned);
      ++checked;
    }
  }
  CHECK(checked >= 7 * 30);
}

TEST_CASE("advice: a plan's shape carries every setting the planner chooses", "[advice][plan]") {
  // Every field the planner sets (set_layout, the savers, the last resorts, a serving pool's batch) away from its
  // default, through the shape and back onto a default workload.
  Workload w = wl({{"model", "7B"}, {"mode", "finetune"}, {"tokens", "1e9"}});
  w.precision = Precision::int4;
  w.checkpointing = Checkpointing::selective;
  w.sharding = Sharding::zero3;
  w.offload = Offload::optimizer_params;
  w.vae_tiling = true;
  w.batch = 3;
  w.grad_accum = 5;
  w.gpus = 32;
  w.nodes = 4;
  w.tp = 2;
  w.pp = 2;
  w.ep = 4;
  const PlanShape s = PlanShape::of(w);
  CHECK(s.mode == Mode::finetune);
  CHECK(s.has_job_size());
  CHECK(s.data_parallel() == 8);
  CHECK(s.gpus_per_node() == 8);
  const Workload back = s.applied_to(wl({{"model", "13B"}}));
  CHECK(back.model == "13B");  // the rest is the workload it is applied to
  CHECK(back.precision == Precision::int4);
  CHECK(back.checkpointing == Checkpointing::selective);
  CHECK(back.sharding == Sharding::zero3);
  CHECK(back.offload == Offload::optimizer_params);
  CHECK(back.vae_tiling);
  CHECK(back.batch == 3);
  CHECK(back.grad_accum == 5);
  CHECK(back.gpus == 32);
  CHECK(back.nodes == 4);
  CHECK(back.tp == 2);
  CHECK(back.pp == 2);
  CHECK(back.ep == 4);
  PlanShape again = PlanShape::of(back);  // the same plan, but the mode and the job size are the other workload's
  CHECK(again.mode == Mode::inference);
  CHECK_FALSE(again.has_job_size());
  again.mode = s.mode;
  again.job_size = s.job_size;
  CHECK(again == s);
}

TEST_CASE("advice: 8B ZeRO-1 training keeps its per-GPU rate from one HGX H100 node to two", "[advice][links]") {
  // The 16 GB gradient all-reduce takes 2 x 7/8 x 16 GB / 360 GB/s = 78 ms in one node and 2 x 15/16 x 16 GB /
  // 360 GB/s = 83 ms over two (8 rails, 376 GB/s, above NVSwitch's 360): both hide behind the last backward,
  // each costing the 18.9 % slowdown of what they overlap (about 15 ms of a ~0.2 s micro-batch). Charged at one
  // NIC per ring (40 GB/s) it was 0.75 s, exposed: 7,271 against 2,427 tokens/s per GPU.
  auto rate = [](const char* gpus) {
    const auto r = test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "train", "--gpus", gpus, "--sharding", "zero1", "--gpu", "h100-sxm-80gb",
                              "--format", "json"});
    REQUIRE(r.code == 0);
    return r.json()["time"]["train_tokens_per_second_per_gpu"].get<double>();
  };
  const double one_node = rate("8"), two_nodes = rate("16");
  CHECK(two_nodes == Approx(one_node).epsilon(0.03));
}
