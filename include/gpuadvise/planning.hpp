#pragma once
// Planning answers: CI assertions (check), the largest batch/context that fits (fit), launch hints.
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/note.hpp"
#include "gpuadvise/ranking.hpp"

namespace gpuadvise {

struct CheckAssertions {
  std::optional<double> min_headroom_pct;
  std::optional<double> max_cost_usd;
  std::optional<double> max_hours;
  std::optional<std::int64_t> max_gpus;
};

// What a check reports of the plan it checked: a slim copy (a 10,000-workload check keeps 10,000 of them).
struct CheckedPlan {
  const GpuSpec* gpu = nullptr;
  bool fits = false;
  std::int64_t gpus = 1;
  std::string layout;
  double headroom_bytes = 0;
  double device_peak = 0;             // bytes per GPU
  std::optional<double> total_usd;    // the job's cost, when known
  double wall_hours = 0;              // billed hours of the job (0 without a job size)
};

struct CheckResult {
  std::string workload;  // its name, or workload[i]
  CheckedPlan plan;
  std::vector<std::string> failures;  // one line each: workload, GPU, assertion, numbers
  std::vector<std::string> notes;     // what passes but runs otherwise than asked (sequences queued beyond a KV pool)
  bool passed() const { return failures.empty(); }
};

// Evaluates one workload on one GPU (searching a plan of up to max_gpus GPUs when the workload asks for
// one GPU and max_gpus allows more) and tests every assertion; fitting is always asserted.
CheckResult check_workload(const Workload& w, const std::string& label, const ModelSpec& m, const GpuSpec& g,
                           const CheckAssertions& a, const CostOptions& cost);

enum class Maximize { batch, seq_len, concurrency };

struct FitResult {
  Maximize what = Maximize::batch;
  std::int64_t value = 0;                // the largest value that fits; 0 when even 1 does not
  std::optional<Candidate> at;           // the estimate at that value
  std::optional<Candidate> next;         // the estimate at value + 1 (does not fit)
  std::string limited_by;                // set when a limit other than memory stopped the search
  double min_headroom_pct = 0;           // free share of the card every value kept leaves (--min-headroom)
  std::string as_given;                  // the savers it was fitted without, where more would fit with them
  std::string layout_given;              // a GPU count given alone, fitted as given (data parallel)
  // A serving engine's pool bounds the sequences it runs at once; more wait in its queue (method.md §8.3).
  bool pool_bound() const { return at && at->memory.vllm && what != Maximize::seq_len; }
  // The next value runs in memory but misses --max-tpot-ms/--max-ttft-ms: the targets, not the memory, bound it.
  bool latency_bound() const { return next && next->latency_miss > 0; }
};

// A training workload as given without activation checkpointing: the words fit, check and sweep add where it does not
// fit (the ranking adds the saver itself); empty otherwise.
std::string without_checkpointing(const Workload& w, const ModelSpec& m);

// The margin every answer keeps (method.md §9): a plan that fits with less than min_headroom_pct of the card free is
// not a fit for fit and sweep (the ranking keeps it as tight), and says so in its fit_reason. A serving engine's pool
// takes its share of the card by design and is left as it is.
void keep_margin(Candidate& c, double min_headroom_pct = RankOptions{}.min_headroom_pct);
// Whether keep_margin turned this candidate from a fit into "tight".
bool kept_out_by_margin(const Candidate& c);

// Largest --batch, --seq-len or concurrency that fits the GPU, by exponential then binary search.
// A value fits with at least min_headroom_pct of the card free, as the ranking's fits do (a serving engine's
// pool decides for itself).
FitResult fit_max(const Workload& w, const ModelSpec& m, const GpuSpec& g, Maximize what, const CostOptions& cost, double min_headroom_pct = 5);

// llama.cpp with --offload layers or experts and no --gpu-layers: the count the workload as given keeps on `g` at
// `min_headroom_pct` (method.md §8.3), which fit and sweep hold while the value they vary grows; the workload's own
// --gpu-layers where given, 0 without those offloads.
std::int64_t held_gpu_layers(const Workload& w, const ModelSpec& m, const GpuSpec& g, double min_headroom_pct = 5);

// llama.cpp inference with every layer on one GPU, or on its layer split over several, that do not hold them: what
// each of its offloads keeps there at `margin_pct` free (-ngl, --n-cpu-moe), the sentence check and estimate print;
// empty where no offload applies (method.md §8.3).
std::string llamacpp_offload_hint(const Workload& w, const ModelSpec& m, const GpuSpec& g, double margin_pct = 5);

// A workload evaluated as given that does not fit `g`: the plan the ranking picks on the same number of these GPUs
// (its savers: activation checkpointing, CPU offload, sharding, a smaller micro-batch with accumulation), when one
// fits, in the sentence estimate and check print so that the three answers to "does it fit?" read as one; empty
// where the planner finds none either (method.md §11).
std::string planner_fit_hint(const Workload& w, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost);
// What estimate and check say of a workload that does not fit as given: llama.cpp's offloads where they apply, else
// the ranking's own plan on as many of these GPUs; empty where neither has a plan.
std::string not_fitting_hint(const Workload& w, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost, double margin_pct = 5);
std::string to_string(Maximize m);


}  // namespace gpuadvise
