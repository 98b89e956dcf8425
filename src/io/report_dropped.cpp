// The GPU types a --deadline or --budget dropped, each with the closest plan found (the fastest for a deadline,
// the cheapest for a budget), nearest to the limit first: the table and markdown say how far each one is.
#include <algorithm>

#include "report_detail.hpp"

namespace gpuadvise::detail {

std::vector<const Dropped*> dropped_with_plans(const Ranking& r) {
  std::vector<const Dropped*> out;
  for (const auto& d : r.dropped)
    if (d.has_plan()) out.push_back(&d);
  // A budget compares costs, a deadline times: each group the closest first, then by name for a stable order.
  std::stable_sort(out.begin(), out.end(), [](const Dropped* a, const Dropped* b) {
    if (a->over_budget != b->over_budget) return b->over_budget;  // a deadline's drops first (a GPU misses one only)
    const double ka = a->over_budget ? *a->job_usd : *a->wall_hours, kb = b->over_budget ? *b->job_usd : *b->wall_hours;
    if (ka != kb) return ka < kb;
    return a->gpu < b->gpu;
  });
  return out;
}

}  // namespace gpuadvise::detail
