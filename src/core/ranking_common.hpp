#pragma once
// What ranking.cpp (the order, the recommendations), planner.cpp (the layouts searched per GPU) and
// evaluate.cpp (one layout on one GPU) share; internal to core.
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpuadvise/ranking.hpp"

namespace gpuadvise::ranking_detail {

// The plan's work per second and its unit: images (every GPU), training tokens (every GPU) or output tokens
// (every replica); empty when the throughput is unknown.
struct WorkRate {
  std::optional<double> per_second;
  std::string_view unit;  // as value_of names it (static text)
  double scale = 1e6;
};

WorkRate work_rate(const Candidate& c);
// The figure the order sorts by (lower is better), for a plan that fits.
double score(const Candidate& c, RankBy order);
// Each GPU count's best plan: time, cost and value, for the cost-time frontier in JSON.
std::vector<FrontierPoint> frontier_of(std::vector<const Candidate*> plans);
bool meets_deadline(const Candidate& c, const RankOptions& o);
bool within_budget(const Candidate& c, const RankOptions& o);
// The tensors' memory of the layouts one ranking tries, shared by its GPUs: the same layouts come up on most of
// them, and only the runtime, the reserve, a serving pool and the band depend on the GPU (memory.hpp). Keyed by the
// plan's shape, the rest of the workload being the ranking's own; language models only.
class TensorMemo {
 public:
  const TensorMemory& of(const PlanShape& shape, const Workload& w, const ModelSpec& m);

 private:
  struct Hash {
    std::size_t operator()(const PlanShape& s) const;
  };
  std::unordered_map<PlanShape, TensorMemory, Hash> memo_;
};

// The plan of one GPU (`plan`), its layouts' tensor memory shared through `memo` when one is given.
Candidate plan_with(const Workload& w, const ModelSpec& m, const GpuSpec& g, const RankOptions& opts, RankBy order, TensorMemo* memo);

// One layout on one GPU in three steps (`evaluate` runs all three). `assess_fit` writes the memory and the verdict
// into `c`, resetting what an earlier layout left there (the planner screens layouts in one reused candidate),
// and returns the user's local correction for this GPU if there is one; `score_layout` adds the layout text,
// time and cost, what choosing among the layouts that fit reads; `describe_layout` adds the GPU's notes and
// facts, the system needs and the cost's notes, for the one kept.
const LocalCorrection* assess_fit(Candidate& c, const Workload& w, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost,
                                  TensorMemo* memo = nullptr);
// The two later steps rebuild the plan's workload from `asked`, the workload the first step was given before its
// layout and savers were set (`PlanShape::applied_to`).
void score_layout(Candidate& c, const Workload& asked, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost, const LocalCorrection* k);
// Nothing for a candidate already described.
void describe_layout(Candidate& c, const Workload& asked, const ModelSpec& m, const GpuSpec& g);
// Why the planner chose this count and layout, in one line.
std::string describe_choice(const Candidate& chosen, const Candidate& single, std::size_t fitting, RankBy order, const RankOptions& o);

}  // namespace gpuadvise::ranking_detail
