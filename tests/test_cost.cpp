// Time and cost per completed job (docs/method.md §8, §10).
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "gpuadvise/cost.hpp"
#include "gpuadvise/ranking.hpp"
#include "helpers.hpp"

using namespace gpuadvise;
using test::wl;

namespace {
GpuCatalog two_gpus() {
  std::ifstream in(test::fixture("catalog_two_gpus.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_gpu_catalog(ss.str(), "catalog_two_gpus.json");
}
}  // namespace

TEST_CASE("cost: the cheaper completed job wins, not the cheaper hour (6 units vs 4)", "[cost]") {
  // The guide's example: 1 unit/h for 6 h costs 6 units and loses to 2 units/h for 2 h (4 units).
  // Two GPUs alike except their peak (100 vs 300 TFLOPS) and price (1 vs 2 per hour); the job is sized
  // so that the slow one needs exactly 6 hours.
  const GpuCatalog cat = two_gpus();
  const ModelSpec m = test::model("gpt2");
  const double flops = train_flops_per_token(wl({{"mode", "train"}}), m, 1024);
  const double tokens = 6.0 * 3600.0 * 100e12 * 0.5 / flops;
  const Workload w = wl({{"mode", "train"}, {"model", "gpt2"}, {"mfu", "0.5"}, {"tokens", std::to_string(tokens)},
                         {"seq_len", "1024"}, {"checkpoint_every", "1h"}});
  const Ranking r = rank_gpus(w, m, cat, RankOptions{});
  REQUIRE(r.rows.size() == 2);
  CHECK(r.order == RankBy::value);  // value with a job size is the cost of the completed job
  CHECK(r.rows[0].gpu->id == "fast-gpu");
  CHECK(r.rows[0].cost.compute_hours == Approx(2.0).epsilon(0.001));
  CHECK(r.rows[1].cost.compute_hours == Approx(6.0).epsilon(0.001));
  // Each job also starts once (15 minutes on its GPU, method.md §10): 2.25 h x 2 = 4.5 against 6.25 h x 1 = 6.25;
  // checkpoint writes of a 124M model and the expected rework are small but counted.
  CHECK(r.rows[0].cost.start_hours == Approx(0.25));
  CHECK(*r.rows[0].cost.total_usd == Approx(4.5).epsilon(0.01));
  CHECK(*r.rows[1].cost.total_usd == Approx(6.25).epsilon(0.01));
  CHECK(*r.rows[0].cost.total_usd > 4.5);
}

TEST_CASE("cost: setup hours, storage and egress are on the bill", "[cost]") {
  const GpuCatalog cat = two_gpus();
  const ModelSpec m = test::model("gpt2");
  const Workload w = wl({{"mode", "train"}, {"model", "gpt2"}, {"tokens", "1B"}, {"setup_hours", "0.5"},
                         {"storage_usd", "3"}, {"egress_usd", "2"}});
  const Candidate c = evaluate(w, m, *cat.find("slow-gpu"));
  REQUIRE(c.cost.total_usd);
  CHECK(*c.cost.total_usd == Approx(*c.cost.compute_usd + (0.25 + 0.5) * 1.0 + 3 + 2 + (c.cost.checkpoint_hours + c.cost.rework_hours) * 1.0));
}

TEST_CASE("cost: interruptions grow with GPU count and duration (Llama 3 rate)", "[cost]") {
  // 419 interruptions in 54 days on 16,384 GPUs: 1.97e-5 per GPU-hour, so 64 GPUs for 100 h expect 0.126.
  CHECK(k_interruptions_per_gpu_hour * 64 * 100 == Approx(0.1263).epsilon(0.01));
  const GpuCatalog cat = two_gpus();
  const ModelSpec m = test::model("llama-2-7b");
  const auto one = evaluate(wl({{"mode", "train"}, {"model", "llama-2-7b"}, {"tokens", "10B"}, {"gpus", "8"}, {"sharding", "zero3"}}), m,
                            *cat.find("fast-gpu"));
  CHECK(one.cost.expected_interruptions > 0);
  CHECK(one.cost.rework_hours == Approx(one.cost.expected_interruptions * (0.5 + k_restart_hours)));
}

TEST_CASE("cost: owned hardware amortises the purchase and pays the energy", "[cost]") {
  const GpuCatalog cat = two_gpus();
  const ModelSpec m = test::model("gpt2");
  CostOptions o;
  o.purchase_overrides["slow-gpu"] = 26280.0;  // $26,280 over 3 years at 50 % use = $2 per useful hour
  const Workload w = wl({{"mode", "train"}, {"model", "gpt2"}, {"tokens", "1B"}, {"owned", "true"}, {"power_price", "0.2"}});
  const Candidate c = evaluate(w, m, *cat.find("slow-gpu"), o);
  REQUIRE(c.cost.total_usd);
  CHECK(*c.cost.price.usd_per_gpu_hour == Approx(2.0));
  CHECK(*c.cost.energy_usd == Approx(0.7 * c.cost.gpu_hours * 0.2));  // 700 W board power
}

TEST_CASE("cost: inference reports throughput, TTFT, TPOT and cost per million output tokens", "[cost][cli]") {
  auto r = test::run({"--model", "llama-3.1-8b", "--mode", "inference", "--precision", "bf16", "--requests", "1M", "--input-tokens", "512",
                      "--output-tokens", "256", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = r.json();
  const auto& top = j["ranking"][0];
  CHECK(top["time"]["decode_tokens_per_second"].get<double>() > 0);
  CHECK(top["time"]["ttft_seconds"].get<double>() > 0);
  CHECK(top["time"]["tpot_seconds"].get<double>() > 0);
  CHECK(top["cost"]["usd_per_million_output_tokens"].get<double>() > 0);
  CHECK(top["cost"]["job_usd"].get<double>() ==
        Approx(top["cost"]["usd_per_million_output_tokens"].get<double>() * 256.0));
  CHECK(j["workload"]["seq_len"] == 768);
}

TEST_CASE("cost: training jobs rank by cost with hours, dollars and the price used", "[cost][cli]") {
  auto r = test::run({"--model", "llama-3.1-8b", "--mode", "lora", "--precision", "bf16", "--tokens", "100M", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = r.json();
  CHECK(j["order"] == "value");
  const auto& top = j["ranking"][0];
  CHECK(top["time"]["job_seconds"].get<double>() > 0);
  CHECK(top["cost"]["job_usd"].get<double>() > 0);
  CHECK(top["cost"]["price"]["provider"].get<std::string>().size() > 0);
  CHECK(top["cost"]["price"].contains("date_seen"));
  // Ranked by cost: non-decreasing among the GPUs that fit and have a price.
  double last = 0;
  for (const auto& row : j["ranking"]) {
    if (!row["fits"].get<bool>() || row["cost"]["job_usd"].is_null()) continue;
    CHECK(row["cost"]["job_usd"].get<double>() >= last);
    last = row["cost"]["job_usd"].get<double>();
  }
}

TEST_CASE("cost: --price, --deadline and --budget", "[cost][cli]") {
  auto p = test::run({"--model", "gpt2", "--mode", "train", "--tokens", "1B", "--catalog", test::fixture("catalog_two_gpus.json"),
                      "--price", "slow-gpu=0.01", "--format", "json"});
  REQUIRE(p.code == 0);
  CHECK(p.json()["ranking"][0]["gpu"] == "slow-gpu");
  CHECK(p.json()["ranking"][0]["cost"]["price"]["basis"] == "override");
  auto d = test::run({"--model", "gpt2", "--mode", "train", "--tokens", "5B", "--catalog", test::fixture("catalog_two_gpus.json"),
                      "--deadline", "1m", "--format", "json"});
  REQUIRE(d.code == 0);
  CHECK(d.json()["ranking"].empty());
  CHECK(d.json()["dropped"].size() == 2);
  auto bad = test::run({"--model", "gpt2", "--price", "slow-gpu"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--price: expected ID=USD") != std::string::npos);
}

TEST_CASE("time: several PCIe cards pay for communication that NVLink hides", "[time]") {
  const ModelSpec m = test::model("llama-2-7b");
  const Workload w = wl({{"mode", "finetune"}, {"model", "llama-2-7b"}, {"gpus", "8"}, {"sharding", "zero3"}, {"seq_len", "2048"}});
  const auto pcie = evaluate(w, m, *test::gpus().find("rtx-4090-24gb"));
  const auto nvl = evaluate(w, m, *test::gpus().find("h100-sxm-80gb"));
  CHECK(pcie.time.bound == "communication");
  CHECK(nvl.time.bound == "compute");
}

TEST_CASE("cost: --price-policy median prices each GPU at the middle of its offers, or between the two middle ones", "[cost]") {
  // The MI300X's three offers: TensorWave $1.50, RunPod (secure) $2.39, DigitalOcean $2.59: the median is $2.39, and
  // the README's Llama 3.1 8B LoRA on 100M tokens (half an hour of setup) costs $8.15 at it against $5.11 at the cheapest.
  // The RTX 4090's two offers, $0.34 and $0.74, meet halfway: $0.54, both named.
  auto row = [](const std::string& gpu, const std::string& policy) {
    std::vector<std::string> args{"--model", "llama-3.1-8b", "--mode", "lora", "--precision", "bf16", "--tokens", "100M", "--setup-hours", "0.5", "--only", gpu};
    if (!policy.empty()) args.insert(args.end(), {"--price-policy", policy});
    return test::run_json(args)["ranking"][0];
  };
  const auto cheap = row("mi300x-192gb", ""), median = row("mi300x-192gb", "median");
  CHECK(cheap["cost"]["price"]["usd_per_gpu_hour"].get<double>() == Approx(1.50));
  CHECK(cheap["cost"]["price"]["policy"] == "cheapest");
  CHECK(median["cost"]["price"]["usd_per_gpu_hour"].get<double>() == Approx(2.39));
  CHECK(median["cost"]["price"]["policy"] == "median");
  CHECK(median["cost"]["price"]["provider"] == "RunPod (secure)");
  // The same plan and hours, priced at the other offer.
  CHECK(median["cost"]["hours"]["wall"].get<double>() == Approx(cheap["cost"]["hours"]["wall"].get<double>()));
  CHECK(median["cost"]["job_usd"].get<double>() == Approx(cheap["cost"]["job_usd"].get<double>() * 2.39 / 1.50));
  CHECK(cheap["cost"]["job_usd"].get<double>() == Approx(5.11).margin(0.005));
  CHECK(median["cost"]["job_usd"].get<double>() == Approx(8.15).margin(0.005));
  const auto pair = row("rtx-4090-24gb", "median");
  CHECK(pair["cost"]["price"]["usd_per_gpu_hour"].get<double>() == Approx((0.34 + 0.74) / 2));
  CHECK(pair["cost"]["price"]["provider"].get<std::string>().find("median of 2 offers") == 0);
  const auto typo = test::run({"--model", "7B", "--price-policy", "medain"});
  CHECK(typo.code == 2);
  CHECK(typo.err.find("--price-policy: unknown value 'medain' (valid: cheapest, median)") != std::string::npos);
}

TEST_CASE("cost: the table's footer states the price policy asked, and says so when no row has a price", "[cost][cli]") {
  // Gaudi 3 and the 96 GB H100 have no offer in the catalogue: the footer names no policy it did not use.
  const auto unpriced = test::run({"--model", "llama-3.1-8b", "--mode", "lora", "--tokens", "100M", "--only", "gaudi3-128gb,h100-sxm-96gb", "--price-policy", "median"});
  REQUIRE(unpriced.code == 0);
  CHECK(unpriced.out.find("No row has a price: the catalogue has none for these GPUs (--price ID=USD sets one, per GPU-hour).") != std::string::npos);
  CHECK(unpriced.out.find("Prices are the") == std::string::npos);
  const auto median = test::run({"--model", "llama-3.1-8b", "--mode", "lora", "--tokens", "100M", "--only", "gaudi3-128gb,mi300x-192gb", "--price-policy", "median"});
  REQUIRE(median.code == 0);
  CHECK(median.out.find("Prices are the median of each GPU's indicative on-demand offers") != std::string::npos);
}

TEST_CASE("cost: owned hardware without a purchase price names --purchase-price, not --price", "[cost][owned]") {
  // Under --owned the price is the purchase amortised: an H100 with no purchase price in the catalogue was told to
  // set --price, which --owned does not read.
  const auto r = test::run({"--model", "llama-3.1-8b", "--mode", "lora", "--tokens", "100M", "--owned", "--only", "rtx-4090-24gb,h100-sxm-80gb"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("h100-sxm-80gb: not ranked by value: no purchase price (--purchase-price ID=USD sets one)") != std::string::npos);
  const auto rented = test::run({"--model", "llama-3.1-8b", "--mode", "lora", "--tokens", "100M", "--only", "rtx-4090-24gb,h100-sxm-96gb"});
  CHECK(rented.out.find("h100-sxm-96gb: not ranked by value: no price (--price ID=USD sets one)") != std::string::npos);
}

TEST_CASE("cost: the footer of an owned ranking speaks of purchase prices, not of offers to rent", "[cost][owned]") {
  const auto owned = test::run({"--model", "yolov8-n", "--mode", "inference", "--streams", "4", "--owned", "--amortize-years", "4", "--only", "rtx-4090-24gb"});
  REQUIRE(owned.code == 0);
  CHECK(owned.out.find("Costs are owned hardware: each GPU's purchase price (the catalogue's, or --purchase-price) over 4 years at 50% use, plus energy at "
                       "$0.15/kWh.") != std::string::npos);
  CHECK(owned.out.find("on-demand offers") == std::string::npos);
  const auto unpriced = test::run({"--model", "yolov8-n", "--mode", "inference", "--streams", "4", "--owned", "--only", "h100-sxm-80gb"});
  CHECK(unpriced.out.find("no purchase price for these GPUs (--purchase-price ID=USD sets one)") != std::string::npos);
  const auto rented = test::run({"--model", "yolov8-n", "--mode", "inference", "--streams", "4", "--only", "rtx-4090-24gb"});
  CHECK(rented.out.find("indicative on-demand offers") != std::string::npos);
}

TEST_CASE("cost: a dollar amount below a cent keeps two significant digits, so a cheap unit does not read as free", "[cost][format]") {
  CHECK(usd_text(123.4) == "$123");
  CHECK(usd_text(5.678) == "$5.68");
  CHECK(usd_text(0.0123) == "$0.012");
  CHECK(usd_text(0.000244) == "$0.00024");  // 1 - floor(log10 0.000244) = 1 - (-4) = 5 decimals
  CHECK(usd_text(0.0) == "$0.000");
  // YOLOv8-s training at batch 1 on an RTX 3090: $0.22 an hour over about 246 images/s is $0.00025 per thousand
  // images, which the ranking printed as "$0.000 per k images".
  const auto r = test::run({"--model", "yolov8-s", "--mode", "train", "--only", "rtx-3090-24gb"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("$0.000 per k images") == std::string::npos);
  CHECK(r.out.find("$0.00025 per k images") != std::string::npos);
}
