// Serving throughput against a vendor's published table (tests/data/serving_time.jsonl: TensorRT-LLM's
// perf-overview, FP8 on H100 and H200, ten prompt/output shapes each, none fitted) and the decode step's and the
// prefill's parts worked by hand (docs/method.md §8.3).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/perf.hpp"
#include "helpers.hpp"

using namespace gpuadvise;

TEST_CASE("serving: TensorRT-LLM's published FP8 throughput on H100 and H200, held out, within 12 % median and 25 % p90", "[serving][heldout]") {
  // 77 rows: Llama 3.1 8B (TP 1), Llama 3.3 70B (TP 1 on H200, TP 2 on H100), Llama 3.1 405B (TP 8) and
  // Qwen3-235B-A22B (TP 8) at 128/128 ... 20,000/2,000 tokens, every request queued at once. Before the decode step
  // was split into its projections and its attention, and before TensorRT-LLM's FP8 checkpoints cached FP8, the
  // same rows were 31 % off at the median and 51 % at the 90th percentile (long outputs 40-50 % slow).
  std::vector<double> all, dense;
  for (const auto& [c, e] : test::data_case_errors("serving_time.jsonl")) {
    CHECK_FALSE(c["fitted"].get<bool>());
    all.push_back(e);
    if (c["id"].get<std::string>().find("qwen3") == std::string::npos) dense.push_back(e);
  }
  REQUIRE(all.size() == 77);
  REQUIRE(dense.size() == 60);
  const auto [median, p90] = test::median_p90(all);
  CHECK(median <= 0.12);
  CHECK(p90 <= 0.25);
  // The dense models alone (the Qwen3-235B rows run with attention data parallel, --attention-dp, whose balance
  // across ranks is a bound: method.md §8.3).
  const auto [dense_median, dense_p90] = test::median_p90(dense);
  CHECK(dense_median <= 0.10);
  CHECK(dense_p90 <= 0.25);
}

TEST_CASE("serving: Intel's Gaudi 3 table, held out, within 15 % median and 30 % p90, its prefill-heavy 70B row within 15 %", "[serving][heldout][gaudi]") {
  // 12 rows of Intel's model-performance page (SynapseAI 1.18.0): Llama 3.1 8B on one Gaudi 3, 70B on two and eight,
  // FP8, 128/128 ... 2,048/2,048 tokens at Intel's batches. The Gaudi 3 family's matmul share (0.40) is Intel's launch
  // projection, never fitted; these rows are the public measurement behind its prefill: 70B on eight cards, 2,048 in
  // and 128 out, 1,600 output tokens/s (12.5 requests/s), where a prompt's FLOPs dominate the step.
  std::vector<double> all;
  for (const auto& [c, e] : test::data_case_errors("gaudi3_serving_time.jsonl")) {
    CHECK_FALSE(c["fitted"].get<bool>());
    CHECK(c["gpu"] == "gaudi3-128gb");
    all.push_back(e);
    if (c["id"] == "intel_gaudi3_llama_31_70b_x8_2048_128") CHECK(e <= 0.15);
  }
  REQUIRE(all.size() == 12);
  const auto [median, p90] = test::median_p90(all);
  CHECK(median <= 0.15);
  CHECK(p90 <= 0.30);
}

