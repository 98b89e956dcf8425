// The planner's numeric screen (src/core/screen.cpp, method.md §9) alone: the same verdict as the full assessment
// over whole layout spaces, its device peak as the sum worked by hand, the tensor memo's table, and the savers
// giving a layout back as it came.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/memory.hpp"
#include "helpers.hpp"
#include "layout_space.hpp"
#include "ranking_common.hpp"

using namespace gpuadvise;
using namespace gpuadvise::ranking_detail;

TEST_CASE("screen: precision_runs says what precision_support says, for every GPU, precision and mode", "[screen]") {
  int unsupported = 0;
  for (const GpuSpec& g : test::gpus().gpus)
    for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16, Precision::fp8, Precision::int8, Precision::int4,
                        Precision::nf4})
      for (Mode mode : {Mode::train, Mode::finetune, Mode::lora, Mode::qlora, Mode::inference}) {
        Workload w;
        w.precision = p;
        w.mode = mode;
        const bool full = precision_support(w, g).supported;
        CHECK(precision_runs(w, g) == full);
        unsupported += !full;
      }
  CHECK(unsupported > 0);  // the catalogue has GPUs that cannot run some precisions (bf16 and fp8 before Ampere)
}

TEST_CASE("screen: the device peak is the tensor peak, the reserve and the runtime, worked by hand", "[screen][memory]") {
  // Llama 3.1 8B, full fine-tune, bf16, one H100 (compute capability 9.0), Hugging Face: the reserve is 0.10 of
  // the transient tensors (activations, logits, gradients), the runtime the 0.5 GiB context alone on one GPU.
  const ModelSpec m = test::model("llama-3.1-8b");
  const GpuSpec& g = *test::gpus().find("h100-sxm-80gb");
  Workload w = test::wl({{"model", "llama-3.1-8b"}, {"mode", "finetune"}, {"precision", "bf16"}, {"seq_len", "2048"}});
  w.explain = false;
  const MemoryEstimate t = tensor_memory(w, m).e;
  const double by_hand = t.tensor_peak + 0.10 * (t.activations + t.logits + t.gradients) + 0.5 * 1073741824.0;
  CHECK(device_peak_bytes(t, w, &g) == Approx(by_hand).epsilon(1e-12));
  CHECK(device_peak_bytes(t, w, &g) == estimate_memory(w, m, &g).device_peak);  // the same sum, bit for bit
  // Eight GPUs at TP 8 add NCCL's communicators and buffers: 0.5 GiB, and 0.5 GiB more for tensor parallel.
  w.gpus = 8;
  w.tp = 8;
  const MemoryEstimate t8 = tensor_memory(w, m).e;
  CHECK(device_peak_bytes(t8, w, &g) - t8.tensor_peak - 0.10 * (t8.activations + t8.logits + t8.gradients) == Approx(1.5 * 1073741824.0));
}

namespace {
// Every layout and saver of a workload's layout space on a GPU at 1 to `most` GPUs: the screen's verdict against
// assess_fit's. Returns how many layouts the screen judged (the rest it left to assess_fit) and how many fit.
struct Tally {
  int judged = 0, fitting = 0, left = 0;
};
Tally compare_space(const Workload& w, const ModelSpec& m, const GpuSpec& g, std::int64_t most) {
  Tally t;
  TensorMemo memo;
  const CostOptions cost;
  Candidate full;
  auto same = [&](const Workload& p) {
    const std::optional<bool> screen = screen_fit(p, m, g, cost, memo);
    assess_fit(full, p, m, g, cost, &memo);
    if (!screen) {
      ++t.left;
      return false;
    }
    ++t.judged;
    t.fitting += full.fits;
    CHECK(*screen == full.fits);
    return false;
  };
  for (std::int64_t n = 1; n <= most; n *= 2)
    layout_space::for_each_layout(w, m, g, n, [&](Workload& layout) { layout_space::for_each_saver(layout, same, same); });
  return t;
}
}  // namespace

