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
};

// Largest --batch, --seq-len or concurrency that fits the GPU, by exponential then binary search.
FitResult fit_max(const Workload& w, const ModelSpec& m, const GpuSpec& g, Maximize what, const CostOptions& cost);
std::string to_string(Maximize m);

// A DeepSpeed config (ds_config.json) as settings: io writes it as JSON and on one line (`deepspeed_json`).
// The ZeRO form carries every field; the one-GPU optimizer-offload form only the micro-batch, bf16 and the
// offloaded stage 2 (the optional fields are absent there).
struct DeepSpeedConfig {
  std::int64_t micro_batch = 1;                   // train_micro_batch_size_per_gpu
  std::optional<std::int64_t> grad_accum;         // gradient_accumulation_steps
  bool bf16 = false;                              // bf16.enabled
  std::optional<bool> fp16;                       // fp16.enabled
  int stage = 0;                                  // zero_optimization.stage
  bool overlap_comm = false;                      // zero_optimization.overlap_comm (written when set)
  bool offload_optimizer = false, offload_param = false;  // to the CPU, pinned
};

struct LaunchHints {
  std::optional<std::string> vllm;             // vllm serve command line
  std::optional<std::string> torchrun;         // torchrun / accelerate command line
  std::optional<DeepSpeedConfig> deepspeed_config;
  std::optional<std::string> hf_trainer;       // Hugging Face TrainingArguments flags
  std::optional<std::string> skypilot;         // SkyPilot task YAML
  std::optional<std::string> skypilot_accelerator;
  std::vector<std::string> notes;
};

LaunchHints launch_hints(const Candidate& c, const ModelSpec& m);

}  // namespace gpuadvise