TEST_CASE("serving: a decode step reads the weights or computes, then reads the KV cache: the two add", "[serving][time]") {
  // Llama 3.1 8B FP8 on one H200 under TensorRT-LLM, 128 in / 2,048 out, 880 in flight (what its FP8 KV-cache pool
  // holds of 2,176-token sequences). Per step: 32 layers x 0.03 ms of host time; the projections take the longer
  // of reading 9.08 GB of weights at 0.8 x 4,800 GB/s (2.37 ms) and 2 x 7.50e9 x 880 FLOPs (the weights a token
  // multiplies: the 8.03 B less the 128,256 x 4,096 embedding table, a gather) at 0.5 x 1,978.9 TFLOP/s (13.35 ms);
  // then the attention reads 880 x 1,152 tokens x 65,536 B of FP8 KV cache (17.30 ms): 31.61 ms, plus the 55 prompt
  // tokens of each step. One roofline over the whole step (the larger of all the bytes and
  // all the FLOPs) gave 20.6 ms, 1.6x too fast: the trtllm-bench row is 26,221 tokens/s, 33.6 ms at 880.
  const ModelSpec m = test::model("llama-3.1-8b");
  const GpuSpec& g = *test::gpus().find("h200-sxm-141gb");
  const Workload w = test::wl({{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"framework", "trtllm"}, {"precision", "fp8"},
                               {"batch", "880"}, {"input_tokens", "128"}, {"output_tokens", "2048"}});
  const MemoryEstimate mem = estimate_memory(w, m, &g);
  CHECK(mem.kv_bytes_per_token == 65536.0);  // 32 layers x 2 x 8 heads x 128 x 1 B: FP8
  REQUIRE(mem.vllm);
  CHECK(std::floor(mem.vllm->max_tokens / 2176.0) == 880);
  const double bw = 0.8 * 4800e9;
  const double host = 32 * 0.03e-3, weights = mem.weights / bw, flops = 2.0 * (count_params(m).active - 128256.0 * 4096) * 880 / (0.5 * 1978.9e12);
  const double kv = 880.0 * 1152.0 * 65536.0 / bw;
  CHECK(weights == Approx(2.365e-3).epsilon(0.002));
  CHECK(flops == Approx(13.35e-3).epsilon(0.002));
  CHECK(kv == Approx(17.30e-3).epsilon(0.002));
  const TimeEstimate t = estimate_time(w, m, g, mem);
  REQUIRE(t.tpot_seconds);
  REQUIRE(t.prefill_tokens_per_second);
  const double decode = host + std::max(weights, flops) + kv;
  CHECK(decode == Approx(31.61e-3).epsilon(0.002));
  // The prompts of each step (880 x 128 / 2,048 = 55 tokens) at the prompts' FLOP rate come on top.
  CHECK(*t.tpot_seconds > decode);
  CHECK(*t.tpot_seconds < decode + 1.5e-3);
  CHECK(880.0 / *t.tpot_seconds == Approx(26221).epsilon(0.05));
  // Below the ridge nothing changes: at 64 in flight the projections wait on the weights, the larger term.
  Workload few = w;
  few.batch = 64;
  const TimeEstimate t64 = estimate_time(few, m, g, estimate_memory(few, m, &g));
  const double flops64 = 2.0 * (count_params(m).active - 128256.0 * 4096) * 64 / (0.5 * 1978.9e12);
  CHECK(flops64 < weights);
  CHECK(*t64.tpot_seconds > host + weights + 64.0 * 1152.0 * 65536.0 / bw);
}

TEST_CASE("serving: TensorRT-LLM at FP8 caches FP8 unless told, while vLLM and SGLang keep the model's 16 bits", "[serving][memory]") {
  const ModelSpec m = test::model("llama-3.1-8b");
  const GpuSpec& g = *test::gpus().find("h100-sxm-80gb");
  auto kv = [&](std::initializer_list<std::pair<const char*, std::string>> kvs) {
    const Workload w = test::wl(kvs);
    return estimate_memory(w, m, &g).kv_bytes_per_token;
  };
  CHECK(kv({{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"framework", "trtllm"}, {"precision", "fp8"}}) == 65536.0);
  CHECK(kv({{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"framework", "trtllm"}, {"precision", "fp8"}, {"kv_precision", "fp16"}}) == 131072.0);
  CHECK(kv({{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"framework", "trtllm"}, {"precision", "bf16"}}) == 131072.0);
  CHECK(kv({{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"framework", "vllm"}, {"precision", "fp8"}}) == 131072.0);
  CHECK(kv({{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"framework", "sglang"}, {"precision", "fp8"}}) == 131072.0);
  CHECK(kv({{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"framework", "vllm"}, {"precision", "fp8"}, {"kv_precision", "fp8"}}) == 65536.0);
}

