// Serving as people run it (docs/method.md §6.2, §8.3): --seq-len is vLLM's max model length, the KV cache
// holds each request's prompt and output, a request count without --concurrency runs as many sequences as
// the pool holds, TTFT is one request's, and the context bounds fit --maximize seq-len.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>

#include "gpuadvise/memory.hpp"
#include "gpuadvise/perf.hpp"
#include "helpers.hpp"

namespace {
nlohmann::json rank(std::vector<std::string> args) { return test::run_json(std::move(args)); }
}  // namespace

TEST_CASE("serving: the KV cache holds prompt and output of each request, not the max model length", "[serving]") {
  // Mixtral 8x7B: 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 128 KiB per token, 64 KiB per GPU at TP 2.
  // 64 requests x (2,000 + 500) tokens x 64 KiB = 10.5 GB per GPU, inside the pool two H100s leave (weights
  // 46.7 GB each in a 77 GB budget). Sizing every request at the 32,768-token max model length would need
  // 137 GB per GPU (8 GPUs); one H100 cannot hold the 93 GB of weights in its 77 GB budget at all.
  const auto j = rank({"--model", "mixtral-8x7b", "--mode", "inference", "--framework", "vllm", "--input-tokens", "2000", "--output-tokens", "500",
                       "--concurrency", "64", "--seq-len", "32768", "--only", "h100-sxm-80gb"});
  const auto& r = j["ranking"][0];
  CHECK(r["fits"] == true);
  CHECK(r["gpus"] == 2);
  const double kv_per_token = r["memory"]["vllm"]["kv_bytes_per_token"].get<double>();
  CHECK(kv_per_token == Approx(65536.0));
  CHECK(64.0 * 2500.0 * kv_per_token < r["memory"]["vllm"]["kv_pool_bytes"].get<double>());
  // One H100 fails in vLLM's terms, and says so.
  const auto one = test::run({"estimate", "--model", "mixtral-8x7b", "--mode", "inference", "--framework", "vllm", "--gpu", "h100-sxm-80gb",
                              "--format", "json"});
  REQUIRE(one.code == 0);
  CHECK(one.json()["fits"] == false);
  CHECK(one.json()["fit_reason"].get<std::string>().find("leave no KV-cache pool in vLLM's") != std::string::npos);
}

TEST_CASE("serving: a request count without --concurrency runs as many sequences as the pool holds", "[serving]") {
  // Llama 3.1 8B on one H100: 128 KiB of KV cache per token; the pool holds 445,568 tokens = 580 requests of 768
  // tokens, under vLLM's max_num_seqs, 1,024 on a GPU of 70 GiB or more other than an A100 (arg_utils.py
  // get_batch_defaults). A million 512-in/256-out requests then take hours, not the 20.9 days of one request at a
  // time. On an A100 80GB the pool holds as many, and vLLM runs 256.
  const auto j = rank({"--model", "llama-3.1-8b", "--mode", "inference", "--framework", "vllm", "--requests", "1M", "--input-tokens", "512",
                       "--output-tokens", "256", "--only", "h100-sxm-80gb"});
  const auto& r = j["ranking"][0];
  CHECK(r["memory"]["vllm"]["max_tokens"].get<double>() == 445568.0);
  CHECK(r["plan"]["micro_batch"] == 580);
  CHECK(r["cost"]["hours"]["compute"].get<double>() < 24.0);
  // Its own 512-token prompt and a step and a half of the others' (about 0.13 s), not 580 prompts at once (about 10 s).
  CHECK(r["time"]["ttft_seconds"].get<double>() < 0.2);
  const double tpot = r["time"]["tpot_seconds"].get<double>();
  CHECK(r["time"]["decode_tokens_per_second"].get<double>() == Approx(580.0 / tpot));
  const auto a100 = rank({"--model", "llama-3.1-8b", "--mode", "inference", "--framework", "vllm", "--requests", "1M", "--input-tokens", "512",
                          "--output-tokens", "256", "--only", "a100-sxm-80gb"});
  CHECK(a100["ranking"][0]["plan"]["micro_batch"] == 256);
}

TEST_CASE("serving: fit --maximize seq-len stops at the model's context and says why", "[serving]") {
  const auto r = test::run({"fit", "--gpu", "h200-sxm-141gb", "--model", "llama-3.1-8b", "--mode", "inference", "--framework", "vllm",
                            "--maximize", "seq-len", "--format", "json"});
  REQUIRE(r.code == 0);
  CHECK(r.json()["value"] == 131072);
  CHECK(r.json()["limited_by"].get<std::string>().find("context of 131072 tokens") != std::string::npos);
}

