// Which local correction applies to a workload (docs/method.md §15; include/gpuadvise/correction.hpp).
#include "gpuadvise/correction.hpp"

#include <fmt/format.h>

#include "gpuadvise/bounds.hpp"
#include "gpuadvise/memory.hpp"

namespace gpuadvise {

namespace {

// 8030261248 -> "8.03B", 124e6 -> "124M", 16384 -> "16.4k", 512 -> "512".
std::string count_text(double n) {
  if (n >= 1e12) return fmt::format("{:.3g}T", n / 1e12);
  if (n >= 1e9) return fmt::format("{:.3g}B", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.3g}M", n / 1e6);
  if (n >= 1e3) return fmt::format("{:.3g}k", n / 1e3);
  return fmt::format("{:.0f}", n);
}

bool within(double measured, double asked, double factor) {
  return measured > 0 && asked >= measured / factor && asked <= measured * factor;
}

}  // namespace

CorrectionScope make_correction_scope(const std::string& mode, const std::string& precision, const std::string& checkpointing,
                                      const std::string& sharding, std::int64_t gpus, std::int64_t tp, std::int64_t pp, double params,
                                      double batch, double per_sample) {
  CorrectionScope s;
  s.mode = mode;
  s.precision = precision;
  s.checkpointing = checkpointing;
  // Data parallelism copies the model: every GPU holds what one GPU held, whatever the count. A sharded or split
  // model holds another share of it per GPU, so its layout is part of the scope.
  if (sharding == "none") s.layout = tp == 1 && pp == 1 ? "data parallel" : fmt::format("TP {} x PP {}", tp, pp);
  else s.layout = fmt::format("{} over {} GPUs, TP {} x PP {}", sharding, gpus, tp, pp);
  s.params = params;
  s.step_elements = batch * per_sample;
  return s;
}

CorrectionScope correction_scope(const Workload& w, const ModelSpec& m, double params) {
  double per_sample = static_cast<double>(effective_seq_len(w, m));
  if (m.vision) {
    const auto [width, height] = image_size(w, m);
    per_sample = width * height;
  }
  return make_correction_scope(to_string(w.mode), to_string(w.precision), to_string(w.checkpointing), to_string(w.sharding), w.gpus, w.tp,
                               w.pp, params, static_cast<double>(w.batch), per_sample);
}

std::optional<std::string> scope_difference(const CorrectionScope& measured, const CorrectionScope& asked) {
  if (measured.mode != asked.mode) return fmt::format("measured on {}, this is {}", measured.mode, asked.mode);
  if (measured.precision != asked.precision) return fmt::format("measured in {}, this is {}", measured.precision, asked.precision);
  if (measured.checkpointing != asked.checkpointing)
    return fmt::format("measured with recompute {}, this has {}", measured.checkpointing, asked.checkpointing);
  if (measured.layout != asked.layout) return fmt::format("measured as {}, this is {}", measured.layout, asked.layout);
  if (!within(measured.params, asked.params, k_scope_params_factor))
    return fmt::format("measured on a {} model, this one has {} parameters (it applies within {:g}x)", count_text(measured.params),
                       count_text(asked.params), k_scope_params_factor);
  if (!within(measured.step_elements, asked.step_elements, k_scope_step_factor))
    return fmt::format("measured at {} elements per step (batch x sequence or pixels), this has {} (it applies within {:g}x)",
                       count_text(measured.step_elements), count_text(asked.step_elements), k_scope_step_factor);
  return std::nullopt;
}

std::string scope_text(const CorrectionScope& s) {
  return fmt::format("{} in {} with recompute {}, {}, models of {}-{} parameters, {}-{} elements per step", s.mode, s.precision,
                     s.checkpointing, s.layout, count_text(s.params / k_scope_params_factor), count_text(s.params * k_scope_params_factor),
                     count_text(s.step_elements / k_scope_step_factor), count_text(s.step_elements * k_scope_step_factor));
}

CorrectionMatch find_correction(const CostOptions& cost, const GpuSpec& g, Framework fw, bool training, const CorrectionScope& asked) {
  CorrectionMatch match;
  const std::string fw_name = to_string(fw);
  for (const auto& k : cost.corrections) {
    if (k.gpu != g.id || k.framework != fw_name || k.training != training) continue;
    const std::optional<std::string> why =
        k.scope ? scope_difference(*k.scope, asked) : std::optional<std::string>{"it was saved without the workload it measured (an older file); save it again"};
    if (!why) {
      match.applied = &k;
      return match;
    }
    match.skipped = fmt::format("your calibration of {} with {} from {} is not applied here: {}", g.id, fw_name, cost.corrections_file, *why);
  }
  return match;
}

}  // namespace gpuadvise
