// `estimate` of a serving plan of several replicas: its rates are one replica's (the JSON's keys, CONTRACT.md), and
// the text says so and gives the sum; expert-parallel ranks are named as ranks; a disaggregated plan gives none.
#include <catch2/catch.hpp>

#include "helpers.hpp"

namespace {
const std::vector<std::string> k_job{"estimate", "--mode", "inference", "--gpu", "h100-sxm-80gb", "--input-tokens", "2000", "--output-tokens", "100", "--requests", "100000"};
}

TEST_CASE("estimate names its serving rates per replica and sums them over the replicas", "[estimate][serving]") {
  const auto args = test::args(k_job, {"--model", "llama-3.1-8b", "--framework", "vllm", "--gpus", "8"});
  const auto j = test::run_json(test::args(args, {"--format", "json"}));
  const double decode = j.at("time").at("decode_tokens_per_second").get<double>();
  const double prefill = j.at("time").at("prefill_tokens_per_second").get<double>();
  const auto text = test::run(args);
  REQUIRE(text.code == 0);
  CHECK(test::says({text.out}, fmt::format("decode: {:.1f} tokens/s per replica, {:.0f} in all over 8 replicas", decode, 8 * decode)));
  CHECK(test::says({text.out}, fmt::format("prefill: {:.0f} tokens/s per replica, {:.0f} in all over 8 replicas", prefill, 8 * prefill)));
  // One GPU is one replica: no sum.
  const auto one = test::run(test::args(k_job, {"--model", "llama-3.1-8b", "--framework", "vllm"}));
  CHECK(test::says({one.out}, fmt::format("decode: {:.1f} tokens/s (", decode)));
}

TEST_CASE("expert-parallel ranks are summed as ranks, a disaggregated plan's pools are left to its note", "[estimate][serving]") {
  const auto ep = test::run(test::args(k_job, {"--model", "deepseek-v3", "--framework", "sglang", "--gpus", "64", "--ep", "64"}));
  REQUIRE(ep.code == 0);
  CHECK(test::says({ep.out}, "in all over 64 ranks"));
  const auto dis = test::run(test::args(k_job, {"--model", "llama-3.1-70b", "--precision", "fp8", "--framework", "vllm", "--gpus", "8", "--tp", "2", "--disaggregate"}));
  REQUIRE(dis.code == 0);
  CHECK_FALSE(test::says({dis.out}, "in all over"));
  CHECK(test::says({dis.out}, "disaggregated: 3 prefill and 1 decode replicas"));
}
