// Ranking: docs/method.md §9.
#include "gpuadvise/ranking.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuadvise/units.hpp"

namespace gpuadvise {

std::string to_string(RankBy r) {
  switch (r) {
    case RankBy::fit: return "fit";
    case RankBy::cost: return "cost";
    case RankBy::time: return "time";
    case RankBy::headroom: return "headroom";
  }
  return "?";
}

namespace {

std::string layout_text(const Workload& w) {
  const std::string off = w.offload == Offload::optimizer ? " + optimizer offload"
                          : w.offload == Offload::optimizer_params ? " + CPU offload" : "";
  if (w.gpus == 1) return "single GPU" + off;
  std::vector<std::string> parts;
  if (w.tp > 1) parts.push_back(fmt::format("tensor parallel {}", w.tp));
  if (w.pp > 1) parts.push_back(fmt::format("pipeline parallel {}", w.pp));
  const std::int64_t dp = w.data_parallel();
  if (dp > 1) {
    switch (w.sharding) {
      case Sharding::none: parts.push_back(fmt::format("data parallel {}", dp)); break;
      case Sharding::zero1: parts.push_back(fmt::format("ZeRO-1 over {}", dp)); break;
      case Sharding::zero2: parts.push_back(fmt::format("ZeRO-2 over {}", dp)); break;
      case Sharding::zero3: parts.push_back(fmt::format("FSDP/ZeRO-3 over {}", dp)); break;
    }
  }
  std::string s = fmt::format("{} GPUs: ", w.gpus);
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? " + " : "") + parts[i];
  return s + off;
}

}  // namespace

Candidate evaluate(const Workload& w, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost) {
  Candidate c;
  c.gpu = &g;
  c.planned = w;
  c.gpus = w.gpus;
  c.layout = layout_text(w);
  const PrecisionSupport ps = precision_support(w, g);
  c.supported = ps.supported;
  if (!ps.note.empty()) c.notes.push_back(ps.note);
  c.memory = estimate_memory(w, m, &g);
  c.fits = c.supported && c.memory.device_peak <= static_cast<double>(g.memory_bytes);
  if (c.memory.vllm) {
    const double need = static_cast<double>(w.batch) * c.memory.vllm->kv_bytes_per_token * static_cast<double>(c.memory.seq_len);
    c.fits = c.supported && c.memory.vllm->kv_pool_bytes > 0 && need <= c.memory.vllm->kv_pool_bytes;
  }
  c.headroom_bytes = static_cast<double>(g.memory_bytes) - c.memory.device_peak;
  c.time = estimate_time(w, m, g, c.memory);
  c.cost = estimate_cost(w, g, c.time, c.memory.params_total, c.memory.params_trainable, cost);
  if (c.fits && c.headroom_bytes < 0.1 * static_cast<double>(g.memory_bytes))
    c.notes.push_back("less than 10% headroom: real peaks vary with data and library versions; leave a margin");
  if (g.stack == "rocm") c.notes.push_back("AMD: runs through ROCm/HIP (" + g.gfx_target.value_or("?") + "), not CUDA; check your framework's ROCm support");
  if (g.stack == "synapseai") c.notes.push_back("Intel Gaudi: runs through the Gaudi software stack (SynapseAI), not CUDA");
  if (g.needs_server_chassis) c.notes.push_back("server module: needs an HGX/OAM server chassis, power and cooling");
  if (w.gpus > 1 && !g.has_nvlink())
    c.notes.push_back("no NVLink: the GPUs talk over PCIe, so sharding and tensor parallelism scale poorly");
  if (g.capacity_basis == "nominal") c.notes.push_back("capacity is the vendor's nominal size; CUDA reports a little less");
  for (const auto& n : c.cost.notes) c.notes.push_back(n);
  if (w.streams && m.vision && !is_training(w.mode)) {
    c.video = plan_video(w, g, c.memory, c.time, c.cost.price.usd_per_gpu_hour);
    c.fits = c.fits && c.video->streams_per_gpu >= 1;
    if (c.video->gpus_needed > 0) {
      c.gpus = c.video->gpus_needed;
      c.layout = fmt::format("{} GPU{}, {:.0f} streams each, batch {}", c.gpus, c.gpus > 1 ? "s" : "", c.video->streams_per_gpu, w.batch);
    }
  }
  return c;
}

