// The GB200 NVL72 as the catalogue holds it: a node is the rack, one NVLink domain of 72 GPUs in 18 compute trays of
// 4 (each tray its own Grace host), whole racks joined by the network beyond it (data/gpus.json, method.md §9).
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "gpuadvise/system.hpp"
#include "helpers.hpp"

using namespace gpuadvise;

TEST_CASE("gb200: the catalogue's rack: 72 GPUs on NVLink, 189,471 MiB each, a tray's host memory per 4 GPUs", "[gb200][catalog]") {
  const GpuSpec& g = *test::gpus().find("gb200-nvl72-186gb");
  CHECK(g.gpus_per_node() == 72);
  CHECK(g.fast_link_joins(72));
  CHECK(g.memory_bytes == 189471LL * 1048576LL);  // nvidia-smi on GB200 trays
  CHECK(*g.peak_flops("bf16") == Approx(2450e12));  // NVIDIA exemplar-performance: GB200 dense BF16
  CHECK(*g.peak_flops("fp8") == Approx(4900e12));
  // 17,280 GB for the rack (960 GB per tray x 18): a job on 4 of its GPUs has one tray's 960 GB, on all 72 the whole.
  CHECK(node_host_ram_bytes(g, 4) == Approx(960e9));
  CHECK(node_host_ram_bytes(g, 72) == Approx(17280e9));
  // An 8-GPU server lends any job on it all of its memory, as before.
  const GpuSpec& b = *test::gpus().find("b200-hgx-180gb");
  CHECK(node_host_ram_bytes(b, 1) == node_host_ram_bytes(b, 8));
}

TEST_CASE("gb200: held out, Megatron-Bridge's GB200 rows for DeepSeek-V3 and Qwen3-235B within 5 %", "[gb200][heldout][moe]") {
  // 26.08 container, 256 GPUs in four racks of 64: DeepSeek-V3 MXFP8 PP 4 x VP 4 x EP 64, 4,912 tokens/s per GPU;
  // Qwen3-235B-A22B MXFP8 PP 8 x VP 3 x EP 32, 7,280. No coefficient rests on a GB200 row: the B200's family shares,
  // NVIDIA's 2,450 / 4,900 TFLOP/s peaks and the rack's NVLink for every expert all-to-all. The Qwen3-30B-A3B row runs
  // its recipe's full-iteration CUDA graph (--full-cuda-graph: no host launches per expert) and comes within 10 %;
  // gpt-oss-120b (issue 28's residual) stays outside.
  std::map<std::string, double> err;
  for (const auto& [c, e] : test::data_case_errors("gb200_train_time.jsonl")) {
    CHECK_FALSE(c["fitted"].get<bool>());
    err[c["id"].get<std::string>()] = e;
  }
  REQUIRE(err.size() == 4);
  CHECK(std::abs(err.at("mbridge_2608_deepseek_v3_256xgb200")) <= 0.05);
  CHECK(std::abs(err.at("mbridge_2608_qwen3_235b_a22b_256xgb200")) <= 0.05);
  CHECK(std::abs(err.at("mbridge_2608_qwen3_30b_a3b_8xgb200_mbs4")) <= 0.1);
  CHECK(err.at("mbridge_2608_gpt_oss_120b_64xgb200") > 0.25);
}

