// Throughput across GPU families (docs/method.md §8): published measurements from sources outside the
// shared fidelity cases (tests/data/llm_time.jsonl, each with its source, quote and whether it was used to fit
// a coefficient), and the cross-family checks, each with its source.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/efficiency.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/perf.hpp"
#include "helpers.hpp"
#include "perf_common.hpp"

using namespace gpuadvise;
using test::wl;

namespace {

struct CaseError {
  std::string id;
  bool fitted = false;
  double error = 0;  // estimate / measured - 1
};

std::vector<CaseError> llm_time_errors() {
  std::vector<CaseError> out;
  for (const auto& [c, err] : test::data_case_errors("llm_time.jsonl")) out.push_back({c["id"].get<std::string>(), c["fitted"].get<bool>(), err});
  return out;
}

double median_abs(std::vector<double> v) {
  REQUIRE_FALSE(v.empty());
  for (auto& x : v) x = std::abs(x);
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

TimeEstimate time_on(const std::string& gpu, std::initializer_list<std::pair<const char*, std::string>> kv) {
  const auto w = wl(kv);
  const auto m = test::model(w.model);
  const auto& g = *test::gpus().find(gpu);
  return estimate_time(w, m, g, estimate_memory(w, m, &g));
}

double train_tps(const std::string& gpu, std::initializer_list<std::pair<const char*, std::string>> kv) {
  return time_on(gpu, kv).train_tokens_per_second_per_gpu.value_or(0.0);
}

double decode_tps(const std::string& gpu, std::initializer_list<std::pair<const char*, std::string>> kv) {
  return time_on(gpu, kv).decode_tokens_per_second.value_or(0.0);
}

}  // namespace

TEST_CASE("time: held-out batch-1 decode across GPU families within 25 % median", "[time][heldout]") {
  // vLLM, QwQ-32B-AWQ, one request at a time on an RTX 4090, RTX 6000 Ada, RTX 5090 and H100 (DeutscheKI's
  // llm-performance-tests); none of these rows fitted a coefficient.
  std::vector<double> decode;
  for (const auto& c : llm_time_errors())
    if (c.id.rfind("qwq32b", 0) == 0) {
      CHECK_FALSE(c.fitted);
      decode.push_back(c.error);
    }
  REQUIRE(decode.size() == 4);
  CHECK(median_abs(decode) < 0.25);
}

TEST_CASE("time: held-out llm.q training rows under its own profile within 35 %, median under 22 %", "[time][heldout]") {
  // llm.q (IST-DASLab) full training, bf16 weights and optimizer states, CUDA graphs, estimated with --framework llmq
  // (fused elementwise kernels and classifier, method.md §7). Measured: median |error| 18.6 % over 7 rows (was 37 %
  // under the default PyTorch profile). Still over: the L40S (+30 %: its 362 TFLOPS fp32-accumulate peak is not
  // sustained at 350 W, where the RTX 4090 it is compared with runs at 450 W); still under by 16-29 %: the H100 and
  // GeForce rows (the Hopper share was fitted on PyTorch frameworks with overheads llm.q does not have).
  std::vector<double> train;
  for (const auto& c : llm_time_errors())
    if (c.id.rfind("llmq", 0) == 0 && !c.fitted) {
      INFO(c.id << " " << c.error);
      CHECK(std::abs(c.error) < 0.35);
      train.push_back(c.error);
    }
  REQUIRE(train.size() == 7);
  CHECK(median_abs(train) < 0.22);
}

TEST_CASE("time: RTX 5090 trains 1.15-1.6x and decodes 1.4-1.85x an RTX 4090", "[time][family]") {
  // Dense bf16 peaks 209.5 vs 165.2 TFLOPS (1.27x), bandwidth 1,792 vs 1,008 GB/s (1.78x). Measured: llm.q
  // full training 1.38x at the same micro-batch (IST-DASLab/llmq README); vLLM QwQ-32B-AWQ batch-1 decode
  // 65.2 vs 43.4 tokens/s, 1.50x (DeutscheKI/llm-performance-tests).
  const double t4090 = train_tps("rtx-4090-24gb", {{"model", "llama-3.1-8b"}, {"mode", "lora"}, {"gradient_checkpointing", "full"}});
  const double t5090 = train_tps("rtx-5090-32gb", {{"model", "llama-3.1-8b"}, {"mode", "lora"}, {"gradient_checkpointing", "full"}});
  CHECK(t5090 / t4090 > 1.15);
  CHECK(t5090 / t4090 < 1.6);
  const double d4090 = decode_tps("rtx-4090-24gb", {{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"framework", "vllm"}});
  const double d5090 = decode_tps("rtx-5090-32gb", {{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"framework", "vllm"}});
  CHECK(d5090 / d4090 > 1.4);
  CHECK(d5090 / d4090 < 1.85);
}

TEST_CASE("time: Gaudi 3 trains at 0.8-1.7x an H100 and below a B200", "[time][family]") {
  // Intel's launch projection is 1.5x H100 time-to-train; no Gaudi 3 training measurement is published. B200
  // over H100: 2.12x (NeMo 25.11 Llama3 8B) and 2.16x (MLPerf Training v4.1 Llama 2 70B LoRA).
  auto tps = [](const std::string& gpu) {
    return train_tps(gpu, {{"model", "llama-3.1-8b"}, {"mode", "finetune"}, {"batch", "8"}, {"gpus", "8"}, {"sharding", "zero3"}});
  };
  const double h100 = tps("h100-sxm-80gb"), gaudi = tps("gaudi3-128gb"), b200 = tps("b200-hgx-180gb");
  CHECK(gaudi / h100 > 0.8);
  CHECK(gaudi / h100 < 1.7);
  CHECK(gaudi < b200);
  CHECK(b200 / h100 == Approx(2.14).epsilon(0.1));
}

TEST_CASE("time: DeepSeek-V3 fp8 decode on 8 H200 at one request is 15-120 tokens/s", "[time][moe]") {
  // sglang#3956 (tuned, 60 tokens/s, the row that fitted the MoE-layer cost), sglang PR #2643 (30.29),
  // vllm#11539 (about 26); the bandwidth alone would allow 5.5 ms per token (180 tokens/s).
  const double tps = decode_tps("h200-sxm-141gb", {{"model", "deepseek-v3"}, {"mode", "inference"}, {"precision", "fp8"}, {"gpus", "8"},
                                                    {"tp", "8"}, {"framework", "vllm"}});
  CHECK(tps > 15.0);
  CHECK(tps < 120.0);
}

TEST_CASE("time: pipeline stages run one after another for a single sequence", "[time]") {
  // Llama 3.1 70B in bf16 on 2 H100s: tensor parallel 2 reads half the weights per GPU at once; pipeline
  // parallel 2 reads half per stage, but the token crosses both stages in turn: about twice the TPOT.
  const double tp2 = decode_tps("h100-sxm-80gb", {{"model", "llama-3.1-70b"}, {"mode", "inference"}, {"framework", "vllm"}, {"gpus", "2"}, {"tp", "2"}});
  const double pp2 = decode_tps("h100-sxm-80gb", {{"model", "llama-3.1-70b"}, {"mode", "inference"}, {"framework", "vllm"}, {"gpus", "2"}, {"pp", "2"}});
  CHECK(pp2 < tp2);
  CHECK(tp2 / pp2 == Approx(2.0).epsilon(0.2));
}

TEST_CASE("time: every family maps from the catalogue and every coefficient names its basis", "[time][family]") {
  for (const auto& g : test::gpus().gpus) {
    INFO(g.id);
    const GpuFamily f = gpu_family(g);
    CHECK(f != GpuFamily::unknown);
    const FamilyEfficiency& e = family_efficiency(f);
    CHECK(e.matmul_efficiency > 0.1);
    CHECK(e.matmul_efficiency <= 0.85);  // a share of the dense peak that GEMMs can reach, not above
    CHECK(std::string(e.basis).size() > 10);
  }
  // Neighbouring compute capabilities are different families, not thresholds: 8.9 (Ada) and 12.0 (GeForce
  // Blackwell) share the GeForce-class tensor cores; 9.0 (Hopper) and 10.0 (Blackwell) the data-centre ones.
  CHECK(family_efficiency(gpu_family(*test::gpus().find("rtx-5090-32gb"))).matmul_efficiency ==
        family_efficiency(gpu_family(*test::gpus().find("rtx-4090-24gb"))).matmul_efficiency);
}

TEST_CASE("time: the band brackets the estimate and names what drives it", "[time]") {
  const auto w = wl({{"model", "llama-3.1-8b"}, {"mode", "lora"}});
  const auto m = test::model("llama-3.1-8b");
  for (const char* id : {"h100-sxm-80gb", "gaudi3-128gb"}) {
    const auto& g = *test::gpus().find(id);
    const auto t = estimate_time(w, m, g, estimate_memory(w, m, &g));
    REQUIRE(t.band);
    CHECK(t.band->low < *t.train_tokens_per_second_per_gpu);
    CHECK(t.band->high > *t.train_tokens_per_second_per_gpu);
    CHECK_FALSE(t.band->drivers.empty());
  }
  // A fitted family (Hopper, 15 %) has a narrower band than a projected one (Gaudi 3, 35 %).
  const auto& h = *test::gpus().find("h100-sxm-80gb");
  const auto& gd = *test::gpus().find("gaudi3-128gb");
  const auto th = estimate_time(w, m, h, estimate_memory(w, m, &h));
  const auto tg = estimate_time(w, m, gd, estimate_memory(w, m, &gd));
  CHECK(th.band->high / th.band->low < tg.band->high / tg.band->low);
}

namespace {
// A held-out file's errors: every row unfitted, the count as expected; then its median and 90th percentile
// of |error| against the bounds.
void check_held_out(const std::string& file, std::size_t rows, double max_median, double max_p90) {
  std::vector<double> errs;
  for (const auto& [c, err] : test::data_case_errors(file)) {
    CHECK_FALSE(c["fitted"].get<bool>());
    errs.push_back(err);
  }
  REQUIRE(errs.size() == rows);
  CHECK(median_abs(errs) <= max_median);
  for (auto& e : errs) e = std::abs(e);
  std::sort(errs.begin(), errs.end());
  CHECK(errs[static_cast<std::size_t>(0.9 * static_cast<double>(errs.size() - 1))] <= max_p90);
}
}  // namespace

TEST_CASE("time: held-out fine-tuning rows stay within 15 % median and 45 % p90", "[time][heldout]") {
  // tests/data/llm_finetune_time.jsonl: full fine-tuning, LoRA and QLoRA from NeMo 24.07, Megatron-Bridge,
  // NeMo AutoModel, xtuner, Qwen's README, Answer.AI's fsdp_qlora and torchtune's README, on H100, A100 and
  // RTX 4090 (29 rows). None fitted a coefficient.
  check_held_out("llm_finetune_time.jsonl", 29, 0.15, 0.45);
}

TEST_CASE("time: every held-out language-model row together within 15 % median and 45 % p90", "[time][heldout]") {
  // The 50 language-model throughput rows no coefficient was fitted on (issue 11's bar): llm_time.jsonl's
  // held-out rows (decode, serving and llm.q training), the fine-tuning rows and the BERT-large V100 rows.
  std::vector<double> errs;
  for (const char* file : {"llm_time.jsonl", "llm_finetune_time.jsonl", "llm_small_time.jsonl"})
    for (const auto& [c, err] : test::data_case_errors(file))
      if (!c["fitted"].get<bool>()) errs.push_back(std::abs(err));
  REQUIRE(errs.size() == 50);
  const auto [median, p90] = test::median_p90(errs);  // the median of 50 is the mean of the middle two
  CHECK(median <= 0.15);
  CHECK(p90 <= 0.45);
}

TEST_CASE("time: --compile (fused elementwise kernels) speeds up an eager framework and matters more on bandwidth-poor cards", "[time]") {
  auto gain = [](const std::string& gpu) {
    const double eager = train_tps(gpu, {{"model", "llama-3.2-1b"}, {"mode", "finetune"}, {"batch", "4"}, {"seq_len", "2048"}});
    const double fused = train_tps(gpu, {{"model", "llama-3.2-1b"}, {"mode", "finetune"}, {"batch", "4"}, {"seq_len", "2048"}, {"compile", "true"}});
    return fused / eager;
  };
  // A100 80 GB: 312 TFLOP/s over 2,039 GB/s; L40S: 362 TFLOP/s over 864 GB/s, so the eager traffic weighs more.
  CHECK(gain("a100-sxm-80gb") > 1.05);
  CHECK(gain("l40s-48gb") > gain("a100-sxm-80gb"));
}

TEST_CASE("time: held-out vision rows (timm, Lambda) stay within 20 % median and 40 % p90", "[time][heldout][vision]") {
  // tests/data/vision_time_heldout.jsonl: timm's RTX 3090 training and RTX 3090/4090/5090 inference CSVs and
  // Lambda's ResNet-50 rows (48); none fitted a coefficient (method.md §12.3).
  check_held_out("vision_time_heldout.jsonl", 48, 0.20, 0.40);
}

TEST_CASE("time: a GeForce card reaches a larger share of its tensor peak on ResNet-50 than an A100", "[time][vision]") {
  // The CUDA-core work beside the convolutions costs 8x more on an A100 (312 tensor : 19.5 fp32 TFLOP/s) than on
  // an RTX 3090 (71 : 35.6): timm measures 826 images/s on the 3090 (29 % of its tensor peak), NVIDIA 2,078 per
  // A100 in an 8-GPU job (16 %).
  auto share = [](const std::string& gpu, double peak) {
    const auto t = time_on(gpu, {{"model", "resnet-50"}, {"mode", "train"}, {"precision", "fp16"}, {"batch", "256"}, {"image_size", "224"}});
    return t.images_per_second.value_or(0.0) * 3.0 * 2.0 * 4.1e9 / peak;
  };
  CHECK(share("rtx-3090-24gb", 71e12) > 1.5 * share("a100-sxm-80gb", 312e12));
}

TEST_CASE("time: AMD Instinct trains ResNet-50 below an H100 (MIOpen convolutions), not 3x an A100", "[time][vision][family]") {
  // milabench (config/scaling/MI325.yaml, H100.yaml; AMP fp16, channels_last, batch 128): MI325X 2,288 vs H100
  // 3,378 images/s, 0.68 (the row k_miopen_conv was solved on); ConvNeXt-Large 0.48 (miopen_depthwise_share's).
  auto ips = [](const std::string& gpu, const std::string& model) {
    return time_on(gpu, {{"model", model}, {"mode", "train"}, {"precision", "fp16"}, {"batch", "128"}}).images_per_second.value_or(0.0);
  };
  const double r50 = ips("mi325x-256gb", "resnet-50") / ips("h100-sxm-80gb", "resnet-50");
  CHECK(r50 == Approx(0.68).epsilon(0.1));
  const double cnx = ips("mi325x-256gb", "convnext-large") / ips("h100-sxm-80gb", "convnext-large");
  CHECK(cnx == Approx(0.48).epsilon(0.02));
  // Its depthwise convolutions hold it back: its 6 TB/s alone would put it ahead (test_convnext.cpp).
  CHECK(ips("mi325x-256gb", "convnext-large") < ips("h100-sxm-80gb", "convnext-large"));
  // MI300X over A100: the 3.3x is gone; both sit within 2x of each other.
  CHECK(ips("mi300x-192gb", "resnet-50") / ips("a100-sxm-80gb", "resnet-50") < 2.0);
}

TEST_CASE("time: llm.q runs the fused elementwise path, as torch.compile does", "[time][framework]") {
  // llm.q fuses RMSNorm, RoPE, SwiGLU and the classifier (method.md §7): its training step has the fused traffic of
  // §8.2, the same a compiled PyTorch step has, and no other difference in time.
  const auto m = test::model("qwen2.5-0.5b");
  const auto& h100 = *test::gpus().find("h100-sxm-80gb");
  auto tps = [&](const Workload& w) { return *estimate_time(w, m, h100, estimate_memory(w, m, &h100)).train_tokens_per_second_per_gpu; };
  const double llmq = tps(wl({{"model", "qwen2.5-0.5b"}, {"mode", "train"}, {"batch", "32"}, {"seq_len", "1024"}, {"master_weights", "none"}, {"framework", "llmq"}}));
  const double compiled = tps(wl({{"model", "qwen2.5-0.5b"}, {"mode", "train"}, {"batch", "32"}, {"seq_len", "1024"}, {"master_weights", "none"}, {"compile", "true"}}));
  const double eager = tps(wl({{"model", "qwen2.5-0.5b"}, {"mode", "train"}, {"batch", "32"}, {"seq_len", "1024"}, {"master_weights", "none"}}));
  CHECK(llmq == Approx(compiled).epsilon(1e-12));
  CHECK(llmq > 1.3 * eager);  // eager RMSNorm (36 B/element), unfused RoPE and the 30 B/vocabulary-entry loss
}

TEST_CASE("time: an eager framework's host dispatch bounds a small model at a small micro-batch, not a large one", "[time][framework]") {
  // GPT-2 124M (12 layers), one 512-token sequence, Hugging Face (0.45 ms per layer per pass, from its decode
  // rows), LoRA (no optimizer step to speak of): 12 x 0.45 ms x 2 passes = 10.8 ms per micro-batch, so at most
  // 512 / 0.0108 = 47,407 tokens/s, whatever the GPU's own time.
  const auto small = time_on("a100-sxm-80gb", {{"model", "gpt2"}, {"mode", "lora"}, {"batch", "1"}, {"seq_len", "512"}});
  CHECK(small.bound == "host overhead (kernel launches)");
  REQUIRE(small.train_tokens_per_second_per_gpu);
  CHECK(*small.train_tokens_per_second_per_gpu <= 512.0 / 0.0108 * 1.0001);
  CHECK(*small.train_tokens_per_second_per_gpu > 0.95 * 512.0 / 0.0108);
  // Full recomputation launches the forward again: three passes, 16.2 ms.
  const auto recomputed = time_on("a100-sxm-80gb", {{"model", "gpt2"}, {"mode", "lora"}, {"batch", "1"}, {"seq_len", "512"}, {"gradient_checkpointing", "full"}});
  CHECK(*recomputed.train_tokens_per_second_per_gpu <= 512.0 / 0.0162 * 1.0001);
  // Sixteen sequences per micro-batch: the GPU's work outgrows the launches.
  const auto larger = time_on("a100-sxm-80gb", {{"model", "gpt2"}, {"mode", "lora"}, {"batch", "16"}, {"seq_len", "512"}});
  CHECK(larger.bound != "host overhead (kernel launches)");
  CHECK(*larger.train_tokens_per_second_per_gpu > 2.0 * *small.train_tokens_per_second_per_gpu);
  // llm.q replays CUDA graphs (0.03 ms per layer per pass): the same micro-batch is not host-bound there.
  CHECK(time_on("a100-sxm-80gb", {{"model", "gpt2"}, {"mode", "finetune"}, {"batch", "1"}, {"seq_len", "512"}, {"framework", "llmq"}}).bound !=
        "host overhead (kernel launches)");
  // Llama 2 7B at one 2,048-token sequence: 32 x 0.45 ms x 2 = 29 ms of launches against far more GPU work.
  CHECK(time_on("h100-sxm-80gb", {{"model", "llama-2-7b"}, {"mode", "lora"}, {"batch", "1"}}).bound == "compute");
  // The ranking's "fastest" says so when its plan is host-bound, and not otherwise.
  auto fastest_reason = [](std::vector<std::string> args) {
    const auto ranking = test::run_json(std::move(args));  // kept: the loop reads into it
    for (const auto& r : ranking["recommendations"])
      if (r["label"] == "fastest") return r["reason"].get<std::string>();
    return std::string();
  };
  CHECK(fastest_reason({"--model", "bert-base-uncased", "--mode", "finetune", "--batch", "1"}).find("host-bound") != std::string::npos);
  CHECK(fastest_reason({"--model", "bert-base-uncased", "--mode", "finetune", "--batch", "32"}).find("host-bound") == std::string::npos);
  // A given --mfu is end to end: it holds the step.
  CHECK(time_on("a100-sxm-80gb", {{"model", "gpt2"}, {"mode", "lora"}, {"batch", "1"}, {"seq_len", "512"}, {"mfu", "0.3"}}).bound != "host overhead (kernel launches)");
}

TEST_CASE("time: BERT-large on a V100: fp32 on CUDA cores and NVIDIA's AMP rows within 25 %", "[time][heldout][family]") {
  // tests/data/llm_small_time.jsonl (all held out): Hugging Face's single-GPU guide and NVIDIA DeepLearningExamples.
  // Hugging Face's 2022 Trainer under fp16=True runs 1.5-2.1x slower than estimated (method.md §8.2: a known gap),
  // so its two AMP rows are reported in docs/accuracy.md, not held to the bound.
  int checked = 0;
  for (const auto& [c, err] : test::data_case_errors("llm_small_time.jsonl")) {
    const std::string id = c["id"].get<std::string>();
    if (id.rfind("hf_", 0) == 0 && id.find("fp16") != std::string::npos) continue;
    INFO(id << ": " << err);
    CHECK(std::abs(err) < 0.25);
    ++checked;
  }
  CHECK(checked == 6);
}

TEST_CASE("time: the interleaved pipeline schedule shrinks the bubble v-fold and overlaps its sends", "[time]") {
  // [NARA] §2.2.2: 1F1B idles (p−1)/(m+p−1) of a step; with v chunks per stage (p−1)/(v·m+p−1).
  CHECK(pipeline_bubble(4, 16, 1) == Approx(3.0 / 19.0));
  CHECK(pipeline_bubble(4, 16, 5) == Approx(3.0 / 83.0));
  CHECK(pipeline_bubble(1, 16, 5) == 0.0);
  // Chunks of unequal layers: the warm-up and cool-down run at the largest chunk's pace. DeepSeek-V3's 61 layers over
  // 2 stages hold 31 on the larger, in 8 chunks of at most 4: the bubble shrinks 31/4 = 7.75-fold, not 8.
  CHECK(chunk_shrink(61, 2, 8) == Approx(31.0 / 4.0));
  CHECK(chunk_shrink(80, 4, 5) == Approx(5.0));
  CHECK(chunk_shrink(80, 4, 1) == Approx(1.0));
  CHECK(pipeline_bubble(2, 32, chunk_shrink(61, 2, 8)) == Approx(1.0 / (7.75 * 32 + 1)));
  // Megatron-Bridge's H100 recipe for Llama 3 70B fine-tuning in fp8 (TP4 PP4 VP5, 16 micro-batches): the same plan
  // without the interleaving is slower by at least its larger bubble, (1 − 3/83) / (1 − 3/19) = 1.145.
  auto tps = [](const char* v) {
    return train_tps("h100-sxm-80gb", {{"model", "llama-3-70b"}, {"mode", "finetune"}, {"precision", "fp8"}, {"framework", "megatron"}, {"seq_len", "4096"},
                                       {"gpus", "32"}, {"tp", "4"}, {"pp", "4"}, {"sharding", "zero1"}, {"grad_accum", "16"}, {"virtual_stages", v}});
  };
  const double plain = tps("1"), interleaved = tps("5");
  CHECK(interleaved / plain >= (1.0 - 3.0 / 83.0) / (1.0 - 3.0 / 19.0) - 1e-9);
  CHECK(interleaved / plain < 1.3);
}

TEST_CASE("advice: --virtual-stages is bad input without a training pipeline or with more chunks than a stage has layers", "[advice][cli]") {
  // Llama 3 70B has 80 layers: 4 stages of 20 take 5 chunks of 4, or 3 of 7, 7 and 6 (Megatron's
  // pipeline_model_parallel_layout places any whole layers in a chunk), never 21. DeepSeek-V3's 61 layers over 8
  // stages hold 8 on the largest (the planner's uneven split, as Megatron-Bridge's recipe runs them): 4 chunks of 2.
  CHECK(test::run({"estimate", "--model", "llama-3-70b", "--mode", "finetune", "--gpus", "8", "--pp", "4", "--virtual-stages", "5"}).code == 0);
  CHECK(test::run({"estimate", "--model", "llama-3-70b", "--mode", "finetune", "--gpus", "8", "--pp", "4", "--virtual-stages", "3"}).code == 0);
  const auto uneven = test::run({"estimate", "--model", "llama-3-70b", "--mode", "finetune", "--gpus", "8", "--pp", "4", "--virtual-stages", "21"});
  CHECK(uneven.code == 2);
  CHECK(uneven.err.find("--virtual-stages: 21 chunks for the 20 layers of the largest of 4 stages of llama-3-70b (each chunk holds at least one layer)") !=
        std::string::npos);
  CHECK(test::run({"estimate", "--model", "deepseek-v3", "--mode", "train", "--precision", "fp8", "--framework", "megatron", "--gpus", "1024", "--tp", "2",
                   "--pp", "8", "--virtual-stages", "4", "--ep", "64", "--seq-len", "4096"}).code == 0);
  CHECK(test::run({"estimate", "--model", "llama-3-70b", "--mode", "finetune", "--virtual-stages", "2"}).code == 2);
  CHECK(test::run({"estimate", "--model", "llama-3-70b", "--mode", "inference", "--gpus", "8", "--pp", "4", "--virtual-stages", "2"}).code == 2);
}

TEST_CASE("method: the coefficients table matches include/gpuadvise/coefficients.hpp", "[time][docs]") {
  // docs/method.md's "Coefficients" section copies coef::all: name, value, unit, basis, what it rests on, where used.
  std::ifstream in(std::string(GPUADVISE_SOURCE_DIR) + "/docs/method.md");
  REQUIRE(in);
  auto trim = [](std::string t) {
    const auto b = t.find_first_not_of(' '), e = t.find_last_not_of(' ');
    return b == std::string::npos ? std::string() : t.substr(b, e - b + 1);
  };
  std::map<std::string, std::vector<std::string>> rows;  // `name` -> its cells
  bool section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("## ")) section = line.starts_with("## Coefficients");
    if (!section || !line.starts_with("| `")) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    for (std::string cell; std::getline(ss, cell, '|');) cells.push_back(trim(cell));
    REQUIRE(cells.size() == 6);
    rows[cells[0]] = cells;
  }
  REQUIRE(rows.size() == coef::all.size());
  const char* basis[] = {"published", "fitted", "assumed"};
  for (const coef::Coefficient* c : coef::all) {
    INFO(c->name);
    std::string key(1, '`');  // appended piece by piece: g++ 12 warns falsely (-Wrestrict) on "`" + name + "`"
    key.append(c->name).push_back('`');
    const auto it = rows.find(key);
    REQUIRE(it != rows.end());
    const auto& cells = it->second;
    const auto slash = cells[1].find('/');
    const double value = slash == std::string::npos ? std::stod(cells[1]) : std::stod(cells[1].substr(0, slash)) / std::stod(cells[1].substr(slash + 1));
    CHECK(value == Approx(c->value).epsilon(1e-3));
    CHECK(cells[2] == c->unit);
    CHECK(cells[3] == basis[static_cast<int>(c->basis)]);
    CHECK(cells[4] == c->rests_on);
    CHECK(cells[5] == c->section);
  }
}

