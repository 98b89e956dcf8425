#pragma once
// Cost of the completed job: docs/method.md §10. Rented: price per GPU-hour × GPUs × (compute + setup +
// checkpoint writes + expected rework after interruptions) + storage + egress. Owned: purchase price
// amortised over its life at its utilisation, plus energy.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/gpu.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/note.hpp"
#include "gpuadvise/perf.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

struct PriceChoice {
  std::optional<double> usd_per_gpu_hour;
  std::string provider, date_seen, source;
  std::string basis;   // "catalogue", "override", "owned"
  std::string policy;  // a catalogue offer: "cheapest" or "median" of the GPU's offers (--provider's alone where given)
};

// Which of a GPU's catalogue offers prices it (docs/method.md §10): the cheapest, or the middle one.
enum class PricePolicy { cheapest, median };

// The workload a correction was measured on, as far as it decides what the ratio means (docs/method.md §15):
// a correction applies only to workloads like it (include/gpuadvise/correction.hpp).
struct CorrectionScope {
  std::string mode, precision, checkpointing;
  std::string layout;        // "data parallel" (any GPU count: each holds the model) or the sharded layout
  double params = 0;         // the model's parameters
  double step_elements = 0;  // per GPU and micro-batch: batch x sequence (language) or batch x pixels (vision)
};

// A local correction from a measurement (`gpuadvise calibrate --save`, docs/method.md §15): for one GPU,
// framework and kind of work, the measured over the estimated tensor peak and throughput, and the workload
// measured (absent in files saved before scopes: such a correction applies to nothing and the answer says so).
struct LocalCorrection {
  std::string gpu, framework;
  bool training = true;
  double memory_factor = 1.0;   // measured / estimated tensor peak
  double speed_factor = 1.0;    // measured / estimated throughput
  std::string source, saved;    // the probe result it came from, and when it was saved
  std::optional<CorrectionScope> scope;
};

// User settings that shape every evaluation: prices, owned hardware, local corrections.
struct CostOptions {
  std::map<std::string, double> price_overrides;     // GPU id -> USD per GPU-hour
  std::map<std::string, double> purchase_overrides;  // GPU id -> USD per GPU (owned)
  std::string provider;                              // restrict catalogue offers to this provider
  PricePolicy price_policy = PricePolicy::cheapest;  // which offer of those prices a GPU
  std::vector<LocalCorrection> corrections;          // from the user's calibration file
  std::string corrections_file;                      // where they were read (said in every note)
};

struct JobCost {
  PriceChoice price;
  double compute_hours = 0;      // wall time of the computation
  double setup_hours = 0;
  double start_hours = 0;       // the job's start on every GPU (reschedule, reload, warm up)
  double checkpoint_hours = 0;   // synchronous checkpoint writes
  double checkpoint_every_hours = 0;  // the interval they were written at (training)
  double rework_hours = 0;       // expected recomputation and restarts after interruptions
  double expected_interruptions = 0;
  double wall_hours = 0;         // everything billed, per GPU
  double gpu_hours = 0;          // wall × GPUs
  std::optional<double> compute_usd, extras_usd, total_usd;
  std::optional<double> usd_per_million_output_tokens;  // the whole job over its output tokens
  // Priced apart as providers do: the job's cost split by the GPU time prompts (prefill) and outputs (decode)
  // take, each over its own tokens.
  std::optional<double> usd_per_million_input_tokens, usd_per_million_output_tokens_apart;
  std::optional<double> usd_per_thousand_images;  // image jobs (--images) in inference
  std::optional<double> energy_usd, amortization_usd;  // owned
  Notes notes;
  std::optional<std::string> missing_price;  // why there is no price (a fact about the GPU, not the plan)
};

// Interruptions per GPU-hour: Llama 3 saw 419 unexpected interruptions in 54 days on 16,384 H100s
// (arXiv:2407.21783 §3.3.4).
inline constexpr double k_interruptions_per_gpu_hour = coef::interruptions_per_gpu_hour.value;
inline constexpr double k_restart_hours = coef::restart_hours.value;                              // reschedule, reload, warm up (assumed)
inline constexpr double k_checkpoint_write_bytes_per_s = coef::checkpoint_write_bytes_per_s.value;  // per node writing its shards (assumed)

PriceChoice choose_price(const GpuSpec& g, const Workload& w, const CostOptions& opts);

// `time` must carry job_seconds for a job cost; without a job size only the hourly and per-token figures come.
JobCost estimate_cost(const Workload& w, const GpuSpec& g, const TimeEstimate& time, double params_total,
                      double trainable_params, const CostOptions& opts);

// Decimals that show a dollar amount: none from $100, cents from $1, three below, and below a cent as many as give
// two significant digits ($0.00024 per thousand images, not "$0.000", which reads as free).
int usd_decimals(double usd);
// "$" and the amount at usd_decimals.
std::string usd_text(double usd);

}  // namespace gpuadvise
