// The rates a prompt's parts run at (method.md §8.3): the attention's exponentials, TensorRT-LLM's FP8 context attention
// and an MXFP4 checkpoint's parts, worked by hand from the catalogue's dense peaks.
#include <catch2/catch.hpp>

#include "gpuadvise/memory.hpp"
#include "gpuadvise/perf.hpp"
#include "helpers.hpp"
#include "perf_common.hpp"

using namespace gpuadvise;

namespace {

// The rates for a served model on a GPU: the workload resolved as the CLI resolves it (the checkpoint's format).
struct Rates {
  double attention = 0;
  perf_detail::MatmulRates matmuls;
};

Rates rates(const char* model, const char* framework, const char* precision, const char* gpu) {
  const ModelSpec m = test::model(model);
  const GpuSpec& g = *test::gpus().find(gpu);
  const Workload w = with_checkpoint_precision(
      test::wl({{"model", model}, {"mode", "inference"}, {"framework", framework}, {"precision", precision}, {"input_tokens", "2048"}, {"output_tokens", "128"}}), m);
  const MemoryEstimate mem = estimate_memory(w, m, &g);
  const PrecisionSupport ps = precision_support(w, g);
  const perf_detail::TimeBasis in{{w, m, g, mem}, ps, g.peak_flops(ps.compute_key), 2048.0, count_params(m), 1.0, 1.0, 1.0};
  return {perf_detail::prefill_attention_rate(in), perf_detail::matmul_rates(in, 0.65)};
}

}  // namespace

TEST_CASE("prefill: the special-function units run one exponential per 128, 256 and 512 dense 16-bit FLOPs on A100, H100 and B200", "[serving][prefill][attention]") {
  // 16 exponentials a clock per multiprocessor against 2,048, 4,096 and 8,192 dense 16-bit tensor FLOPs; Blackwell
  // Ultra doubles the exponentials. An H100 SXM: 989.4 / 256 = 3.86 T a second (FA3: "3.9 TFLOPS of special functions").
  auto exps = [](const char* id) { return perf_detail::exponentials_per_s(*test::gpus().find(id)); };
  CHECK(*exps("a100-sxm-80gb") == Approx(312e12 / 128.0));
  CHECK(*exps("h100-sxm-80gb") == Approx(989.4e12 / 256.0));
  CHECK(*exps("h100-sxm-80gb") == Approx(3.9e12).epsilon(0.01));
  CHECK(*exps("b200-hgx-180gb") == Approx(2250e12 / 512.0));
  CHECK(*exps("gb200-nvl72-186gb") == Approx(2450e12 / 512.0));
  CHECK(*exps("b300-hgx-288gb") == Approx(2250e12 / 256.0));
  CHECK(*exps("gb300-nvl72-279gb") == Approx(2450e12 / 256.0));
  // Unknown where no figure gives it: a consumer card (a quarter of the tensor rate per clock), an AMD GPU.
  CHECK_FALSE(exps("rtx-4090-24gb"));
  CHECK_FALSE(exps("mi300x-192gb"));
}

TEST_CASE("prefill: a prompt's attention runs at the slower of its tensor FLOPs and its exponentials, in FP8 only under TensorRT-LLM", "[serving][prefill][attention]") {
  // Llama 3.1 8B (d = 128, 512 FLOPs a score) at 0.65 of each peak. TensorRT-LLM FP8 on an H100: 1,978.9 TFLOP/s of FP8
  // against 512 x 3.865 T = 1,978.8 (even); vLLM keeps the attention in 16 bits (989.4).
  CHECK(rates("llama-3.1-8b", "trtllm", "fp8", "h100-sxm-80gb").attention == Approx(0.65 * 1978.8e12));
  CHECK(rates("llama-3.1-8b", "vllm", "fp8", "h100-sxm-80gb").attention == Approx(0.65 * 989.4e12));
  // A B200 runs FP8 at 4,500 TFLOP/s but 4.39 T exponentials: 512 x 4.39 T = 2,250, no faster than its 16-bit peak.
  CHECK(rates("llama-3.1-8b", "trtllm", "fp8", "b200-hgx-180gb").attention == Approx(0.65 * 2250e12));
  CHECK(rates("llama-3.1-8b", "vllm", "bf16", "b200-hgx-180gb").attention == Approx(0.65 * 2250e12));
  // NVFP4 projections: TensorRT-LLM's context attention in FP8, never at the FP4 peak (9,000).
  CHECK(rates("llama-3.1-70b", "trtllm", "fp4", "b200-hgx-180gb").attention == Approx(0.65 * 2250e12));
  // Blackwell Ultra's doubled exponentials (8.79 T) let FP8 attention run at its FP8 rate: 512 x 8.79 T = 4,500.
  CHECK(rates("llama-3.1-8b", "trtllm", "fp8", "b300-hgx-288gb").attention == Approx(0.65 * 4500e12));
  // gpt-oss's d = 64 makes a score 256 FLOPs: 256 x 4.39 T = 1,125 TFLOP/s on a B200, half its 16-bit peak.
  CHECK(rates("gpt-oss-20b", "trtllm", "fp4", "b200-hgx-180gb").attention == Approx(0.65 * 1125e12));
  // No exponential figure for a consumer card: its 16-bit peak alone.
  CHECK(rates("llama-3.1-8b", "vllm", "bf16", "rtx-4090-24gb").attention == Approx(0.65 * 165.2e12));
}

