// Memory model anchors worked out by hand from cited formulas (docs/method.md).
#include <catch2/catch.hpp>

#include "gpuadvise/memory.hpp"
#include "helpers.hpp"

using namespace gpuadvise;
using test::wl;


TEST_CASE("memory: 7B parameters are 14 GB in bf16 and 3.5 GB at 4 bits before anything else", "[memory]") {
  const auto m = generic_decoder(7e9, "7B");
  CHECK(estimate_memory(wl({{"mode", "inference"}, {"precision", "bf16"}}), m, nullptr).weights == Approx(14e9));
  // 4-bit GPTQ/AWQ with group 128 stores 4 + 20/128 bits per quantised weight and keeps embeddings in 16-bit:
  // more than the naive 3.5 GB.
  const double w4 = estimate_memory(wl({{"mode", "inference"}, {"precision", "int4"}}), m, nullptr).weights;
  CHECK(w4 > 3.5e9);
  CHECK(w4 < 4.2e9);
}

TEST_CASE("memory: ZeRO paper Figure 1, 7.5B parameters on 64 GPUs with K = 12", "[memory][zero]") {
  // Rajbhandari et al. 2019, Fig. 1: baseline 120 GB, P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.9 GB per GPU.
  const double psi = 7.5e9;
  CHECK(zero_model_states(psi, 2, 2, 12, Sharding::none, 64).total() / 1e9 == Approx(120.0));
  CHECK(zero_model_states(psi, 2, 2, 12, Sharding::zero1, 64).total() / 1e9 == Approx(31.4).margin(0.05));
  CHECK(zero_model_states(psi, 2, 2, 12, Sharding::zero2, 64).total() / 1e9 == Approx(16.6).margin(0.05));
  CHECK(zero_model_states(psi, 2, 2, 12, Sharding::zero3, 64).total() / 1e9 == Approx(1.9).margin(0.05));
}

TEST_CASE("memory: DeepSpeed's ZeRO-3 estimator, 18·Ψ/N of model states", "[memory][zero]") {
  // deepspeed stage3.py estimate_zero3_model_states_mem_needs: largest_layer_memory + 18·Ψ/N without offload
  // (fp16 params 2 + fp32 grads 4 + fp32 master, m, v 12).
  const double psi = 7e9, n = 8;
  CHECK(zero_model_states(psi, 2, 4, 12, Sharding::zero3, n).total() == Approx(18.0 * psi / n));
  // ZeRO-2 estimator without offload: 4Ψ + 16Ψ/N (16-bit params and grads, fp32 master + states + grads partitioned).
  CHECK(zero_model_states(psi, 2, 2, 16, Sharding::zero1, n).total() == Approx(4.0 * psi + 16.0 * psi / n));
}

TEST_CASE("memory: llama-2-7b inference at 4096 tokens holds a 2 GiB KV cache", "[memory][kv]") {
  // 32 layers x 2 x 4096 (32 heads x 128) x 2 bytes x 4096 tokens = 2 GiB.
  const auto e = estimate_memory(wl({{"model", "llama-2-7b"}, {"seq_len", "4096"}}), test::model("llama-2-7b"), nullptr);
  CHECK(e.kv_cache == 2.0 * 1024 * 1024 * 1024);
  CHECK(e.weights == Approx(13.48e9).epsilon(0.001));
  CHECK(e.device_peak >= e.tensor_peak);
  CHECK(e.tensor_peak > e.weights);
}

TEST_CASE("memory: KV heads are replicated, not split below one per tensor-parallel rank", "[memory][kv]") {
  // Llama-3.1-8B has 8 KV heads: at tp 16 each rank still holds one head per layer ([LLMA] max(g/t, 1)).
  const auto m = test::model("llama-3.1-8b");
  const auto e8 = estimate_memory(wl({{"seq_len", "8192"}, {"gpus", "8"}, {"tp", "8"}}), m, nullptr);
  const auto e16 = estimate_memory(wl({{"seq_len", "8192"}, {"gpus", "16"}, {"tp", "16"}}), m, nullptr);
  CHECK(e8.kv_heads_per_gpu == 1);
  CHECK(e16.kv_heads_per_gpu == 1);
  CHECK(e16.kv_cache == e8.kv_cache);
  CHECK(e16.weights < e8.weights);
}

