// The GPU types a --deadline or --budget dropped, each with the closest plan found (the fastest for a deadline,
// the cheapest for a budget), nearest to the limit first: the table and markdown say how far each one is.
#include <algorithm>

#include "report_detail.hpp"

namespace gpuadvise::detail {

std::vector<const Dropped*> dropped_in_order(const Ranking& r) {
  std::vector<const Dropped*> out;
  for (const auto& d : r.dropped) out.push_back(&d);
  // Those whose closest plan was judged first, a deadline's before a budget's (a GPU misses one only), each the
  // closest first (a budget compares costs, a deadline times), then by name; those not judged after, as dropped.
  std::stable_sort(out.begin(), out.end(), [](const Dropped* a, const Dropped* b) {
    if (a->has_plan() != b->has_plan()) return a->has_plan();
    if (!a->has_plan()) return false;
    if (a->over_budget != b->over_budget) return b->over_budget;
    const double ka = a->over_budget ? *a->job_usd : *a->wall_hours, kb = b->over_budget ? *b->job_usd : *b->wall_hours;
    if (ka != kb) return ka < kb;
    return a->gpu < b->gpu;
  });
  return out;
}

}  // namespace gpuadvise::detail
