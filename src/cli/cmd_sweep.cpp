// `gpuadvise sweep`: one setting varied over a range, each value evaluated on each GPU asked.
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

namespace {
// What the points share to say (method.md §9): a point that misses the latency targets, a tight point (fit's and the
// ranking's margin), and, fitted as given, a training workload that would fit with checkpointing (`checkpointing`:
// without_checkpointing's words for it, empty where they do not apply).
void closing_notes(Sweep& sw, const std::string& checkpointing) {
  auto any = [&](auto pred) {
    return std::any_of(sw.points.begin(), sw.points.end(), [&](const SweepPoint& q) { return std::any_of(q.per_gpu.begin(), q.per_gpu.end(), pred); });
  };
  // A point that fits in memory but misses --max-tpot-ms/--max-ttft-ms reads "no: latency" (its memory is below the line).
  if (any([](const Candidate& c) { return c.latency_miss > 0; }))
    sw.notes.push_back("no: latency: the plan fits in memory, but its sequences in flight miss --max-tpot-ms or --max-ttft-ms");
  if (any([](const Candidate& c) { return kept_out_by_margin(c); }))
    sw.notes.push_back(fmt::format("tight: fits with less than {:g}% of the card free, the margin fit, check and the ranking keep: not counted as a fit",
                                   RankOptions{}.min_headroom_pct));
  // Points fitted as given that do not fit where the ranking would add activation checkpointing say so, as fit does.
  if (!checkpointing.empty() && any([](const Candidate& c) { return !c.fits && c.latency_miss <= 0; })) sw.notes.push_back(checkpointing);
}
}  // namespace