TEST_CASE("prefill: an MXFP4 checkpoint keeps its dense projections in 16 bits, TensorRT-LLM runs its experts at the FP8 rate on Blackwell", "[serving][prefill][mxfp4]") {
  // gpt-oss's checkpoint quantises only its experts. On a B200 TensorRT-LLM runs them W4A8 (MXFP4 weights, MXFP8
  // activations: the FP8 rate, 4,500 TFLOP/s), vLLM at the FP4 peak (9,000 x the FP4 share 0.65); the attention and
  // dense projections at 2,250 either way.
  const Rates trt = rates("gpt-oss-20b", "trtllm", "fp4", "b200-hgx-180gb");
  CHECK(trt.matmuls.experts == Approx(0.65 * 4500e12));
  CHECK(trt.matmuls.dense == Approx(0.65 * 2250e12));
  const Rates vllm = rates("gpt-oss-20b", "vllm", "fp4", "b200-hgx-180gb");
  CHECK(vllm.matmuls.experts == Approx(0.65 * 0.65 * 9000e12));
  CHECK(vllm.matmuls.dense == Approx(0.65 * 2250e12));
  // An NVFP4 checkpoint quantises every projection: all at the FP4 peak.
  const Rates nvfp4 = rates("llama-3.1-70b", "trtllm", "fp4", "b200-hgx-180gb");
  CHECK(nvfp4.matmuls.experts == Approx(0.65 * 0.65 * 9000e12));
  CHECK(nvfp4.matmuls.dense == nvfp4.matmuls.experts);
}

TEST_CASE("prefill: weight-only MXFP4 experts upcast their weights on the integer lanes, 0.6 of the 16-bit share on an A100, half that on Hopper", "[serving][prefill][mxfp4]") {
  // Without FP4 tensor cores the engines' Triton MoE kernels upcast each 4-bit weight in their main loop: the A100's
  // SM has 64 INT32 lanes against 1,024 dense 16-bit FMA a clock, the H100's the same 64 against 2,048, so Hopper
  // reaches half the A100's share (weight_only_moe_share, 0.6). The attention and dense projections are 16-bit weights.
  const Rates hopper = rates("gpt-oss-20b", "trtllm", "fp4", "h100-sxm-80gb");
  CHECK(hopper.matmuls.experts == Approx(0.65 * 989.4e12 * 0.3));
  CHECK(hopper.matmuls.dense == Approx(0.65 * 989.4e12));
  CHECK(rates("gpt-oss-120b", "vllm", "fp4", "h100-sxm-80gb").matmuls.experts == Approx(0.65 * 989.4e12 * 0.3));
  CHECK(rates("gpt-oss-120b", "vllm", "fp4", "a100-sxm-80gb").matmuls.experts == Approx(0.65 * 312e12 * 0.6));
  CHECK(rates("gpt-oss-120b", "vllm", "fp4", "a100-sxm-80gb").matmuls.dense == Approx(0.65 * 312e12));
  // An MI300X's compute unit has the A100's ratio (64 INT32 lanes, 1,024 dense FMA a clock). No figure for a consumer
  // card: the 16-bit share.
  CHECK(rates("gpt-oss-120b", "vllm", "fp4", "mi300x-192gb").matmuls.experts == Approx(0.65 * 1307.4e12 * 0.6));
  CHECK(rates("gpt-oss-20b", "vllm", "fp4", "rtx-4090-24gb").matmuls.experts == Approx(0.65 * 165.2e12));
  // A 16-bit checkpoint of a mixture of experts is no upcast.
  CHECK(rates("qwen3-30b-a3b", "vllm", "bf16", "h100-sxm-80gb").matmuls.experts == Approx(0.65 * 989.4e12));
}
