// FLOPs and bytes per token (docs/method.md §8.1, §8.2): the counts the time model divides by the hardware's rates,
// each worked by hand from its formula.
#include <catch2/catch.hpp>

#include "gpuadvise/perf.hpp"
#include "helpers.hpp"

using namespace gpuadvise;
using test::wl;

TEST_CASE("time: elementwise traffic per token is the hand count of the eager and fused kernels", "[time]") {
  // Llama 3.1 8B, bf16, no recomputation (method.md §8.2), per layer forward:
  //   eager: 2 RMSNorms x 36 x 4096 + 2 residual adds x 6 x 4096 + RoPE 20 x (4096 + 1024) + SwiGLU 10 x 14336
  //          = 294,912 + 49,152 + 102,400 + 143,360 = 589,824 bytes; x3 (forward + backward) x 32 layers
  //          = 56,623,104; the loss 30 x 128,256 = 3,847,680; total 60,470,784 bytes per token.
  //   fused: 2 x 4 x 4096 + 2 x 2 x 4096 + 4 x 5120 + 6 x 14336 = 155,648; x3 x 32 = 14,942,208; loss
  //          8 x 128,256 = 1,026,048; total 15,968,256.
  const auto w = wl({{"model", "llama-3.1-8b"}, {"mode", "finetune"}, {"seq_len", "2048"}});
  const auto m = test::model("llama-3.1-8b");
  CHECK(train_elementwise_bytes_per_token(w, m, 2048, false) == Approx(60470784.0));
  CHECK(train_elementwise_bytes_per_token(w, m, 2048, true) == Approx(15968256.0));
  // Full recomputation runs the forward once more: 4 passes instead of 3 over the layers.
  const auto ck = wl({{"model", "llama-3.1-8b"}, {"mode", "finetune"}, {"gradient_checkpointing", "full"}});
  CHECK(train_elementwise_bytes_per_token(ck, m, 2048, false) == Approx(589824.0 * 4 * 32 + 3847680.0));
}

TEST_CASE("time: LoRA skips the frozen weights' gradients but not the attention's backward", "[time]") {
  // [LORA]: forward 2N + input gradients 2N for the projections; attention (no weights) forward + backward, the
  // fused backward 2.5x the forward ([FA2] §3.1.2: it runs QK^T again), 3.5x in all. N counts the weights a token
  // multiplies: Llama 3.1 8B's 8,030,261,248 less its 128,256 x 4,096 = 525,336,576-entry embedding table (a
  // gather), the output projection kept: 7,504,924,672 (torchtitan's 6·N convention, get_num_flop_per_token).
  const auto m = test::model("llama-3.1-8b");
  const auto lora = wl({{"model", "llama-3.1-8b"}, {"mode", "lora"}, {"seq_len", "4096"}});
  const auto full = wl({{"model", "llama-3.1-8b"}, {"mode", "finetune"}, {"seq_len", "4096"}});
  const double n = 7504924672.0;
  CHECK(count_params(m).active - 128256.0 * 4096 == Approx(n));
  const double attn_fwd = 4.0 * 32 * 4096 * 4096 * 0.5;  // 4·L·(heads·head_dim)·s, causal half
  CHECK(train_flops_per_token(lora, m, 4096) == Approx(4.0 * n + 3.5 * attn_fwd));  // 33,777,795,072
  CHECK(train_flops_per_token(full, m, 4096) == Approx(6.0 * n + 3.5 * attn_fwd));  // 48,787,644,416
  CHECK(train_attention_flops_per_token(lora, m, 4096) == Approx(3.5 * attn_fwd));
  // Eager attention keeps its scores: its backward is 2x the forward.
  const auto eager = wl({{"model", "llama-3.1-8b"}, {"mode", "finetune"}, {"seq_len", "4096"}, {"flash_attention", "false"}});
  CHECK(train_flops_per_token(eager, m, 4096) == Approx(6.0 * n + 3.0 * attn_fwd));
}

TEST_CASE("time: a sliding-window layer attends to at most its window, W - W^2/(2s) keys on average", "[time]") {
  // Mistral-7B-v0.1: a 4,096-token window on all 32 layers, 32 heads of 128. At 2,048 tokens the window covers the
  // causal prefix (s/2 = 1,024 keys on average); at 8,192, 4,096 - 4,096^2 / 16,384 = 3,072, not s/2 = 4,096.
  const ModelSpec m = test::model("mistral-7b");
  REQUIRE(m.sliding_window == 4096);
  CHECK(attention_fwd_flops(m, 2048) == Approx(4.0 * 32 * 4096 * 1024));
  CHECK(attention_fwd_flops(m, 8192) == Approx(4.0 * 32 * 4096 * 3072));
  // GPT-OSS-120B's shape: 36 layers of 64 heads of 64, a 128-token window on half of them. At 4,096 tokens:
  // 0.5 x 2,048 + 0.5 x (128 - 128^2 / 8,192) = 1,087 keys.
  const ModelSpec g = parse_hf_config(R"({"model_type": "gpt_oss", "hidden_size": 2880, "intermediate_size": 2880, "num_hidden_layers": 36,
      "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64, "vocab_size": 201088, "num_local_experts": 128, "num_experts_per_tok": 4,
      "sliding_window": 128})", "gpt-oss/config.json", "gpt-oss");
  CHECK(attention_fwd_flops(g, 4096) == Approx(4.0 * 36 * 4096 * 1087));
  // A model without a window keeps the causal half.
  CHECK(attention_fwd_flops(test::model("llama-3.1-8b"), 8192) == Approx(4.0 * 32 * 4096 * 4096));
}
