// Attention data parallel for a served mixture of experts, and the engine's host work per sequence (docs/method.md
// §6.1, §6.2, §8.3): each GPU of the tp group keeps the attention whole for its own sequences and every KV head of
// them; the routed experts split over the group; a prompt's attention runs on the one GPU that holds it.
#include <catch2/catch.hpp>

#include <string>

#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/perf.hpp"
#include "helpers.hpp"

using namespace gpuadvise;

TEST_CASE("attention dp: the KV heads are kept once, the attention and dense weights on every GPU, the experts split", "[serving][attention-dp][memory]") {
  // Qwen3-30B-A3B under TensorRT-LLM in FP8 (FP8 KV cache, 1 byte) on 8 H100s: 48 layers x 2 x 4 KV heads x 128 =
  // 49,152 bytes a token. Tensor parallel 8 keeps one KV head per GPU (four heads over eight GPUs: each twice),
  // 12,288 bytes; attention data parallel keeps each sequence's four heads on one GPU, 49,152 / 8 = 6,144 on average.
  const ModelSpec m = test::model("qwen3-30b-a3b");
  const GpuSpec& g = *test::gpus().find("h100-sxm-80gb");
  auto mem = [&](bool adp) {
    Workload w = test::wl({{"model", "qwen3-30b-a3b"}, {"mode", "inference"}, {"framework", "trtllm"}, {"precision", "fp8"}, {"gpus", "8"}, {"tp", "8"}});
    w.attention_dp = adp;
    return estimate_memory(w, m, &g);
  };
  const MemoryEstimate tp = mem(false), adp = mem(true);
  CHECK(tp.kv_bytes_per_token == 12288.0);
  CHECK(adp.kv_bytes_per_token == 6144.0);
  // Weights: the routed experts' bytes an eighth on each GPU either way; the rest (attention, router, norms,
  // embeddings and head) an eighth under tensor parallel, whole under attention data parallel: 7/8 of it more.
  const ParamCounts pc = count_params(m);
  const double rest = adp.weights - pc.routed_experts * 1.0 / 8.0;  // FP8: a byte per expert weight
  CHECK(adp.weights - tp.weights == Approx(rest * 7.0 / 8.0).epsilon(0.001));
  CHECK(rest > (pc.total - pc.routed_experts) * 1.0);  // 16-bit embeddings and head beside the FP8 projections
}

TEST_CASE("attention dp: a prompt's attention runs on its own GPU, its experts over the group, one all-reduce's bytes", "[serving][attention-dp][time]") {
  // Qwen3-235B-A22B FP8 on 8 H100s under TensorRT-LLM, one 2,048-token prompt: its FLOPs (2 x 2,048 x the active
  // weights less the embedding table and the output layer, 151,936 x 4,096 each, plus the output layer once, for
  // the last position's logits) at 0.65 x 1,978.9 TFLOP/s, the routed experts' share (8 of 128 per token) over 8 GPUs
  // and the rest on one; the attention's 2 x 94 layers x 8,192 x 2,048^2 FLOPs in FP8 (TensorRT-LLM's FP8 context
  // attention), one exponential per 4 x 128 of them, at 0.65 x 989.4 / 256 T exponentials a second (an even match
  // with the FP8 rate on Hopper at d = 128), on the prompt's GPU; its fused kernels' bytes per token and layer at 80 % of 3,350 GB/s,
  // on its own GPU (two norms 2 x 4 x 4,096, their residual adds 2 x 2 x 4,096, rotary 4 x 68 x 128: 83,968 B) but
  // for the experts' SwiGLU (6 x 8 x 1,536) and permutations (2 x 9 x 4,096), 147,456 B split eight ways; the
  // tokens gathered before each MoE layer and scattered after: 94 x 2,048 x 4,096 16-bit values, each byte twice over
  // NVLink; 94 layers x 0.03 ms of host time.
  const ModelSpec m = test::model("qwen3-235b-a22b");
  const GpuSpec& g = *test::gpus().find("h100-sxm-80gb");
  Workload w = test::wl({{"model", "qwen3-235b-a22b"}, {"mode", "inference"}, {"framework", "trtllm"}, {"precision", "fp8"}, {"gpus", "8"},
                         {"tp", "8"}, {"batch", "1"}, {"input_tokens", "2048"}, {"output_tokens", "128"}});
  w.attention_dp = true;
  const TimeEstimate t = estimate_time(w, m, g, estimate_memory(w, m, &g));
  REQUIRE(t.ttft_seconds);
  const ParamCounts pc = count_params(m);
  const double vh = 151936.0 * 4096.0;
  const double flops = 2.0 * (pc.active - 2.0 * vh) * 2048.0 + 2.0 * vh;
  const double attention = 2.0 * 94.0 * 8192.0 * 2048.0 * 2048.0;
  const double experts = 2.0 * pc.routed_experts * 8.0 / 128.0 * 2048.0;
  const double rate = 0.65 * 1978.9e12;
  const double elementwise = 2048.0 * 94.0 * (83968.0 + 147456.0 / 8.0) / (0.8 * 3350e9);
  const double compute = (flops - experts) / rate + experts / (rate * 8.0) + attention / (4.0 * 128.0) / (0.65 * 989.4e12 / 256.0) + elementwise;
  const double gather = 94.0 * 2048.0 * 4096.0 * 2.0 * 2.0 / intra_node_bytes_per_s(g, 8);
  CHECK(*t.ttft_seconds == Approx(94 * 0.03e-3 + compute + gather).epsilon(1e-6));
  // Against tensor parallel 8, where every FLOP splits eight ways and two all-reduces carry the tokens: the
  // experts' 18.6 of 22.2 B active weights keep the prompt within 2x of it, not 8x.
  Workload tp = w;
  tp.attention_dp = false;
  const TimeEstimate t_tp = estimate_time(tp, m, g, estimate_memory(tp, m, &g));
  CHECK(*t.ttft_seconds > *t_tp.ttft_seconds);
  CHECK(*t.ttft_seconds < 2.0 * *t_tp.ttft_seconds);
}

