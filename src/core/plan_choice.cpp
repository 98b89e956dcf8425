// The choice among the plans that fit one GPU (method.md §9, "The choice per GPU"): which counts are worth
// searching, which plan the order asks for, and the cost-time frontier the JSON carries.
#include <algorithm>
#include <limits>
#include <tuple>
#include <fmt/format.h>

#include "gpuadvise/coefficients.hpp"
#include "ranking_common.hpp"

namespace gpuadvise::ranking_detail {

std::optional<double> band_cost(const Candidate& c) {
  if (!c.time.job_seconds) return std::nullopt;
  if (c.cost.total_usd) return *c.cost.total_usd;
  // No price: every plan of one GPU shares its hourly price, so GPU-hours order them as dollars would.
  return static_cast<double>(c.gpus) * c.cost.wall_hours;
}

namespace {
bool value_band_applies(bool job, RankBy order, const RankOptions& o) {
  return job && order == RankBy::value && !o.deadline_seconds && !o.budget_usd;
}

std::optional<double> cheapest_band_cost(const std::vector<const Candidate*>& pool) {
  std::optional<double> low;
  for (const Candidate* c : pool)
    if (auto v = band_cost(*c); v && (!low || *v < *low)) low = v;
  return low;
}

}  // namespace

const Candidate* pick_in_value_band(const std::vector<const Candidate*>& pool) {
  const std::optional<double> low = cheapest_band_cost(pool);
  if (!low) return nullptr;
  const double ceiling = *low * (1.0 + coef::value_cost_slack.value);
  // Within a day, the plans of the band trade dollars for hours: each scores its cost over the cheapest's plus
  // value_time_weight x its hours over the cheapest plan's (the slowest of them where several cost the same), and
  // the lowest wins (a plan twice as fast for 2 % more scores 1.02 + 0.05 against 1.10, one 20 % faster for 8 %
  // more 1.16 against 1.10).
  double cheapest_hours = 0;
  for (const Candidate* c : pool)
    if (auto v = band_cost(*c); v && *v == *low) cheapest_hours = std::max(cheapest_hours, c->cost.wall_hours);
  auto score = [&](const Candidate* c) {
    const double h = cheapest_hours > 0 ? c->cost.wall_hours / cheapest_hours : 1.0;
    return *band_cost(*c) / *low + coef::value_time_weight.value * h;
  };
  const Candidate *in_time = nullptr, *fastest = nullptr;
  for (const Candidate* c : pool) {
    const auto v = band_cost(*c);
    if (!v || *v > ceiling) continue;
    auto cheaper = [&](const Candidate* o) { return *v < *band_cost(*o) || (*v == *band_cost(*o) && c->gpus < o->gpus); };
    auto better = [&](const Candidate* o) { return score(c) < score(o) || (score(c) == score(o) && cheaper(o)); };
    if (c->cost.wall_hours <= coef::value_target_hours.value && (!in_time || better(in_time))) in_time = c;
    if (!fastest || c->cost.wall_hours < fastest->cost.wall_hours || (c->cost.wall_hours == fastest->cost.wall_hours && cheaper(fastest)))
      fastest = c;
  }
  return in_time ? in_time : fastest;
}

bool search_further(const std::vector<Candidate>& fits, std::int64_t n, std::int64_t first_fit, bool job, RankBy order, const RankOptions& o) {
  if (!first_fit) return true;
  if (o.deadline_seconds && std::none_of(fits.begin(), fits.end(), [&](const Candidate& c) { return meets_deadline(c, o); })) return true;
  // The fastest plan, and the fastest within a budget, are searched up to --max-gpus (the global batch caps data
  // parallelism on the way).
  if (order == RankBy::time || o.budget_usd || o.deadline_seconds) return true;
  if (!job && !o.deadline_seconds) return false;
  if (n <= 8 * first_fit) return order != RankBy::gpus;
  if (!value_band_applies(job, order, o)) return false;
  // Best value: further while the last count searched still had a plan within the band: the band trades its
  // slack in dollars for hours (pick_in_value_band), so a count that still costs within it may win, whether or not
  // a plan already finishes within the target.
  std::vector<const Candidate*> pool;
  for (const auto& c : fits) pool.push_back(&c);
  const std::optional<double> low = cheapest_band_cost(pool);
  if (!low) return false;
  const double ceiling = *low * (1.0 + coef::value_cost_slack.value);
  return std::any_of(fits.begin(), fits.end(), [&](const Candidate& c) {
    const auto v = band_cost(c);
    return c.gpus == n / 2 && v && *v <= ceiling;
  });
}

namespace {
// The order's score of one plan among its GPU's. Best value or the cheapest without a price: every plan of one GPU
// shares its hourly price, so GPU-seconds per unit of work (GPU-hours of the job) order them as dollars would (as
// band_cost does with a job size); without it every unpriced plan scored alike and the first that fit was kept.
double plan_score(const Candidate& c, RankBy by) {
  if (by == RankBy::value && !c.value_usd)
    if (const auto rate = work_rate(c).per_second; rate && *rate > 0) return static_cast<double>(c.gpus) / *rate;
  // The cheapest without a price (a deadline's pick): GPU-hours, as band_cost orders them.
  if (by == RankBy::cost && !c.cost.total_usd)
    if (const auto gpu_hours = band_cost(c)) return *gpu_hours;
  return score(c, by);
}
}  // namespace

Pick pick_plan(const std::vector<const Candidate*>& pool, std::int64_t first_fit, bool job, RankBy order, const RankOptions& opts) {
  // Which plans compete: those meeting the deadline (the cheapest wins), those within the budget (the fastest
  // wins), else by the order: best value with a job size from its band, the cheapest or the fewest GPUs.
  Pick out{nullptr, order};
  std::vector<const Candidate*> eligible;
  if (opts.deadline_seconds) {
    for (auto* c : pool)
      if (meets_deadline(*c, opts)) eligible.push_back(c);
    out.by = RankBy::cost;
  }
  if (opts.budget_usd) {
    std::vector<const Candidate*> base = opts.deadline_seconds ? eligible : pool, kept;
    for (auto* c : base)
      if (within_budget(*c, opts)) kept.push_back(c);
    eligible = kept;
    if (!opts.deadline_seconds) out.by = RankBy::time;
  }
  if (value_band_applies(job, order, opts)) {
    out.plan = pick_in_value_band(pool);
    // Said only where the band chose a dearer plan than the cheapest.
    out.in_band = out.plan && *band_cost(*out.plan) > *cheapest_band_cost(pool);
  }
  if (!opts.deadline_seconds && !opts.budget_usd && !out.plan) {
    const std::int64_t limit = order == RankBy::time || (job && order == RankBy::cost) ? opts.max_gpus : first_fit;
    for (auto* c : pool)
      if (c->gpus <= limit) eligible.push_back(c);
    if (order == RankBy::gpus) out.by = RankBy::value;
  }
  for (auto* c : eligible) {
    // More GPUs must be clearly better (2 %) to be chosen: fewer GPUs are simpler and less exposed.
    const double margin = (out.plan && c->gpus > out.plan->gpus) ? 0.98 : 1.0;
    if (!out.plan || plan_score(*c, out.by) < margin * plan_score(*out.plan, out.by)) out.plan = c;
  }
  if (!out.plan) {
    // No plan meets the deadline or the budget: report the closest (fastest, or cheapest) so the row can say why.
    const RankBy closest = opts.deadline_seconds ? RankBy::time : RankBy::cost;
    out.plan = *std::min_element(pool.begin(), pool.end(), [&](const Candidate* a, const Candidate* b) { return score(*a, closest) < score(*b, closest); });
  }
  // A plan both cheaper and faster than the one chosen is better by any order (whatever its count, and it meets
  // the same deadline and budget): the cheapest such plan is chosen, so the choice lies on the frontier.
  // Without a price, GPU-hours order the plans of one GPU as its dollars would (band_cost).
  const Candidate* best = out.plan;
  if (const auto best_usd = band_cost(*best)) {
    const Candidate* better = nullptr;
    std::optional<double> better_usd;
    for (auto* c : pool) {
      const auto usd = band_cost(*c);
      if (usd && *usd < *best_usd && c->cost.wall_hours < best->cost.wall_hours &&
          (!better || *usd < *better_usd || (*usd == *better_usd && c->cost.wall_hours < better->cost.wall_hours))) {
        better = c;
        better_usd = usd;
      }
    }
    if (better) out.plan = better;
  }
  return out;
}

namespace {
// Which plans another beats on both time and cost (at least as good on both, better on one): a sweep in order of
// hours, then dollars (GPU-hours without a price: band_cost), keeping the fewest dollars of the plans strictly
// faster. Plans without a job time are not compared.
std::vector<char> dominated_plans(const std::vector<const Candidate*>& plans) {
  std::vector<char> dominated(plans.size(), 0);
  std::vector<std::size_t> order;
  std::vector<double> cost(plans.size(), 0.0);
  for (std::size_t i = 0; i < plans.size(); ++i)
    if (const auto c = band_cost(*plans[i])) {
      cost[i] = *c;
      order.push_back(i);
    }
  auto hours = [&](std::size_t i) { return plans[i]->cost.wall_hours; };
  auto usd = [&](std::size_t i) { return cost[i]; };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return std::pair(hours(a), usd(a)) < std::pair(hours(b), usd(b)); });
  double faster_usd = std::numeric_limits<double>::infinity();  // the fewest dollars among strictly faster plans
  for (std::size_t g = 0; g < order.size();) {
    std::size_t end = g;
    while (end < order.size() && hours(order[end]) == hours(order[g])) ++end;
    const double group_usd = usd(order[g]);  // the group's fewest dollars (sorted)
    for (std::size_t k = g; k < end; ++k)
      dominated[order[k]] = usd(order[k]) > group_usd || faster_usd <= usd(order[k]);
    faster_usd = std::min(faster_usd, group_usd);
    g = end;
  }
  return dominated;
}
}  // namespace