TEST_CASE("serving: a tensor-parallel prompt pays its all-reduces beside its FLOPs", "[serving][time]") {
  // Llama 3.1 405B FP8 on 8 H100s at TP 8 under TensorRT-LLM, one 2,048-token prompt: 2 x 2,048 x the 405.85e9
  // weights less the embedding table and the output layer (128,256 x 16,384 each), the output layer once (the last
  // position's logits), and 2 x 126 x 16,384 x 2,048^2 FLOPs of attention, at 0.65 x 1,978.9 TFLOP/s on each of 8 GPUs and its fused kernels' bytes (two
  // norms, residual adds, rotary, SwiGLU: test::fused_prompt_bytes) at 80 % of 3,350 GB/s on each, plus each
  // layer's two all-reduces of 2,048 x 16,384 16-bit values, each byte crossing NVLink twice (a ring): 126 x 2 x
  // 2,048 x 16,384 x 2 x 2 B.
  const ModelSpec m = test::model("llama-3.1-405b");
  const GpuSpec& g = *test::gpus().find("h100-sxm-80gb");
  const Workload w = test::wl({{"model", "llama-3.1-405b"}, {"mode", "inference"}, {"framework", "trtllm"}, {"precision", "fp8"}, {"gpus", "8"},
                               {"tp", "8"}, {"batch", "1"}, {"input_tokens", "2048"}, {"output_tokens", "128"}});
  const TimeEstimate t = estimate_time(w, m, g, estimate_memory(w, m, &g));
  REQUIRE(t.ttft_seconds);
  const double vh = 128256.0 * 16384.0;
  const double flops = 2.0 * (count_params(m).active - 2.0 * vh) * 2048.0 + 2.0 * vh + 2.0 * 126.0 * 16384.0 * 2048.0 * 2048.0;
  const double compute = flops / (0.65 * 1978.9e12 * 8.0) + 2048.0 * test::fused_prompt_bytes(m) / (0.8 * 3350e9 * 8.0);
  const double allreduce = 126.0 * 2.0 * 2048.0 * 16384.0 * 2.0 * 2.0 / intra_node_bytes_per_s(g, 8);
  CHECK(compute == Approx(0.1686).epsilon(0.002));
  CHECK(*t.ttft_seconds == Approx(126 * 0.03e-3 + compute + allreduce).epsilon(1e-6));
  // Not a rounding error: 33.8 GB at NVLink's 450 GB/s each way (at the links' achieved share) is about half the
  // compute's time.
  CHECK(allreduce / compute == Approx(0.56).epsilon(0.03));
}

TEST_CASE("serving: TensorRT-LLM's published NVFP4 throughput on B200 and RTX PRO 6000, held out, within 15 % median and 40 % p90", "[serving][heldout]") {
  // tests/data/serving_fp4_time.jsonl: 134 rows, ten of them (Llama 3.3 70B on one B200) fitting coef::fp4_matmul_share
  // and one (Qwen3-30B-A3B on one B200, 128/128) coef::engine_sequence_host_s. The others: Llama 3.1 405B at TP 4 and
  // Qwen3-235B-A22B at TP 8 on B200s, Qwen3-30B-A3B on one B200, and the RTX PRO 6000 rows at TP 1-8 and PP 1-8, the
  // MoE ones with attention data parallel as the source ran them. Tensor parallel for those and no host work gave
  // 19.5 % and 44.5 %; with the prompt's elementwise traffic 12.7 % and 30.9 %. Known gaps, reported: Qwen3-30B-A3B on one B200 with prompts of 500 tokens and more (its MoE
  // prefill, 1.4-2.5x fast) and Qwen3-235B on B200s with long outputs (up to 1.6x fast).
  std::vector<double> held, fitted;
  for (const auto& [c, e] : test::data_case_errors("serving_fp4_time.jsonl")) (c["fitted"].get<bool>() ? fitted : held).push_back(e);
  REQUIRE(held.size() == 123);
  REQUIRE(fitted.size() == 11);
  const auto [median, p90] = test::median_p90(held);
  CHECK(median <= 0.15);
  CHECK(p90 <= 0.40);
  CHECK(test::median_p90(fitted).first <= 0.15);
}

TEST_CASE("serving: fp4 weights are 4.5 bits and run on FP4 tensor cores where there are some", "[serving][memory][support]") {
  // NVFP4: 4-bit E2M1 values and an E4M3 scale per 16, 4.5 bits per weight; the embeddings stay 16-bit. Llama 3.1 70B:
  // 68.45 B linear weights x 4.5 / 8 + 2 x 1.05 B embedding weights x 2 B.
  const ModelSpec m = test::model("llama-3.1-70b");
  const ParamCounts pc = count_params(m);
  const GpuSpec& b200 = *test::gpus().find("b200-hgx-180gb");
  const Workload w = test::wl({{"model", "llama-3.1-70b"}, {"mode", "inference"}, {"precision", "fp4"}});
  CHECK(weight_bits(Precision::fp4, false) == 4.5);
  const MemoryEstimate mem = estimate_memory(w, m, &b200);
  CHECK(mem.weights == Approx((pc.total - pc.embedding - pc.head) * 4.5 / 8.0 + (pc.embedding + pc.head) * 2.0).epsilon(0.002));
  CHECK(precision_support(w, b200).compute_key == "fp4");
  CHECK(precision_support(w, b200).supported);
  CHECK(precision_support(w, *test::gpus().find("rtx-5090-32gb")).supported);
  CHECK(precision_support(w, *test::gpus().find("mi355x-288gb")).supported);
  // Hopper and older have no FP4 tensor cores; training in FP4 is not modelled.
  const PrecisionSupport h100 = precision_support(w, *test::gpus().find("h100-sxm-80gb"));
  CHECK_FALSE(h100.supported);
  CHECK(h100.note.text().find("FP4 tensor cores") != std::string::npos);
  const Workload train = test::wl({{"model", "llama-3.1-70b"}, {"mode", "train"}, {"precision", "fp4"}});
  CHECK_FALSE(precision_support(train, b200).supported);
  // The screen agrees with the full verdict.
  for (const GpuSpec& g : test::gpus().gpus) {
    INFO(g.id);
    CHECK(precision_runs(w, g) == precision_support(w, g).supported);
    CHECK(precision_runs(train, g) == precision_support(train, g).supported);
  }
}

