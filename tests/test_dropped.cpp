// GPU types a --budget or --deadline drops: each is told with its closest plan (layout, time, cost) in the table,
// the markdown and the JSON, the nearest first, and that plan is the one the ranking gives the same GPU unfiltered.
#include <catch2/catch.hpp>

#include "helpers.hpp"

namespace {
const std::vector<std::string> job = {"--model", "gpt2", "--mode", "train", "--tokens", "5B", "--catalog", test::fixture("catalog_two_gpus.json")};
std::vector<std::string> with(const std::vector<std::string>& extra) { return test::args(job, extra); }
}  // namespace

TEST_CASE("dropped by --budget: the cheapest plan of each GPU, as the cost order ranks it", "[dropped][cost]") {
  const auto by_cost = test::run(with({"--format", "json", "--rank-by", "cost"}));
  REQUIRE(by_cost.code == 0);
  const auto budget = test::run(with({"--format", "json", "--budget", "1"}));
  REQUIRE(budget.code == 0);
  const auto ranked = by_cost.json()["ranking"], dropped = budget.json()["dropped"];
  REQUIRE(ranked.size() == 2);
  REQUIRE(dropped.size() == 2);
  for (const auto& d : dropped) {
    const auto row = d["gpu"] == ranked[0]["gpu"] ? ranked[0] : ranked[1];
    REQUIRE(row["gpu"] == d["gpu"]);
    CHECK(d["gpus"] == row["plan"]["gpus"]);
    CHECK(d["layout"] == row["layout"]);
    CHECK(d["job_usd"].get<double>() == Approx(row["cost"]["job_usd"].get<double>()));
    CHECK(d["wall_hours"].get<double>() == Approx(row["cost"]["hours"]["wall"].get<double>()));
    CHECK(d["job_usd"].get<double>() > 1.0);  // over the budget, or it would not be dropped
  }
  // The text names each plan, the cheapest first.
  const auto text = test::run(with({"--budget", "1"}));
  REQUIRE(text.code == 0);
  const auto fast = text.out.find("fast-gpu: the cheapest plan (" + ranked[0]["layout"].get<std::string>() + ") costs $");
  const auto slow = text.out.find("slow-gpu: the cheapest plan (");
  REQUIRE(fast != std::string::npos);
  REQUIRE(slow != std::string::npos);
  CHECK((ranked[0]["gpu"] == "fast-gpu") == (fast < slow));
  const auto md = test::run(with({"--budget", "1", "--format", "markdown"}));
  CHECK(md.out.find("`fast-gpu`: the cheapest plan (") != std::string::npos);
}

TEST_CASE("dropped by --deadline beside rows that meet it: a line each, the fastest first, in text and markdown", "[dropped][cost]") {
  // The fast GPU finishes 5B tokens within 30 h on one GPU; the slow one takes 25 h on one and is timed at its fastest.
  const auto by_time = test::run(with({"--format", "json", "--rank-by", "time", "--max-gpus", "1"}));
  REQUIRE(by_time.code == 0);
  double slow_h = 0, fast_h = 0;
  const auto rows = by_time.json()["ranking"];
  for (const auto& row : rows) (row["gpu"] == "slow-gpu" ? slow_h : fast_h) = row["cost"]["hours"]["wall"].get<double>();
  REQUIRE(fast_h < slow_h);
  const std::string deadline = std::to_string(static_cast<int>((fast_h + slow_h) / 2.0)) + "h";
  const auto j = test::run(with({"--format", "json", "--max-gpus", "1", "--deadline", deadline}));
  REQUIRE(j.code == 0);
  REQUIRE(j.json()["dropped"].size() == 1);
  const auto d = j.json()["dropped"][0];
  CHECK(d["gpu"] == "slow-gpu");
  CHECK(d["gpus"] == 1);
  CHECK(d["wall_hours"].get<double>() == Approx(slow_h));
  const auto text = test::run(with({"--max-gpus", "1", "--deadline", deadline}));
  CHECK(text.out.find("Dropped by --deadline, the fastest first:\n  slow-gpu: the fastest plan within one GPU (single GPU") != std::string::npos);
  const auto md = test::run(with({"--max-gpus", "1", "--deadline", deadline, "--format", "markdown"}));
  CHECK(md.out.find("- `slow-gpu` (dropped): the fastest plan within one GPU") != std::string::npos);
}

