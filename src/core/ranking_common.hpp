#pragma once
// What ranking.cpp (the order, the recommendations), planner.cpp (the layouts searched per GPU) and
// evaluate.cpp (one layout on one GPU) share; internal to core.
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/ranking.hpp"

namespace gpuadvise::ranking_detail {

// The plan's work per second and its unit: images (every GPU), training tokens (every GPU) or output tokens
// (every replica); empty when the throughput is unknown.
struct WorkRate {
  std::optional<double> per_second;
  std::string unit;  // as value_of names it
  double scale = 1e6;
};

WorkRate work_rate(const Candidate& c);
// The figure the order sorts by (lower is better), for a plan that fits.
double score(const Candidate& c, RankBy order);
// Each GPU count's best plan: time, cost and value, for the cost-time frontier in JSON.
std::vector<FrontierPoint> frontier_of(std::vector<const Candidate*> plans);
bool meets_deadline(const Candidate& c, const RankOptions& o);
bool within_budget(const Candidate& c, const RankOptions& o);
// How far `evaluate_layout` goes: everything (`evaluate`); for the planner, the memory and the verdict only
// when the layout does not fit (no time, cost, system needs or notes: the planner reads nothing else of it);
// or the memory and the verdict only, whatever it is (the planner's screen of a layout's most frugal saver).
enum class Depth { full, stop_when_unfit, verdict };
Candidate evaluate_layout(const Workload& w, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost, Depth depth);
// Why the planner chose this count and layout, in one line.
std::string describe_choice(const Candidate& chosen, const Candidate& single, std::size_t fitting, RankBy order, const RankOptions& o);

}  // namespace gpuadvise::ranking_detail
