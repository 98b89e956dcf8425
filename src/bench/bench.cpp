// gpuadvise_bench: how fast the library answers, on one core (docs/performance.md).
//   estimator: one workload's memory, time and cost on one GPU (`evaluate`, as the planner calls it for each
//              layout it tries: without the printed explanations)
//   ranking:   the whole catalogue planned and ordered for one workload (`rank_gpus`, the default command)
//   screen:    the memory verdict of one 3-D layout (`estimate_memory`, what the planner asks of every layout
//              before it times one): Llama 3.1 405B, TP 8 x PP 16 x VP 8 on 16,384 H100s
//   405B:      milliseconds per whole-catalogue ranking of Llama 3.1 405B pre-training on 15T tokens, the full
//              search up to 32,768 GPUs
// Prints plain integers per second so scripts can compare runs: "estimator: N evaluations/s".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "gpuadvise/bounds.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/ranking.hpp"

namespace {
using clock_type = std::chrono::steady_clock;

// Runs `step` until at least `seconds` have passed; returns calls per second.
template <typename Step>
long long per_second(double seconds, Step&& step) {
  long long calls = 0;
  const auto start = clock_type::now();
  double elapsed = 0;
  do {
    for (int i = 0; i < 64; ++i) step(i);
    calls += 64;
    elapsed = std::chrono::duration<double>(clock_type::now() - start).count();
  } while (elapsed < seconds);
  return static_cast<long long>(static_cast<double>(calls) / elapsed);
}
}  // namespace

int main(int argc, char** argv) {
  using namespace gpuadvise;
  const double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
  const GpuCatalog gpus = parse_gpu_catalog(bundled_gpu_catalog(), "bundled");
  const ModelCatalog models = parse_model_catalog(bundled_model_catalog(), "bundled");
  // The headline question: a 7B model, bf16, full fine-tuning.
  Workload w = build_workload({{"model", {"7B", "--model"}}, {"precision", {"bf16", "--precision"}}, {"mode", {"finetune", "--mode"}}});
  const ModelSpec m = resolve_model("7B", models, [](const std::string&) { return std::optional<std::string>{}; });
  const GpuSpec& h100 = *gpus.resolve("h100-sxm-80gb");
  w.explain = false;
  double sink = 0;
  const long long evaluations = per_second(seconds, [&](int) { sink += evaluate(w, m, h100).memory.device_peak; });
  const long long rankings = per_second(seconds, [&](int) { sink += static_cast<double>(rank_gpus(w, m, gpus, RankOptions{}).rows.size()); });
  Workload big = build_workload({{"model", {"llama-3.1-405b", "--model"}}, {"mode", {"train", "--mode"}}, {"seq_len", {"8192", "--seq-len"}},
                                 {"tokens", {"15T", "--tokens"}}});
  const ModelSpec m405 = resolve_model("llama-3.1-405b", models, [](const std::string&) { return std::optional<std::string>{}; });
  big.explain = false;
  Workload layout = big;
  layout.gpus = 16384;
  layout.nodes = 2048;
  layout.tp = 8;
  layout.pp = 16;
  layout.virtual_stages = 8;
  layout.sharding = Sharding::zero1;
  const long long screens = per_second(seconds, [&](int) { sink += estimate_memory(layout, m405, &h100).device_peak; });
  RankOptions full;
  full.max_gpus = k_max_plan_gpus;  // as the CLI searches a job with a size
  const long long big_rankings = per_second(seconds, [&](int) { sink += static_cast<double>(rank_gpus(big, m405, gpus, full).rows.size()); });
  std::printf("estimator: %lld evaluations/s\nranking: %lld rankings/s\nscreen: %lld layouts/s\n405B: %.1f ms per ranking\n", evaluations, rankings, screens,
              1e3 / static_cast<double>(std::max<long long>(1, big_rankings)));
  return sink > 0 ? 0 : 1;
}