namespace {

// The layouts worth trying at n GPUs (method.md §9): training replicates (data parallel), shards
// (ZeRO-1/2/3, FSDP) or splits layers with tensor parallelism inside an NVLink domain; a single GPU may
// offload the optimizer to the CPU. Inference splits with tensor parallelism inside a node.
std::vector<Workload> layouts(const Workload& w, const ModelSpec& m, const GpuSpec& g, std::int64_t n) {
  std::vector<Workload> out;
  auto with = [&](std::int64_t gpus, std::int64_t tp, Sharding sh, Offload off) {
    Workload p = w;
    p.gpus = gpus;
    p.tp = tp;
    p.pp = 1;
    p.sharding = sh;
    p.offload = off;
    out.push_back(p);
  };
  const bool nvlink_domain = g.has_nvlink() && (g.segment == Segment::datacenter_module || n <= 2);
  if (is_training(w.mode)) {
    if (n == 1) {
      with(1, 1, Sharding::none, Offload::none);
      with(1, 1, Sharding::none, Offload::optimizer);
      return out;
    }
    for (Sharding sh : {Sharding::none, Sharding::zero1, Sharding::zero2, Sharding::zero3}) with(n, 1, sh, Offload::none);
    if (nvlink_domain)
      for (std::int64_t tp = 2; tp <= std::min<std::int64_t>(8, n); tp *= 2)
        if (m.heads % tp == 0) with(n, tp, n / tp > 1 ? Sharding::zero1 : Sharding::none, Offload::none);
    return out;
  }
  if (n == 1) {
    with(1, 1, Sharding::none, Offload::none);
  } else if (n <= 8 && m.heads % n == 0) {
    with(n, n, Sharding::none, Offload::none);
  }
  return out;
}

double plan_score(const Candidate& c, RankBy order) {
  // Lower is better: cost of the job when known (or time when ranking by time), else time per token.
  if (order == RankBy::time && c.time.job_seconds) return *c.time.job_seconds;
  if (c.cost.total_usd && order != RankBy::time) return *c.cost.total_usd;
  if (c.time.job_seconds) return *c.time.job_seconds;
  if (c.time.train_tokens_per_second_per_gpu)
    return 1.0 / (*c.time.train_tokens_per_second_per_gpu * static_cast<double>(c.gpus));
  if (c.time.decode_tokens_per_second) return 1.0 / *c.time.decode_tokens_per_second;
  return -c.headroom_bytes;
}

std::string describe_choice(const Candidate& chosen, const Candidate& single, std::size_t fitting, RankBy order) {
  std::string why;
  if (chosen.gpus == 1) {
    why = chosen.planned.offload != Offload::none
              ? fmt::format("fits on one GPU only with the optimizer states in CPU memory ({:.1f} GB without)",
                            single.memory.device_peak / 1e9)
              : "fits on one GPU";
  } else {
    why = single.fits ? fmt::format("fits on one GPU, but {} GPUs finish the job for less", chosen.gpus)
                      : fmt::format("one GPU needs {:.1f} GB of {:.1f} GB; {} GPUs fit", single.memory.device_peak / 1e9,
                                    static_cast<double>(single.gpu->memory_bytes) / 1e9, chosen.gpus);
  }
  if (fitting > 1)
    why += fmt::format("; this layout is the {} of the {} that fit", order == RankBy::time ? "fastest" : "cheapest", fitting);
  return why;
}

}  // namespace

Candidate plan(const Workload& w, const ModelSpec& m, const GpuSpec& g, const RankOptions& opts, RankBy order) {
  Candidate single = evaluate(w, m, g, opts.cost);
  single.fits_single = single.fits && w.gpus == 1;
  if (w.streams && !w.batch_given && single.supported) {
    // Video without --batch: frames of the streams on one GPU are batched as a DeepStream-style pipeline does
    // (batch size = sources); the batch that sustains the most streams per GPU within --max-latency-ms wins,
    // the smaller on a tie.
    auto within_budget = [&](const Candidate& c) {
      return !w.max_latency_ms || !c.video || !c.video->latency_ms || *c.video->latency_ms <= *w.max_latency_ms;
    };
    auto streams_of = [](const Candidate& c) { return c.video ? c.video->streams_per_gpu : 0.0; };
    Candidate best = single;
    for (std::int64_t b = 2; b <= std::min<std::int64_t>(64, *w.streams); b *= 2) {
      Workload p = w;
      p.batch = b;
      Candidate c = evaluate(p, m, g, opts.cost);
      const bool ok = within_budget(c), best_ok = within_budget(best);
      if ((ok && !best_ok) || (ok == best_ok && streams_of(c) > streams_of(best))) best = std::move(c);
    }
    best.fits_single = best.fits;
    best.why = fmt::format("frames of the streams batched {} at a time", best.planned.batch);
    return best;
  }
  if (w.gpus > 1 || !single.supported || w.streams) {  // the user's own layout, video (sized by streams), or nothing to search
    single.why = w.gpus > 1 ? "the layout given" : "";
    return single;
  }
  // With a job size the cheapest (or fastest) plan may use more GPUs than the smallest count that fits
  // (offloading or communication-bound layouts are slow), so counts up to 4x the first fit are compared.
  const bool job = w.has_job_size();
  std::optional<Candidate> best;
  std::size_t fitting = 0;
  std::int64_t first_fit = 0;
  for (std::int64_t n = 1; n <= opts.max_gpus; n *= 2) {
    if (first_fit && (!job || n > 4 * first_fit)) break;
    for (const Workload& p : layouts(w, m, g, n)) {
      Candidate c = (n == 1 && p.offload == Offload::none) ? single : evaluate(p, m, g, opts.cost);
      if (!c.fits) continue;
      ++fitting;
      if (!first_fit) first_fit = n;
      // More GPUs must be clearly better (2 %) to be chosen: fewer GPUs are simpler and less exposed.
      const double margin = (best && c.gpus > best->gpus) ? 0.98 : 1.0;
      if (!best || plan_score(c, order) < margin * plan_score(*best, order)) best = std::move(c);
      if (n == 1 && p.offload == Offload::none && !job) break;  // fits as asked
    }
    if (!is_training(w.mode) && n >= 8) break;
  }
  if (best) {
    best->fits_single = single.fits;
    best->why = describe_choice(*best, single, fitting, order);
    return *best;
  }
  single.why = fmt::format("does not fit within {} GPUs in the layouts searched", is_training(w.mode) ? opts.max_gpus : 8);
  return single;
}