TEST_CASE("serving: SGLang and TensorRT-LLM size their pools their own way", "[serving]") {
  // Llama 3.1 8B (16.06 GB of bf16 weights) on one H100 (81,559 MiB = 79.65 GiB):
  // SGLang reserves 9.5 + 1/2 GiB on a card under 90 GiB: mem_fraction_static = (79.65 - 10) / 79.65 = 0.874;
  // TensorRT-LLM's pool is 0.9 of the memory left after the engine loads.
  auto pool = [](const char* engine) {
    const auto r = test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "inference", "--framework", engine, "--gpu", "h100-sxm-80gb",
                              "--format", "json"});
    REQUIRE(r.code == 0);
    return r.json()["memory"]["vllm"];
  };
  const auto sgl = pool("sglang");
  CHECK(sgl["engine"] == "sglang");
  CHECK(sgl["gpu_memory_utilization"].get<double>() == Approx((79.65 - 10.0) / 79.65).epsilon(1e-3));
  const double capacity = 81559.0 * 1048576.0;
  const auto est = test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "inference", "--framework", "sglang", "--gpu", "h100-sxm-80gb",
                              "--format", "json"}).json();
  const double weights = est["memory"]["components"]["weights"].get<double>();
  CHECK(sgl["kv_pool_bytes"].get<double>() == Approx(capacity * sgl["gpu_memory_utilization"].get<double>() - weights).epsilon(1e-6));
  const auto trt = pool("trtllm");
  CHECK(trt["engine"] == "trtllm");
  CHECK(trt["gpu_memory_utilization"].get<double>() == Approx(0.9));
  CHECK(trt["kv_pool_bytes"].get<double>() < 0.9 * (capacity - weights));
  // TensorRT-LLM runs on NVIDIA GPUs only.
  const auto amd = test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "inference", "--framework", "trtllm", "--gpu", "mi300x-192gb",
                              "--format", "json"});
  REQUIRE(amd.code == 0);
  CHECK(amd.json()["fits"] == false);
}

TEST_CASE("serving: latency targets pick the largest concurrency that meets them", "[serving]") {
  // TPOT grows with the sequences in flight (their KV cache is read every step): the chosen concurrency meets
  // --max-tpot-ms, and one more sequence would not (unless the pool's limit came first).
  const auto run = [](const std::vector<std::string>& extra) {
    std::vector<std::string> args{"estimate", "--model", "llama-3.1-8b", "--mode", "inference", "--framework", "vllm", "--requests", "1M",
                                  "--input-tokens", "512", "--output-tokens", "3500", "--gpu", "h100-sxm-80gb"};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_json(args);
  };
  const auto free_run = run({});
  const auto capped = run({"--max-tpot-ms", "9"});
  const double tpot = capped["time"]["tpot_seconds"].get<double>() * 1e3;
  CHECK(tpot <= 9.0);
  const double b = capped["time"]["decode_tokens_per_second"].get<double>() * tpot / 1e3;
  const double b_free = free_run["time"]["decode_tokens_per_second"].get<double>() * free_run["time"]["tpot_seconds"].get<double>();
  CHECK(b < b_free);
  const auto next = test::run_json({"estimate", "--model", "llama-3.1-8b", "--mode", "inference", "--framework", "vllm", "--input-tokens", "512",
                                    "--output-tokens", "3500", "--gpu", "h100-sxm-80gb", "--concurrency", std::to_string(static_cast<long long>(std::llround(b)) + 1)});
  CHECK(next["time"]["tpot_seconds"].get<double>() * 1e3 > 9.0);
  // A target no concurrency meets does not fit, and says why.
  const auto none = run({"--max-tpot-ms", "1"});
  CHECK(none["fits"] == false);
  CHECK(none["fit_reason"].get<std::string>().find("over --max-tpot-ms 1") != std::string::npos);
}