TEST_CASE("memory: sliding-window layers cap the KV cache at the window", "[memory][kv]") {
  // Mistral-7B-v0.1: every layer attends to 4096 tokens at most, so 32k of context caches 4096 tokens.
  const auto m = test::model("mistral-7b");
  const auto e = estimate_memory(wl({{"seq_len", "32768"}}), m, nullptr);
  CHECK(e.kv_cache == Approx(4096.0 * 128 * 1024));
  // Gemma-2-9B: half the layers local (4096), half global.
  const auto g = test::model("gemma-2-9b");
  const auto eg = estimate_memory(wl({{"seq_len", "8192"}}), g, nullptr);
  const double per_token = 2.0 * 42 * 8 * 256 * 2;
  CHECK(eg.kv_cache == Approx(per_token * (0.5 * 4096 + 0.5 * 8192)));
}

TEST_CASE("memory: mixed-precision AdamW full fine-tune keeps 16-18 bytes per parameter", "[memory]") {
  const auto m = test::model("llama-3.1-8b");
  const auto e = estimate_memory(wl({{"mode", "finetune"}, {"precision", "bf16"}, {"seq_len", "512"}}), m, nullptr);
  const double states = e.weights + e.gradients + e.optimizer_states;
  // HF AMP: fp32 weights 4 + fp32 grads 4 + Adam m, v 8 = 16, plus autocast's 16-bit copies of the linear
  // weights ([HF-ANAT]: 18 bytes/param).
  CHECK(states / count_params(m).total > 16.0);
  CHECK(states / count_params(m).total < 18.0);
}

TEST_CASE("memory: --grad-dtype bf16 halves Megatron's fp32 main grads, the reduction and the launch say so", "[memory]") {
  // Llama 3.1 8B (8.03e9 parameters) pre-trained under Megatron at TP 1: Megatron-LM accumulates and reduces bf16
  // training's gradients in fp32 (its arguments.py), 4 B a parameter: 32.12 GB; Megatron-Bridge's benchmarks set
  // grad_reduce_in_fp32 false: 2 B, 16.06 GB. The weights (2 B) and the optimizer (12 B) do not change.
  const auto m = test::model("llama-3.1-8b");
  const double n = count_params(m).total;
  auto megatron = [&](const char* grads) {
    auto w = wl({{"mode", "train"}, {"framework", "megatron"}, {"seq_len", "1024"}});
    if (grads[0] != 0) w = wl({{"mode", "train"}, {"framework", "megatron"}, {"seq_len", "1024"}, {"grad_dtype", grads}});
    return estimate_memory(w, m, nullptr);
  };
  const auto fp32 = megatron(""), bf16 = megatron("bf16");
  CHECK(fp32.gradients == Approx(4.0 * n));
  CHECK(bf16.gradients == Approx(2.0 * n));
  CHECK(bf16.grad_element_bytes == 2.0);
  CHECK(bf16.weights == Approx(fp32.weights));
  CHECK(bf16.optimizer_states == Approx(fp32.optimizer_states));
  CHECK(megatron("fp32").gradients == Approx(fp32.gradients));
  // On 8 GPUs with the distributed optimizer the launch asks Megatron-LM for it; the workload echoes it.
  const std::vector<std::string> base{"estimate", "--model", "llama-3.1-8b", "--mode", "train", "--framework", "megatron", "--gpu", "h100-sxm-80gb",
                                      "--gpus", "8", "--sharding", "zero1", "--grad-dtype", "bf16", "--format", "json"};
  const auto j = test::run_json(base);
  CHECK(j["workload"]["grad_dtype"] == "bf16");
  CHECK(j["launch_hints"]["torchrun"].get<std::string>().find(" --grad-reduce-in-bf16") != std::string::npos);
}