TEST_CASE("serving: a serving engine pipelines its stages, one micro-batch in each, where a plain pipeline runs one stage at a time", "[serving][time]") {
  // Llama 3.1 70B in NVFP4 over two RTX PRO 6000 (Server Edition) cards in pipeline, 256 sequences of 2,176 tokens in
  // flight under TensorRT-LLM: two micro-batches of 128, one in each stage; a token's round trip is two stage steps
  // of 128 sequences and a hop, where the stages one after another over the whole batch took two steps of 256. A
  // stage step: 40 layers x 0.03 ms, the longer of its weights' reads at 0.8 x 1,597 GB/s and its FLOPs at 0.5 x 0.7
  // of the 1,934.6 TFLOP/s FP4 peak, and its KV reads. TensorRT-LLM's pipeline loop has no overlap scheduler: each
  // round also takes its host work, 25 us for each of the 256 sequences (6.4 ms).
  const ModelSpec m = test::model("llama-3.1-70b");
  const GpuSpec& g = *test::gpus().find("rtx-pro-6000-blackwell-se-96gb");
  const Workload w = test::wl({{"model", "llama-3.1-70b"}, {"mode", "inference"}, {"framework", "trtllm"}, {"precision", "fp4"}, {"gpus", "2"},
                               {"pp", "2"}, {"batch", "256"}, {"seq_len", "2176"}});
  const MemoryEstimate mem = estimate_memory(w, m, &g);
  const TimeEstimate t = estimate_time(w, m, g, mem);
  REQUIRE(t.tpot_seconds);
  const double bw = 0.8 * *g.bandwidth_gb_per_s * 1e9;
  auto stage = [&](double batch) {
    const double compute = 2.0 * count_params(m).active * batch / 2.0 / (1934.6e12 * 0.5 * 0.7);
    return 40 * 0.03e-3 + std::max(mem.weights / bw, compute) + batch * 2176.0 * mem.kv_bytes_per_token / bw;
  };
  const double host = 256.0 * 25e-6;
  CHECK(*t.tpot_seconds > 2.0 * stage(128) + host);
  CHECK(*t.tpot_seconds < 2.0 * stage(128) + host + 1e-3);  // the hop: 20 µs and 128 x 8,192 16-bit values over PCIe
  CHECK(*t.tpot_seconds - host < 0.6 * 2.0 * stage(256));
  // Hugging Face's device_map pipeline has no micro-batches: the whole batch crosses the stages one after another.
  Workload hf = w;
  hf.framework = Framework::hf;
  hf.precision = Precision::bf16;
  Workload hf_one = hf;
  hf_one.batch = 1;
  const MemoryEstimate hm = estimate_memory(hf, m, &g);
  CHECK(*estimate_time(hf, m, g, hm).tpot_seconds > *estimate_time(hf_one, m, g, estimate_memory(hf_one, m, &g)).tpot_seconds);
}

