// llama.cpp's layouts (src/core/layout_space.hpp, method.md §8.3): a server splits a model over the GPUs of one
// machine by layers (its row split only when --tp asks), and a job of requests runs servers side by side.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "helpers.hpp"

TEST_CASE("llama.cpp: a job of requests runs servers side by side, each on one machine, never tensor parallel unless asked", "[llamacpp][plan-choice]") {
  // An 8B Q4_K_M served to 1,000 requests on at most 128 L4s (one to eight a machine): every plan the search keeps is
  // servers of k GPUs each (layer split, pipeline k) or single-GPU replicas, never a tensor-parallel layout that
  // --split-mode layer would not run.
  const auto j = test::run_json({"--model", "8B", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m", "--input-tokens", "500",
                                 "--output-tokens", "500", "--requests", "1000", "--only", "l4-24gb", "--rank-by", "time", "--max-gpus", "128", "--format", "json"});
  const auto& r = j["ranking"][0];
  REQUIRE(r["fits"] == true);
  CHECK(r["plan"]["tp"] == 1);
  for (const auto& f : j["ranking"][0]["frontier"]) CHECK(f["layout"].get<std::string>().find("tensor parallel") == std::string::npos);
  // --tp asks for the row split: the server runs --split-mode row, as the plan is timed.
  const auto row = test::run({"estimate", "--model", "8B", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m", "--gpu",
                              "l4-24gb", "--gpus", "2", "--tp", "2", "--hints"});
  REQUIRE(row.code == 0);
  CHECK(row.out.find("--split-mode row") != std::string::npos);
  const auto layer = test::run({"estimate", "--model", "8B", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m", "--gpu",
                                "l4-24gb", "--gpus", "2", "--hints"});
  CHECK(layer.out.find("--split-mode layer") != std::string::npos);
}