TEST_CASE("nothing fits within the GPUs searched: the row and its reason are the roomiest layout of the most GPUs", "[dropped][fit]") {
  // Llama-shaped 70B in bf16 on RTX 4090s, at most 4: one GPU would need 140 GB of weights; tensor parallel 4
  // splits them to 70e9 x 2 / 4 = 35 GB a GPU, still over the card's 25.8 GB usable. The answer says so, not 146 GB.
  const auto j = test::run_json({"--model", "70B", "--mode", "inference", "--only", "rtx-4090-24gb", "--max-gpus", "4", "--format", "json"});
  const auto& row = j["ranking"][0];
  CHECK_FALSE(row["fits"].get<bool>());
  CHECK(row["plan"]["gpus"] == 4);
  CHECK(row["plan"]["tp"] == 4);
  const std::string why = row["why"].get<std::string>();
  CHECK(why.find("does not fit within 4 GPUs") != std::string::npos);
  CHECK(why.find("the roomiest, 4 GPUs: tensor parallel 4") != std::string::npos);
  const double peak = row["memory"]["device_peak_bytes"].get<double>();
  CHECK(peak > 70e9 * 2.0 / 4.0);
  CHECK(peak < 70e9 * 2.0 / 4.0 * 1.15);
  CHECK(row["time"]["decode_tokens_per_second"].is_null());  // a row that does not fit has no speed
}

TEST_CASE("nothing fits in training: the roomiest layout is assessed with the most frugal savers the search tries", "[dropped][fit]") {
  // Llama 3.1 70B fully fine-tuned in bf16 with AdamW on at most 8 RTX 4090s: its model states alone are
  // 16 B x 70.55e9 / 8 = 141.1 GB a GPU however they split (method.md §3.1). The roomiest layout is named with
  // full activation checkpointing and micro-batch 1, the savers the search would add, and needs less than tensor
  // parallel 8 without them.
  const std::vector<std::string> job{"--model", "llama-3.1-70b", "--mode", "finetune", "--precision", "bf16"};
  const auto j = test::run_json(test::args(job, {"--only", "rtx-4090-24gb", "--max-gpus", "8"}));
  const auto& row = j["ranking"][0];
  CHECK_FALSE(row["fits"].get<bool>());
  CHECK(row["plan"]["gpus"] == 8);
  const std::string why = row["why"].get<std::string>();
  CHECK(why.find("the roomiest, 8 GPUs: ") != std::string::npos);
  CHECK(why.find("full checkpointing, micro-batch 1 x ") != std::string::npos);
  const double peak = row["memory"]["device_peak_bytes"].get<double>();
  CHECK(peak > 16.0 * 70.55e9 / 8.0);
  const auto bare = test::run_json(test::args({"estimate"}, test::args(job, {"--gpu", "rtx-4090-24gb", "--gpus", "8", "--tp", "8"})));
  CHECK(peak < bare["memory"]["device_peak_bytes"].get<double>());
  CHECK(row["time"]["train_tokens_per_second_per_gpu"].is_null());
}

TEST_CASE("dropped: a miss that rounds to the deadline is given in hours, so the reason never reads 7.0 d over 7.0 d", "[dropped][cli]") {
  // Qwen3-30B-A3B on 106.5B tokens within 7 days on MI350Xs (one node of 8: no network between nodes in the catalogue):
  // its fastest plan takes a little over 168 h.
  const auto j = test::run_json({"--model", "qwen3-30b-a3b", "--mode", "train", "--precision", "bf16", "--framework", "megatron", "--tokens", "106.5B",
                                 "--only", "mi350x-288gb", "--deadline", "7d"});
  REQUIRE(j["dropped"].size() == 1);
  const std::string reason = j["dropped"][0]["reason"].get<std::string>();
  const double hours = j["dropped"][0]["wall_hours"].get<double>();
  REQUIRE(hours > 168.0);
  REQUIRE(hours < 170.0);
  CHECK(reason.find(fmt::format("takes {:.2f} h for an unknown cost, over the 168.00 h deadline", hours)) != std::string::npos);
  CHECK(reason.find("7.0 d") == std::string::npos);
}
