#pragma once
// Ranking every catalogue GPU for a workload: fit, smallest GPU count and layout, memory, headroom,
// time and cost. docs/method.md §9.
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/cost.hpp"
#include "gpuadvise/video.hpp"
#include "gpuadvise/gpu.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/perf.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

enum class RankBy { fit, cost, time, headroom };

struct RankOptions {
  std::optional<RankBy> rank_by;          // default: cost with a job size, else fit
  CostOptions cost;                       // price overrides, provider, purchase prices
  std::vector<std::string> only_gpus;     // empty: the whole catalogue
  std::int64_t max_gpus = 64;
  std::optional<double> deadline_seconds; // drop GPUs whose job takes longer
  std::optional<double> budget_usd;       // drop GPUs whose job costs more
};

struct Candidate {
  const GpuSpec* gpu = nullptr;
  bool supported = true;            // precision/software usable on this GPU
  bool fits = false;                // at the chosen layout
  bool fits_single = false;         // on one GPU, as asked
  std::int64_t gpus = 1;            // the chosen count (smallest that fits)
  std::string layout;               // "single GPU", "FSDP (ZeRO-3) x 4", "tensor parallel x 2"
  Workload planned;
  MemoryEstimate memory;
  TimeEstimate time;
  double headroom_bytes = 0;        // capacity − device peak per GPU
  JobCost cost;
  std::string why;                  // why this count and layout
  std::optional<VideoPlan> video;   // --streams: the pipeline's capacity per GPU
  std::vector<std::string> notes;

  std::optional<double> usd_per_gpu_hour() const { return cost.price.usd_per_gpu_hour; }
  std::optional<double> usd_per_hour() const {
    return cost.price.usd_per_gpu_hour ? std::optional<double>(*cost.price.usd_per_gpu_hour * static_cast<double>(gpus)) : std::nullopt;
  }
};

struct Dropped {
  std::string gpu;
  std::string reason;
};

struct Ranking {
  std::vector<Candidate> rows;
  RankBy order = RankBy::fit;
  std::string order_text;
  std::vector<Dropped> dropped;  // filtered out by --deadline or --budget
  std::vector<std::string> notes;
  bool has_job = false;          // a job size was given
};

// Evaluates one GPU at the workload's own layout (what `estimate --gpu` shows).
Candidate evaluate(const Workload& w, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost = {});

// The smallest GPU count that fits and, at that count, the layout with the lowest cost per job (or time
// with RankBy::time): data parallel, ZeRO-1/2/3, tensor parallel inside NVLink domains, CPU offload.
Candidate plan(const Workload& w, const ModelSpec& m, const GpuSpec& g, const RankOptions& opts, RankBy order);

Ranking rank_gpus(const Workload& w, const ModelSpec& m, const GpuCatalog& catalog, const RankOptions& opts);

std::string to_string(RankBy r);

}  // namespace gpuadvise