TEST_CASE("engine host: TensorRT-LLM's executor paces a large batch of a small model, and adds its host work in a pipeline", "[serving][time]") {
  // Qwen3-30B-A3B in NVFP4 on one B200, 128 in / 128 out at 4,096 in flight: 25 us of host work per sequence and
  // step (coef::engine_sequence_host_s) is 102.4 ms a step, longer than the GPU's; each request's 128 steps take
  // 128 x 25 us of the host: 312.5 requests/s (the table: 39,827 output tokens/s = 311.1).
  const auto r = test::run({"estimate", "--model", "qwen3-30b-a3b", "--framework", "trtllm", "--precision", "fp4", "--gpu", "b200-hgx-180gb", "--input-tokens",
                            "128", "--output-tokens", "128", "--concurrency", "4096", "--requests", "30000", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto t = r.json()["time"];
  CHECK(t["tpot_seconds"].get<double>() == Approx(4096 * 25e-6));
  CHECK(t["requests_per_second"].get<double>() == Approx(1.0 / (128 * 25e-6)));
  CHECK(t["bound"].get<std::string>().find("host") != std::string::npos);
  // Little's law holds: 4,096 in flight, each living 128 x TPOT.
  CHECK(t["requests_per_second"].get<double>() * 128 * t["tpot_seconds"].get<double>() == Approx(4096.0));
  // vLLM's and SGLang's host work per sequence is not measured here: no pacing, and no note says otherwise.
  const auto v = test::run({"estimate", "--model", "qwen3-30b-a3b", "--framework", "vllm", "--gpu", "b200-hgx-180gb", "--input-tokens", "128",
                            "--output-tokens", "128", "--concurrency", "1024", "--format", "json"});
  REQUIRE(v.code == 0);
  CHECK(v.json()["time"]["bound"].get<std::string>().find("host") == std::string::npos);
}

TEST_CASE("attention dp: the planner tries it for a served mixture of experts and keeps it where it is faster", "[serving][attention-dp][plan-choice]") {
  // Qwen3-235B-A22B FP8 on H100s under TensorRT-LLM, 1,000 in / 1,000 out: at tensor parallel 8 the four KV heads sit
  // on two GPUs each; attention data parallel holds twice the sequences and halves the all-reduce bytes.
  const std::vector<std::string> job{"--model", "qwen3-235b-a22b", "--mode", "inference", "--framework", "trtllm", "--precision", "fp8",
                                     "--requests", "100000", "--input-tokens", "1000", "--output-tokens", "1000", "--format", "json"};
  auto args = job;
  // One node (across nodes the experts would rather split over every GPU: tests/test_serving_ep.cpp).
  args.insert(args.end(), {"--only", "h100-sxm-80gb", "--max-gpus", "8"});
  const auto r = test::run(args);
  REQUIRE(r.code == 0);
  const auto pick = r.json()["ranking"][0];
  REQUIRE(pick["fits"] == true);
  CHECK(pick["plan"]["attention_dp"] == true);
  CHECK(pick["layout"].get<std::string>().find("attention data parallel") != std::string::npos);
  auto est = job;
  est.insert(est.begin(), "estimate");
  est.insert(est.end(), {"--gpu", "h100-sxm-80gb", "--gpus", std::to_string(pick["plan"]["gpus"].get<int>()), "--tp", std::to_string(pick["plan"]["tp"].get<int>())});
  const auto at_tp = test::run(est);
  REQUIRE(at_tp.code == 0);
  CHECK(pick["time"]["requests_per_second"].get<double>() > 1.2 * at_tp.json()["time"]["requests_per_second"].get<double>());
  est.push_back("--attention-dp");
  const auto at_adp = test::run(est);
  REQUIRE(at_adp.code == 0);
  CHECK(at_adp.json()["time"]["requests_per_second"].get<double>() == Approx(pick["time"]["requests_per_second"].get<double>()));
}

TEST_CASE("attention dp: one line naming the flag where it does not apply, and launch commands each engine takes", "[serving][attention-dp][cli]") {
  const auto dense = test::run({"estimate", "--model", "llama-3.1-8b", "--framework", "vllm", "--gpus", "2", "--tp", "2", "--attention-dp"});
  CHECK(dense.code == 2);
  CHECK(dense.err.find("--attention-dp: applies to a serving engine's inference of a mixture-of-experts model") != std::string::npos);
  const auto one = test::run({"estimate", "--model", "qwen3-30b-a3b", "--framework", "vllm", "--tp", "1", "--attention-dp"});
  CHECK(one.code == 2);
  CHECK(one.err.find("--attention-dp: needs --tp 2 or more") != std::string::npos);
  const auto ep = test::run({"estimate", "--model", "qwen3-30b-a3b", "--framework", "vllm", "--gpus", "8", "--tp", "4", "--ep", "2", "--attention-dp"});
  CHECK(ep.code == 2);
  CHECK(ep.err.find("--ep must be 1 or 4") != std::string::npos);
  const auto hf = test::run({"estimate", "--model", "qwen3-30b-a3b", "--framework", "hf", "--gpus", "2", "--tp", "2", "--attention-dp"});
  CHECK(hf.code == 2);
  // The estimate's layout line says it.
  const auto table = test::run({"estimate", "--model", "qwen3-30b-a3b", "--framework", "vllm", "--gpu", "h100-sxm-80gb", "--gpus", "4", "--tp", "4", "--attention-dp"});
  REQUIRE(table.code == 0);
  CHECK(table.out.find("Layout: 4 GPUs, tp 4 (attention data parallel), pp 1") != std::string::npos);
  auto hints = [](const char* engine) {
    const auto r = test::run({"estimate", "--model", "qwen3-30b-a3b", "--framework", engine, "--gpu", "h100-sxm-80gb", "--gpus", "4", "--tp", "4",
                              "--attention-dp", "--format", "json"});
    REQUIRE(r.code == 0);
    return r.json()["launch_hints"];
  };
  const auto v = hints("vllm")["vllm"].get<std::string>();
  CHECK(v.find("--tensor-parallel-size 1 ") != std::string::npos);
  CHECK(v.find("--data-parallel-size 4 --enable-expert-parallel") != std::string::npos);
  CHECK(hints("sglang")["server"].get<std::string>().find("--tp 4 --context-length 2048 --dp 4 --enable-dp-attention") != std::string::npos);
  const auto trt = hints("trtllm");
  CHECK(trt["server"].get<std::string>().find("--extra_llm_api_options attention_dp.yml") != std::string::npos);
  CHECK(trt["notes"].dump().find("enable_attention_dp: true") != std::string::npos);
}
