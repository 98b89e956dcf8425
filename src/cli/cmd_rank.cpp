// The default command (every GPU of the catalogue ranked for one workload) and `estimate` (one workload's memory,
// and with --gpu its time and cost on that GPU).
#include <algorithm>
#include <optional>
#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "gpuadvise/planning.hpp"
#include "gpuadvise/bounds.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/global_batch.hpp"
#include "gpuadvise/ranking.hpp"
#include "gpuadvise/report.hpp"

namespace gpuadvise::cli {

namespace {
// What the ranking and `estimate` both start from: the workload, its model and the GPU catalogue.
struct Job {
  Workload w;
  ModelSpec model;
  GpuCatalog cat;
};

Job load_job(RawWorkload raw, const CommandContext& ctx) {
  Job j{build_workload(std::move(raw)), {}, {}};
  j.model = model_for(j.w, ctx.in);
  j.w = with_global_batch(with_checkpoint_precision(std::move(j.w), j.model), j.model);  // pre-training's default global batch, the layout's accumulation
  j.cat = load_gpus(ctx.of, ctx.in);
  spdlog::info("model {}: {} layers, hidden {}, {} heads ({} KV)", j.model.id, j.model.layers, j.model.hidden, j.model.heads, j.model.kv_heads);
  return j;
}

RankOptions rank_options(const RankFlags& flags, const Workload& w, const GpuCatalog& cat, std::istream& in) {
  RankOptions ro;
  const std::string& by = flags.rank_by;
  if (!by.empty()) {
    if (by == "value") ro.rank_by = RankBy::value;
    else if (by == "cost") ro.rank_by = RankBy::cost;
    else if (by == "time") ro.rank_by = RankBy::time;
    else if (by == "gpus" || by == "fit") ro.rank_by = RankBy::gpus;
    else if (by == "headroom") ro.rank_by = RankBy::headroom;
    else throw UserError{2, "--rank-by: unknown value '" + by + "' (valid: " + choices_text("--rank-by") + ")"};
  }
  ro.cost = cost_options(flags.cf, cat, in);
  if (!flags.deadline.empty()) ro.deadline_seconds = parse_duration(flags.deadline, "--deadline");
  if (!flags.budget.empty()) ro.budget_usd = flag_number(flags.budget, "--budget", "a USD amount above 0 up to 1e12", 0, 1e12, false, true);
  if (!flags.min_headroom.empty())
    ro.min_headroom_pct = flag_number(flags.min_headroom, "--min-headroom", "a percentage from 0 to below 100", 0, 100, false, false, true);
  if (!flags.max_gpus.empty()) {
    ro.max_gpus = static_cast<std::int64_t>(flag_number(flags.max_gpus, "--max-gpus", "an integer from 1 to 32,768", 1, k_max_plan_gpus, true));
    ro.max_gpus_given = true;
  }
  else if (w.has_job_size() && ro.rank_by != RankBy::time)
    ro.max_gpus = k_max_plan_gpus;  // a job's size, not a fixed count, bounds the plan: its choice stops scaling out

  for (const auto& id : flags.only) ro.only_gpus.push_back(gpu_for(id, cat, "--only/--gpu").id);
  if (w.gpu) ro.only_gpus.push_back(gpu_for(*w.gpu, cat).id);
  return ro;
}

// Hugging Face generate runs a decoding step as the host launches it, kernel by kernel (method.md §8.3): where it
// misses --max-tpot-ms or --max-ttft-ms, the same job under vLLM (CUDA graphs, continuous batching), ranked as
// `--framework vllm` ranks it, so the two answers agree.
void engine_note(Ranking& r, RawWorkload raw, const Workload& w, const ModelSpec& m, const RankOptions& ro, const CommandContext& ctx) {
  if (is_training(w.mode) || m.vision || w.effective_framework() != Framework::hf) return;
  const auto missed = std::count_if(r.rows.begin(), r.rows.end(), [](const Candidate& c) { return c.latency_miss > 0; });
  if (missed == 0) return;
  raw["framework"] = RawValue{"vllm", "--framework"};
  const auto [w2, m2, cat2] = load_job(std::move(raw), ctx);
  const Ranking r2 = rank_gpus(w2, m2, cat2, ro);
  const auto met = std::count_if(r2.rows.begin(), r2.rows.end(), [](const Candidate& c) { return c.fits; });
  std::string text = fmt::format("Hugging Face generate misses the latency targets on {} GPU type{}: it launches each layer's kernels from the host "
                                 "for every token. Under vLLM (--framework vllm: CUDA graphs, continuous batching) ",
                                 missed, missed == 1 ? "" : "s");
  if (met == 0 || !r2.rows.front().fits) text += "none meets them either";
  else {
    const Candidate& best = r2.rows.front();
    text += fmt::format("{} GPU type{} meet{} them, the first in this order {} ({})", met, met == 1 ? "" : "s", met == 1 ? "s" : "", best.gpu->id, best.layout);
  }
  r.notes.push_back(text);
}
}  // namespace

int run_estimate(const EstimateFlags& flags, const CommandContext& ctx) {
  const OutputFlags& of = ctx.of;
  check_format(of.format);
  RawWorkload raw = one_workload(flags.wf, ctx.in, "this command");
  if (!flags.gpu.empty() || flags.gpu_given) raw["gpu"] = RawValue{flags.gpu, "--gpu"};  // "" is an error there
  const auto [w, model, cat] = load_job(std::move(raw), ctx);
  std::optional<Candidate> cand;
  MemoryEstimate mem;
  if (w.gpu) {
    const GpuSpec& g = gpu_for(*w.gpu, cat);
    const CostOptions cost = cost_options(flags.cf, cat, ctx.in);
    cand = evaluate(w, model, g, cost);
    cand->fits_single = cand->fits;
    // Not fitting as given: llama.cpp's offloads, else the ranking's own plan on as many of these GPUs (as check says).
    if (!cand->fits && cand->supported)
      if (std::string hint = not_fitting_hint(w, model, g, cost); !hint.empty()) cand->notes.push_back(hint);
    mem = cand->memory;
    withhold_job(*cand);  // its rates stay (the contract's keys), said to be hypothetical
  } else {
    mem = estimate_memory(w, model, nullptr);
  }
  const Candidate* c = cand ? &*cand : nullptr;
  (*ctx.out_ptr) << (of.format == "json" ? estimate_json(w, model, c, mem, cat.version)
                     : of.format == "csv" ? estimate_csv(w, model, c, mem)
                     : ctx.md()           ? estimate_markdown(w, model, c, mem, ctx.style)
                                          : estimate_table(w, model, c, mem, ctx.style));
  return 0;
}

int run_rank(const RankFlags& flags, const CommandContext& ctx) {
  const OutputFlags& of = ctx.of;
  check_format(of.format);
  RawWorkload raw = one_workload(flags.wf, ctx.in, "this command");
  const auto [w, model, cat] = load_job(raw, ctx);
  const RankOptions ro = rank_options(flags, w, cat, ctx.in);
  // A deadline or a budget is met by a job: without its size there is nothing to check against.
  if ((ro.deadline_seconds || ro.budget_usd) && !w.has_job_size() && !w.streams)
    throw UserError{2, std::string(ro.deadline_seconds ? "--deadline" : "--budget") + ": needs a job size to check against: add " + job_size_flags(w, model)};
  // CPU instances named alone (--gpu c7i.24xlarge) are the rows; else they stand beside the GPUs (method.md §16).
  const GpuCatalog& cpus = cpu_instances();
  const bool cpus_alone = !ro.only_gpus.empty() && std::all_of(ro.only_gpus.begin(), ro.only_gpus.end(), [&](const std::string& id) { return cpus.find(id); });
  Ranking r = rank_gpus(w, model, cpus_alone ? cpus : cat, ro);
  if (!cpus_alone) add_cpu_rows(r, w, model, cpus, ro);
  engine_note(r, std::move(raw), w, model, ro, ctx);
  if (of.format == "json") (*ctx.out_ptr) << ranking_json(w, model, r, cat.version);
  else if (of.format == "csv") (*ctx.out_ptr) << ranking_csv(r);
  else if (ctx.md()) (*ctx.out_ptr) << ranking_markdown(w, model, r, ctx.style);
  else (*ctx.out_ptr) << ranking_table(w, model, r, ctx.style);
  return 0;
}

}  // namespace gpuadvise::cli
