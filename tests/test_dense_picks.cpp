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

TEST_CASE("dense picks: the own pick for Llama 3.1 405B in BF16 on 8,192 and 16,384 H100s runs at the Llama 3 paper's model FLOP/s", "[scale][plan-choice][heldout]") {
  // The Llama 3 paper (arXiv:2407.21783, Table 4) trained 405B in BF16 on H100s at 16M tokens a step: at 8,192 tokens
  // on 8,192 GPUs (TP 8, CP 1, PP 16, DP 64) at 430 TFLOP/s per GPU, on 16,384 (DP 128) at 400, and at 131,072 tokens
  // on 16,384 (TP 8, CP 16, PP 16, DP 8) at 380. The pick searches its own layout within the same GPUs and global
  // batch (2,048 sequences of 8,192 tokens, 128 of 131,072); its model FLOP/s per GPU is its tokens/s per GPU times
  // the FLOPs it counts a token (6 per weight a token multiplies plus the causal attention: 2.54e12 at 8,192 tokens),
  // the paper's measure. Hand-worked: 400e12 / 2.54e12 = 157 tokens/s per GPU at 16,384 GPUs. The pick keeps the
  // paper's tensor parallel 8 and pipeline of 16 stages at 8,192 tokens and adds context parallel 2 where the paper ran
  // none: the memory model puts the first stage's interleaved activations at 83 GB without it (the paper fit them
  // with one layer fewer on the first and last stages and by freeing each stage's inputs and outputs early).
  struct Row {
    const char* seq;
    const char* gpus;
    const char* global_batch;
    double tflops;
  };
  for (const Row& row : {Row{"8192", "8192", "2048", 430}, Row{"8192", "16384", "2048", 400}, Row{"131072", "16384", "128", 380}}) {
    INFO(row.seq << " tokens on " << row.gpus << " GPUs");
    const auto pick = test::run_json({"--model", "llama-3.1-405b", "--mode", "train", "--framework", "megatron", "--precision", "bf16", "--seq-len", row.seq,
                                      "--rank-by", "time", "--only", "h100-sxm-80gb", "--max-gpus", row.gpus, "--global-batch", row.global_batch, "--tokens", "1T"})["ranking"][0];
    REQUIRE(pick["fits"] == true);
    CHECK(pick["plan"]["gpus"].get<int>() == std::stoi(row.gpus));
    CHECK(pick["plan"]["tp"].get<int>() == 8);
    const auto& t = pick["time"];
    const double tflops = t["train_tokens_per_second_per_gpu"].get<double>() * t["train_flops_per_token"].get<double>() / 1e12;
    if (std::string(row.seq) == "8192") {
      CHECK(pick["plan"]["pp"].get<int>() == 16);
      CHECK(t["train_flops_per_token"].get<double>() == Approx(2.54e12).epsilon(0.01));
      CHECK(tflops == Approx(row.tflops).epsilon(0.1));
    } else {
      CHECK(pick["plan"]["cp"].get<int>() >= 8);  // a 131,072-token sequence split over context-parallel ranks, as the paper's 16
      CHECK(tflops == Approx(row.tflops).epsilon(0.2));
    }
  }
}