TEST_CASE("serving: TTFT at load waits for and shares a scheduler step, and tokens are priced apart as providers do", "[serving]") {
  // Llama 3.1 8B on one H100 under vLLM, a million 512-in/256-out requests at the pool's 580 in flight.
  // TTFT (method.md §8.3): its own prefill, plus half a step waiting for the running iteration and the step its
  // prompt joins: own + 1.5 x TPOT. At one request in flight no one else is in the step: its prefill alone.
  const auto r = test::run({"estimate", "--model", "llama-3.1-8b", "--framework", "vllm", "--requests", "1M", "--input-tokens", "512",
                            "--output-tokens", "256", "--gpu", "h100-sxm-80gb", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = r.json();
  const double tpot = j["time"]["tpot_seconds"].get<double>(), ttft = j["time"]["ttft_seconds"].get<double>();
  const auto one = test::run({"estimate", "--model", "llama-3.1-8b", "--framework", "vllm", "--concurrency", "1", "--input-tokens", "512",
                              "--output-tokens", "256", "--gpu", "h100-sxm-80gb", "--format", "json"});
  REQUIRE(one.code == 0);
  const double own = one.json()["time"]["ttft_seconds"].get<double>();
  CHECK(ttft == Approx(own + 1.5 * tpot));
  // Little's law under continuous batching: 580 requests in flight, each living 256 x TPOT (the TPOT counts the new
  // requests' prompts prefilled in the same steps), so 580 / (256 x TPOT) requests per second; TPOT is the decode
  // step plus 580 x 512/256 prompt tokens per step at the prefill rate.
  const double prefill = j["time"]["prefill_tokens_per_second"].get<double>();
  CHECK(j["time"]["requests_per_second"].get<double>() == Approx(580.0 / (256.0 * tpot)));
  CHECK(j["time"]["decode_tokens_per_second"].get<double>() == Approx(580.0 / tpot));
  CHECK(tpot > 580.0 * 512.0 / 256.0 / prefill);
  // Priced apart: the job's cost split by the GPU time each part takes. A prompt, prefilled inside the decode steps
  // (sharing their weight reads and host time), takes 2 FLOPs per weight a token multiplies (the 8.03 B less the
  // embedding table and the output layer, 128,256 x 4,096 each: 6.98 B) x 512, the output layer once (vLLM takes the
  // last position's logits), and 2·L·(heads·head_dim)·512² of attention, at 65 % of 989.4 TFLOP/s, and its fused
  // kernels' 4.98 MB a token at 80 % of 3,350 GB/s, of the 256 x TPOT / 580 of a request.
  const gpuadvise::ModelSpec m8 = test::model("llama-3.1-8b");
  CHECK(test::fused_prompt_bytes(m8) == 4980736.0);
  const double vh = 128256.0 * 4096.0;
  const double prompt_flops = 2.0 * (count_params(m8).active - 2.0 * vh) * 512.0 + 2.0 * vh + 2.0 * 32.0 * 4096.0 * 512.0 * 512.0;
  const double share = (prompt_flops / (989.4e12 * 0.65) + 512.0 * test::fused_prompt_bytes(m8) / (0.8 * 3350e9)) / (256.0 * tpot / 580.0);
  const double job = j["cost"]["job_usd"].get<double>();
  CHECK(j["cost"]["usd_per_million_input_tokens"].get<double>() == Approx(job * share / (1e6 * 512) * 1e6));
  CHECK(j["cost"]["usd_per_million_output_tokens_apart"].get<double>() == Approx(job * (1.0 - share) / (1e6 * 256) * 1e6));
  // The two parts add up to the job.
  CHECK(j["cost"]["usd_per_million_input_tokens"].get<double>() * 512 + j["cost"]["usd_per_million_output_tokens_apart"].get<double>() * 256 ==
        Approx(job / 1e6 * 1e6));
}

TEST_CASE("serving: a model whose layers the stages do not divide is split unevenly across nodes, as vLLM does", "[serving]") {
  // DeepSeek-V3 has 61 layers: over 2 pipeline stages vLLM's get_pp_indices gives 31 + 30, so the larger stage
  // holds 31/61 of the layers (not 1/2). FP8 weights of 671 B parameters do not fit 8 H100s (77 GB each under
  // vLLM's 0.9), so the ranking plans 2 nodes: tensor parallel 8 in each, pipeline stages across.
  const gpuadvise::ModelSpec ds = test::model("deepseek-v3");
  auto mem = [&](const char* pp) {
    return gpuadvise::estimate_memory(test::wl({{"model", "deepseek-v3"}, {"mode", "inference"}, {"precision", "fp8"}, {"framework", "vllm"},
                                     {"gpus", "16"}, {"tp", "8"}, {"pp", pp}, {"nodes", "2"}}),
                           ds, test::gpus().find("h100-sxm-80gb"));
  };
  CHECK(mem("2").weights / mem("1").weights == Approx(31.0 / 61.0).epsilon(0.01));
  const auto j = test::run_json({"--model", "deepseek-v3", "--mode", "inference", "--framework", "vllm", "--precision", "fp8", "--input-tokens",
                                 "2000", "--output-tokens", "500", "--concurrency", "32", "--only", "h100-sxm-80gb"});
  const auto& r = j["ranking"][0];
  CHECK(r["fits"] == true);
  CHECK(r["gpus"] == 16);
  CHECK(r["nodes"] == 2);
  CHECK(r["plan"]["tp"] == 8);
  CHECK(r["plan"]["pp"] == 2);
  // Training splits unevenly too (Megatron's first/last stage layer counts): the largest stage holds 31 layers.
  CHECK(test::run({"estimate", "--model", "deepseek-v3", "--mode", "train", "--pp", "2", "--gpus", "2"}).code == 0);
}

TEST_CASE("serving: llama.cpp splits a model over its GPUs by layers, so two RTX 4090s decode faster than two RTX 3090s", "[serving][llamacpp]") {
  // XiongjieDai/GPU-Benchmarks-on-LLM-Inference (llama.cpp, Llama 3 70B Q4_K_M, tg 1024): 3090 x 2 16.29 tokens/s,
  // 4090 x 2 19.06. llama.cpp's default --split-mode layer runs the stages one after another, so a token costs every
  // GPU's share of the weights read in turn: the whole model at one card's bandwidth (936 against 1,008 GB/s).
  // Tensor parallel (its row split) would read both halves at once and decode about twice as fast as measured.
  struct Row {
    const char* gpu;
    double measured;
  };
  double rate_3090 = 0, rate_4090 = 0;
  for (const Row& row : {Row{"rtx-3090-24gb", 16.29}, Row{"rtx-4090-24gb", 19.06}}) {
    INFO(row.gpu);
    const auto r = test::run({"--model", "llama-3.1-70b", "--mode", "inference", "--precision", "q4_k_m", "--framework", "llamacpp", "--seq-len", "1024",
                              "--only", row.gpu, "--format", "json"});
    REQUIRE(r.code == 0);
    const auto pick = r.json()["ranking"][0];
    CHECK(pick["gpus"] == 2);
    CHECK(pick["plan"]["tp"] == 1);
    CHECK(pick["plan"]["pp"] == 2);
    CHECK(pick["launch_hints"]["server"].get<std::string>().find("--split-mode layer") != std::string::npos);
    const double rate = pick["time"]["decode_tokens_per_second"].get<double>();
    CHECK(rate == Approx(row.measured).epsilon(0.2));
    (row.measured < 18 ? rate_3090 : rate_4090) = rate;
    // estimate --gpus 2 alone is llama.cpp's layer split too: the same verdict and rate as the ranking's plan.
    const auto e = test::run_json({"estimate", "--model", "llama-3.1-70b", "--mode", "inference", "--precision", "q4_k_m", "--framework", "llamacpp",
                                   "--seq-len", "1024", "--gpu", row.gpu, "--gpus", "2", "--format", "json"});
    CHECK(e["workload"]["pp"] == 2);
    CHECK(e["fits"] == true);
    CHECK(e["time"]["decode_tokens_per_second"].get<double>() == Approx(rate));
  }
  CHECK(rate_4090 > rate_3090);
}

TEST_CASE("serving: each engine's pool is named as that engine sizes it", "[serving]") {
  // vLLM takes a share of the card, SGLang a static share for weights and pool, TensorRT-LLM a share of what its
  // engine leaves free (method.md §6.2): the text names the engine that runs, never vLLM for the others.
  const std::vector<std::pair<const char*, const char*>> engines{
      {"vllm", "vLLM: 90% of the card"}, {"sglang", "SGLang: "}, {"trtllm", "TensorRT-LLM: the engine and 90% of the memory it leaves free"}};
  for (const auto& [engine, line] : engines) {
    INFO(engine);
    const auto r = test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "inference", "--framework", engine, "--gpu", "h100-sxm-80gb"});
    REQUIRE(r.code == 0);
    CHECK(r.out.find(line) != std::string::npos);
    CHECK((std::string(engine) == "vllm") == (r.out.find("vLLM") != std::string::npos));
  }
}