TEST_CASE("screen: the same verdict as the full assessment over whole layout spaces", "[screen][plan-choice]") {
  // Dense pre-training across nodes, MoE under Megatron, QLoRA (no tensor parallel), a consumer card whose servers
  // have no network (16 RTX 4090s never span nodes), a pre-Ampere GPU in bf16 (not supported), inference outside
  // the serving engines.
  struct Case {
    const char* model;
    const char* gpu;
    std::vector<std::pair<const char*, std::string>> kv;
    std::int64_t most;
  };
  const std::vector<Case> cases{
      {"llama-3.1-405b", "h100-sxm-80gb", {{"mode", "train"}, {"seq_len", "8192"}, {"tokens", "15T"}}, 4096},
      {"llama-3.1-70b", "mi300x-192gb", {{"mode", "train"}, {"seq_len", "4096"}, {"tokens", "1T"}}, 1024},
      {"qwen3-30b-a3b", "h100-sxm-80gb", {{"mode", "train"}, {"framework", "megatron"}, {"precision", "fp8"}, {"seq_len", "4096"}, {"tokens", "1T"}}, 64},
      {"llama-3.1-70b", "rtx-4090-24gb", {{"mode", "qlora"}, {"tokens", "100M"}}, 16},
      {"llama-3.1-8b", "rtx-4090-24gb", {{"mode", "finetune"}, {"tokens", "1B"}}, 16},
      {"llama-3.1-8b", "v100-sxm2-32gb", {{"mode", "finetune"}, {"precision", "bf16"}}, 8},
      {"llama-3.1-70b", "a100-sxm-80gb", {{"mode", "inference"}, {"framework", "hf"}, {"batch", "8"}}, 8},
  };
  for (const Case& c : cases) {
    INFO(c.model << " on " << c.gpu);
    std::vector<std::pair<const char*, std::string>> kv = c.kv;
    kv.emplace_back("model", c.model);
    RawWorkload raw;
    for (const auto& [k, v] : kv) raw[k] = RawValue{v, std::string("--") + k};
    Workload w = build_workload(raw);
    w.explain = false;
    const GpuSpec* g = test::gpus().find(c.gpu);
    REQUIRE(g);
    const Tally t = compare_space(w, test::model(c.model), *g, c.most);
    CHECK(t.judged > 0);
    CHECK(t.left == 0);
  }
}

TEST_CASE("screen: what it leaves to the full assessment", "[screen]") {
  const GpuSpec& g = *test::gpus().find("h100-sxm-80gb");
  TensorMemo memo;
  CostOptions cost;
  // A serving engine's pool takes its share of the card whatever the tensors need.
  Workload serve = test::wl({{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"framework", "vllm"}});
  CHECK_FALSE(screen_fit(serve, test::model("llama-3.1-8b"), g, cost, memo).has_value());
  // Sixteen GPUs with no nodes named: assess_fit spreads them over whole servers first.
  Workload spread = test::wl({{"model", "llama-3.1-8b"}, {"mode", "finetune"}});
  spread.gpus = 16;
  CHECK_FALSE(screen_fit(spread, test::model("llama-3.1-8b"), g, cost, memo).has_value());
  spread.nodes = 2;
  CHECK(screen_fit(spread, test::model("llama-3.1-8b"), g, cost, memo).has_value());
  // A vision model has no tensor memo.
  Workload vision = test::wl({{"model", "resnet-50"}, {"mode", "train"}});
  CHECK_FALSE(screen_fit(vision, test::model("resnet-50"), g, cost, memo).has_value());
  // A local correction scales the tensor peak: the full assessment applies it.
  cost.corrections.push_back(LocalCorrection{});
  CHECK_FALSE(screen_fit(spread, test::model("llama-3.1-8b"), g, cost, memo).has_value());
}

TEST_CASE("screen: the tensor memo returns each shape's own tensors, through its table's growth", "[screen][memory]") {
  const ModelSpec m = test::model("llama-3.1-70b");
  Workload w = test::wl({{"model", "llama-3.1-70b"}, {"mode", "train"}, {"seq_len", "4096"}});
  w.explain = false;
  TensorMemo memo;
  std::vector<std::pair<Workload, const TensorMemory*>> seen;
  // 3 x 4 x 8 x 8 = 768 shapes: past the table's first 1,024 slots at half load, so it grows while references
  // handed out before stay valid.
  for (Checkpointing c : {Checkpointing::none, Checkpointing::selective, Checkpointing::full})
    for (Sharding sh : {Sharding::none, Sharding::zero1, Sharding::zero2, Sharding::zero3})
      for (std::int64_t tp = 1; tp <= 8; ++tp)
        for (std::int64_t batch = 1; batch <= 8; ++batch) {
          Workload p = w;
          p.checkpointing = c;
          p.sharding = sh;
          p.tp = tp;
          p.gpus = 8 * tp;
          p.batch = batch;
          seen.emplace_back(p, &memo.of(PlanShape::of(p), p, m));
        }
  REQUIRE(seen.size() == 768);
  for (const auto& [p, t] : seen) {
    CHECK(&memo.of(PlanShape::of(p), p, m) == t);  // found again, not added twice
    CHECK(t->e.tensor_peak == tensor_memory(p, m).e.tensor_peak);
  }
}

TEST_CASE("screen: the savers change a layout in place and give it back as it came", "[screen][layout-space]") {
  Workload w = test::wl({{"model", "llama-3.1-8b"}, {"mode", "train"}, {"batch", "8"}, {"seq_len", "4096"}});
  const Workload before = w;
  int tried = 0;
  layout_space::for_each_saver(w, [&](const Workload& p) { return p.batch > 0; }, [&](const Workload& p) {
    ++tried;
    CHECK(p.batch * p.grad_accum == 8);  // each saver keeps the sequences per optimizer step
    return false;
  });
  CHECK(tried == 12);  // micro-batches 8, 4, 2, 1 at three checkpointing levels
  CHECK(w.batch == before.batch);
  CHECK(w.grad_accum == before.grad_accum);
  CHECK(w.checkpointing == before.checkpointing);
  CHECK(w.precision == before.precision);
}
