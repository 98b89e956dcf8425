// A latency target Hugging Face generate misses: the ranking says what the same job does under vLLM, as
// `--framework vllm` ranks it (the two answers agree), and says nothing where no target is missed.
#include <catch2/catch.hpp>

#include "helpers.hpp"

namespace {
const std::vector<std::string> k_job{"--model", "llama-3.1-405b", "--mode", "inference", "--precision", "fp8", "--max-tpot-ms", "50", "--format", "json"};

std::string engine_note(const nlohmann::json& j) {
  for (const auto& n : j.at("notes"))
    if (n.get<std::string>().rfind("Hugging Face generate misses", 0) == 0) return n.get<std::string>();
  return "";
}
}  // namespace

TEST_CASE("a latency target Hugging Face misses names the vLLM plans that meet it, as --framework vllm ranks them", "[rank][engine]") {
  const auto hf = test::run(k_job);
  REQUIRE(hf.code == 0);
  const auto hf_json = hf.json();
  const std::string note = engine_note(hf_json);
  REQUIRE_FALSE(note.empty());
  // 405B at one sequence: the host launches 126 layers' kernels per token under generate; nothing meets 50 ms.
  CHECK(hf_json.at("fitting_gpus").get<int>() == 0);
  const auto vllm = test::run(test::args(k_job, {"--framework", "vllm"}));
  REQUIRE(vllm.code == 0);
  const auto v = vllm.json();
  const int met = v.at("fitting_gpus").get<int>();
  REQUIRE(met > 0);
  const auto& first = v.at("ranking").at(0);
  CHECK(test::says({note}, fmt::format("{} GPU types meet them, the first in this order {} ({})", met, first.at("gpu").get<std::string>(),
                                       first.at("layout").get<std::string>())));
  int missed = 0;
  for (const auto& row : hf_json.at("ranking"))
    if (!row.at("fits").get<bool>() && test::says({row.at("why").get<std::string>()}, "latency target")) ++missed;
  CHECK(test::says({note}, fmt::format("misses the latency targets on {} GPU types", missed)));
  // The vLLM ranking itself, and a Hugging Face job without a target, say nothing of it.
  CHECK(engine_note(v).empty());
  auto no_target = k_job;
  no_target.erase(no_target.begin() + 6, no_target.begin() + 8);
  CHECK(engine_note(test::run(no_target).json()).empty());
}

TEST_CASE("the markdown ranking carries the ranking's notes", "[rank][engine][markdown]") {
  auto md = k_job;
  md.back() = "markdown";
  const auto r = test::run(md);
  REQUIRE(r.code == 0);
  CHECK(test::says({r.out}, "**Notes:**"));
  CHECK(test::says({r.out}, "- Hugging Face generate misses the latency targets"));
}