TEST_CASE("time: a power-capped card runs its peaks at the clock it holds under load, its bandwidth as published", "[time][catalog]") {
  // The T4 at 70 W holds about 900 of its 1,590 MHz boost (sustained_clock_share 0.566, data/gpus.json's source):
  // 65 x 0.566 = 36.79 TFLOP/s fp16 and 8.1 x 0.566 = 4.585 fp32 to the time model; 320 GB/s stays 320.
  const GpuSpec& t4 = *test::gpus().find("t4-16gb");
  REQUIRE(t4.sustained_clock_share.has_value());
  CHECK(*t4.peak_flops("fp16") == Approx(65e12 * 0.566));
  CHECK(*t4.peak_flops("fp32") == Approx(8.1e12 * 0.566));
  CHECK(*t4.bandwidth_gb_per_s == Approx(320.0));
  // A card without the figure keeps its published peak.
  CHECK(*test::gpus().find("h100-sxm-80gb")->peak_flops("bf16") == Approx(989.4e12).epsilon(0.01));
  // A share outside (0, 1] is bad input naming the field.
  std::string text(gpuadvise::bundled_gpu_catalog());
  const std::string field = "\"sustained_clock_share\": 0.566";
  REQUIRE(text.find(field) != std::string::npos);
  text.replace(text.find(field), field.size(), "\"sustained_clock_share\": 1.5");
  try {
    (void)gpuadvise::parse_gpu_catalog(text, "gpus.json");
    FAIL("a clock share above 1 was accepted");
  } catch (const gpuadvise::InputError& e) {
    CHECK(std::string(e.what()).find("sustained_clock_share: expected more than 0 to 1") != std::string::npos);
  }
}

