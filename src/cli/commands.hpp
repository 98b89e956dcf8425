#pragma once
// Every command's flags and what it runs, one file per command (cmd_*.cpp). app.cpp registers the flags on the
// structs below and calls run_* once they are parsed.
#include <functional>
#include <ostream>
#include <vector>

#include "gpuadvise/report.hpp"
#include "support.hpp"

namespace gpuadvise::cli {

// What every command writes with: the input stream, the output (a sink under -q), the output flags and style.
struct CommandContext {
  std::istream& in;
  std::ostream* out_ptr;
  const OutputFlags& of;
  const Style& style;
  bool md() const { return of.format == "markdown" || of.format == "md"; }
};

// The default command (the ranking) and `estimate` (cmd_rank.cpp).
struct RankFlags {
  WorkloadFlags wf;
  CostFlags cf;
  std::vector<std::string> only;
  std::string rank_by, deadline, budget, min_headroom, max_gpus;
};
struct EstimateFlags {
  WorkloadFlags wf;
  CostFlags cf;
  std::string gpu;
  bool gpu_given = false;  // --gpu given, even empty (then an error)
};
struct GpusFlags {
  std::string gpu_id, gpus_vendor, gpus_min_memory, gpus_provider, gpus_sort;
};
struct ModelsFlags {
  std::string models_kind, models_family;
};
struct SweepFlags {
  WorkloadFlags swp_wf;
  CostFlags swp_cf;
  std::vector<std::string> swp_gpus;
  std::string swp_vary, swp_from, swp_to, swp_points = "8", swp_metric = "memory";
};
struct CalibrateFlags {
  std::string cal_file, cal_gpu;
  bool cal_save = false, cal_reset = false;
};
struct ProbeFlags {
  WorkloadFlags prb_wf;
  std::string prb_steps = "5";
};
struct CheckFlags {
  WorkloadFlags chk_wf;
  CostFlags chk_cf;
  std::vector<std::string> chk_gpus;
  std::string min_headroom, max_cost, max_hours, max_gpus;
};
struct FitFlags {
  WorkloadFlags fit_wf;
  std::string fit_gpu, maximize = "batch", min_headroom;
};

// The flags the defaults file fills where the command line left them (defaults.cpp).
struct DefaultsTargets {
  std::vector<CostFlags*> costs;
  RankFlags* rank;
  FitFlags* fit;
  OutputFlags* output;
};
void apply_defaults(const DefaultsTargets& t, const std::function<bool(const char*)>& given);

int run_rank(const RankFlags& flags, const CommandContext& ctx);          // cmd_rank.cpp
int run_estimate(const EstimateFlags& flags, const CommandContext& ctx);  // cmd_rank.cpp
int run_gpus(const GpusFlags& flags, const CommandContext& ctx);          // cmd_catalog.cpp
int run_models(const ModelsFlags& flags, const CommandContext& ctx);      // cmd_catalog.cpp
int run_sweep(const SweepFlags& flags, const CommandContext& ctx);        // cmd_sweep.cpp
int run_calibrate(const CalibrateFlags& flags, const CommandContext& ctx);  // cmd_calibrate.cpp
int run_probe(const ProbeFlags& flags, const CommandContext& ctx);        // cmd_calibrate.cpp
int run_check(const CheckFlags& flags, const CommandContext& ctx);        // cmd_check.cpp
int run_fit(const FitFlags& flags, const CommandContext& ctx);            // cmd_check.cpp

}  // namespace gpuadvise::cli
