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
  if (w.gpus == 1) return "single GPU";
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
  return s;
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
  return c;
}

Ranking rank_gpus(const Workload& w, const ModelSpec& m, const GpuCatalog& catalog, const RankOptions& opts) {
  Ranking r;
  const bool job = (is_training(w.mode) && (w.tokens || w.dataset_tokens || w.steps)) ||
                   (!is_training(w.mode) && w.requests && w.output_tokens);
  r.has_job = job;
  r.order = opts.rank_by.value_or(job ? RankBy::cost : RankBy::fit);
  const bool user_layout = w.gpus > 1;
  for (const auto& g : catalog.gpus) {
    if (!opts.only_gpus.empty() && std::find(opts.only_gpus.begin(), opts.only_gpus.end(), g.id) == opts.only_gpus.end())
      continue;
    Candidate single = evaluate(w, m, g, opts.cost);
    single.fits_single = single.fits && w.gpus == 1;
    Candidate best = single;
    if (!single.fits && single.supported && !user_layout) {
      // Smallest count that fits: training shards the model states (FSDP/ZeRO-3); inference splits the
      // model with tensor parallelism within a node (heads must divide).
      for (std::int64_t n = 2; n <= opts.max_gpus; n *= 2) {
        Workload p = w;
        p.gpus = n;
        if (is_training(w.mode)) {
          p.sharding = Sharding::zero3;
        } else {
          if (n > 8 || m.heads % n != 0) break;
          p.tp = n;
        }
        Candidate c = evaluate(p, m, g, opts.cost);
        if (c.fits) {
          best = c;
          break;
        }
      }
    }
    best.fits_single = single.fits && w.gpus == 1;
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
        const double ca = a.cost.total_usd.value_or(1e300), cb = b.cost.total_usd.value_or(1e300);
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
      r.order_text = job ? "fits first, then lowest cost of the completed job (GPUs without a price last)"
                         : "fits first, then lowest cost (no job size given: --tokens or --requests with --output-tokens)";
      break;
    case RankBy::time: r.order_text = "fits first, then shortest job"; break;
    case RankBy::headroom: r.order_text = "fits first, then most memory headroom per GPU"; break;
  }
  return r;
}

}  // namespace gpuadvise
