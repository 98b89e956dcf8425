// The planner's own picks for mixture-of-experts pre-training (method.md §8.2 "Experts at the host's pace", §9.1)
// against published runs of the same model and silicon at the layout their authors tuned, not at a layout typed in.
#include <catch2/catch.hpp>

#include "helpers.hpp"

TEST_CASE("moe picks: DeepSeek-V3 on 14.8T tokens over at most 2,048 H100s comes within 20 % of DeepSeek's own GPU-hours", "[scale][moe]") {
  // DeepSeek-V3 technical report (arXiv 2412.19437, §1): "training DeepSeek-V3 on each trillion tokens requires only
  // 180K H800 GPU hours", on 2,048 H800s with FP8, PP 16 and EP 64: 1e12 / (180e3 x 3600) = 1,543 tokens/s per GPU.
  // The H800 is the H100 with NVLink cut to 400 GB/s; the pick keeps its expert all-to-alls inside a node, so the
  // H100's NVLink only helps it. The law's global batch (7,491 sequences) is the job's.
  const double deepseek = 1e12 / (180e3 * 3600.0);
  CHECK(deepseek == Approx(1543.2).epsilon(0.001));
  const auto pick = test::own_pick("4096", {"--model", "deepseek-v3", "--only", "h100-sxm-80gb", "--max-gpus", "2048", "--tokens", "14.8T"});
  CHECK(pick["fits"] == true);
  CHECK(pick["plan"]["pp"].get<int>() > 1);
  CHECK(pick["plan"]["ep"].get<int>() >= 8);
  CHECK(pick["time"]["train_tokens_per_second_per_gpu"].get<double>() == Approx(deepseek).epsilon(0.2));
}

TEST_CASE("moe picks: on 8 to 256 B200s the own pick lands within 20 % of Megatron-Bridge's tuned GB200 run, scaled by the tensor peak", "[scale][moe]") {
  // Megatron-Bridge performance summary, 26.02 container, MXFP8, sequence 4,096: the DGX-B200 recipes run
  // micro-batch 1 (Qwen3-30B-A3B: 9,691 tokens/s per GPU), while the same Blackwell die on DGX-GB200 runs
  // micro-batch 4 at 26,084: a dropless MoE layer issues each local expert's work from the host
  // (coef::expert_host_s), and a larger micro-batch amortises it. The planner searches micro-batches, so its B200
  // pick is compared with the tuned GB200 runs at the B200's dense BF16 peak (2,250 TFLOPs, against the GB200 NVL72
  // module's 2,450: gpus.json), and must beat the untuned B200 recipe.
  struct Row {
    const char* model;
    const char* gpus;
    const char* global_batch;
    double gb200, b200_recipe;
  };
  const double peak = 2250.0 / 2450.0;
  for (const Row& row : {Row{"qwen3-30b-a3b", "8", "512", 26084, 9691}, Row{"qwen3-235b-a22b", "256", "8192", 5448, 3805},
                         Row{"deepseek-v3", "256", "4096", 3955, 2689}}) {
    INFO(row.model);
    const auto pick = test::own_pick("4096", {"--model", row.model, "--only", "b200-hgx-180gb", "--max-gpus", row.gpus, "--global-batch", row.global_batch,
                                "--tokens", "100B"});
    CHECK(pick["fits"] == true);
    const double rate = pick["time"]["train_tokens_per_second_per_gpu"].get<double>();
    CHECK(rate == Approx(row.gb200 * peak).epsilon(0.2));
    CHECK(rate > row.b200_recipe);
  }
}

TEST_CASE("moe picks: on 256 and 1024 H100s the own pick lands within 20 % of the Megatron-Core MoE report's tuned runs", "[scale][moe]") {
  // NVIDIA's Megatron-Core MoE report (arXiv:2603.07685, Tables 11 and 20, force-balanced routing): Qwen3-235B-A22B BF16
  // on 256 H100s at 2,132 tokens/s per GPU (TP 2, PP 8 x 4, EP 32, global batch 2,048) and DeepSeek-V3 blockwise FP8 on
  // 1,024 at 1,412 (TP 2, PP 4 x 4, EP 64, global batch 8,192), both with DeepEP or the all-to-all overlap. The
  // planner, asked for the fastest plan within those counts and without --ep-overlap, picks other layouts (expert
  // parallel 2 + FSDP over 256; PP 16 x EP 8 inside a node over 1,024) that land within 20 % of those rates.
  struct Row {
    const char *model, *precision, *gpus, *global_batch;
    double report;
  };
  for (const Row& row : {Row{"qwen3-235b-a22b", "bf16", "256", "2048", 2132}, Row{"deepseek-v3", "fp8", "1024", "8192", 1412}}) {
    INFO(row.model);
    const auto r = test::run({"--mode", "train", "--framework", "megatron", "--precision", row.precision, "--seq-len", "4096", "--rank-by", "time",
                              "--model", row.model, "--only", "h100-sxm-80gb", "--max-gpus", row.gpus, "--global-batch", row.global_batch, "--tokens",
                              "100B", "--format", "json"});
    REQUIRE(r.code == 0);
    const auto pick = r.json()["ranking"][0];
    CHECK(pick["fits"] == true);
    CHECK(pick["plan"]["gpus"].get<double>() == Approx(std::stod(row.gpus)));
    CHECK(pick["time"]["train_tokens_per_second_per_gpu"].get<double>() == Approx(row.report).epsilon(0.2));
  }
}

