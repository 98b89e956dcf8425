#pragma once
// Ranking every catalogue GPU for a workload: fit, smallest GPU count and layout, memory, headroom,
// time and cost. docs/method.md §9.
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/gpu.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/perf.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

enum class RankBy { fit, cost, time, headroom };

struct RankOptions {
  std::optional<RankBy> rank_by;          // default: cost with a job size, else fit
  std::string provider;                   // restrict offers to this provider
  std::vector<std::string> only_gpus;     // empty: the whole catalogue
  std::int64_t max_gpus = 64;
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
  const PriceOffer* offer = nullptr;
  std::optional<double> cost_usd;           // the job, all GPUs
  std::optional<double> usd_per_hour_total; // all GPUs
  std::vector<std::string> notes;
};

struct Ranking {
  std::vector<Candidate> rows;
  RankBy order = RankBy::fit;
  std::string order_text;
  std::vector<std::string> notes;
};

// Evaluates one GPU at the workload's own layout (what `estimate --gpu` shows).
Candidate evaluate(const Workload& w, const ModelSpec& m, const GpuSpec& g, const std::string& provider = "");

Ranking rank_gpus(const Workload& w, const ModelSpec& m, const GpuCatalog& catalog, const RankOptions& opts);

std::string to_string(RankBy r);

}  // namespace gpuadvise