TEST_CASE("serving: sequences beyond the KV pool wait in the engine's queue, and the time to first token counts the wait", "[serving]") {
  // Llama 2 70B FP8 over 2 H200s (TP 2) under TensorRT-LLM with a 16-bit KV cache (--kv-precision fp16; NVIDIA's FP8
  // checkpoints would cache FP8 and hold twice as many), 128 in / 2,048 out, 512 asked in flight: the pool holds
  // 619,248 tokens, 284 sequences of 2,176. The engine runs 284 and queues 228 (method.md §8.3): the same TPOT and
  // requests/s as at 284, and a TTFT longer by 228 x (TTFT + 2,048 x TPOT) / 284 (Little's law).
  auto at = [](const char* concurrency) {
    const auto r = test::run({"estimate", "--model", "llama-2-70b", "--mode", "inference", "--framework", "trtllm", "--precision", "fp8", "--gpu",
                              "h200-sxm-141gb", "--gpus", "2", "--tp", "2", "--concurrency", concurrency, "--input-tokens", "128", "--output-tokens",
                              "2048", "--requests", "10k", "--kv-precision", "fp16", "--format", "json"});
    REQUIRE(r.code == 0);
    return r.json();
  };
  const auto asked = at("512"), held = at("284");
  CHECK(asked["fits"] == true);
  CHECK(std::floor(asked["memory"]["vllm"]["max_tokens"].get<double>() / 2176.0) == 284);
  const double tpot = held["time"]["tpot_seconds"].get<double>(), ttft = held["time"]["ttft_seconds"].get<double>();
  CHECK(asked["time"]["tpot_seconds"].get<double>() == Approx(tpot));
  CHECK(asked["time"]["requests_per_second"].get<double>() == Approx(held["time"]["requests_per_second"].get<double>()));
  CHECK(asked["time"]["ttft_seconds"].get<double>() == Approx(ttft + 228.0 * (ttft + 2048.0 * tpot) / 284.0));
  bool said = false;
  for (const auto& n : asked["notes"]) said = said || n.get<std::string>().find("the other 228 wait in its queue") != std::string::npos;
  CHECK(said);
  // fit says the same: the most that run at once, and the next one queued rather than refused.
  const auto fit = test::run({"fit", "--model", "llama-2-70b", "--mode", "inference", "--framework", "trtllm", "--precision", "fp8", "--gpu",
                              "h200-sxm-141gb", "--gpus", "2", "--tp", "2", "--input-tokens", "128", "--output-tokens", "2048", "--kv-precision", "fp16",
                              "--maximize", "concurrency"});
  REQUIRE(fit.code == 0);
  CHECK(fit.out.find("runs at once in the KV-cache pool") != std::string::npos);
  CHECK(fit.out.find("at 285: the pool is full; the engine runs 284 and queues the rest") != std::string::npos);
  // check passes it (the engine runs), and says the queue in every format.
  std::vector<std::string> gate{"check", "--model", "llama-2-70b", "--mode", "inference", "--framework", "trtllm", "--precision", "fp8", "--gpu",
                                "h200-sxm-141gb", "--gpus", "2", "--tp", "2", "--concurrency", "512", "--input-tokens", "128", "--output-tokens", "2048",
                                "--kv-precision", "fp16"};
  const auto text = test::run(gate);
  CHECK(text.code == 0);
  CHECK(text.out.find("note: workload on h200-sxm-141gb: TensorRT-LLM runs 284 of the 512 sequences in flight at once in its KV-cache pool; "
                      "the other 228 wait in its queue") != std::string::npos);
  gate.insert(gate.end(), {"--format", "json"});
  const auto json = test::run(gate);
  REQUIRE(json.code == 0);
  const auto doc = json.json();
  const auto& row = doc["results"][0];
  CHECK(row["passed"] == true);
  REQUIRE(row["notes"].size() == 1);
  CHECK(row["notes"][0].get<std::string>().find("runs 284 of the 512") != std::string::npos);
  gate.push_back("--concurrency");
  gate.push_back("284");  // what the pool holds: nothing waits
  CHECK(test::run(gate).json()["results"][0]["notes"].empty());
}