TEST_CASE("plan: a GPU count given alone is searched at that count, and the ranking, check and estimate agree", "[plan-choice][moe][cli]") {
  // Qwen3-30B-A3B FP8 pre-training on 16 H100s (two HGX nodes), global batch 1,024 (Megatron-Bridge's H100 recipe):
  // data parallel over 16 holds 30.5 B parameters with their gradients and Adam states on every GPU, hundreds of GB;
  // --gpus 16 without a layout asks for the best layout of 16 GPUs (method.md §9), and --pp 2 --ep 8 fixes one.
  const std::vector<std::string> job{"--model", "qwen3-30b-a3b", "--mode", "train", "--precision", "fp8", "--framework", "megatron", "--seq-len", "4096",
                                     "--gpu", "h100-sxm-80gb", "--global-batch", "1024", "--gpus", "16", "--format", "json"};
  auto with = [&](std::vector<std::string> head, std::vector<std::string> tail = {}) {
    head.insert(head.end(), job.begin(), job.end());
    head.insert(head.end(), tail.begin(), tail.end());
    return test::run(head);
  };
  const auto dp = with({"estimate"});
  REQUIRE(dp.code == 0);
  CHECK(dp.json()["memory"]["device_peak_bytes"].get<double>() > 16.0 * 30.53e9);  // 16 B per parameter and more
  const auto ranked = with({}, {"--rank-by", "time"});
  REQUIRE(ranked.code == 0);
  const auto row = ranked.json()["ranking"][0];
  REQUIRE(row["fits"].get<bool>());
  const auto& plan = row["plan"];
  CHECK(plan["gpus"].get<int>() == 16);
  CHECK(plan["nodes"].get<int>() == 2);
  CHECK(plan["pp"].get<int>() * plan["ep"].get<int>() * plan["tp"].get<int>() > 1);
  CHECK(row["why"].get<std::string>().find("of the 16 GPUs given") != std::string::npos);
  // check answers the same question the same way: the same layout, the same memory, exit 0.
  const auto checked = with({"check"});
  REQUIRE(checked.code == 0);
  const auto result = checked.json()["results"][0];
  CHECK(result["layout"] == row["layout"]);
  CHECK(result["device_peak_bytes"].get<double>() == Approx(row["memory"]["device_peak_bytes"].get<double>()));
  // fit maximises over the layout as given (data parallel) and says where the layouts of 16 GPUs are searched.
  const auto fitted = with({"fit", "--maximize", "batch"});
  REQUIRE(fitted.code == 0);
  CHECK(fitted.json()["as_given"].get<std::string>().find("16 GPUs as given, data parallel") != std::string::npos);
  // A layout flag fixes the layout: tensor parallel 2 with data parallel 8 is evaluated as given, and does not fit.
  const auto fixed = with({"check"}, {"--tp", "2"});
  CHECK(fixed.code == 1);
  CHECK(fixed.json()["results"][0]["layout"].get<std::string>().find("tensor parallel 2 + data parallel 8") != std::string::npos);
}

