// `gpuadvise check` (the CI gate: assertions over workloads and GPUs) and `gpuadvise fit` (the largest batch,
// sequence length or concurrency that fits).
#include <algorithm>
#include <cmath>
#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "app.hpp"
#include "commands.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/global_batch.hpp"
#include "gpuadvise/planning.hpp"
#include "gpuadvise/probe.hpp"
#include "gpuadvise/ranking.hpp"
#include "gpuadvise/report.hpp"

namespace gpuadvise::cli {

int run_check(const CheckFlags& flags, const CommandContext& ctx) {
  check_format(ctx.of.format);
  if (flags.chk_gpus.empty()) throw UserError{2, "check: give at least one --gpu ID to check on"};
  CheckAssertions a;
  auto num = [](const std::string& text, const char* flag, bool integer) -> std::optional<double> {
    if (text.empty()) return std::nullopt;
    return integer ? flag_number(text, flag, "an integer from 1 to 32,768", 1, 32768, true) : flag_number(text, flag, "a number from 0 to 1e12", 0, 1e12);
  };
  a.min_headroom_pct = num(flags.min_headroom, "--min-headroom", false);
  if (a.min_headroom_pct && *a.min_headroom_pct >= 100) throw UserError{2, "--min-headroom: expected a percentage below 100, got '" + flags.min_headroom + "'"};
  a.max_cost_usd = num(flags.max_cost, "--max-cost", false);
  if (!flags.max_hours.empty()) a.max_hours = parse_duration(flags.max_hours, "--max-hours") / 3600.0;  // 36, 90m, 1d, 1h30m
  if (auto g = num(flags.max_gpus, "--max-gpus", true)) a.max_gpus = static_cast<std::int64_t>(*g);
  const GpuCatalog cat = load_gpus(ctx.of, ctx.in);
  const CostOptions co = cost_options(flags.chk_cf, cat, ctx.in);
  std::vector<const GpuSpec*> targets;
  for (const auto& id : flags.chk_gpus) targets.push_back(&gpu_for(id, cat));
  const CheckFormat format = ctx.of.format == "json" ? CheckFormat::json : ctx.of.format == "csv" ? CheckFormat::csv
                             : ctx.md() ? CheckFormat::markdown : CheckFormat::table;
  // Each result is written as it is checked (-q writes nothing): memory stays flat whatever the file's size.
  const auto writer = check_writer(format, ctx.style, a);
  std::ostream& out = *ctx.out_ptr;
  bool started = false;
  auto start = [&] {
    if (!started && !ctx.of.quiet) out << writer->head();
    started = true;
  };
  // Every workload is built and its model resolved (each distinct --model once, its file read once) before
  // the first result is written: bad input writes nothing but its error.
  std::map<std::string, ModelSpec> models_seen;
  std::size_t count = 0;
  auto validate = [&](RawWorkload&& raw) {
    const Workload w = build_workload(std::move(raw));
    auto seen = models_seen.find(w.model);
    if (seen == models_seen.end()) models_seen.emplace(w.model, model_for(w, ctx.in));
    else check_workload_fits_model(w, seen->second);
    count += 1;
  };
  std::size_t checked = 0, failed = 0, index = 0;
  for_each_given_workload(flags.chk_wf, ctx.in, [&](RawWorkload&& raw) {
    start();
    Workload w = build_workload(std::move(raw));
    const ModelSpec& model = models_seen.at(w.model);
    w = with_global_batch(with_checkpoint_precision(std::move(w), model), model);
    // A workload without a name is labelled by its position, and a lone one is just "workload".
    const std::string label = w.name ? *w.name : count == 1 ? "workload" : "workload[" + std::to_string(index) + "]";
    index += 1;
    for (const GpuSpec* g : targets) {
      const CheckResult r = check_workload(w, label, model, *g, a, co);
      checked += 1;
      failed += r.passed() ? 0 : 1;
      if (!ctx.of.quiet) out << writer->row(r);
    }
  }, validate);
  start();
  if (!ctx.of.quiet) out << writer->tail(checked, failed);
  return failed > 0 ? 1 : 0;
}

int run_fit(const FitFlags& flags, const CommandContext& ctx) {
  check_format(ctx.of.format);
  if (flags.fit_gpu.empty()) throw UserError{2, "fit: give the GPU with --gpu ID"};
  Maximize what;
  if (flags.maximize == "batch") what = Maximize::batch;
  else if (flags.maximize == "seq-len" || flags.maximize == "seq_len") what = Maximize::seq_len;
  else if (flags.maximize == "concurrency") what = Maximize::concurrency;
  else throw UserError{2, "--maximize: unknown value '" + flags.maximize + "' (valid: " + choices_text("--maximize") + ")"};
  RawWorkload raw = one_workload(flags.fit_wf, ctx.in, "fit");
  const Workload built = build_workload(std::move(raw));
  if (what == Maximize::concurrency && is_training(built.mode))
    throw UserError{2, "--maximize: concurrency is for --mode inference (training: batch or seq-len)"};
  const ModelSpec model = model_for(built, ctx.in);
  const Workload w = with_global_batch(with_checkpoint_precision(built, model), model);
  const GpuCatalog cat = load_gpus(ctx.of, ctx.in);
  const GpuSpec& g = gpu_for(flags.fit_gpu, cat);
  const double headroom = flags.min_headroom.empty()
                              ? 5.0
                              : flag_number(flags.min_headroom, "--min-headroom", "a percentage from 0 to below 100", 0, 100, false, false, true);
  const FitResult r = fit_max(w, model, g, what, CostOptions{}, headroom);
  (*ctx.out_ptr) << (ctx.of.format == "json" ? fit_json(w, model, g, r) : ctx.of.format == "csv" ? fit_csv(g, r) : ctx.md() ? fit_markdown(w, model, g, r, ctx.style) : fit_table(w, model, g, r, ctx.style));
  return 0;
}

}  // namespace gpuadvise::cli