TEST_CASE("time: a ViT is timed layer by layer: matmuls at the family's share, fused attention at half of it, norms and GELU at bandwidth", "[time][vision]") {
  // ViT-B/16 at 224 px on an RTX 4090 (165.2 TFLOP/s fp16, 1,008 GB/s), inference, batch 256 (method.md §12.3).
  //   197 tokens, 12 layers of width 768, MLP 3,072, 12 heads of 64.
  //   MACs: 12 x (197 x (4 x 768^2 + 2 x 768 x 3,072) + 2 x 197^2 x 768) + 3 x 16^2 x 768 x 197 = 17.5637e9
  //   (the 768 x 1,000 classifier adds 0.004 %): 35.1273 GFLOP an image, of which attention 4 x 12 x 197^2 x 768
  //   = 1.43065 GFLOP.
  //   Matmuls at Ada's 0.8: 33.6966e9 / 132.16e12 = 0.254969 ms; attention at 0.8 x 64/128: 1.43065e9 / 66.08e12
  //   = 0.021650 ms; traffic 12 x 197 x ((2 x 4 + 2 x 6) x 768 + 4 x 3,072) = 65.3599 MB at 806.4 GB/s = 0.081051 ms.
  //   0.357670 ms an image: 2,795.9 images/s (timm measured 2,993 with PyTorch 2.9.1).
  const auto m = test::model("vit-b-16");
  const auto* g4090 = test::gpus().find("rtx-4090-24gb");
  const auto w = test::wl({{"model", "vit-b-16"}, {"mode", "inference"}, {"precision", "fp16"}, {"batch", "256"}});
  const auto t = estimate_time(w, m, *g4090, estimate_memory(w, m, g4090));
  REQUIRE(t.images_per_second);
  CHECK(*t.images_per_second == Approx(2795.9).epsilon(0.002));
  // Eager attention (PyTorch 1.12, timm's three RTX 3090 training rows) writes and reads 16 bytes per score:
  // 3 passes x 12 layers x 197 tokens x 12 heads x 197 scores x 16 bytes = 268.248 MB an image at 748.8 GB/s,
  // 0.358237 ms more per image in training.
  const auto* g3090 = test::gpus().find("rtx-3090-24gb");
  const auto flash = test::wl({{"model", "vit-b-16"}, {"mode", "train"}, {"precision", "fp16"}, {"batch", "192"}});
  const auto eager = test::wl({{"model", "vit-b-16"}, {"mode", "train"}, {"precision", "fp16"}, {"batch", "192"}, {"flash_attention", "false"}});
  const auto tf = estimate_time(flash, m, *g3090, estimate_memory(flash, m, g3090));
  const auto te = estimate_time(eager, m, *g3090, estimate_memory(eager, m, g3090));
  REQUIRE(tf.images_per_second);
  REQUIRE(te.images_per_second);
  CHECK(1e3 / *te.images_per_second - 1e3 / *tf.images_per_second == Approx(0.358237).epsilon(0.002));
}