TEST_CASE("serving: a short prompt is a forward bound by its weight reads, so the first token takes a decode step's time", "[serving][time]") {
  using namespace gpuadvise;
  // Llama 2 7B in bf16 on one H100 under vLLM, a 128-token prompt: its 1.7 TFLOP at half the 989 TFLOP/s peak
  // take 3.5 ms, less than reading the 13.48 GB of weights once at 80 % of 3,350 GB/s (5.03 ms). The first token
  // takes the read plus 32 layers x 0.03 ms of host time: 5.99 ms, as long as one decode step (6.03 ms, which
  // also reads the KV cache), not the 4.5 ms of the FLOPs alone.
  const ModelSpec m = test::model("llama-2-7b");
  const GpuSpec& g = *test::gpus().find("h100-sxm-80gb");
  const Workload w = test::wl({{"model", "llama-2-7b"}, {"mode", "inference"}, {"framework", "vllm"}, {"batch", "1"}, {"input_tokens", "128"},
                               {"output_tokens", "128"}});
  const MemoryEstimate mem = estimate_memory(w, m, &g);
  CHECK(mem.weights == Approx(13.48e9).epsilon(0.002));
  const TimeEstimate t = estimate_time(w, m, g, mem);
  const double read = mem.weights / (3350e9 * 0.8);
  CHECK(read == Approx(5.03e-3).epsilon(0.002));
  REQUIRE(t.ttft_seconds);
  CHECK(*t.ttft_seconds == Approx(read + 32 * 0.03e-3).epsilon(1e-9));
  CHECK(*t.ttft_seconds <= *t.tpot_seconds);
  CHECK(*t.ttft_seconds >= 0.95 * *t.tpot_seconds);
  // A 2,048-token prompt is compute-bound again: 27.6 TFLOP (the weights a token multiplies, 6.48 B: the 6.74 B less
  // the embedding table and the output layer, 32,000 x 4,096 each, which runs once for the last position) at 643
  // TFLOP/s and 4.73 MB a token at 2,680 GB/s, 48 ms.
  const Workload longer = test::wl({{"model", "llama-2-7b"}, {"mode", "inference"}, {"framework", "vllm"}, {"batch", "1"},
                                    {"input_tokens", "2048"}, {"output_tokens", "128"}});
  const TimeEstimate tl = estimate_time(longer, m, g, estimate_memory(longer, m, &g));
  const double vh = 32000.0 * 4096.0;
  const double flops = 2.0 * (count_params(m).active - 2.0 * vh) * 2048 + 2.0 * vh + 2.0 * 32 * 4096 * 2048.0 * 2048.0;
  CHECK(test::fused_prompt_bytes(m) == 4734976.0);
  CHECK(*tl.ttft_seconds == Approx(32 * 0.03e-3 + flops / (989.4e12 * 0.65) + 2048.0 * test::fused_prompt_bytes(m) / (0.8 * 3350e9)).epsilon(0.01));
}