int run_sweep(const SweepFlags& flags, const CommandContext& ctx) {
  check_format(ctx.of.format);
  static const std::vector<std::pair<std::string, std::string>> keys{{"seq-len", "seq_len"},     {"batch", "batch"}, {"concurrency", "concurrency"},
                                                                     {"lora-rank", "lora_rank"}, {"gpus", "gpus"},   {"image-size", "image_size"}};
  auto key = std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.first == flags.swp_vary; });
  if (key == keys.end()) throw UserError{2, "--vary: unknown setting '" + flags.swp_vary + "' (valid: " + choices_text("--vary") + ")"};
  if (flags.swp_metric != "memory" && flags.swp_metric != "time" && flags.swp_metric != "cost")
    throw UserError{2, "--metric: unknown value '" + flags.swp_metric + "' (valid: " + choices_text("--metric") + ")"};
  if (flags.swp_from.empty() || flags.swp_to.empty()) throw UserError{2, "sweep: give the range with --from and --to"};
  // A sequence length's k is 1,024 (a 4k context is 4,096 tokens); other counts' k is 1,000.
  auto bound = [&](const std::string& text, const char* flag) {
    const std::string what = "a whole number from 1 to 16,777,216 (suffixes k, M)";
    const std::optional<double> v = parse_suffixed(text, flags.swp_vary == "seq-len");
    if (!v || *v < 1 || *v > 16777216 || *v != std::floor(*v)) throw UserError{2, std::string(flag) + ": expected " + what + ", got '" + text + "'"};
    return *v;
  };
  const double lo = bound(flags.swp_from, "--from");
  const double hi = bound(flags.swp_to, "--to");
  if (hi < lo) throw UserError{2, "--to: expected a value at or above --from (" + flags.swp_from + "), got '" + flags.swp_to + "'"};
  const int n = static_cast<int>(flag_number(flags.swp_points, "--points", "an integer from 2 to 64", 2, 64, true));
  std::vector<double> values;
  if (flags.swp_vary == "gpus") {
    // GPU counts as servers hold them: powers of two (1, 2, 4, 8, ... whole nodes beyond one), and --to itself.
    for (double v = 1; v <= hi; v *= 2)
      if (v >= lo) values.push_back(v);
    if (values.empty() || values.back() != hi) values.push_back(hi);
  } else {
    for (int i = 0; i < n; ++i) {
      const double v = std::round(lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1)));
      if (values.empty() || v != values.back()) values.push_back(v);
    }
  }
  const RawWorkload given = one_workload(flags.swp_wf, ctx.in, "sweep");
  if (given.count(key->second)) throw UserError{2, "--" + flags.swp_vary + ": it is the setting --vary varies; leave it out"};
  const GpuCatalog cat = load_gpus(ctx.of, ctx.in);
  const CostOptions co = cost_options(flags.swp_cf, cat, ctx.in);
  std::vector<const GpuSpec*> targets;
  for (const auto& id : flags.swp_gpus) targets.push_back(&gpu_for(id, cat));
  if (targets.empty()) targets.push_back(&gpu_for("h100-sxm-80gb", cat));
  Sweep sw;
  sw.vary = flags.swp_vary;
  sw.metric = flags.swp_metric;
  // A GPU count varied with no layout given: each count is the planner's best layout of that many GPUs, as the
  // ranking and check answer --gpus N alone (method.md §9); a layout flag fixes the layout for every count.
  const bool searched = flags.swp_vary == "gpus" && std::none_of(k_layout_keys.begin(), k_layout_keys.end(), [&](const char* k) { return given.count(k); });
  if (searched)
    sw.notes.push_back("each count runs the best layout of that many GPUs by value, as the ranking and check answer --gpus N alone; "
                       "--tp, --pp, --ep or --sharding fix one layout for every count");
  // llama.cpp's layers (or expert layers) on the GPU, unset: the count the workload as given keeps on each GPU, held
  // over the range as fit holds it (else each point would buy its value by moving layers to the CPU; method.md §8.3).
  std::vector<std::int64_t> held(targets.size(), 0);
  if (given.count("offload")) {
    const Workload base = build_workload(given);
    const ModelSpec base_model = model_for(base, ctx.in);
    for (std::size_t i = 0; i < targets.size(); ++i) {
      held[i] = held_gpu_layers(with_checkpoint_precision(base, base_model), base_model, *targets[i]);
      if (held[i] > 0 && !given.count("gpu_layers"))
        sw.notes.push_back(fmt::format("{}: llama.cpp keeps {} {} at every point (--gpu-layers {}), the count the workload as given keeps, as fit holds it",
                                       targets[i]->id, held[i], base.offload == Offload::experts ? "layers' experts on the GPU" : "layers on the GPU", held[i]));
    }
  }
  std::string checkpointing;  // the words for a workload that would fit with checkpointing, fitted as given
  for (double v : values) {
    RawWorkload raw = given;
    raw[key->second] = RawValue{sweep_value_text(v), "--vary " + flags.swp_vary};
    const Workload built = build_workload(raw);
    const ModelSpec model = model_for(built, ctx.in);
    const Workload w = with_global_batch(with_checkpoint_precision(built, model), model);
    if (sw.workload_line.empty()) {
      sw.workload_line = model.id + ", " + to_string(w.mode) + ", " + to_string(w.precision);
      if (!searched) checkpointing = without_checkpointing(built, model);
    }
    SweepPoint p;
    p.value = v;
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const GpuSpec* g = targets[i];
      Workload at = w;
      if (held[i] > 0) at.gpu_layers = held[i];
      // More GPUs than one server holds are whole servers of this GPU (unless --nodes says otherwise).
      if (flags.swp_vary == "gpus" && !given.count("nodes") && at.gpus > g->gpus_per_node())
        at.nodes = (at.gpus + g->gpus_per_node() - 1) / g->gpus_per_node();
      if (searched) {
        RankOptions ro;
        ro.cost = co;
        ro.max_gpus = at.gpus;
        // The ranking's margin (RankOptions' default): a plan that leaves less free is kept only where no other
        // fits, so each count gets the plan the ranking and check choose for it, CPU offload included.
        p.per_gpu.push_back(plan(at, model, *g, ro, RankBy::value));
      } else {
        Candidate c = evaluate(at, model, *g, co);
        keep_margin(c, RankOptions{}.min_headroom_pct);  // fit's and the ranking's margin: a tight point is not a fit
        p.per_gpu.push_back(std::move(c));
      }
    }
    sw.points.push_back(std::move(p));
  }
  closing_notes(sw, checkpointing);
  (*ctx.out_ptr) << (ctx.of.format == "json" ? sweep_json(sw) : ctx.of.format == "csv" ? sweep_csv(sw) : ctx.md() ? sweep_markdown(sw, Style{}) : sweep_table(sw, ctx.style));
  return 0;
}

}  // namespace gpuadvise::cli
