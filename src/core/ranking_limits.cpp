// --deadline and --budget (method.md §9): which plans meet them, and for a GPU whose closest plan misses, why,
// with that plan (the fastest found for a deadline, the cheapest for a budget) so the output says how far it is.
#include <fmt/format.h>

#include "ranking_common.hpp"

namespace gpuadvise::ranking_detail {

bool meets_deadline(const Candidate& c, const RankOptions& o) {
  return c.time.job_seconds && c.cost.wall_hours * 3600.0 <= *o.deadline_seconds;
}
std::int64_t search_reach(const GpuSpec& g, const RankOptions& o) {
  return g.multi_node() ? o.max_gpus : std::min<std::int64_t>(o.max_gpus, g.gpus_per_node());
}
bool within_budget(const Candidate& c, const RankOptions& o) { return c.cost.total_usd && *c.cost.total_usd <= *o.budget_usd; }

namespace {
// "one GPU", "8 GPUs".
std::string gpus_text(std::int64_t n) { return n == 1 ? std::string("one GPU") : fmt::format("{} GPUs", n); }
}  // namespace

std::optional<Dropped> missed_limit(const Candidate& c, const RankOptions& o) {
  const bool late = o.deadline_seconds && !meets_deadline(c, o), dear = o.budget_usd && !within_budget(c, o);
  if (!late && !dear) return std::nullopt;
  Dropped d{c.gpu->id, {}, c.gpus, c.layout, std::nullopt, c.cost.total_usd, !late};
  if (c.time.job_seconds) d.wall_hours = c.cost.wall_hours;
  std::string took = d.wall_hours ? duration_text(*d.wall_hours * 3600.0) : std::string();
  std::string limit = o.deadline_seconds ? duration_text(*o.deadline_seconds) : std::string();
  if (late && took == limit)  // a miss that rounds to the deadline ("7.0 d, over the 7.0 d deadline"): in hours, to two decimals
    took = fmt::format("{:.2f} h", *d.wall_hours), limit = fmt::format("{:.2f} h", *o.deadline_seconds / 3600.0);
  if (late)  // a deadline is judged first: a GPU is dropped for one reason
    d.reason = d.wall_hours ? fmt::format("the fastest plan within {} ({}) takes {} for {}, over the {} deadline", gpus_text(search_reach(*c.gpu, o)), c.layout,
                                          took, c.cost.total_usd ? usd_text(*c.cost.total_usd) : std::string("an unknown cost"), limit)
                            : "job time unknown (no throughput figure), so the deadline cannot be checked";
  else
    d.reason = c.cost.total_usd ? fmt::format("the cheapest plan ({}) costs ${:.2f}{}, over the ${:.2f} budget", c.layout, *c.cost.total_usd,
                                              took.empty() ? "" : " and takes " + took, *o.budget_usd)
                                : "job cost unknown (" + (c.unranked.empty() ? std::string("no price or throughput") : c.unranked) +
                                      "), so the budget cannot be checked";
  return d;
}

}  // namespace gpuadvise::ranking_detail
