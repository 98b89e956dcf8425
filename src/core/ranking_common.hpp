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
// `evaluate`, and with stop_when_unfit the planner's screen: a layout that does not fit returns with its
// memory and verdict only (no time, cost, system needs or notes), which is all the planner reads of it.
Candidate evaluate_layout(const Workload& w, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost, bool stop_when_unfit);
// Why the planner chose this count and layout, in one line.
std::string describe_choice(const Candidate& chosen, const Candidate& single, std::size_t fitting, RankBy order, const RankOptions& o);

}  // namespace gpuadvise::ranking_detail