TEST_CASE("time: mixed precision with fp32 weights casts every weight and its gradient each micro-batch", "[time][vision]") {
  // ViT-H/14 (632.04 M parameters: 32 x (4 x 1,280^2 + 2 x 1,280 x 5,120 + 9 x 1,280 + 5,120) + the
  // patch embedding, positions and classifier) fine-tuned at batch 8 on an RTX 4070 Ti SUPER (672 GB/s): autocast
  // reads 4 and writes 2 bytes per weight, and casts the 16-bit gradient back (read 2, write 4): 12 bytes x
  // 632.04e6 / 537.6 GB/s = 14.108 ms a step, 1.7636 ms an image more than pure 16-bit training.
  const auto m = test::model("vit-h-14");
  const auto* g = test::gpus().find("rtx-4070-ti-super-16gb");
  const auto amp = test::wl({{"model", "vit-h-14"}, {"mode", "finetune"}, {"precision", "bf16"}, {"optimizer", "adamw-8bit"}, {"batch", "8"}});
  const auto pure = test::wl({{"model", "vit-h-14"}, {"mode", "finetune"}, {"precision", "bf16"}, {"optimizer", "adamw-8bit"}, {"batch", "8"}, {"master_weights", "none"}});
  const auto ta = estimate_time(amp, m, *g, estimate_memory(amp, m, g));
  const auto tp = estimate_time(pure, m, *g, estimate_memory(pure, m, g));
  REQUIRE(ta.images_per_second);
  REQUIRE(tp.images_per_second);
  CHECK(1e3 / *ta.images_per_second - 1e3 / *tp.images_per_second == Approx(1.7636).epsilon(0.005));
}