TEST_CASE("prefill: a prompt's forward moves its memory-bound kernels' bytes, eager or fused, beside its FLOPs", "[serving][time]") {
  // Llama-2-13B (h 5,120, f 13,824, 40 heads of 128, 40 layers), a 512-token prompt, per token and layer
  // (method.md §8.2-8.3). PyTorch eager without flash attention: two RMSNorms of 36 B per element (2 x 36 x 5,120),
  // two residual adds of 6 (2 x 6 x 5,120), rotary over q and k at 20 per channel (20 x 10,240), SwiGLU at 10 per
  // intermediate element (10 x 13,824) and the scores at 16 B each (16 x 40 x 512): 1,100,800 B. Fused, with flash
  // attention: 4, 2, 4 and 6 B per element and no scores: 2 x 4 x 5,120 + 2 x 2 x 5,120 + 4 x 10,240 + 6 x 13,824.
  const ModelSpec m = test::model("llama-2-13b");
  CHECK(forward_elementwise_bytes_per_token(m, 512, false, false) == 40.0 * 1100800.0);
  CHECK(forward_elementwise_bytes_per_token(m, 512, true, true) == 40.0 * (40960.0 + 20480.0 + 40960.0 + 82944.0));
  CHECK(forward_elementwise_bytes_per_token(m, 512, true, true) == test::fused_prompt_bytes(m));
  CHECK(routed_expert_elementwise_bytes_per_token(m, true) == 0.0);  // a dense model has no routed experts
  // AutoAWQ's fused attention materialises a prompt's scores whatever the flag says (awq/modules/fused/attn.py);
  // the serving engines fuse their elementwise kernels.
  CHECK(framework_profile(Framework::autoawq).prefill_eager_attention);
  for (Framework f : {Framework::vllm, Framework::sglang, Framework::trtllm}) CHECK(framework_profile(f).fused_elementwise);
  CHECK_FALSE(framework_profile(Framework::hf).fused_elementwise);
  // Llama 2 7B in fp16 under Hugging Face on an A100, one 2,048-token prompt: without flash attention the prompt
  // also writes and reads its scores, 16 B x 32 heads x 2,048 per token and layer, 68.7 GB in all at 80 % of
  // 2,039 GB/s: 42.1 ms more. AutoAWQ materialises them either way.
  const ModelSpec m7 = test::model("llama-2-7b");
  const GpuSpec& a100 = *test::gpus().find("a100-sxm-80gb");
  auto prompt_s = [&](const char* framework, const char* flash) {
    const Workload w = test::wl({{"model", "llama-2-7b"}, {"mode", "inference"}, {"framework", framework}, {"batch", "1"}, {"flash_attention", flash},
                                 {"input_tokens", "2048"}, {"output_tokens", "16"}});
    const TimeEstimate t = estimate_time(w, m7, a100, estimate_memory(w, m7, &a100));
    REQUIRE(t.prefill_tokens_per_second);
    return 2048.0 / *t.prefill_tokens_per_second;
  };
  const double scores = 2048.0 * 32.0 * 16.0 * 32.0 * 2048.0 / (0.8 * 2039e9);
  CHECK(scores == Approx(42.1e-3).epsilon(0.002));
  CHECK(prompt_s("hf", "false") - prompt_s("hf", "true") == Approx(scores).epsilon(1e-6));
  CHECK(prompt_s("autoawq", "false") == Approx(prompt_s("autoawq", "true")).epsilon(1e-12));
}

TEST_CASE("serving: on AMD GPUs the band's low end is an untuned or regressed ROCm build, 2.1x below the estimate", "[serving][band][amd]") {
  // method.md §8.5: the estimate is AMD's tuned build (AITER, tuned MoE configs); the same GPU, model and engine ran
  // 2.11x slower without AITER (SGLang, DeepSeek-V3/R1 on 8 MI300X) and 0.62x after a regressed vLLM release. Llama 3.1
  // 8B under vLLM, 64 in flight, decode bandwidth-bound: the band is [value / 2.1, value x 1.2] on an MI300X, where an
  // H100's is [value / 1.2, value x 1.2]; Hugging Face generate on the MI300X keeps the plain band.
  auto band = [](const char* gpu, const char* framework) {
    const auto r = test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "inference", "--framework", framework, "--gpu", gpu, "--input-tokens", "1000",
                              "--output-tokens", "200", "--concurrency", "64", "--format", "json"});
    REQUIRE(r.code == 0);
    const auto t = r.json()["time"];
    REQUIRE(t["band"]["metric"] == "decode_tokens_per_second");
    const double v = t["decode_tokens_per_second"].get<double>();
    return std::tuple{t["band"]["low"].get<double>() / v, t["band"]["high"].get<double>() / v, t["band"]["drivers"].get<std::string>()};
  };
  const auto [amd_low, amd_high, amd_why] = band("mi300x-192gb", "vllm");
  CHECK(amd_low == Approx(1.0 / 2.1));
  CHECK(amd_high == Approx(1.2));
  CHECK(amd_why.find("ROCm build") != std::string::npos);
  const auto [nv_low, nv_high, nv_why] = band("h100-sxm-80gb", "vllm");
  CHECK(nv_low == Approx(1.0 / 1.2));
  CHECK(nv_high == Approx(1.2));
  CHECK(nv_why.find("ROCm") == std::string::npos);
  const auto [hf_low, hf_high, hf_why] = band("mi300x-192gb", "hf");
  CHECK(hf_low > 1.0 / 2.0);
  CHECK(hf_why.find("ROCm") == std::string::npos);
}