// Keeps the plans no other plan beats on both time and cost (with a job size; GPU-hours stand for dollars without a
// price), else the best value per GPU count.
std::vector<FrontierPoint> frontier_of(std::vector<const Candidate*> plans) {
  std::vector<FrontierPoint> out;
  std::vector<double> kept_cost;  // each point's dollars (GPU-hours without a price), as band_cost gave them
  // By count, then value, then the simpler sharding (ZeRO-1 before ZeRO-2 when both cost the same).
  std::sort(plans.begin(), plans.end(), [](const Candidate* a, const Candidate* b) {
    const double va = score(*a, RankBy::value), vb = score(*b, RankBy::value);
    return std::tie(a->gpus, va, a->planned.sharding) < std::tie(b->gpus, vb, b->planned.sharding);
  });
  const std::vector<char> dominated = dominated_plans(plans);
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const Candidate* c = plans[i];
    if (const auto cost = band_cost(*c)) {
      // A plan with the same hours and dollars (GPU-hours without a price) as one kept is the same point (ZeRO-1 and
      // ZeRO-2 often are).
      bool same = false;
      for (std::size_t k = 0; k < out.size() && !same; ++k) same = out[k].hours == c->cost.wall_hours && kept_cost[k] == *cost;
      if (dominated[i] || same) continue;
      kept_cost.push_back(*cost);
      out.push_back(FrontierPoint{c->gpus, c->nodes, c->layout, c->cost.wall_hours, c->cost.total_usd, c->value_usd, work_rate(*c).per_second});
    } else if (out.empty() || out.back().gpus != c->gpus) {
      // Without a job size: the best value at each count.
      kept_cost.push_back(std::numeric_limits<double>::quiet_NaN());  // no job cost: never the same point as another
      out.push_back(FrontierPoint{c->gpus, c->nodes, c->layout, std::nullopt, std::nullopt, c->value_usd, work_rate(*c).per_second});
    }
  }
  return out;
}

}  // namespace gpuadvise::ranking_detail
