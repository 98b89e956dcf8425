// Training activations of mixture-of-experts and multi-head latent attention layers (method.md §4.2), worked by hand
// from what Megatron's layers keep for their backward.
#include <algorithm>

#include <catch2/catch.hpp>

#include "helpers.hpp"

namespace {
const std::vector<std::string> k_deepseek_1024{"estimate", "--model", "deepseek-v3", "--mode", "train", "--framework", "megatron", "--precision", "fp8",
                                               "--seq-len", "4096", "--gpu", "h100-sxm-80gb", "--gpus", "1024", "--tp", "2", "--pp", "4",
                                               "--virtual-stages", "4", "--ep", "64", "--batch", "1", "--global-batch", "8192", "--sharding", "zero1"};
}  // namespace

TEST_CASE("memory: a MoE layer keeps each token once per routed expert, Qwen3-235B-A22B at TP 2 in FP8", "[memory][moe]") {
  // Per token and layer, sequence parallel over 2 (h/t = 2,048; q = 64 x 128 / 2 = 4,096; k + v = 2 x 2 heads x 128 = 512;
  // f/t = 8 experts x 1,536 / 2 = 6,144): 16-bit norm inputs, Q, K, V and the fused SwiGLU's input
  // (2,048 + 4,096 + 512 + 2,048 + 2 x 6,144 = 20,992 elements, 41,984 B); FP8 copies of the linear inputs: the QKV and
  // router input 2,048, Wo's 4,096, the MLP norm's output 2,048, the experts' first matmul reading each token 8 times
  // (8 x 4,096 / 2 = 16,384: Megatron's grouped GEMM over the dispatched tokens) and the down projection's 6,144
  // (30,720 B); fp32: 32 heads' log-sum-exp and the router's 128 / 2 scores (96 x 4 = 384 B): 73,088 B.
  const auto r = test::run({"estimate", "--model", "qwen3-235b-a22b", "--mode", "train", "--framework", "megatron", "--precision", "fp8", "--seq-len",
                            "4096", "--gpu", "h100-sxm-80gb", "--gpus", "256", "--tp", "2", "--pp", "8", "--virtual-stages", "4", "--ep", "16",
                            "--global-batch", "2048", "--explain"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("per token per layer 73088 B") != std::string::npos);
}

TEST_CASE("memory: Hugging Face's expert loop keeps each routed copy twice, Qwen3-30B-A3B in bf16", "[memory][moe]") {
  // transformers' MoE experts gather each expert's tokens (the matmul keeps them: 8 x 2,048 = 16,384 elements a token)
  // and multiply the down-projection's output by the routing weight (kept for its gradient: 16,384 again). Per token
  // and layer in 16 bits: norm inputs and outputs 4 x 2,048, Q 4,096, K and V 2 x 4 heads x 128 = 1,024, Wo's input
  // 4,096, the unfused SwiGLU's gate, up and act 3 x 6,144 (8 experts x 768) and the down input 6,144, and the two
  // routed copies: 74,752 elements = 149,504 B; fp32: 32 heads' log-sum-exp and 128 router scores, 640 B: 150,144 B.
  const auto r = test::run({"estimate", "--model", "qwen3-30b-a3b", "--mode", "finetune", "--seq-len", "2048", "--gpu", "h100-sxm-80gb", "--gpus", "8",
                            "--sharding", "zero3", "--explain"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("per token per layer 150144 B") != std::string::npos);
}

TEST_CASE("memory: MLA trains on full heads, and Megatron's selective recompute of its up-projections keeps DeepSeek-V3's report layout on an H100", "[memory][moe][mla]") {
  // DeepSeek-V3 at TP 2 in FP8, per token and layer: h/t = 3,584; the query's and key's 128 heads x 192 / 2 = 12,288
  // each and the values' 128 x 128 / 2 = 8,192 (what flash attention keeps, from the up-projections of Megatron's
  // multi_latent_attention.py); the two latents (1,536 + 512) / 2 = 1,024, kept normed and as their up-projections'
  // input; f/t = (8 + 1 shared) x 2,048 / 2 = 9,216; 58 of 61 layers route 8 copies of each token.
  //   16-bit: norm inputs 2 x 3,584, latent 1,024, Q + K + V 32,768, SwiGLU input 18,432: 59,392 elements = 118,784 B;
  //   FP8: 3,584 + 1,024 + Wo's 8,192 + 3,584 + 58/61 x 8 x 3,584 (27,261.9) + 9,216 = 52,861.9 B;
  //   fp32: 64 heads' log-sum-exp + 58/61 x 256 / 2 router scores (121.7) = 742.8 B; in all 172,388.7 B.
  // Selective recompute with "mla_up_proj" (Megatron-Bridge's DeepSeek-V3 H100 recipe: recompute_modules
  // [mla_up_proj, mlp]) drops Q, K and V (65,536 B) and, with the core attention recomputed, Wo's input (8,192 B):
  // 98,660.7 B.
  const auto none = test::run(test::args(k_deepseek_1024, {"--explain"}));
  REQUIRE(none.code == 0);
  CHECK(none.out.find("per token per layer 172389 B") != std::string::npos);
  const auto selective = test::run(test::args(k_deepseek_1024, {"--gradient-checkpointing", "selective", "--explain"}));
  REQUIRE(selective.code == 0);
  CHECK(selective.out.find("per token per layer 98661 B") != std::string::npos);
  // The layout NVIDIA's Megatron-Core MoE report ran on 1,024 H100s (TP 2, PP 4 x 4, EP 64) does not fit an 80 GB H100
  // keeping every activation, and does with the up-projections recomputed, as the recipe runs it.
  const auto json = [](std::vector<std::string> extra) {
    const auto run = test::run(test::args(k_deepseek_1024, extra));
    REQUIRE(run.code == 0);
    return run.json();
  };
  const auto kept = json({"--format", "json"});
  const auto recomputed = json({"--gradient-checkpointing", "selective", "--format", "json"});
  const double capacity = 85520809984.0;  // 80 GiB
  CHECK(kept["memory"]["device_peak_bytes"].get<double>() > capacity);
  CHECK(recomputed["memory"]["device_peak_bytes"].get<double>() < 0.95 * capacity);
  CHECK(recomputed["launch_hints"]["torchrun"].get<std::string>().find(" --recompute-granularity selective --recompute-modules core_attn mla_up_proj") !=
        std::string::npos);
  // The recompute runs the up-projections again: 2 x 61 layers x (1,536 x 128 x 192 + 512 x 128 x 256) = 6.652 GFLOPs a
  // token more than the same selective recompute under a framework that keeps them.
  std::vector<std::string> under_hf = k_deepseek_1024;
  *std::find(under_hf.begin(), under_hf.end(), "megatron") = "hf";
  const auto hf = test::run(test::args(under_hf, {"--gradient-checkpointing", "selective", "--format", "json"}));
  const auto megatron = test::run(test::args(k_deepseek_1024, {"--gradient-checkpointing", "selective", "--format", "json"}));
  REQUIRE(hf.code == 0);
  REQUIRE(megatron.code == 0);
  const double up = 2.0 * 61.0 * (1536.0 * 128.0 * 192.0 + 512.0 * 128.0 * 256.0);
  CHECK(up == Approx(6.652e9).epsilon(1e-3));
  CHECK(megatron.json()["time"]["train_flops_per_token"].get<double>() - hf.json()["time"]["train_flops_per_token"].get<double>() == Approx(up));
}

TEST_CASE("memory: Megatron's recompute modules drop the norms' outputs and the experts' activation, Qwen3-235B-A22B at TP 2 in FP8", "[memory][moe]") {
  // Megatron-Bridge's Qwen3 MoE H100 recipe runs recompute_modules [moe_act, layernorm]. From the 73,088 B a token and
  // layer above: "layernorm" keeps neither norm's output (the FP8 copies of the QKV and of the MLP norm's output, 2 x
  // 2,048 B: the linears save no copy, set_save_original_input), "moe_act" not the routed experts' activation output
  // (the down projection's FP8 input, 8 x 1,536 / 2 = 6,144 B); the attention's output stays (no core_attn):
  // 73,088 - 4,096 - 6,144 = 62,848 B.
  const std::vector<std::string> base{"estimate", "--model", "qwen3-235b-a22b", "--mode", "train", "--framework", "megatron", "--precision", "fp8",
                                      "--seq-len", "4096", "--gpu", "h100-sxm-80gb", "--gpus", "256", "--tp", "2", "--pp", "8", "--virtual-stages", "4",
                                      "--ep", "16", "--global-batch", "2048"};
  const auto r = test::run(test::args(base, {"--recompute-modules", "moe_act,layernorm", "--explain"}));
  REQUIRE(r.code == 0);
  CHECK(r.out.find("per token per layer 62848 B") != std::string::npos);
  // No matmul runs again (the attention core is kept), and the launch names the modules as Megatron takes them.
  const auto kept = test::run(test::args(base, {"--format", "json"})).json();
  const auto recomputed = test::run(test::args(base, {"--recompute-modules", "moe_act,layernorm", "--format", "json"})).json();
  CHECK(recomputed["time"]["train_flops_per_token"].get<double>() == Approx(kept["time"]["train_flops_per_token"].get<double>()));
  CHECK(recomputed["workload"]["gradient_checkpointing"] == "selective");
  CHECK(recomputed["workload"]["recompute_modules"] == "layernorm moe_act");
  CHECK(recomputed["launch_hints"]["torchrun"].get<std::string>().find(" --recompute-granularity selective --recompute-modules layernorm moe_act") !=
        std::string::npos);
  // gpt-oss-120b on 64 B200s at Megatron-Bridge's layout (EP 8, micro-batch 4, bf16 gradients) fits a 180 GB card only
  // with the recipe's recompute_modules [layernorm, moe_act] (perf_recipes/gpt_oss/b200/gpt_oss.py).
  const std::vector<std::string> oss{"estimate", "--model", "gpt-oss-120b", "--mode", "train", "--framework", "megatron", "--seq-len", "4096", "--gpu",
                                     "b200-hgx-180gb", "--gpus", "64", "--ep", "8", "--batch", "4", "--global-batch", "1280", "--sharding", "zero1",
                                     "--grad-dtype", "bf16", "--format", "json"};
  CHECK_FALSE(test::run(oss).json()["fits"].get<bool>());
  CHECK(test::run(test::args(oss, {"--recompute-modules", "layernorm,moe_act"})).json()["fits"].get<bool>());
}
