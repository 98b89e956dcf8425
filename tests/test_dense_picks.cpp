// Dense pre-training against Megatron-Bridge's published runs (tests/data/dense_train_time.jsonl, 25.11 container):
// the estimate at the table's layout, and the planner's own pick at the table's GPU count and global batch.
#include <catch2/catch.hpp>

#include "helpers.hpp"

TEST_CASE("dense: Megatron-Bridge's Llama 3 rows within 15 % on H100, B200 and GB200 (two fitted, the rest held out), the GB300 slow by up to 25 %", "[scale][heldout]") {
  // 25.11 container, FP8 with current scaling, sequence 8,192: Llama 3 8B on 8 GPUs (GB300 37,556, GB200 31,508, B200
  // 30,624, H100 14,451 tokens/s per GPU), Llama 3 70B on 64 H100s (1,602) and, with Megatron-FSDP and its CPU offload
  // of activations, on 64 GB300s (4,520) and GB200s (4,312), Llama 3.1 405B on 256 GB300s (999), 256
  // GB200s (813), 128 B200s (661) and 1,024 H100s (292). The catalogue gives the GB300 the GB200's dense FP8 peak
  // (NVIDIA exemplar-performance, 4,900 TFLOP/s for both), yet the same 8B layout runs 1.19x faster on it: the
  // estimate cannot see what does it (clocks under a 1,400 W budget against 1,200 W, twice Blackwell Ultra's
  // exponentials), and says the GB300 is its GB200 with more memory.
  std::map<std::string, double> err;
  // The 8B rows on B200 and H100 are fitted: the Blackwell family's matmul share is solved on their ratio (efficiency.cpp).
  for (const auto& [c, e] : test::data_case_errors("dense_train_time.jsonl")) {
    const std::string id = c["id"].get<std::string>();
    CHECK(c["fitted"].get<bool>() == (id == "mbridge_2511_llama3_8b_8xb200" || id == "mbridge_2511_llama3_8b_8xh100"));
    err[id] = e;
  }
  REQUIRE(err.size() == 17);
  for (const auto& [id, e] : err) {
    INFO(id);
    if (id.find("gb300") != std::string::npos) {
      CHECK(e < -0.1);
      CHECK(e > -0.25);
    } else {
      CHECK(std::abs(e) <= 0.15);
    }
  }
}

TEST_CASE("dense picks: the own pick for Llama 3.1 405B on 256 GB200s and 128 B200s lands within 20 % of the recipe", "[scale][plan-choice]") {
  // Megatron-Bridge 25.11: 405B FP8 on 256 GB200s at 813 tokens/s per GPU (TP 4, PP 16 x 4, global batch 1,536) and on
  // 128 B200s at 661 (TP 4, PP 8 x 8, CP 2, global batch 64). The pick searches the layout itself at the recipe's GPU
  // count and global batch (1,536 on both: the B200 recipe's 64 sequences leave a 32-stage pipeline one micro-batch).
  struct Row {
    const char* gpu;
    const char* gpus;
    double measured;
  };
  for (const Row& row : {Row{"gb200-nvl72-186gb", "256", 813}, Row{"b200-hgx-180gb", "128", 661}}) {
    INFO(row.gpu);
    const auto pick = test::own_pick("8192", {"--model", "llama-3.1-405b", "--only", row.gpu, "--max-gpus", row.gpus, "--global-batch", "1536", "--tokens", "1T"});
    CHECK(pick["fits"] == true);
    CHECK(pick["plan"]["gpus"].get<int>() == std::stoi(row.gpus));
    CHECK(pick["plan"]["pp"].get<int>() > 1);
    CHECK(pick["time"]["train_tokens_per_second_per_gpu"].get<double>() == Approx(row.measured).epsilon(0.2));
  }
}
