// Which precisions run where (method.md §6.3, §8.2): fp4 checkpoints on GPUs without FP4 tensor cores.
#include <catch2/catch.hpp>

#include "gpuadvise/model.hpp"
#include "helpers.hpp"

using namespace gpuadvise;

TEST_CASE("precision: gpt-oss presets, and an MXFP4 checkpoint served weight-only where no FP4 tensor cores are", "[support][precision][params]") {
  // openai/gpt-oss-20b's config.json: 24 layers of the 120B's shape with 32 experts. Per layer: attention
  // 26,542,080 + 5,120 biases, experts 32 x 3 x 2,880^2 = 796,262,400, router 2,880 x 32 = 92,160, norms 5,760:
  // 822,907,520; x 24 + 2 x 579,133,440 embeddings + 2,880 = 20,908,050,240 (OpenAI: 21B). Active: 24 x (26,547,200 +
  // 4 x 24,883,200 + 97,920) + 1,158,269,760 = 4,186,539,840 (OpenAI's 3.6B leaves out the input embedding).
  const ParamCounts small = count_params(test::model("gpt-oss-20b"));
  CHECK(small.total == 20908050240.0);
  CHECK(small.active == 4186539840.0);
  CHECK(count_params(test::model("gpt-oss-120b")).total == 116789232960.0);
  // Its MXFP4 experts need no FP4 tensor cores under vLLM or SGLang: on an H100 (and an A100, an RTX 4090) they run
  // weight-only, 4-bit weights with 16-bit math, and the 120B fits one 80 GB card, as OpenAI ships it.
  for (const char* gpu : {"h100-sxm-80gb", "a100-sxm-80gb"}) {
    INFO(gpu);
    const auto e = test::run_json({"estimate", "--model", "gpt-oss-120b", "--mode", "inference", "--framework", "vllm", "--gpu", gpu});
    CHECK(e["fits"] == true);
    CHECK(e["time"]["compute_precision"] == "bf16");
    CHECK(e["time"]["decode_tokens_per_second"].get<double>() > 0);
  }
  // Not before Ampere: refused with the reason.
  const auto v100 = test::run({"estimate", "--model", "gpt-oss-20b", "--mode", "inference", "--framework", "vllm", "--gpu", "v100-sxm2-16gb"});
  CHECK(v100.out.find("cannot run as asked") != std::string::npos);
  CHECK(v100.out.find("vLLM/SGLang on an NVIDIA GPU from Ampere on, TensorRT-LLM on Hopper for an MXFP4 checkpoint, vLLM on an MI300X or MI325X, "
                      "or llama.cpp (weight-only)") != std::string::npos);
  // vLLM serves it on CDNA 3 too (its gpt-oss recipe: "MI300x, MI325x", `vllm serve openai/gpt-oss-120b` on
  // gfx942), weight-only; SGLang there and a Radeon W7900 (gfx1100) under vLLM are not in that list.
  const auto mi300x = test::run_json({"estimate", "--model", "gpt-oss-120b", "--mode", "inference", "--framework", "vllm", "--gpu", "mi300x-192gb"});
  CHECK(mi300x["fits"] == true);
  CHECK(mi300x["time"]["compute_precision"] == "bf16");
  for (const auto& [fw, gpu] : {std::pair{"sglang", "mi300x-192gb"}, std::pair{"vllm", "radeon-pro-w7900-48gb"}}) {
    INFO(fw << " " << gpu);
    CHECK(test::run({"estimate", "--model", "gpt-oss-20b", "--mode", "inference", "--framework", fw, "--gpu", gpu}).out.find("cannot run as asked") !=
          std::string::npos);
  }
  // TensorRT-LLM runs the MXFP4 checkpoint on Hopper with its Triton MoE backend (its perf overview: gpt-oss-120b on
  // one H200, on four H100s), weight-only, its cache in 16 bits (the checkpoint sets no KV quantisation); not on an
  // A100, and an NVFP4 checkpoint (ModelOpt's) not before Blackwell.
  const auto trt = test::run_json({"estimate", "--model", "gpt-oss-120b", "--mode", "inference", "--framework", "trtllm", "--gpu", "h100-sxm-80gb"});
  CHECK(trt["fits"] == true);
  CHECK(trt["time"]["compute_precision"] == "bf16");
  CHECK(trt["memory"]["vllm"]["kv_bytes_per_token"].get<double>() == 36.0 * 2 * 8 * 64 * 2.0);  // 36 layers x K and V x 8 heads x 64 x 2 B
  // Its launch names the backend: an options file with moe_config's backend TRITON.
  CHECK(trt["launch_hints"]["server"].get<std::string>().find("--extra_llm_api_options llm_options.yml") != std::string::npos);
  CHECK(test::says(trt["launch_hints"]["notes"], "backend: TRITON"));
  const auto a100 = test::run_json({"estimate", "--model", "gpt-oss-120b", "--mode", "inference", "--framework", "trtllm", "--gpu", "a100-sxm-80gb"});
  CHECK(a100["fits"] == false);
  const auto nvfp4 = test::run_json({"estimate", "--model", "llama-3.1-70b", "--precision", "fp4", "--mode", "inference", "--framework", "trtllm", "--gpu",
                                     "h200-sxm-141gb"});
  CHECK(nvfp4["fits"] == false);
  // Blackwell runs it on its FP4 tensor cores.
  const auto b200 = test::run_json({"estimate", "--model", "gpt-oss-120b", "--mode", "inference", "--framework", "vllm", "--gpu", "b200-hgx-180gb"});
  CHECK(b200["time"]["compute_precision"] == "fp4");
}
