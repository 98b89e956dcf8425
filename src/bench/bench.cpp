// gpuadvise_bench: how fast the library answers, on one core (docs/performance.md).
//   estimator: one workload's memory, time and cost on one GPU (`evaluate`, as the planner calls it for each
//              layout it tries: without the printed explanations)
//   ranking:   the whole catalogue planned and ordered for one workload (`rank_gpus`, the default command)
//   screen:    the memory verdict of one 3-D layout computed from nothing (`estimate_memory`): Llama 3.1 405B,
//              TP 8 x PP 16 x VP 8 on 16,384 H100s
//   search screen: the planner's screen as it runs (`screen_fit` with the ranking's memo of tensor memory, no
//              time and no text): every layout and saver of the 405B pre-training's layout space on every GPU of the
//              catalogue at 1 to 32,768 GPUs, per second
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
#include "layout_space.hpp"
#include "ranking_common.hpp"

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
// The planner's screen over a whole layout space: each layout and each of its savers (every one, not stopping at
// the first that fits) on every GPU at every count the search tries, through one memo as rank_gpus shares one.
// `fitting` counts the layouts that fit (a sink, so the work is not optimised away).
long long search_screen(double seconds, const gpuadvise::Workload& w, const gpuadvise::ModelSpec& m, const gpuadvise::GpuCatalog& gpus, double& fitting) {
  using namespace gpuadvise;
  long long layouts = 0;
  const auto start = clock_type::now();
  double elapsed = 0;
  do {
    ranking_detail::TensorMemo memo;
    Candidate scratch;
    const CostOptions cost;
    for (const GpuSpec& g : gpus.gpus) {
      auto screen = [&](const Workload& p) {  // as the planner screens (planner.cpp)
        ++layouts;
        const std::optional<bool> fits = ranking_detail::screen_fit(p, m, g, cost, memo);
        if (!fits) ranking_detail::assess_fit(scratch, p, m, g, cost, &memo);
        fitting += fits ? *fits : scratch.fits;
        return false;
      };
      for (std::int64_t n = 1; n <= k_max_plan_gpus; n *= 2)
        layout_space::for_each_layout(w, m, g, n, [&](Workload& layout) {
          layout_space::for_each_saver(layout, screen, screen);
          return false;
        });
    }
    elapsed = std::chrono::duration<double>(clock_type::now() - start).count();
  } while (elapsed < seconds);
  return static_cast<long long>(static_cast<double>(layouts) / elapsed);
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
  // `gpuadvise_bench S screen` measures the two screens alone, `search` the search screen alone (for a profiler).
  const std::string only = argc > 2 ? argv[2] : "";
  const bool screen_only = only == "screen" || only == "search";
  const double others = screen_only ? 0.0 : seconds;
  const long long evaluations = per_second(others, [&](int) { sink += evaluate(w, m, h100).memory.device_peak; });
  const long long rankings = per_second(others, [&](int) { sink += static_cast<double>(rank_gpus(w, m, gpus, RankOptions{}).rows.size()); });
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
  const long long screens = per_second(only == "search" ? 0.0 : seconds, [&](int) { sink += estimate_memory(layout, m405, &h100).device_peak; });
  const long long searched = search_screen(seconds, big, m405, gpus, sink);
  if (screen_only) {
    std::printf("screen: %lld layouts/s\nsearch screen: %lld layouts/s\n", screens, searched);
    return sink > 0 ? 0 : 1;
  }
  RankOptions full;
  full.max_gpus = k_max_plan_gpus;  // as the CLI searches a job with a size
  const long long big_rankings = per_second(seconds, [&](int) { sink += static_cast<double>(rank_gpus(big, m405, gpus, full).rows.size()); });
  std::printf("estimator: %lld evaluations/s\nranking: %lld rankings/s\nscreen: %lld layouts/s\nsearch screen: %lld layouts/s\n405B: %.1f ms per ranking\n",
              evaluations, rankings, screens, searched, 1e3 / static_cast<double>(std::max<long long>(1, big_rankings)));
  return sink > 0 ? 0 : 1;
}
