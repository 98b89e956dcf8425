// The recommendation lines against the orders they name (src/core/ranking.cpp, method.md §9): what the fastest line
// under best value promises, --rank-by time delivers.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "helpers.hpp"

TEST_CASE("recommendations: the fastest line under best value names the plan --rank-by time picks", "[plan-choice]") {
  // 1B on 100B tokens within 64 GPUs: a B300 plan of 16 GPUs (15.5 h) is already within a day, but larger counts still
  // cost within the band, so the search goes on and the fastest line names 64 B300s, as --rank-by time does.
  const std::vector<std::string> job{"--model", "1B", "--mode", "train", "--tokens", "100B", "--max-gpus", "64", "--format", "json"};
  auto fastest = [](const nlohmann::json& j) {
    for (const auto& r : j["recommendations"])
      if (r["label"] == "fastest") return r["gpu"].get<std::string>() + " " + r["reason"].get<std::string>().substr(0, 30);
    return std::string();
  };
  std::vector<std::string> by_time = job;
  by_time.insert(by_time.end(), {"--rank-by", "time"});
  CHECK(fastest(test::run_json(job)) == fastest(test::run_json(by_time)));
  // Past the 64 GPUs --rank-by time searches by default, the line names the --max-gpus that reaches its plan.
  const auto big = test::run_json({"--model", "7B", "--mode", "train", "--tokens", "1T", "--only", "h100-sxm-80gb", "--format", "json"});
  const auto reached = test::run_json({"--model", "7B", "--mode", "train", "--tokens", "1T", "--only", "h100-sxm-80gb", "--rank-by", "time", "--max-gpus",
                                       "4096", "--format", "json"});
  CHECK(big["recommendations"].dump().find("--rank-by time --max-gpus 4096 picks the fastest") != std::string::npos);
  CHECK(fastest(big) == fastest(reached));
}