TEST_CASE("serving: no more sequences run at once than the job has requests for each replica, and none of them queue", "[serving][time]") {
  // 100 requests over four vLLM replicas of Llama 3.1 8B (--gpus 4, no --tp): 25 each, whatever --concurrency asks;
  // the time per output token is taken at 25 in flight and the first token waits for no queue.
  auto run = [](const char* requests) {
    const auto r = test::run({"estimate", "--model", "llama-3.1-8b", "--engine", "vllm", "--gpu", "h100-sxm-80gb", "--gpus", "4", "--input-tokens", "1000",
                              "--output-tokens", "100", "--concurrency", "512", "--requests", requests, "--format", "json"});
    REQUIRE(r.code == 0);
    return r.json();
  };
  auto mentions = [](const nlohmann::json& j, const std::string& text) {
    for (const auto& n : j["notes"])
      if (n.dump().find(text) != std::string::npos) return true;
    return false;
  };
  const auto few = run("100");
  CHECK(mentions(few, "25 sequences in flight: the job's 100 requests over 4 replicas"));
  CHECK(few["time"]["ttft_seconds"].get<double>() < 1.0);
  const auto at25 = test::run_json({"estimate", "--model", "llama-3.1-8b", "--engine", "vllm", "--gpu", "h100-sxm-80gb", "--gpus", "4", "--input-tokens", "1000",
                                    "--output-tokens", "100", "--concurrency", "25", "--requests", "100", "--format", "json"});
  CHECK(few["time"]["tpot_seconds"].get<double>() == Approx(at25["time"]["tpot_seconds"].get<double>()));
  // 4,000 requests (1,000 a replica) reach the 512 asked: no cap.
  CHECK_FALSE(mentions(run("4000"), "sequences in flight: the job's"));
}

TEST_CASE("serving: vLLM's step budget caps the sequences it keeps decoding while their replacements' prompts come in", "[serving][time]") {
  // vLLM on A100s steps at most 2,048 tokens (max_num_batched_tokens; 8,192 on an H100): to keep b sequences of
  // 2,000 in / 100 out decoding it takes in b/100 new requests a step, 20 b prompt tokens, so 21 b <= 2,048 and
  // b = floor(2,048 x 100 / 2,100) = 97. On H100s the budget allows 390, above the 155 the KV-cache pool holds.
  auto notes = [](const char* gpu) {
    const auto j = test::run_json({"estimate", "--model", "qwen3-235b-a22b", "--mode", "inference", "--framework", "vllm", "--precision", "bf16", "--gpu", gpu,
                                   "--gpus", "8", "--tp", "8", "--input-tokens", "2000", "--output-tokens", "100", "--requests", "500", "--format", "json"});
    return j["notes"].dump();
  };
  CHECK(notes("a100-sxm-80gb").find("97 sequences in flight: vLLM's step budget of 2048 tokens") != std::string::npos);
  CHECK(notes("h100-sxm-80gb").find("step budget") == std::string::npos);
}