TEST_CASE("gb200: the search runs 64 GPUs of a rack, then whole racks (72, 144), and launches torchrun per tray", "[gb200][plan]") {
  // Counts double to 64, then a rack of 72 comes whole and its multiples follow: within --max-gpus 144 the fastest
  // 70B pre-training plan is two racks, 144 GPUs; torchrun runs on each of their 36 trays, 4 processes each.
  const auto j = test::run_json({"--model", "llama-3.1-70b", "--mode", "train", "--precision", "fp8", "--framework", "megatron", "--tokens", "1T",
                                 "--only", "gb200-nvl72-186gb", "--max-gpus", "144", "--rank-by", "time", "--hints"});
  const auto& row = j["ranking"][0];
  CHECK(row["plan"]["gpus"] == 144);
  CHECK(row["plan"]["nodes"] == 2);
  CHECK(row["layout"].get<std::string>().find("144 GPUs in 2 racks") != std::string::npos);
  const std::string launch = row["launch_hints"]["torchrun"].get<std::string>();
  CHECK(launch.find("torchrun --nnodes 36 --nproc_per_node 4") != std::string::npos);
  // Within --max-gpus 100 the doubling stops at 64, the whole rack (72) comes next, and --max-gpus itself last: two
  // racks of 50 (the fastest: 31.5 days against one rack's 40.0), never 72 + 28.
  const auto k = test::run_json({"--model", "llama-3.1-70b", "--mode", "train", "--precision", "fp8", "--framework", "megatron", "--tokens", "1T",
                                 "--only", "gb200-nvl72-186gb", "--max-gpus", "100", "--rank-by", "time"});
  CHECK(k["ranking"][0]["plan"]["gpus"] == 100);
  CHECK(k["ranking"][0]["plan"]["nodes"] == 2);
  const auto one_rack = test::run_json({"--model", "llama-3.1-70b", "--mode", "train", "--precision", "fp8", "--framework", "megatron", "--tokens", "1T",
                                        "--only", "gb200-nvl72-186gb", "--max-gpus", "72", "--rank-by", "time"});
  CHECK(one_rack["ranking"][0]["plan"]["gpus"] == 72);
  CHECK(k["ranking"][0]["cost"]["hours"]["wall"].get<double>() < one_rack["ranking"][0]["cost"]["hours"]["wall"].get<double>());
  // A count given that is no whole number of racks runs equal shares of them, as Megatron-Bridge runs 256 GB200s
  // (four racks of 64): 256 = 4 x 64, never 3 x 72 + 40.
  const auto q = test::run_json({"--model", "deepseek-v3", "--mode", "train", "--precision", "fp8", "--framework", "megatron", "--tokens", "1T",
                                 "--only", "gb200-nvl72-186gb", "--gpus", "256"});
  CHECK(q["ranking"][0]["plan"]["gpus"] == 256);
  CHECK(q["ranking"][0]["plan"]["nodes"] == 4);
  CHECK(q["ranking"][0]["layout"].get<std::string>().find("256 GPUs in 4 racks") != std::string::npos);
}

TEST_CASE("gb200: a one-GPU plan rents the Superchip's two GPUs, and says so", "[gb200][cost]") {
  // Spheron prices the GB200 at $9.08 per Superchip (one Grace CPU and two GPUs) and rents no single GPU: the
  // catalogue's $4.54 per GPU-hour is that halved, so one GPU for h hours costs 2 x 4.54 x h.
  const auto j = test::run_json({"estimate", "--model", "7B", "--mode", "finetune", "--gpu", "gb200-nvl72-186gb", "--tokens", "1B"});
  const double hours = j["cost"]["hours"]["wall"].get<double>();
  CHECK(j["cost"]["usd_per_hour"].get<double>() == Approx(9.08));
  CHECK(j["cost"]["job_usd"].get<double>() == Approx(2 * 4.54 * hours).epsilon(0.001));
  CHECK(test::says(j["notes"], "billed for 2 GPUs"));
  // Two GPUs or more bill as many as they run.
  const auto k = test::run_json({"estimate", "--model", "7B", "--mode", "finetune", "--gpu", "gb200-nvl72-186gb", "--tokens", "1B", "--gpus", "2",
                                 "--sharding", "zero1"});
  CHECK(k["cost"]["job_usd"].get<double>() == Approx(2 * 4.54 * k["cost"]["hours"]["wall"].get<double>()).epsilon(0.001));
  CHECK_FALSE(test::says(k["notes"], "billed for"));
}