TEST_CASE("memory: sharding and tensor parallelism shrink each GPU share, data parallelism does not", "[memory]") {
  const auto m = test::model("llama-3.1-8b");
  const auto one = estimate_memory(wl({{"mode", "finetune"}, {"seq_len", "1024"}}), m, nullptr);
  const auto ddp = estimate_memory(wl({{"mode", "finetune"}, {"seq_len", "1024"}, {"gpus", "4"}}), m, nullptr);
  const auto fsdp = estimate_memory(wl({{"mode", "finetune"}, {"seq_len", "1024"}, {"gpus", "4"}, {"sharding", "fsdp"}}), m, nullptr);
  CHECK(ddp.tensor_peak >= one.tensor_peak);  // replicas: each holds the whole model (plus DDP buckets)
  CHECK(fsdp.weights + fsdp.gradients + fsdp.optimizer_states < 0.4 * (one.weights + one.gradients + one.optimizer_states));
}

TEST_CASE("memory: activations grow with batch and sequence, checkpointing cuts them", "[memory]") {
  const auto m = test::model("llama-3.1-8b");
  const auto a = estimate_memory(wl({{"mode", "lora"}, {"seq_len", "1024"}}), m, nullptr);
  const auto b = estimate_memory(wl({{"mode", "lora"}, {"seq_len", "2048"}}), m, nullptr);
  const auto c = estimate_memory(wl({{"mode", "lora"}, {"seq_len", "2048"}, {"batch", "2"}}), m, nullptr);
  const auto d = estimate_memory(wl({{"mode", "lora"}, {"seq_len", "2048"}, {"gradient_checkpointing", "full"}}), m, nullptr);
  CHECK(b.activations == Approx(2 * a.activations).epsilon(0.02));
  CHECK(c.activations > 1.9 * b.activations);
  CHECK(d.activations < 0.2 * b.activations);
}

TEST_CASE("memory: QLoRA stores the base in NF4 (4.5 bits, 4.127 with double quantisation)", "[memory]") {
  // QLoRA §3: blocksize 64 with an fp32 absmax = 0.5 bit; double quantisation brings it to 0.127 bit.
  CHECK(weight_bits(Precision::nf4, false) == Approx(4.5));
  CHECK(weight_bits(Precision::nf4, true) == Approx(4.127).epsilon(0.001));
  CHECK(weight_bits(Precision::q4_k_m, false) == Approx(4.8944));
}

TEST_CASE("memory: vLLM reports the KV-cache pool and the concurrency it allows", "[memory][vllm]") {
  const auto m = test::model("mixtral-8x7b");
  const auto* g = test::gpus().find("h100-sxm-80gb");
  const auto e = estimate_memory(wl({{"mode", "inference"}, {"framework", "vllm"}, {"gpus", "2"}, {"tp", "2"}, {"seq_len", "32768"}}), m, g);
  REQUIRE(e.vllm);
  // Weights per GPU: 46.7B x 2 bytes / 2 ranks = 46.7 GB.
  CHECK(e.weights / 1e9 == Approx(46.7).epsilon(0.01));
  CHECK(e.device_peak == Approx(0.9 * 85520809984.0));
  CHECK(e.vllm->kv_pool_bytes > 10e9);
  CHECK(e.vllm->kv_pool_bytes < 30e9);
  // Each rank holds 4 of 8 KV heads: 32 layers x 2 x 4 x 128 x 2 bytes = 64 KiB per token.
  CHECK(e.vllm->kv_bytes_per_token == 64.0 * 1024);
  CHECK(e.vllm->max_concurrent_sequences == Approx(e.vllm->max_tokens / 32768.0));
}