TEST_CASE("plan: where no layout of a count given alone fits, the answer names its roomiest layout and why", "[plan-choice][moe][serving][cli]") {
  // DeepSeek-V3 (671B parameters, FP8 from its checkpoint) on 8 H100s under SGLang: data parallel holds the whole model
  // on each GPU (673 GB of weights); the nearest miss is tensor parallel 8, 671e9 / 8 = 84 GB of weights per GPU,
  // more than the share of an 80 GB card SGLang gives weights and cache together.
  const auto r = test::run({"--model", "deepseek-v3", "--engine", "sglang", "--gpus", "8", "--gpu", "h100-sxm-80gb", "--requests", "10k",
                            "--input-tokens", "1000", "--output-tokens", "1000", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto row = r.json()["ranking"][0];
  CHECK_FALSE(row["fits"].get<bool>());
  CHECK(row["plan"]["tp"].get<int>() == 8);
  CHECK(row["why"].get<std::string>().find("no layout of the 8 GPUs given fits; the roomiest, 8 GPUs: tensor parallel 8") != std::string::npos);
  CHECK(row["memory"]["components"]["weights"].get<double>() == Approx(84.1e9).epsilon(0.01));
}

TEST_CASE("fit: a count given alone names the layout its numbers belong to", "[plan-choice][llamacpp][cli]") {
  // llama.cpp spreads a 70B Q4_K_M over two RTX 4090s by layers (its --split-mode layer): each card holds half the
  // weights, about 21.6 GB, where data parallel would put the whole 42 GB model on each. fit's sentence says so.
  const auto f = test::run_json({"fit", "--model", "llama-3.1-70b", "--mode", "inference", "--precision", "q4_k_m", "--framework", "llamacpp", "--gpu",
                                 "rtx-4090-24gb", "--gpus", "2", "--maximize", "seq-len"});
  const std::string given = f["as_given"].get<std::string>();
  CHECK(given.find("2 GPUs as given, pipeline parallel 2 (one stage a card)") != std::string::npos);
  CHECK(given.find("data parallel") == std::string::npos);
}

TEST_CASE("moe picks: a GPU without a price gets the plan it would get with one", "[scale][moe][value]") {
  // Best value per million tokens without a job size: every plan of one GPU shares its hourly price, so the plan
  // with the fewest GPU-seconds per token is the best value whatever that price is. Without a price every plan
  // scored alike and the first that fit was kept: DeepSeek-V3 on MI355Xs then ran 256 local experts a layer
  // without expert parallelism, at 128 tokens/s per GPU against 2,060 for the pick a price gives.
  const std::vector<std::string> job{"--model", "deepseek-v3", "--mode", "finetune", "--seq-len", "4096", "--only", "mi355x-288gb", "--format", "json"};
  auto pick = [&](std::vector<std::string> extra) {
    auto args = job;
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = test::run(args);
    REQUIRE(r.code == 0);
    return r.json()["ranking"][0];
  };
  const auto unpriced = pick({});
  const auto priced = pick({"--price", "mi355x-288gb=3"});
  REQUIRE(unpriced["fits"] == true);
  CHECK(priced["cost"]["price"]["usd_per_gpu_hour"] == 3.0);
  CHECK(unpriced["layout"] == priced["layout"]);
  CHECK(unpriced["plan"]["ep"].get<int>() > 1);
  CHECK(unpriced["time"]["train_tokens_per_second_per_gpu"] == priced["time"]["train_tokens_per_second_per_gpu"]);
}

TEST_CASE("plan: the fastest of a count given beyond 64 GPUs is searched, priced or not, and lies on its frontier", "[plan-choice][moe][cli]") {
  // --rank-by time keeps --max-gpus at 64 unless given; a count given alone (256) is the count searched, so its plans
  // compete on time. Before, none passed the 64-GPU limit and the cheapest was shown, and on a GPU without a price the
  // first plan that fit: DeepSeek-V3 on 256 MI355Xs ran FSDP over 256 at 201 tokens/s per GPU, where pipeline 16 x
  // expert parallel 8 runs over 3,000.
  const auto j = test::run_json({"--model", "deepseek-v3", "--mode", "train", "--precision", "fp8", "--framework", "megatron", "--seq-len", "4096",
                                 "--tokens", "1T", "--only", "mi355x-288gb", "--gpus", "256", "--global-batch", "4096", "--rank-by", "time"});
  const auto& row = j["ranking"][0];
  CHECK(row["plan"]["gpus"] == 256);
  CHECK(row["plan"]["ep"].get<int>() > 1);
  CHECK(row["time"]["train_tokens_per_second_per_gpu"].get<double>() > 3000);
  CHECK(row["cost"]["job_usd"].is_null());  // no price in the catalogue
  // Without a price GPU-hours stand for dollars on the frontier: its points have hours, and the chosen plan is one.
  bool on_frontier = false;
  for (const auto& p : row["frontier"]) {
    CHECK_FALSE(p["hours"].is_null());
    on_frontier = on_frontier || p["layout"] == row["layout"];
  }
  CHECK(on_frontier);
}

TEST_CASE("plan: a deadline on a GPU without a price keeps the plan of fewest GPU-hours that meets it, and says so", "[plan-choice][cli]") {
  // Every plan of one GPU shares its hourly price, so GPU-hours order them as dollars would: Llama 3.1 8B on 100B
  // tokens within 7 days on MI355Xs (no catalogue price) runs on the fewest GPU-hours of the frontier's points that
  // finish within 168 h. Before, every unpriced plan scored alike and the first that met the deadline was kept.
  const auto j = test::run_json({"--model", "llama-3.1-8b", "--mode", "train", "--precision", "bf16", "--framework", "megatron", "--tokens", "100B",
                                 "--only", "mi355x-288gb", "--deadline", "7d"});
  const auto& row = j["ranking"][0];
  const double chosen = row["cost"]["hours"]["gpu_hours"].get<double>();
  CHECK(row["cost"]["hours"]["wall"].get<double>() <= 168.0);
  double fewest = 1e300;
  for (const auto& p : row["frontier"])
    if (p["hours"].get<double>() <= 168.0) fewest = std::min(fewest, p["gpus"].get<double>() * p["hours"].get<double>());
  CHECK(chosen == Approx(fewest));
  CHECK(row["why"].get<std::string>().find("the cheapest that meets the deadline") != std::string::npos);
}