TEST_CASE("serving: the front of tokens per second per GPU against per user, each point as the estimate at its layout", "[serving][front]") {
  // Llama 3.1 8B on H100s under vLLM, 512 in / 256 out at 256 in flight (one H100: TPOT 28.9 ms, as the
  // disaggregation test below works it out). The front (method.md §8.3): one replica at TP 1, 2, 4 and 8 at
  // concurrencies 1, 2, 4, ..., 256, the points no other beats on both. TP 1 at 256: 256 / 28.9 ms = 8,855 tokens/s
  // on its one GPU, 34.6 per user, and by Little's law 256 / (256 x TPOT) = 34.6 requests/s, the estimate's own.
  const std::vector<std::string> job{"estimate", "--model", "llama-3.1-8b", "--framework", "vllm", "--input-tokens", "512", "--output-tokens",
                                     "256", "--gpu", "h100-sxm-80gb", "--format", "json"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = job;
    a.insert(a.end(), extra.begin(), extra.end());
    const auto r = test::run(a);
    REQUIRE(r.code == 0);
    return r.json();
  };
  const auto j = with({"--concurrency", "256", "--requests", "1M"});
  const auto& front = j["serving_front"];
  REQUIRE(front.size() >= 4);
  const double tpot = j["time"]["tpot_seconds"].get<double>();
  CHECK(tpot == Approx(0.0289).epsilon(0.01));
  bool own = false;
  for (std::size_t i = 0; i < front.size(); ++i) {
    const auto& p = front[i];
    CHECK(p["tokens_per_second_per_user"].get<double>() == Approx(1.0 / p["tpot_seconds"].get<double>()));
    CHECK(p["tokens_per_second_per_gpu"].get<double>() ==
          Approx(p["concurrency"].get<double>() / p["tpot_seconds"].get<double>() / p["gpus"].get<double>()));
    CHECK(p["requests_per_second"].get<double>() == Approx(p["concurrency"].get<double>() / (256.0 * p["tpot_seconds"].get<double>())));
    if (i > 0) {  // a front: slower for each user, more for each GPU
      CHECK(p["tokens_per_second_per_user"].get<double>() < front[i - 1]["tokens_per_second_per_user"].get<double>());
      CHECK(p["tokens_per_second_per_gpu"].get<double>() > front[i - 1]["tokens_per_second_per_gpu"].get<double>());
    }
    if (p["tp"] == 1 && p["concurrency"] == 256) {
      own = true;
      CHECK(p["tpot_seconds"].get<double>() == Approx(tpot));
      CHECK(p["tokens_per_second_per_gpu"].get<double>() == Approx(256.0 / tpot));
      CHECK(p["tokens_per_second_per_gpu"].get<double>() == Approx(8855).epsilon(0.01));
      CHECK(p["requests_per_second"].get<double>() == Approx(j["time"]["requests_per_second"].get<double>()));
    }
  }
  CHECK(own);
  // Its fastest point for a user is a single sequence at the widest tensor parallel, whose TPOT is the estimate's
  // there: TP 8, one sequence in flight.
  const auto& first = front[0];
  CHECK(first["tp"] == 8);
  CHECK(first["concurrency"] == 1);
  const auto tp8 = with({"--gpus", "8", "--tp", "8", "--concurrency", "1"});
  CHECK(first["tpot_seconds"].get<double>() == Approx(tp8["time"]["tpot_seconds"].get<double>()));
  // Training, and an engine without a KV-cache pool, have no such front.
  const auto train = test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "finetune", "--gpu", "h100-sxm-80gb", "--format", "json"});
  CHECK(train.json()["serving_front"].empty());
  const auto hf = test::run({"estimate", "--model", "llama-3.1-8b", "--framework", "hf", "--gpu", "h100-sxm-80gb", "--format", "json"});
  CHECK(hf.json()["serving_front"].empty());
}

