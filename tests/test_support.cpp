// What runs where (issue: a support matrix that holds): precisions per GPU generation, a serving engine's share
// against the weights, the layouts adapters and 4-bit layers allow.
#include <catch2/catch.hpp>

#include "gpuadvise/memory.hpp"
#include "gpuadvise/ranking.hpp"
#include "helpers.hpp"

using namespace gpuadvise;
using test::wl;

TEST_CASE("support: a serving engine's share never hides weights larger than it: device is at least tensor + runtime", "[advice][serving]") {
  // Llama 3.1 70B in bf16 under vLLM on a 24 GB card: 141 GB of weights, 1.9 GB of profiled activations and
  // 1.1 GB of runtime need 144 GB on the device, not vLLM's 0.9 x 25.8 = 23.2 GB share (reported on its own).
  const auto m = test::model("llama-3.1-70b");
  const auto& g = *test::gpus().find("rtx-4090-24gb");
  const auto w = wl({{"model", "llama-3.1-70b"}, {"mode", "inference"}, {"framework", "vllm"}});
  const auto e = estimate_memory(w, m, &g);
  REQUIRE(e.vllm);
  CHECK(e.vllm->budget_bytes == Approx(0.9 * static_cast<double>(g.memory_bytes)));
  CHECK(e.device_peak == Approx(e.tensor_peak + e.runtime));
  CHECK(e.device_peak / 1e9 == Approx(144.1).margin(0.1));
}

TEST_CASE("support: fp8 before Ampere is not supported, on Ampere it runs in bf16", "[advice][support]") {
  // No kernel takes fp8 weights below compute capability 8.0 (V100 7.0, T4 7.5); an A100 (8.0) keeps fp8 weights
  // and computes in bf16; an H100 (9.0) has fp8 tensor cores.
  const auto m = test::model("llama-3.1-8b");
  const auto w = wl({{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"precision", "fp8"}});
  for (const char* id : {"v100-sxm2-32gb", "t4-16gb"}) {
    INFO(id);
    const PrecisionSupport ps = precision_support(w, *test::gpus().find(id));
    CHECK_FALSE(ps.supported);
    CHECK(ps.note.text().find("fp8 needs compute capability 8.0+") != std::string::npos);
  }
  const PrecisionSupport a100 = precision_support(w, *test::gpus().find("a100-sxm-80gb"));
  CHECK(a100.supported);
  CHECK(a100.compute_key == "bf16");
  CHECK(precision_support(w, *test::gpus().find("h100-sxm-80gb")).compute_key == "fp8");
}

TEST_CASE("support: QLoRA's 4-bit layers have no tensor parallelism, and PEFT adapters outside Megatron split by data only", "[advice][support]") {
  // A layout asked with tensor parallel is not supported, with the reason; the planner never offers one.
  const auto m = test::model("llama-3.1-70b");
  const auto& g = *test::gpus().find("rtx-4090-24gb");
  const Candidate c = evaluate(wl({{"model", "llama-3.1-70b"}, {"mode", "qlora"}, {"gpus", "2"}, {"tp", "2"}}), m, g);
  CHECK_FALSE(c.supported);
  REQUIRE_FALSE(c.notes.empty());
  CHECK(c.notes.front().text().find("no tensor parallelism") != std::string::npos);
  for (const char* mode : {"qlora", "lora"}) {
    INFO(mode);
    const Ranking r = rank_gpus(wl({{"model", "llama-3.1-70b"}, {"mode", mode}, {"tokens", "100M"}}), m, test::gpus(), RankOptions{});
    for (const Candidate& row : r.rows) {
      INFO(row.gpu->id << ": " << row.layout);
      CHECK(row.planned.tp == 1);
      CHECK(row.planned.pp == 1);
    }
  }
}

TEST_CASE("support: the one-card line names a card that runs the job alone in an ordinary computer, at the price it is costed at", "[advice][support]") {
  auto one_card = [](std::vector<std::string> args) {
    args.insert(args.end(), {"--format", "json"});
    const auto r = test::run(args);
    REQUIRE(r.code == 0);
    const auto doc = r.json();
    for (const auto& rec : doc["recommendations"])
      if (rec["label"] == "one card") return std::make_pair(rec["gpu"].get<std::string>(), rec["reason"].get<std::string>());
    return std::make_pair(std::string(), std::string());
  };
  // 70B QLoRA: a Jetson's 64 GB hold it, but an edge module is no training card.
  const auto qlora = one_card({"--model", "llama-3.1-70b", "--mode", "qlora"});
  CHECK(qlora.first.find("jetson") == std::string::npos);
  CHECK_FALSE(qlora.first.empty());
  // Ranked by time the rows spread over several GPUs, but the cheapest card that runs it alone is still named.
  const auto fast = one_card({"--model", "7B", "--mode", "lora", "--tokens", "100M", "--rank-by", "time"});
  CHECK(fast.first == "rtx-a6000-48gb");
  // Owned hardware is costed at its amortised rate, not rented.
  const auto owned = one_card({"--model", "7B", "--mode", "lora", "--owned"});
  CHECK(owned.second.find("owned (amortised)") != std::string::npos);
  CHECK(owned.second.find("to rent") == std::string::npos);
}
