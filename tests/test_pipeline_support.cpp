// Which frameworks run pipeline-parallel training (method.md §9): Megatron-LM (NeMo, Megatron-Bridge) and torchtitan.
// Hugging Face's Trainer and Accelerate, LitGPT, torchtune and llm.q have none: named, they cannot run such a layout;
// left to the default framework, the planner's pipeline layout says what runs it.
#include <catch2/catch.hpp>

#include <string>

#include "helpers.hpp"

TEST_CASE("support: pipeline-parallel training runs under Megatron or torchtitan, not under a named framework without it", "[support][plan]") {
  auto run = [](const char* framework) {
    std::vector<std::string> args{"estimate", "--model", "llama-3.1-70b", "--mode", "train", "--gpu", "h100-sxm-80gb", "--gpus", "16", "--tp", "8", "--pp", "2"};
    if (framework) args.insert(args.end(), {"--framework", framework});
    return test::run_json(args);
  };
  for (const char* fw : {"hf", "litgpt", "torchtune", "llmq"}) {
    INFO(fw);
    const auto r = run(fw);
    CHECK(r["fits"] == false);
    CHECK(test::says(r["notes"], "has no pipeline-parallel training"));
  }
  for (const char* fw : {"megatron", "torchtitan"}) {
    INFO(fw);
    CHECK_FALSE(test::says(run(fw)["notes"], "pipeline-parallel training"));
  }
  // The default framework keeps the layout and says which frameworks run it.
  CHECK(test::says(run(nullptr)["notes"], "pipeline stages are Megatron-LM/NeMo's or torchtitan's"));
}

TEST_CASE("support: the ranking under a named framework without pipeline stages plans without them", "[support][plan]") {
  // 8B pre-training on 1,024 L4s within two days: the default framework's pick uses tensor and pipeline parallel (a
  // layout Megatron runs); --framework hf plans data-parallel layouts (ZeRO) only.
  const std::vector<std::string> job{"--model", "llama-3.1-8b", "--mode", "train", "--tokens", "100B", "--deadline", "2d", "--only", "l4-24gb"};
  auto pick = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = job;
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_json(args)["ranking"][0];
  };
  const auto given = pick({"--framework", "hf"});
  REQUIRE(given["fits"] == true);
  CHECK(given["plan"]["pp"].get<int>() == 1);
  const auto defaulted = pick({});
  REQUIRE(defaulted["fits"] == true);
  CHECK(defaulted["plan"]["pp"].get<int>() > 1);
  CHECK(test::says(defaulted["notes"], "pipeline stages are Megatron-LM/NeMo's or torchtitan's"));
}