TEST_CASE("serving: ExLlamaV2 decodes at 90 % of the bandwidth plus a fixed host time per token, held out on its README's other rows", "[serving][time][engines]") {
  using namespace gpuadvise;
  // tests/data/exllamav2_time.jsonl: the ExLlamaV2 README's RTX 4090 column. Two rows fit the engine's profile
  // (framework.cpp): Llama 7B GPTQ (195 tokens/s) and TinyLlama 1.1B EXL2 4.0 bpw (590), whose 3.89 GB and 0.77 GB
  // of 4-bit weights read at 0.9 x 1,008 GB/s take 4.29 and 0.85 ms, each token 0.84 ms more on the host. The
  // 13B GPTQ, 34B EXL2 and Llama 2 7B EXL2 rows are held out and come within 5 %.
  std::map<std::string, double> err;
  for (const auto& [c, e] : test::data_case_errors("exllamav2_time.jsonl")) err[c["id"].get<std::string>()] = e;
  REQUIRE(err.size() == 5);
  CHECK(std::abs(err.at("exllamav2_llama7b_gptq_4090")) <= 0.03);
  CHECK(std::abs(err.at("exllamav2_tinyllama_exl2_4bpw_4090")) <= 0.03);
  for (const char* id : {"exllamav2_llama13b_gptq_4090", "exllamav2_codellama34b_exl2_4bpw_4090", "exllamav2_llama2_7b_exl2_4bpw_4090"})
    CHECK(std::abs(err.at(id)) <= 0.05);
  // By hand: Llama 2 7B's decode step = 3.89 GB / (0.9 x 1,008 GB/s) + its KV cache at a 192-token mean context
  // + 0.84 ms.
  const ModelSpec m = test::model("llama-2-7b");
  const GpuSpec& g = *test::gpus().find("rtx-4090-24gb");
  const Workload w = test::wl({{"model", "llama-2-7b"}, {"mode", "inference"}, {"precision", "int4"}, {"framework", "exllamav2"}, {"batch", "1"},
                         {"input_tokens", "128"}, {"output_tokens", "128"}});
  const MemoryEstimate mem = estimate_memory(w, m, &g);
  const TimeEstimate t = estimate_time(w, m, g, mem);
  const double by_hand = (mem.weights + kv_tokens_avg(m, 192.0) * mem.kv_bytes_per_token) / (0.9 * 1008e9) + 0.84e-3;
  CHECK(*t.tpot_seconds == Approx(by_hand).epsilon(1e-6));
  CHECK(mem.weights == Approx(3.89e9).epsilon(0.01));
}

TEST_CASE("serving: Little's law holds on every serving row the ranking plans", "[serving][property]") {
  // Under continuous batching (method.md §8.3) each of the B sequences in flight on a replica lives output x TPOT,
  // the TPOT counting the new requests' prompts prefilled in the same steps, so a replica completes B / (output x
  // TPOT) requests a second and the plan replicas x that. Every fitting row of every ranking below, whatever GPU,
  // engine, layout and concurrency the planner chose (B > 1; at one in flight a request's own prefill also counts).
  int rows = 0;
  for (const char* engine : {"vllm", "sglang", "trtllm"})
    for (const char* model : {"llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b"})
      for (const char* shape : {"512/256", "4096/128", "128/2048"}) {
        const std::string s(shape);
        const std::string in = s.substr(0, s.find('/')), out = s.substr(s.find('/') + 1);
        const auto j = test::run_json({"--model", model, "--framework", engine, "--requests", "100k", "--input-tokens", in, "--output-tokens", out});
        for (const auto& r : j["ranking"]) {
          if (!r["fits"].get<bool>() || r["time"]["requests_per_second"].is_null()) continue;
          const auto& p = r["plan"];
          const double b = p["micro_batch"].get<double>();
          if (b <= 1) continue;
          INFO(engine << " " << model << " " << shape << " on " << r["gpu"].get<std::string>());
          const double replicas = p["gpus"].get<double>() / (p["tp"].get<double>() * p["pp"].get<double>());
          const double tpot = r["time"]["tpot_seconds"].get<double>();
          CHECK(r["time"]["requests_per_second"].get<double>() == Approx(replicas * b / (std::stod(out) * tpot)).epsilon(1e-6));
          ++rows;
        }
      }
  CHECK(rows > 100);
}