TEST_CASE("memory: the band moves each component by its own uncertainty", "[memory]") {
  // method.md §6.5: weights ±1 %, gradients and states ±3 %, activations ±20 %, logits ±30 %, KV cache ±2 %,
  // allocator reserve ±50 %, runtime ±40 %: the band's half-width is that sum, computed here by hand from the
  // components.
  const auto e = estimate_memory(wl({{"model", "llama-2-7b"}, {"mode", "lora"}}), test::model("llama-2-7b"), nullptr);
  const double half = 0.01 * e.weights + 0.03 * (e.gradients + e.optimizer_states) + 0.20 * e.activations + 0.30 * e.logits +
                      0.02 * e.kv_cache + 0.5 * e.allocator_reserve + 0.4 * e.runtime;
  REQUIRE(half > 0);
  CHECK(e.device_high - e.device_peak == Approx(half).epsilon(1e-9));
  CHECK(e.device_peak - e.device_low == Approx(half).epsilon(1e-9));
  // LoRA of a 7B model: the 13.5 GB of frozen bf16 weights move by 1 %, so the band is wider than 0.13 GB.
  CHECK(half > 0.01 * 13.4e9);
}

TEST_CASE("memory: tensor parallelism with sequence parallelism divides the saved activations by t", "[memory]") {
  // Korthikanti et al. 2022 Table 2: TP + SP keeps s·b·h·34/t per layer, 1/t of the unsplit layer.
  const auto m = test::model("llama-3.1-8b");
  const auto t1 = estimate_memory(wl({{"mode", "train"}, {"seq_len", "4096"}, {"framework", "megatron"}}), m, nullptr);
  const auto t4 = estimate_memory(wl({{"mode", "train"}, {"seq_len", "4096"}, {"framework", "megatron"}, {"gpus", "4"}, {"tp", "4"}}), m, nullptr);
  CHECK(t4.activations == Approx(t1.activations / 4).epsilon(0.02));
  CHECK(t4.logits == Approx(t1.logits / 4));
  CHECK(t4.weights == Approx(t1.weights / 4).epsilon(0.01));
}

TEST_CASE("memory: llm.q's fused classifier keeps 2 bytes per logits element and bf16 gradients", "[memory][framework]") {
  // llm.c's fused classifier writes the loss gradient over the bf16 logits in place (llmq
  // src/kernels/fused_classifier.cu): 16 x 1024 tokens x 151,936 vocabulary x 2 B = 4,978,638,848 B, where the
  // Hugging Face default keeps 10 B per element (16-bit logits, fp32 upcast and log-probs).
  const auto m = test::model("qwen2.5-0.5b");
  const auto llmq = estimate_memory(
      wl({{"model", "qwen2.5-0.5b"}, {"mode", "train"}, {"batch", "16"}, {"seq_len", "1024"}, {"framework", "llmq"}, {"master_weights", "none"}}), m, nullptr);
  CHECK(llmq.logits == 16.0 * 1024 * 151936 * 2);
  // bf16 weights, bf16 gradients and bf16 AdamW moments (--model-dtype=bf16 --opt-m-dtype=bf16 --opt-v-dtype=bf16):
  // 2 + 2 + 4 bytes per parameter.
  CHECK(llmq.gradients == Approx(2.0 * llmq.params_total).epsilon(1e-9));
  CHECK(llmq.optimizer_states == Approx(4.0 * llmq.params_total).epsilon(1e-9));
  const auto hf = estimate_memory(wl({{"model", "qwen2.5-0.5b"}, {"mode", "train"}, {"batch", "16"}, {"seq_len", "1024"}}), m, nullptr);
  CHECK(hf.logits == 16.0 * 1024 * 151936 * 10);
}

TEST_CASE("memory: LoRA under ZeRO-3 with expert parallelism shards each GPU's own experts only over the ranks that share them", "[memory][moe]") {
  // Mixtral 8x7B (32 layers, h 4,096, 8 experts of 3 x 4,096 x 14,336 = 176.2M), bf16 LoRA on 8 GPUs, ZeRO-3, ep 8:
  // each GPU holds its expert whole, 45.10B / 8 x 2 B = 11.27 GB, sharded over dp / ep = 1; the rest (attention 1.34B,
  // router, norms, embeddings and head 0.26B) over 8: 0.40 GB; gathered: embeddings and head 0.52 GB and two layers
  // of attention and one local expert (0.218B) 0.87 GB; fp32 adapters (rank 16 on every linear: 196M) over 8: 0.10 GB.
  // 13.17 GB in all (the frozen experts were divided by 8 twice before: 8.24 GB).
  const auto r = test::run({"estimate", "--model", "mixtral-8x7b", "--mode", "lora", "--gpu", "h100-sxm-80gb", "--gpus", "8", "--sharding", "zero3", "--ep", "8",
                            "--format", "json"});
  REQUIRE(r.code == 0);
  const double weights = r.json()["memory"]["components"]["weights"].get<double>();
  CHECK(weights == Approx(11.27e9 + 0.40e9 + 0.52e9 + 0.87e9 + 0.10e9).epsilon(0.01));
  CHECK(weights > 45.10e9 / 8.0 * 2.0);
}