TEST_CASE("serving: a latency target holds without a KV pool too, on the batch the framework is given", "[serving][time]") {
  // Hugging Face generate runs the batch it is given (one sequence by default): --max-tpot-ms holds that batch's
  // TPOT, as a serving engine's concurrency must meet it. Llama 3.1 8B on an A10: the TPOT without a target is the
  // one the verdict names.
  auto run = [](const std::vector<std::string>& extra) {
    std::vector<std::string> args{"estimate", "--model", "llama-3.1-8b", "--mode", "inference", "--gpu", "a10-24gb", "--input-tokens", "2000",
                                  "--output-tokens", "500", "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_json(args);
  };
  const double tpot_ms = run({})["time"]["tpot_seconds"].get<double>() * 1e3;
  REQUIRE(tpot_ms > 30.0);
  const auto missed = run({"--max-tpot-ms", "30"});
  CHECK(missed["fits"] == false);
  CHECK(missed["fit_reason"].get<std::string>() ==
        fmt::format("1 sequence in flight misses the latency target: TPOT {:.1f} ms over --max-tpot-ms 30", tpot_ms));
  const auto met = run({"--max-tpot-ms", fmt::format("{:.0f}", std::ceil(tpot_ms) + 1.0)});
  CHECK(met["fits"] == true);
  CHECK(met["time"]["tpot_seconds"].get<double>() * 1e3 == Approx(tpot_ms));
  CHECK(met["notes"].dump().find("the most that meet") == std::string::npos);  // no concurrency searched
  // check fails the same job with the same words (exit 1).
  const auto checked = test::run({"check", "--model", "llama-3.1-8b", "--mode", "inference", "--gpu", "a10-24gb", "--input-tokens", "2000",
                                  "--output-tokens", "500", "--max-tpot-ms", "30"});
  CHECK(checked.code == 1);
  CHECK(checked.out.find(fmt::format("on one GPU, 1 sequence in flight misses the latency target: TPOT {:.1f} ms", tpot_ms)) != std::string::npos);
  // The ranking keeps no row that misses it: every row that fits has a TPOT within 30 ms, and some GPUs do fit.
  const auto ranked = test::run_json({"--model", "llama-3.1-8b", "--mode", "inference", "--input-tokens", "2000", "--output-tokens", "500",
                                      "--requests", "1M", "--max-tpot-ms", "30", "--format", "json"});
  int fitting = 0;
  for (const auto& row : ranked["ranking"]) {
    if (!row["fits"].get<bool>()) continue;
    ++fitting;
    CHECK(row["time"]["tpot_seconds"].get<double>() * 1e3 <= 30.0);
  }
  CHECK(fitting > 0);
}

TEST_CASE("serving: one scheduler step of 64 decodes and a 2,048-token prefill chunk on an H100, worked by hand", "[serving][time]") {
  // Llama 3.1 8B in bf16 under vLLM on one H100, 64 in flight at 4,096 in / 128 out: each step decodes 64 tokens
  // and prefills 64 x 4,096 / 128 = 2,048 prompt tokens of the requests that replace the finished ones.
  // The decodes read the 16.06 GB of weights and 64 sequences' KV cache at the mean context 4,096 + 128/2 = 4,160
  // (131,072 B per token: 32 layers x 8 KV heads x 128 x 2 x 2 B) at 80 % of 3,350 GB/s, after 32 x 0.03 ms on
  // the host: 19.97 ms. The chunk runs at the prompt's rate (2 FLOPs per weight a token multiplies, 6.98 B: the 8.03 B
  // less the embedding table and the output layer, run once a prompt for its last position; 2·L·(heads·head_dim)·n
  // of attention; at 65 % of 989.4 TFLOP/s, 4.98 MB at 80 % of 3,350 GB/s) in the same forward: 2,048 / 39,629
  // tokens/s = 51.7 ms.
  using namespace gpuadvise;
  const ModelSpec m = test::model("llama-3.1-8b");
  const GpuSpec& g = *test::gpus().find("h100-sxm-80gb");
  const Workload w = test::wl({{"model", "llama-3.1-8b"}, {"framework", "vllm"}, {"concurrency", "64"}, {"input_tokens", "4096"},
                               {"output_tokens", "128"}, {"requests", "10k"}});
  const MemoryEstimate mem = estimate_memory(w, m, &g);
  const TimeEstimate t = estimate_time(w, m, g, mem);
  const double host = 32 * 0.03e-3;
  const double decode = host + (mem.weights + 64.0 * 4160.0 * 131072.0) / (0.8 * 3350e9);
  CHECK(mem.kv_bytes_per_token == 131072.0);
  CHECK(decode == Approx(19.97e-3).epsilon(0.002));
  const double vh = 128256.0 * 4096.0;
  const double flops = 2.0 * (count_params(m).active - 2.0 * vh) * 4096.0 + 2.0 * vh + 2.0 * 32.0 * 4096.0 * 4096.0 * 4096.0;
  const double prompt_rate = 4096.0 / (flops / (989.4e12 * 0.65) + 4096.0 * test::fused_prompt_bytes(m) / (0.8 * 3350e9));
  CHECK(prompt_rate == Approx(39629).epsilon(0.002));
  const double chunk = 2048.0 / prompt_rate;
  CHECK(chunk == Approx(51.7e-3).epsilon(0.002));
  REQUIRE(t.tpot_seconds);
  CHECK(*t.tpot_seconds == Approx(decode + chunk).epsilon(1e-4));
  CHECK(*t.requests_per_second == Approx(64.0 / (128.0 * *t.tpot_seconds)).epsilon(1e-9));  // Little's law
}

TEST_CASE("serving: a later TensorRT-LLM perf overview, held out: dense Llama within 25 % on five GPU types, the small mixtures of experts over", "[serving][heldout]") {
  // tests/data/serving_trtllm_2026_time.jsonl: 133 rows of NVIDIA's perf overview (GPT-OSS 120B and 20B, DeepSeek R1,
  // Llama 3.3 70B, Qwen3 235B and 30B on B200, GB200, H200, H100 and RTX PRO 6000; the page at commit 03e27c7), none
  // fitted. Llama 3.3 70B (FP4 on Blackwell, FP8 at TP 2 on Hopper, PP 1 and 2 on the RTX PRO 6000) within 25 % on
  // every row; DeepSeek R1 with attention data parallel within 20 % at 1,000-1,024 tokens each way.
  std::vector<double> all, oss_hopper;
  for (const auto& [c, e] : test::data_case_errors("serving_trtllm_2026_time.jsonl")) {
    const std::string id = c["id"].get<std::string>();
    INFO(id << " " << e);
    all.push_back(e);
    CHECK_FALSE(c["fitted"].get<bool>());
    if (id.find("llama_33_70b") != std::string::npos) CHECK(std::abs(e) <= 0.25);
    if (id.find("deepseek_r1") != std::string::npos && (id.find("_1000_1000") != std::string::npos || id.find("_1024_1024") != std::string::npos))
      CHECK(std::abs(e) <= 0.20);
    // gpt-oss on Hopper (its Triton MoE backend, weight-only): weight_only_moe_share was fitted on vLLM's H100 and
    // A100 rows, not these.
    const bool hopper = id.find("_h200_") != std::string::npos || id.find("_h100_") != std::string::npos;
    if (id.find("gpt_oss") != std::string::npos && hopper) oss_hopper.push_back(e);
    // Known gaps, held to their sign (method.md §8.3): the small mixtures of experts (gpt-oss-120b, Qwen3-30B-A3B)
    // at 1,000 tokens each way on Blackwell run slower than estimated.
    if ((id.find("gpt_oss_120b") != std::string::npos || id.find("qwen3_30b_b200") != std::string::npos) && id.find("_1000_1000") != std::string::npos &&
        !hopper)
      CHECK(e > 0.0);
  }
  REQUIRE(all.size() == 133);
  REQUIRE(oss_hopper.size() == 20);
  const auto [oss_median, oss_p90] = test::median_p90(oss_hopper);
  CHECK(oss_median <= 0.20);
  CHECK(oss_p90 <= 0.40);
  const auto [median, p90] = test::median_p90(all);
  // 15.4 % and 47.2 % (method.md §8.3): no worse.
  CHECK(median <= 0.16);
  CHECK(p90 <= 0.48);
}

TEST_CASE("serving: multi-head latent attention decodes bound by its FLOPs, grouped heads by their KV reads", "[serving][time]") {
  // DeepSeek-V3 FP8 on 8 H200s under SGLang, attention data parallel, 256 sequences: from 4,096 to 8,192 tokens of
  // context each decode step adds, per GPU (32 sequences, all 128 heads, or equally 256 x 128/8), 256 x 61 layers x
  // 2 x 128/8 heads x (512 + 64 + 512) x 4,096 FLOPs of absorbed attention at FlashMLA's 0.59 of 989.4 TFLOP/s:
  // 3.81 ms, 1.6 times the 2.40 ms its 16-bit latents take to read at 80 % of 4,800 GB/s (256/8 x 4,096 x 61 x
  // 576 x 2 B).
  auto tpot = [](std::vector<std::string> job, const char* seq) {
    job.insert(job.end(), {"--seq-len", seq});
    return test::run_json(job)["time"]["tpot_seconds"].get<double>();
  };
  const std::vector<std::string> ds{"estimate", "--model", "deepseek-v3", "--mode", "inference", "--precision", "fp8", "--framework", "sglang", "--gpu",
                                    "h200-sxm-141gb", "--gpus", "8", "--tp", "8", "--attention-dp", "--batch", "256"};
  const double flops = 256.0 * 61 * 2.0 * 128 / 8 * (512 + 64 + 512) * 4096 / (0.59 * 989.4e12);
  const double bytes = 256.0 / 8 * 4096 * 61 * 576 * 2 / (0.8 * 4800e9);
  CHECK(flops == Approx(3.81e-3).epsilon(0.002));
  CHECK(bytes == Approx(2.40e-3).epsilon(0.002));
  CHECK(tpot(ds, "8192") - tpot(ds, "4096") == Approx(flops).epsilon(1e-6));
  // Llama 3.1 70B FP8 at TP 2 under vLLM, 64 sequences: eight KV heads serve 64 query heads, 8 FLOPs per 16-bit
  // byte, so the same 4,096 more tokens add their reads, 64 x 4,096 x 80 layers x 2 x 8 x 128 x 2 B / 2 GPUs at
  // 80 % of 4,800 GB/s: 11.18 ms.
  const std::vector<std::string> llama{"estimate", "--model", "llama-3.1-70b", "--mode", "inference", "--precision", "fp8", "--framework", "vllm", "--gpu",
                                       "h200-sxm-141gb", "--gpus", "2", "--tp", "2", "--batch", "64"};
  CHECK(tpot(llama, "8192") - tpot(llama, "4096") == Approx(64.0 * 4096 * 80 * 2 * 8 * 128 * 2 / 2 / (0.8 * 4800e9)).epsilon(1e-6));
}
