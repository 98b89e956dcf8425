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
// How far `evaluate_layout` goes: everything (`evaluate`); for the planner's candidates (`scores`), the memory and
// the verdict only when the layout does not fit, else also its layout text, time and cost, what choosing among
// them reads (`describe_layout` adds the GPU's notes and facts, the system needs and the cost's notes to the one
// kept); or the memory and the verdict only, whatever it is (`verdict`: the screen of a layout's most frugal saver).
enum class Depth { full, scores, verdict };
Candidate evaluate_layout(const Workload& w, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost, Depth depth);
// The rest of a `scores` candidate (nothing for one evaluated in full).
void describe_layout(Candidate& c, const ModelSpec& m, const GpuSpec& g);
// Why the planner chose this count and layout, in one line.
std::string describe_choice(const Candidate& chosen, const Candidate& single, std::size_t fitting, RankBy order, const RankOptions& o);

}  // namespace gpuadvise::ranking_detail