TEST_CASE("memory: FP8 training under Megatron with 16-bit parameters also holds Transformer Engine's cached FP8 copies of the linear weights",
          "[memory][megatron]") {
  // Llama 3.1 8B: 32 layers x (q, o 4,096^2; k, v 4,096 x 1,024; gate, up, down 3 x 4,096 x 14,336) = 6,979,321,856
  // linear parameters. Unsharded on 8 GPUs Megatron keeps bf16 parameters; TELinear passes is_first_microbatch, so
  // Transformer Engine caches each weight's FP8 copy and its transpose (an H100's FP8 GEMM is TN only): 2 bytes each,
  // 13.96 GB more than the distributed optimizer's plan, whose parameters are those two FP8 copies
  // (--fp8-param-gather; method.md §3.1). In bf16 there is no FP8 copy.
  auto weights = [](const char* precision, const char* sharding) {
    const auto j = test::run_json({"estimate", "--model", "llama-3.1-8b", "--mode", "train", "--framework", "megatron", "--precision", precision, "--gpu",
                                   "h100-sxm-80gb", "--gpus", "8", "--sharding", sharding});
    return j["memory"]["components"]["weights"].get<double>();
  };
  const double linear = 32.0 * (2.0 * 4096 * 4096 + 2.0 * 4096 * 1024 + 3.0 * 4096 * 14336);
  CHECK(linear == 6979321856.0);
  CHECK(weights("fp8", "none") - weights("fp8", "zero1") == Approx(2.0 * linear).epsilon(1e-9));
  CHECK(weights("bf16", "none") == Approx(weights("bf16", "zero1")).epsilon(1e-9));
  CHECK(weights("fp8", "zero1") == Approx(weights("bf16", "zero1")).epsilon(1e-9));
}

TEST_CASE("memory: FP8 weights are one copy on a GPU whose FP8 GEMMs take any layout (data-centre Blackwell)", "[memory][megatron]") {
  // Transformer Engine keeps an FP8 weight's transpose beside it where FP8 GEMMs take only the TN layout (Hopper) and
  // one buffer for both where they take any (compute capability 10.x: is_non_tn_fp8_gemm_supported). Llama 3.1 8B FP8
  // under Megatron on 8 GPUs: 6,979,321,856 linear parameters, so a B200 holds 6.98 GB less than an H100 whether the
  // copies are the parameters (ZeRO-1, --fp8-param-gather) or a cache beside 16-bit ones (unsharded); under
  // Megatron-FSDP an eighth of them plus the two gathered layers (32 x 218,103,808 = 6,979,321,856 / 32 each).
  auto weights = [](const char* gpu, const char* sharding) {
    const auto j = test::run_json({"estimate", "--model", "llama-3.1-8b", "--mode", "train", "--framework", "megatron", "--precision", "fp8", "--gpu", gpu,
                                   "--gpus", "8", "--sharding", sharding});
    return j["memory"]["components"]["weights"].get<double>();
  };
  const double linear = 6979321856.0, layer = linear / 32.0;
  CHECK(weights("h100-sxm-80gb", "none") - weights("b200-hgx-180gb", "none") == Approx(linear).epsilon(1e-9));
  CHECK(weights("h100-sxm-80gb", "zero1") - weights("b200-hgx-180gb", "zero1") == Approx(linear).epsilon(1e-9));
  CHECK(weights("h100-sxm-80gb", "zero3") - weights("b200-hgx-180gb", "zero3") == Approx(linear / 8.0 + 2.0 * layer).epsilon(1e-3));
}
