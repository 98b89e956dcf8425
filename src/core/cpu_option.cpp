// The CPU as an option (method.md §16): the CPU instances of data/cpus.json, each planned as one device (the
// memory savers of one GPU, no scale-out, nothing to offload to), shown beside the GPUs; "on a CPU" among the
// recommendations when one finishes the job within a day.
#include <algorithm>
#include <fmt/format.h>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/ranking.hpp"
#include "ranking_common.hpp"

namespace gpuadvise {

using namespace ranking_detail;

namespace {
// Jobs a CPU instance is not offered for: video streams (NVDEC, DeepStream), NVIDIA-only engines, a multi-GPU
// layout the user gave.
bool cpu_offered(const Workload& w) {
  const Framework f = w.effective_framework();
  if (w.streams || f == Framework::tensorrt || f == Framework::trtllm) return false;
  return w.gpus == 1 && w.tp == 1 && w.pp == 1;
}

}  // namespace

void add_cpu_rows(Ranking& r, const Workload& w, const ModelSpec& m, const GpuCatalog& cpus, const RankOptions& opts) {
  if (!cpu_offered(w)) return;
  RankOptions one = opts;
  one.max_gpus = 1;
  one.deadline_seconds.reset();  // the rows stand beside the GPUs' for comparison, never dropped
  one.budget_usd.reset();
  for (const auto& cpu : cpus.gpus) {
    if (!opts.cost.provider.empty() && !cpu.offered_by(opts.cost.provider)) continue;
    // Devices named (--gpu, --only): the CPU instances among them alone.
    if (!opts.only_gpus.empty() && std::find(opts.only_gpus.begin(), opts.only_gpus.end(), cpu.id) == opts.only_gpus.end()) continue;
    r.cpu_rows.push_back(plan(w, m, cpu, one, r.order));
  }
  std::stable_sort(r.cpu_rows.begin(), r.cpu_rows.end(), [&](const Candidate& a, const Candidate& b) {
    if (tier(a) != tier(b)) return tier(a) < tier(b);
    return score(a, r.order) < score(b, r.order);
  });
  // The stated rule: the cheapest instance that fits and finishes the job within value_target_hours.
  const Candidate* pick = nullptr;
  for (const auto& c : r.cpu_rows)
    if (c.fits && !c.tight && c.time.job_seconds && c.cost.total_usd && c.cost.wall_hours <= coef::value_target_hours.value &&
        (!pick || *c.cost.total_usd < *pick->cost.total_usd))
      pick = &c;
  if (!pick) return;
  std::string gpu_side;
  for (const auto& g : r.rows)
    if (g.fits && !g.tight && g.cost.total_usd) {
      gpu_side = fmt::format("; the first GPU row: {} in {}", usd_text(*g.cost.total_usd), duration_text(g.cost.wall_hours * 3600));
      break;
    }
  r.recommendations.push_back({"on a CPU", pick->gpu->id,
                               fmt::format("{} for the job in {} on one instance ({}/h){}", usd_text(*pick->cost.total_usd), duration_text(pick->cost.wall_hours * 3600),
                                           usd_text(*pick->usd_per_gpu_hour()), gpu_side)});
}

}  // namespace gpuadvise