Ranking rank_gpus(const Workload& w, const ModelSpec& m, const GpuCatalog& catalog, const RankOptions& opts) {
  Ranking r;
  const bool job = w.has_job_size();
  r.has_job = job;
  r.order = opts.rank_by.value_or(job || w.streams ? RankBy::cost : RankBy::fit);
  for (const auto& g : catalog.gpus) {
    if (!opts.only_gpus.empty() && std::find(opts.only_gpus.begin(), opts.only_gpus.end(), g.id) == opts.only_gpus.end())
      continue;
    Candidate best = plan(w, m, g, opts, r.order);
    r.rows.push_back(best);
  }
  // --deadline and --budget drop what cannot meet them, and say why.
  std::vector<Candidate> kept;
  for (auto& c : r.rows) {
    if (c.fits && opts.deadline_seconds && c.time.job_seconds && *c.time.job_seconds + c.cost.setup_hours * 3600.0 > *opts.deadline_seconds) {
      r.dropped.push_back({c.gpu->id, fmt::format("job takes {:.1f} h, over the {:.1f} h deadline",
                                                  c.cost.wall_hours, *opts.deadline_seconds / 3600.0)});
      continue;
    }
    if (c.fits && opts.budget_usd && c.cost.total_usd && *c.cost.total_usd > *opts.budget_usd) {
      r.dropped.push_back({c.gpu->id, fmt::format("job costs ${:.2f}, over the ${:.2f} budget", *c.cost.total_usd, *opts.budget_usd)});
      continue;
    }
    kept.push_back(std::move(c));
  }
  r.rows = std::move(kept);
  auto price = [](const Candidate& c) { return c.usd_per_gpu_hour().value_or(1e300); };
  auto key_fit = [&](const Candidate& a, const Candidate& b) {
    if (a.fits != b.fits) return a.fits;
    if (a.gpus != b.gpus) return a.gpus < b.gpus;
    if (price(a) != price(b)) return price(a) < price(b);
    return a.gpu->id < b.gpu->id;
  };
  std::stable_sort(r.rows.begin(), r.rows.end(), [&](const Candidate& a, const Candidate& b) {
    if (a.fits != b.fits) return a.fits;
    switch (r.order) {
      case RankBy::cost: {
        auto cost_of = [](const Candidate& c) {
          if (c.video) return c.video->usd_per_stream_hour.value_or(1e300);
          return c.cost.total_usd.value_or(1e300);
        };
        const double ca = cost_of(a), cb = cost_of(b);
        if (ca != cb) return ca < cb;
        break;
      }
      case RankBy::time: {
        const double ta = a.time.job_seconds.value_or(a.time.train_tokens_per_second_per_gpu ? 1.0 / (*a.time.train_tokens_per_second_per_gpu * static_cast<double>(a.gpus)) : 1e300);
        const double tb = b.time.job_seconds.value_or(b.time.train_tokens_per_second_per_gpu ? 1.0 / (*b.time.train_tokens_per_second_per_gpu * static_cast<double>(b.gpus)) : 1e300);
        if (ta != tb) return ta < tb;
        break;
      }
      case RankBy::headroom:
        if (a.headroom_bytes != b.headroom_bytes) return a.headroom_bytes > b.headroom_bytes;
        break;
      case RankBy::fit:
        break;
    }
    return key_fit(a, b);
  });
  if (!is_training(w.mode) && w.batch == 1 && job)
    r.notes.push_back("one sequence at a time leaves most of each GPU's bandwidth idle; serving engines batch requests "
                      "(--concurrency N, --framework vllm) for a far lower cost per token");
  switch (r.order) {
    case RankBy::fit: r.order_text = "fits first, then fewest GPUs, then lowest price per GPU-hour (no job size given: cost per job needs --tokens or --requests)"; break;
    case RankBy::cost:
      r.order_text = w.streams ? "fits first, then lowest cost per stream-hour" : job ? "fits first, then lowest cost of the completed job (GPUs without a price last)"
                         : "fits first, then lowest cost (no job size given: --tokens or --requests with --output-tokens)";
      break;
    case RankBy::time: r.order_text = "fits first, then shortest job"; break;
    case RankBy::headroom: r.order_text = "fits first, then most memory headroom per GPU"; break;
  }
  return r;
}

}  // namespace gpuadvise