TEST_CASE("time: ZeRO-2 reduce-scatters every micro-batch's gradients, ZeRO-1 once per optimizer step", "[time][comm]") {
  // Llama 3.1 8B fine-tuned on 8 H100s, micro-batch 1 x 2,048 tokens, accumulation A = global batch / 8. ZeRO-1 keeps
  // whole gradients and reduces them once per step (cost C, spread over A micro-batches: C / A). ZeRO-2 keeps a shard,
  // so each of the other A - 1 micro-batches reduce-scatters its own beside its backward: half of C's traffic (the
  // reduce-scatter without the all-gather), hidden behind the backward as C is. Per token, ZeRO-2 - ZeRO-1 =
  // (1 - 1/A) x C / (2 x 2,048): nothing at A = 1, and from A = 2 to A = 32 the gap grows by (31/32) / (1/2) = 1.9375.
  auto rate = [](const char* sharding, const char* global_batch) {
    const auto j = test::run_json({"estimate", "--model", "llama-3.1-8b", "--mode", "finetune", "--gpu", "h100-sxm-80gb", "--gpus", "8", "--sharding",
                                   sharding, "--global-batch", global_batch});
    return j["time"]["train_tokens_per_second_per_gpu"].get<double>();
  };
  CHECK(rate("zero2", "8") == Approx(rate("zero1", "8")).epsilon(1e-12));
  const double gap2 = 1.0 / rate("zero2", "16") - 1.0 / rate("zero1", "16");
  const double gap32 = 1.0 / rate("zero2", "256") - 1.0 / rate("zero1", "256");
  CHECK(gap2 > 0);
  CHECK(gap32 / gap2 == Approx(1.9375).epsilon(1e-3));
}
