// check and fit: docs/method.md §11 (launch hints are written by io: src/io/launch_hints.cpp).
#include "gpuadvise/planning.hpp"

#include <cmath>
#include <fmt/format.h>

#include "layer_offload.hpp"
#include "ranking_common.hpp"

namespace gpuadvise {

std::string to_string(Maximize m) {
  switch (m) {
    case Maximize::batch: return "batch";
    case Maximize::seq_len: return "seq-len";
    case Maximize::concurrency: return "concurrency";
  }
  return "?";
}

// A training workload fitted or checked as given, without the activation checkpointing the ranking adds where a plan
// needs it: said, so the three answers to "does it fit?" read as one.
std::string without_checkpointing(const Workload& w, const ModelSpec& m) {
  if (!is_training(w.mode) || w.checkpointing != Checkpointing::none || m.vision) return {};
  // Megatron-Core's CPU offload runs without recomputation (method.md §4.5): fewer layers kept on the GPU fit more.
  if (offloads_activations(w))
    return "as given, with the activations of all but the last --gpu-layers layers in host memory: fewer --gpu-layers (or none given, the most "
           "that fit) keep less on the GPU";
  return "as given, without activation checkpointing: --gradient-checkpointing selective or full fits more (the ranking adds it where "
         "a plan needs it)";
}

// llama.cpp inference as given with every layer on one GPU, or on its layer split over several, which do not hold
// them: the ranking's last resort keeps the layers that fit and runs the rest on the CPU (method.md §8.3), said so the
// answers read as one.
std::string llamacpp_offload_hint(const Workload& w, const ModelSpec& m, const GpuSpec& g, double margin_pct) {
  const bool layer_split = w.gpus == 1 || (w.pp == w.gpus && w.tp == 1 && w.nodes <= 1);
  if (!host_offload_applies(w, m, g) || !layer_split) return {};
  const std::int64_t n = most_gpu_layers(w, m, g, margin_pct);
  const std::string on = w.gpus > 1 ? fmt::format("{} GPUs", w.gpus) : "GPU";
  std::string s = fmt::format("as given, every layer on the {}: --offload layers keeps {} of {} on {} (-ngl {}) and runs the rest on the CPU from host memory "
                              "(slow; the ranking's last resort)", on, n, m.layers, w.gpus > 1 ? "them" : "it", n);
  if (m.is_moe()) {
    // A mixture of experts may keep every layer but some layers' experts on the GPU (--n-cpu-moe), the other last resort.
    Workload e = w;
    e.offload = Offload::experts;
    const std::int64_t k = m.layers - most_gpu_layers(e, m, g, margin_pct);
    s += fmt::format("; --offload experts keeps every layer there but the routed experts of {} (--n-cpu-moe {}), which the CPU runs", k, k);
  }
  return s;
}

std::string planner_fit_hint(const Workload& w, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost) {
  RankOptions opts;
  opts.cost = cost;
  opts.max_gpus = w.gpus;
  const Candidate p = plan(w, m, g, opts, RankBy::value);
  if (!p.fits || p.gpus != w.gpus) return {};
  const std::string on = w.gpus == 1 ? "one GPU" : fmt::format("{} GPUs", w.gpus);
  return fmt::format("as given it does not fit; the ranking's plan on {} does: {} ({:.1f} of {:.1f} GB per GPU{}; gpuadvise --only {} --max-gpus {} "
                     "shows it)",
                     on, p.layout, p.memory.device_peak / 1e9, static_cast<double>(g.memory_bytes) / 1e9,
                     p.tight ? fmt::format(", tight: less than {:g}% of the card free", opts.min_headroom_pct) : "", g.id, w.gpus);
}

std::string not_fitting_hint(const Workload& w, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost, double margin_pct) {
  std::string hint = llamacpp_offload_hint(w, m, g, margin_pct);
  return hint.empty() ? planner_fit_hint(w, m, g, cost) : hint;
}

CheckResult check_workload(const Workload& given, const std::string& label, const ModelSpec& m, const GpuSpec& g,
                           const CheckAssertions& a, const CostOptions& cost) {
  Workload w = given;  // a check prints no memory explanations
  w.explain = false;
  // llama.cpp's -ngl unset: the most layers that leave the check's own margin free, as the ranking keeps (§8.3).
  const double margin = a.min_headroom_pct.value_or(k_default_margin_pct);
  if (gpu_layers_unsettled(w)) w.gpu_layers = most_gpu_layers(w, m, g, margin);
  CheckResult r;
  r.workload = label;
  RankOptions opts;
  opts.cost = cost;
  opts.max_gpus = a.max_gpus.value_or(1);
  // The layout is searched with the ranking's margin (tight plans only when nothing leaves it), so the check picks
  // the plan the ranking picks; the check asserts its own margin below.
  opts.min_headroom_pct = margin;
  opts.offload_margin_pct = margin;                         // llama.cpp's counts as the ranking keeps them

  const bool planned = (w.gpus == 1 && opts.max_gpus > 1) || count_without_layout(w);  // the planner's savers and layouts, else as given
  Candidate c = planned ? plan(w, m, g, opts, RankBy::value) : evaluate(w, m, g, cost);
  ranking_detail::withhold_unfit(c);  // a plan that does not fit has no cost or hours to check
  r.plan = CheckedPlan{c.gpu, c.fits, c.gpus, c.layout, c.headroom_bytes, c.memory.device_peak, c.cost.total_usd, c.cost.wall_hours};
  const std::string who = fmt::format("{} on {}", label, g.id);
  const double cap = static_cast<double>(g.memory_bytes);
  if (!c.supported) {
    r.failures.push_back(fmt::format("{}: not supported: {}", who, c.notes.empty() ? "precision" : c.notes.front().text()));
    return r;
  }
  const std::string on = c.gpus == 1 ? "one GPU" : fmt::format("{} GPUs", c.gpus);
  if (!c.fits)
    r.failures.push_back(c.fit_reason.empty() || (!c.memory.vllm && c.memory.device_peak > cap)
                             ? fmt::format("{}: does not fit: needs {:.2f} GB per GPU on {}, the GPU has {:.2f} GB", who, c.memory.device_peak / 1e9, on, cap / 1e9)
                         : c.latency_miss > 0 ? fmt::format("{}: on {}, {}", who, on, c.fit_reason.text())
                                              : fmt::format("{}: does not fit on {}: {}", who, on, c.fit_reason.text()));
  if (!c.fits && !planned && c.supported) {
    // What the ranking's own plan on the same GPUs does where the layout as given does not fit; else the savers.
    std::string hint = not_fitting_hint(w, m, g, cost, margin);
    if (hint.empty()) hint = without_checkpointing(w, m);
    if (!hint.empty()) r.notes.push_back(who + ": " + hint);
  }
  if (a.min_headroom_pct && c.fits && !c.memory.vllm) {  // vLLM takes its share by design: its pool decides
    const double pct = 100.0 * c.headroom_bytes / cap;
    if (pct < *a.min_headroom_pct)
      r.failures.push_back(fmt::format("{}: headroom {:.1f}% is below --min-headroom {:g}% ({:.2f} of {:.2f} GB free)", who, pct,
                                       *a.min_headroom_pct, c.headroom_bytes / 1e9, cap / 1e9));
  }
  // Without a margin of its own the check passes a tight plan, and says what fit, sweep and the ranking call it.
  if (!a.min_headroom_pct && c.fits && !c.memory.vllm && c.headroom_bytes < k_default_margin_pct / 100.0 * cap)
    r.notes.push_back(fmt::format("{}: tight: {:.1f}% of the card free, less than the {:g}% fit, sweep and the ranking keep (--min-headroom {:g} "
                                  "makes it a failure)", who, 100.0 * c.headroom_bytes / cap, k_default_margin_pct, k_default_margin_pct));
  // More sequences asked in flight than the engine's KV-cache pool holds: it runs what fits and queues the rest
  // (method.md §8.3), which the check passes but says.
  if (c.fits && c.memory.vllm && w.batch_given && c.planned.batch < w.batch)
    r.notes.push_back(fmt::format("{}: {} runs {} of the {} sequences in flight at once in its KV-cache pool; the other {} wait in its queue", who,
                                  c.memory.vllm->engine_name(), c.planned.batch, w.batch, w.batch - c.planned.batch));
  if (a.max_gpus && c.gpus > *a.max_gpus)
    r.failures.push_back(fmt::format("{}: needs {} GPUs, more than --max-gpus {}", who, c.gpus, *a.max_gpus));
  // A video workload's latency budget is part of the plan: a frame later than --max-latency-ms fails the check.
  if (c.video && w.max_latency_ms && c.video->latency_ms && *c.video->latency_ms > *w.max_latency_ms)
    r.failures.push_back(fmt::format("{}: end-to-end latency {:.0f} ms, more than --max-latency-ms {:g}", who, *c.video->latency_ms,
                                     *w.max_latency_ms));
  // A plan that does not fit has no job time or cost to check (method.md §9), whatever the job size.
  const char* no_job = !c.fits ? "the plan does not fit, so it has no job time or cost" : "no job size (tokens, or requests with output tokens)";
  if (a.max_cost_usd) {
    if (!c.cost.total_usd)
      r.failures.push_back(fmt::format("{}: --max-cost {:g} cannot be checked: {}", who, *a.max_cost_usd,
                                       c.fits && c.time.job_seconds ? "no price for this GPU (--price ID=USD)" : no_job));
    else if (*c.cost.total_usd > *a.max_cost_usd)
      r.failures.push_back(fmt::format("{}: job costs ${:.2f}, more than --max-cost ${:g} ({} GPU{} x {:.2f} h at ${:.2f}/GPU-h)", who,
                                       *c.cost.total_usd, *a.max_cost_usd, c.gpus, c.gpus == 1 ? "" : "s", c.cost.wall_hours, *c.cost.price.usd_per_gpu_hour));
  }
  if (a.max_hours) {
    if (c.cost.wall_hours <= 0)
      r.failures.push_back(fmt::format("{}: --max-hours {:g} cannot be checked: {}", who, *a.max_hours, no_job));
    else if (c.cost.wall_hours > *a.max_hours)
      r.failures.push_back(fmt::format("{}: job takes {:.2f} h, more than --max-hours {:g}", who, c.cost.wall_hours, *a.max_hours));
  }
  return r;
}

std::int64_t held_gpu_layers(const Workload& w, const ModelSpec& m, const GpuSpec& g, double min_headroom_pct) {
  if (!offloads_to_cpu(w)) return 0;
  return gpu_layers_unsettled(w) ? most_gpu_layers(w, m, g, min_headroom_pct) : w.gpu_layers;
}

void keep_margin(Candidate& c, double min_headroom_pct) {
  const double cap = static_cast<double>(c.gpu->memory_bytes);
  if (!c.fits || c.memory.vllm || c.headroom_bytes >= min_headroom_pct / 100.0 * cap) return;
  c.fits = false;
  c.fit_reason = Note::format("tight: {:.1f} GB free, less than the {:g}% of the card that fit, check and the ranking keep free", c.headroom_bytes / 1e9,
                              min_headroom_pct);
}

bool kept_out_by_margin(const Candidate& c) { return !c.fits && c.fit_reason.text().rfind("tight:", 0) == 0; }

FitResult fit_max(const Workload& given, const ModelSpec& m, const GpuSpec& g, Maximize what, const CostOptions& cost, double min_headroom_pct) {
  // llama.cpp's -ngl unset: the layers the workload as given keeps on the GPU, held while the value grows (else a
  // longer sequence would buy its KV cache by moving layers to the CPU; method.md §8.3).
  Workload w = given;
  w.gpu_layers = held_gpu_layers(w, m, g, min_headroom_pct);
  FitResult r;
  r.what = what;
  r.min_headroom_pct = min_headroom_pct;
  auto at = [&](std::int64_t v) {
    Workload x = w;
    if (what == Maximize::seq_len) {
      x.seq_len = v;
    } else {
      x.batch = v;
      // Serving with latency targets: the concurrency fitted must meet them itself, as a --concurrency asked must
      // (the engine does not run fewer than asked to meet them).
      if (w.max_tpot_ms || w.max_ttft_ms) x.batch_given = true;
    }
    Candidate c = evaluate(x, m, g, cost);
    keep_margin(c, min_headroom_pct);  // tight: as the ranking, not a fit
    return c;
  };
  // The ranking adds activation checkpointing where a layout needs it; fitted as given, say so.
  r.as_given = without_checkpointing(w, m);
  // A count given alone is fitted as given (data parallel, or llama.cpp's layer split: one stage a card); the
  // ranking and check search its layouts. The sentence names the layout the numbers below belong to.
  if (count_without_layout(w)) {
    const bool replicas = w.tp == 1 && w.pp == 1 && w.cp == 1 && w.ep == 1 && w.sharding == Sharding::none;
    r.layout_given = fmt::format("{} GPUs as given, {}: the ranking and check search the layouts of {} GPUs, and --tp, --pp, --ep or --sharding "
                                 "fit one of them here",
                                 w.gpus, replicas ? "data parallel (every GPU holds the whole model)" : fmt::format("pipeline parallel {} (one stage a card)", w.pp),
                                 w.gpus);
  }
  // A sequence never goes past the model's context (longer needs RoPE scaling, which the model was not
  // trained for); other counts stop at the input ranges.
  const std::int64_t cap = what == Maximize::seq_len ? (m.context > 0 ? std::min<std::int64_t>(m.context, std::int64_t{1} << 24) : std::int64_t{1} << 24)
                                                     : std::int64_t{1} << 20;
  Candidate one = at(1);
  if (!one.fits) {
    // Nothing fits as given: the plan the ranking picks on these GPUs, where one fits, rather than a saver that may not.
    if (one.supported)
      if (std::string p = planner_fit_hint(w, m, g, cost); !p.empty()) r.as_given = p;
    r.next = one;
    return r;
  }
  std::int64_t lo = 1, hi = 2;
  std::optional<Candidate> lo_c = one, hi_c;
  while (hi <= cap) {
    Candidate c = at(hi);
    if (!c.fits) {
      hi_c = c;
      break;
    }
    lo = hi;
    lo_c = c;
    hi *= 2;
  }
  // Moves the bound the candidate at v belongs to.
  auto take = [&](std::int64_t v, Candidate c) {
    if (c.fits) {
      lo = v;
      lo_c = std::move(c);
    } else {
      hi = v;
      hi_c = std::move(c);
    }
  };
  if (!hi_c && lo < cap) take(cap, at(cap));  // the doubling passed the cap: try the cap itself
  if (!hi_c) {  // fits up to the cap
    r.value = lo;
    r.at = lo_c;
    if (what == Maximize::seq_len && m.context > 0 && lo == m.context)
      r.limited_by = fmt::format("the model's context of {} tokens (longer needs RoPE scaling, e.g. YaRN, that the model was not trained for)", m.context);
    else
      r.limited_by = "the search's upper limit";
    return r;
  }
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    take(mid, at(mid));
  }
  r.value = lo;
  r.at = lo_c;
  r.next = hi_c;
  if (r.latency_bound()) r.limited_by = "the latency targets: at " + std::to_string(hi) + ", " + hi_c->fit_reason.text();
  return r;
}

}  // namespace gpuadvise