TEST_CASE("gb200: eight GPUs of one rack are two trays: torchrun starts on each with 4 processes", "[gb200][hints]") {
  // A compute tray holds 4 GPUs and its own host: 8 GPUs inside one NVLink domain still run on two hosts.
  const auto j = test::run_json({"estimate", "--model", "7B", "--mode", "finetune", "--gpu", "gb200-nvl72-186gb", "--gpus", "8", "--sharding", "zero1"});
  CHECK(j["launch_hints"]["torchrun"].get<std::string>().find("torchrun --nnodes 2 --nproc_per_node 4") != std::string::npos);
  // Up to one tray, one host.
  const auto k = test::run_json({"estimate", "--model", "7B", "--mode", "finetune", "--gpu", "gb200-nvl72-186gb", "--gpus", "2", "--sharding", "zero1"});
  CHECK(k["launch_hints"]["torchrun"].get<std::string>().find("torchrun --nproc_per_node 2 ") != std::string::npos);
}

TEST_CASE("gb300: the catalogue's Blackwell Ultra rack: the GB200's peaks and rack, 284,208 MiB, 800 Gb/s per GPU, no price", "[gb200][catalog]") {
  const GpuSpec& g = *test::gpus().find("gb300-nvl72-279gb");
  CHECK(g.gpus_per_node() == 72);
  CHECK(g.rack_scale());
  CHECK(g.memory_bytes == 284208LL * 1048576LL);  // nvidia-smi on GB300 trays: 284,208 MiB (277.5 GiB; NVIDIA's 279 GB)
  CHECK(*g.peak_flops("bf16") == Approx(2450e12));  // exemplar-performance: GB300 dense BF16, FP8 and NVFP4
  CHECK(*g.peak_flops("fp8") == Approx(4900e12));
  CHECK(*g.peak_flops("fp4") == Approx(14700e12));
  CHECK(*g.node.network_gbit_per_gpu == Approx(800.0));  // ConnectX-8: 3,200 Gb/s per tray of 4 (Google Cloud A4X Max)
  CHECK(node_host_ram_bytes(g, 4) == Approx(960e9));
  // No sourced rental price: the job has a time and no cost, and the estimate says how to give one.
  const auto j = test::run_json({"estimate", "--model", "7B", "--mode", "finetune", "--gpu", "gb300-nvl72-279gb", "--tokens", "1B"});
  CHECK(j["time"]["train_tokens_per_second_per_gpu"].get<double>() > 0);
  CHECK(j["cost"]["job_usd"].is_null());
  CHECK(test::says(j["notes"], "no price in the catalogue"));
}

TEST_CASE("gb300: held out, Megatron-Bridge's GB300 rows within 25 %, the model's GB300 slower than measured", "[gb200][heldout][moe]") {
  // 26.08 container: DeepSeek-V3 MXFP8 PP 2 x VP 8 x EP 32 (61 layers in Megatron's uneven chunks), 6,288 tokens/s per
  // GPU; gpt-oss-120b EP 16, 33,024; Qwen3-30B-A3B EP 8 at micro-batch 8, 44,544; Qwen3-235B-A22B PP 4 x VP 12 x EP 32,
  // 8,816. The catalogue gives the GB300 the GB200's peaks, so the model's GB300 is its GB200 with more memory; the
  // same release runs the GB300 1.12-1.28x faster (full-iteration CUDA graphs and FP8 attention in its recipes, twice
  // Blackwell Ultra's exponential rate, 1,400 W against 1,200): the dense-peak rows come out 15-22 % slow, gpt-oss
  // over as on every GPU.
  std::map<std::string, double> err;
  for (const auto& [c, e] : test::data_case_errors("gb300_train_time.jsonl")) {
    CHECK_FALSE(c["fitted"].get<bool>());
    err[c["id"].get<std::string>()] = e;
  }
  REQUIRE(err.size() == 4);
  for (const auto& [id, e] : err) CHECK(std::abs(e) <= 0.25);
  CHECK(err.at("mbridge_2608_deepseek_v3_256xgb300") < -0.1);
  CHECK(err.at("mbridge_2608_qwen3_235b_a22b_256xgb300") < -0.1);
  CHECK(err.at("mbridge_2608_gpt_oss_120b_64xgb300") > 0.05);
}
