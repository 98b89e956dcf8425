// gpuadvise_bench: how fast the library answers, on one core (docs/performance.md).
//   estimator: one workload's memory, time and cost on one GPU (`evaluate`, as the planner calls it for each
//              layout it tries: without the printed explanations)
//   ranking:   the whole catalogue planned and ordered for one workload (`rank_gpus`, the default command)
// Prints plain integers per second so scripts can compare runs: "estimator: N evaluations/s".
#include <chrono>
#include <cstdio>
#include <string>

#include "gpuadvise/catalog.hpp"
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
  std::printf("estimator: %lld evaluations/s\nranking: %lld rankings/s\n", evaluations, rankings);
  return sink > 0 ? 0 : 1;
}