TEST_CASE("serving: disaggregated prefill and decode split the replicas so the slower pool is fastest, and the decode steps run no prompts", "[serving][disaggregate]") {
  // Llama 3.1 8B under vLLM on 8 H100s (8 replicas of one GPU), 256 in flight, 512 in / 256 out. A decode step
  // (method.md §8.3): 32 x 0.03 ms of host time; the projections, the longer of reading 16.06 GB of bf16 weights at
  // 0.8 x 3,350 GB/s (5.99 ms) and 2 x 7.50e9 x 256 FLOPs (the weights a token multiplies: the embedding table is a
  // gather) at 0.5 x 989.4 TFLOP/s (7.77 ms); then the attention reading 256 sequences x 640 tokens x 131,072 B of
  // KV cache (8.01 ms): 16.7 ms. Together each replica adds the prompts of its steps (512 tokens at 42,059 tokens/s,
  // 12.2 ms): 28.9 ms per token and 34.6 requests/s. Apart: a prefill replica runs 42,059 / 512 = 82.1 requests/s, a
  // decode replica 256 / (256 x 16.7 ms) = 59.7; of the splits of 8 (1+7 ... 7+1), 3 + 5 gives min(3 x 82.1,
  // 5 x 59.7) = 246.4 requests/s, the most (4 + 4: 238.9): fewer than together (276.7), at 58 % of the time per
  // token. The TPOT is the decode step alone, the TTFT the prompt's own prefill and its KV cache's 67 MB over NVLink.
  std::vector<std::string> job{"estimate", "--model", "llama-3.1-8b", "--framework", "vllm", "--gpu", "h100-sxm-80gb", "--gpus", "8",
                               "--concurrency", "256", "--input-tokens", "512", "--output-tokens", "256", "--requests", "1M", "--format", "json"};
  const auto together = test::run(job);
  job.push_back("--disaggregate");
  const auto apart = test::run(job);
  REQUIRE(together.code == 0);
  REQUIRE(apart.code == 0);
  const auto t = together.json()["time"], a = apart.json()["time"];
  const double decode = a["tpot_seconds"].get<double>();
  CHECK(decode == Approx(0.96e-3 + 7.77e-3 + 8.01e-3).epsilon(0.002));
  CHECK(t["tpot_seconds"].get<double>() == Approx(28.9e-3).epsilon(0.01));
  const double r_p = 42059.0 / 512.0, r_d = 256.0 / (256.0 * decode);
  CHECK(r_p == Approx(82.1).epsilon(0.002));
  CHECK(r_d == Approx(59.7).epsilon(0.002));
  CHECK(a["requests_per_second"].get<double>() == Approx(3.0 * r_p).epsilon(0.002));
  CHECK(t["requests_per_second"].get<double>() == Approx(8 * 34.6).epsilon(0.01));
  CHECK(a["ttft_seconds"].get<double>() < t["ttft_seconds"].get<double>());
  // Only the decode pool emits tokens: the plan's output is its requests/s x 256, over its 8 replicas.
  CHECK(a["decode_tokens_per_second"].get<double>() * 8.0 == Approx(a["requests_per_second"].get<double>() * 256.0));
  bool said = false;
  const auto apart_doc = apart.json();
  for (const auto& n : apart_doc["notes"]) said = said || n.get<std::string>().find("3 prefill and 5 decode replicas") != std::string::npos;
  CHECK(said);
  // One replica cannot be split: timed together, and said.
  const auto one = test::run({"estimate", "--model", "llama-3.1-8b", "--framework", "vllm", "--gpu", "h100-sxm-80gb", "--disaggregate", "--format", "json"});
  REQUIRE(one.code == 0);
  bool told = false;
  const auto one_doc = one.json();
  for (const auto& n : one_doc["notes"]) told = told || n.get<std::string>().find("needs at least two replicas") != std::string::npos;
  CHECK(told);
  // Only a serving engine disaggregates: one line naming the flag and the engines, exit 2.
  const auto hf = test::run({"estimate", "--model", "llama-3.1-8b", "--framework", "hf", "--disaggregate"});
  CHECK(hf.code == 2);
  CHECK(hf.err.find("--disaggregate: applies to a serving engine's language-model inference (--framework vllm, sglang or trtllm)") != std::string::npos);
}

TEST_CASE("serving: under a TPOT target the planner's own pick disaggregates, and it costs less than prefill and decode together", "[serving][disaggregate][plan-choice]") {
  // Llama 3.1 8B under vLLM on H100s, 2,048 in / 256 out, a million requests, TPOT at most 20 ms. Together the
  // prompts prefilled in every step push the TPOT up, so the plan runs TP 4 at fewer sequences; apart, the decode
  // steps run no prompts and one-GPU replicas meet 20 ms at 122 in flight: the job costs less.
  std::vector<std::string> job{"--model", "llama-3.1-8b", "--framework", "vllm", "--requests", "1M", "--input-tokens", "2048", "--output-tokens", "256",
                               "--max-tpot-ms", "20", "--gpu", "h100-sxm-80gb"};
  const auto together = test::run_json(job);
  job.push_back("--disaggregate");
  const auto apart = test::run_json(job);
  const auto& t = together["ranking"][0];
  const auto& a = apart["ranking"][0];
  REQUIRE(t["fits"] == true);
  REQUIRE(a["fits"] == true);
  CHECK(a["layout"].get<std::string>().find("disaggregated replicas") != std::string::npos);
  CHECK(a["time"]["tpot_seconds"].get<double>() <= 0.020);
  CHECK(t["time"]["tpot_seconds"].get<double>() <= 0.020);
  CHECK(a["cost"]["job_usd"].get<double>() < t["cost"]["job_usd"].get<double>());
}
