// Ranking: docs/method.md §9.
#include "gpuadvise/ranking.hpp"

#include <algorithm>
#include <string_view>
#include <tuple>
#include <cctype>
#include <cmath>
#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/efficiency.hpp"
#include "gpuadvise/units.hpp"
#include "ranking_common.hpp"

namespace gpuadvise {

std::string to_string(RankBy r) {
  switch (r) {
    case RankBy::value: return "value";
    case RankBy::gpus: return "gpus";
    case RankBy::cost: return "cost";
    case RankBy::time: return "time";
    case RankBy::headroom: return "headroom";
  }
  return "?";
}


namespace ranking_detail {

WorkRate work_rate(const Candidate& c) {
  const PlanShape& w = c.planned;
  const double gpus = static_cast<double>(c.gpus);
  WorkRate r;
  if (c.time.images_per_second) {
    r.unit = "k images";
    r.per_second = *c.time.paced_images_per_second() * gpus;  // at its input's pace (image_feed.hpp)
    r.scale = 1e3;
  } else if (is_training(w.mode)) {
    r.unit = "M training tokens";
    if (c.time.train_tokens_per_second_per_gpu) r.per_second = *c.time.train_tokens_per_second_per_gpu * gpus;
  } else {
    r.unit = "M output tokens";
    if (c.time.decode_tokens_per_second) r.per_second = *c.time.decode_tokens_per_second * std::max(1.0, gpus / static_cast<double>(w.tp * w.pp));
  }
  return r;
}

// Lower is better: the order's figure, with unknowns last.
double score(const Candidate& c, RankBy order) {
  constexpr double unknown = 1e300;
  switch (order) {
    case RankBy::time: {
      // Video streams: every plan carries the same frames (streams x fps); how fast it is, is each frame's time
      // through the pipeline (method.md §13), not the images/s of GPUs added beyond what the streams need.
      if (c.video) return c.video->latency_ms && c.video->decode_streams ? *c.video->latency_ms / 1e3 : unknown;
      // The job time the table shows, billed (start, setup, checkpoints, rework): not compute alone (method.md §9).
      if (c.time.job_seconds) return c.cost.wall_hours > 0 ? c.cost.wall_hours * 3600 : *c.time.job_seconds;
      const auto rate = work_rate(c).per_second;
      return rate ? 1.0 / *rate : unknown;
    }
    case RankBy::cost:
      if (c.cost.total_usd) return *c.cost.total_usd;
      if (c.usd_per_hour()) return *c.usd_per_hour();
      return unknown;
    case RankBy::headroom: return -c.headroom_bytes;
    case RankBy::gpus:
    case RankBy::value: return c.value_usd.value_or(unknown);
  }
  return unknown;
}

std::string describe_choice(const Candidate& chosen, const Candidate& single, std::size_t fitting, RankBy order,
                            const RankOptions& opts, bool in_band, bool others_fit) {
  // Written into one buffer with formats compiled ahead (fmt/compile.h): the planner writes one for every GPU.
  fmt::memory_buffer why;
  auto to = std::back_inserter(why);
  const auto& p = chosen.planned;
  // The savers the chosen plan adds to the layout as asked, joined by " and ".
  fmt::memory_buffer savers;
  auto saver = [&](auto&&... part) {
    if (savers.size() > 0) savers.append(std::string_view(" and "));
    (fmt::format_to(std::back_inserter(savers), FMT_COMPILE("{}"), part), ...);
  };
  if (p.checkpointing != single.planned.checkpointing)
    saver(p.checkpointing == Checkpointing::full ? "full activation checkpointing" : "selective activation checkpointing");
  if (p.precision != single.planned.precision) saver(to_string(p.precision), " weights (--allow-quantization)");
  if (p.grad_accum > single.planned.grad_accum) saver("micro-batch ", p.batch, " x ", p.grad_accum, " accumulation steps");
  if (p.offload == Offload::activations && single.planned.offload != Offload::activations)
    saver("the activations of all but the last ", p.gpu_layers, " layers in host memory (Megatron's CPU offloading)");
  const std::string_view with_savers(savers.data(), savers.size());
  const char* with = savers.size() > 0 ? " with " : "";
  const double cap = static_cast<double>(chosen.gpu->memory_bytes) / 1e9;
  const double one_gpu = single.memory.device_peak / 1e9;
  if (p.offload == Offload::model || p.offload == Offload::sequential) {
    fmt::format_to(to, FMT_COMPILE("one GPU needs {:.1f} GB of {:.1f} GB with every component resident; diffusers' {} CPU offload keeps {} on it{}"),
                   one_gpu, cap, p.offload == Offload::model ? "model" : "sequential",
                   p.offload == Offload::model ? "one component at a time" : "one block at a time (slow: the denoiser crosses PCIe every step)",
                   p.vae_tiling && !single.planned.vae_tiling ? " and the VAE decodes in tiles" : "");
  } else if (p.offload == Offload::experts || p.offload == Offload::layers) {
    // llama.cpp's offloads to the host: the last resort, or chosen over more cards by the order asked.
    if (!others_fit) fmt::format_to(to, FMT_COMPILE("nothing else fits within {} GPUs: "), opts.max_gpus);
    if (p.offload == Offload::experts)
      fmt::format_to(to, FMT_COMPILE("one GPU needs {:.1f} GB of {:.1f} GB with every expert on it; llama.cpp keeps the routed experts of {} layers in host "
                                     "memory (--n-cpu-moe {}) and runs them on the CPU ({:.1f} GB there, of which a token reads only the experts it routes to)"),
                     one_gpu, cap, chosen.memory.cpu_moe_layers, chosen.memory.cpu_moe_layers, chosen.memory.host_weights / 1e9);
    else
      fmt::format_to(to, FMT_COMPILE("one GPU needs {:.1f} GB of {:.1f} GB with every layer on it; llama.cpp keeps {} layers on it (-ngl {}) and runs the "
                                     "rest on the CPU from host memory (slow: {:.1f} GB read there each token)"),
                     one_gpu, cap, p.gpu_layers, p.gpu_layers, chosen.memory.host_weights / 1e9);
  } else if (p.offload != Offload::none && p.offload != Offload::activations) {
    fmt::format_to(to, FMT_COMPILE("nothing else fits within {} GPUs: one GPU needs {:.1f} GB of {:.1f} GB; the optimizer states move to CPU memory (slow)"),
                   opts.max_gpus, one_gpu, cap);
  } else if (chosen.gpus == 1) {
    if (single.fits && savers.size() == 0) why.append(std::string_view("fits on one GPU"));
    else fmt::format_to(to, FMT_COMPILE("fits on one GPU{}{} ({:.1f} GB without)"), with, with_savers, one_gpu);
  } else if (single.fits) {
    fmt::format_to(to, FMT_COMPILE("fits on one GPU, but {} GPUs{}"), chosen.gpus, opts.deadline_seconds ? " meet the deadline" : in_band ? " finish it sooner" : " finish the job for less");
  } else {
    if (single.memory.vllm && !single.fit_reason.empty()) fmt::format_to(to, FMT_COMPILE("on one GPU {}"), single.fit_reason.text());
    else fmt::format_to(to, FMT_COMPILE("one GPU needs {:.1f} GB of {:.1f} GB"), one_gpu, cap);
    fmt::format_to(to, FMT_COMPILE("; {} GPUs"), chosen.gpus);
    if (chosen.nodes > 1) fmt::format_to(to, FMT_COMPILE(" in {} nodes"), chosen.nodes);
    fmt::format_to(to, FMT_COMPILE(" fit{}{}"), with, with_savers);
  }
  if (fitting > 1 && in_band)
    fmt::format_to(to, FMT_COMPILE("; of {} plans that fit, the {} at most {:.0f}% dearer than the cheapest job"), fitting,
                   chosen.cost.wall_hours <= coef::value_target_hours.value ? fmt::format("cheapest that finishes within {:.0f} h,", coef::value_target_hours.value) : "fastest",
                   100 * coef::value_cost_slack.value);
  else if (fitting > 1 && (opts.deadline_seconds || opts.budget_usd))
    fmt::format_to(to, FMT_COMPILE("; of {} plans that fit, the {}"), fitting,
                   opts.deadline_seconds ? "cheapest that meets the deadline" : "fastest within the budget");
  else if (fitting > 1)
    fmt::format_to(to, FMT_COMPILE("; the {} of {} plans that fit"),
                   order == RankBy::time ? "fastest" : order == RankBy::headroom ? "roomiest" : order == RankBy::cost ? "cheapest" : "best value", fitting);
  return fmt::to_string(why);
}

}  // namespace ranking_detail

using namespace ranking_detail;

std::string job_size_flags(const Workload& w, const ModelSpec& m) {
  if (m.vision) return is_training(w.mode) ? "--images N --epochs E" : "--images N";
  return is_training(w.mode) ? "--tokens N" : "--requests N --output-tokens O";
}

std::optional<double> value_of(const Candidate& c, std::string_view& unit, std::string& why_unknown) {
  const PlanShape& w = c.planned;
  const auto hourly = c.usd_per_hour();
  // Rented or owned (the price's basis, set with or without a purchase price), the flag that gives the missing price.
  const std::string no_price = c.cost.price.basis == "owned" ? "no purchase price (--purchase-price ID=USD sets one)" : "no price (--price ID=USD sets one)";
  auto need_price = [&]() -> std::optional<double> {
    why_unknown = no_price;
    return std::nullopt;
  };
  if (c.video) {
    unit = "stream-hour";
    // A GPU whose decode capacity is unknown sustains at most the streams shown: its value is not comparable with
    // those that count their decoders, so it never ranks first (method.md §13).
    if (!c.video->decode_streams) {
      why_unknown = "hardware decode capacity unknown (no NVDEC count in the catalogue): its streams per GPU leave decode out";
      return std::nullopt;
    }
    if (c.video->usd_per_stream_hour) return c.video->usd_per_stream_hour;
    why_unknown = !hourly ? no_price : "streams per GPU unknown";
    return std::nullopt;
  }
  if (w.has_job_size()) {
    unit = "job";
    if (c.cost.total_usd) return c.cost.total_usd;
    if (!c.time.job_seconds) {
      why_unknown = "throughput unknown";
      return std::nullopt;
    }
    return need_price();
  }
  const WorkRate rate = work_rate(c);
  unit = rate.unit;
  if (!rate.per_second) {
    why_unknown = "throughput unknown";
    return std::nullopt;
  }
  if (!hourly) return need_price();
  return *hourly / (*rate.per_second * 3600.0) * rate.scale;
}

namespace {

std::string order_description(RankBy order, const Workload& w, const ModelSpec& m, bool job) {
  switch (order) {
    case RankBy::value:
      if (w.streams) return "best value: lowest cost per stream-hour";
      if (job)
        return fmt::format("best value: among plans costing at most {:.0f}% more than the cheapest, one that finishes within {:.0f} h, "
                           "trading a {:.0f}th of the time saved in cost (twice as fast for 2% more wins), else the fastest; then the lowest cost "
                           "of the completed job",
                           100 * coef::value_cost_slack.value, coef::value_target_hours.value, 1.0 / coef::value_time_weight.value);
      return "best value: lowest cost per unit of work (no job size: " + job_size_flags(w, m) + " prices the whole job)";
    case RankBy::cost: return job ? "lowest cost of the completed job" : "lowest hourly cost of the plan";
    case RankBy::time: return job ? "shortest job" : "highest throughput";
    case RankBy::gpus: return "fewest GPUs, then the lowest hourly price";
    case RankBy::headroom: return "most memory headroom per GPU";
  }
  return "";
}

// The frontier point of the rows with the lowest cost (the job's, or per unit of work without a job size).
struct CheapestPoint {
  double usd = 0;
  const Candidate* row = nullptr;
  const FrontierPoint* point = nullptr;
};
std::optional<CheapestPoint> cheapest_point(const std::vector<Candidate>& rows, bool job) {
  std::optional<CheapestPoint> best;
  for (const auto& c : rows)
    if (c.fits && !c.tight)
      for (const auto& f : c.frontier)
        if (const std::optional<double>& v = job ? f.usd : f.value_usd; v && (!best || *v < best->usd)) best = CheapestPoint{*v, &c, &f};
  return best;
}

// The fastest plan on the frontiers of the rows that fit (with a job size), and its row: by GPU count, a point with
// more GPUs replaces the one held only where clearly faster (2 %, as pick_plan asks of more GPUs), so the line names
// the plan --rank-by time picks, not 32,768 GPUs that save 12 s of a 15-minute start.
std::pair<const FrontierPoint*, const Candidate*> fastest_point(const std::vector<Candidate>& rows, const RankOptions& opts) {
  std::vector<std::pair<const FrontierPoint*, const Candidate*>> points;
  for (const auto& c : rows)
    if (c.fits && !c.tight)
      for (const auto& f : c.frontier)
        if (f.hours && f.usd && (!opts.budget_usd || *f.usd <= *opts.budget_usd)) points.emplace_back(&f, &c);
  std::stable_sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.first->gpus < b.first->gpus; });
  std::pair<const FrontierPoint*, const Candidate*> best{nullptr, nullptr};
  for (const auto& p : points) {
    const double margin = best.first && p.first->gpus > best.first->gpus ? 0.98 : 1.0;
    if (!best.first || *p.first->hours < margin * *best.first->hours) best = p;
  }
  return best;
}

// A rate as the fastest line writes it: whole units from 10 a second, else two significant digits (a FLUX image
// takes seconds: 0.43 images/s, not 0).
std::string rate_text(double per_second) { return per_second >= 10 ? fmt::format("{:.0f}", per_second) : fmt::format("{:.2g}", per_second); }

// Without a job size, the fastest point of the rows' frontiers (each count's best value), with its row; `only`, where
// given, the one row whose frontier is searched.
std::pair<const FrontierPoint*, const Candidate*> fastest_rate_point(const std::vector<Candidate>& rows, const Candidate* only) {
  std::pair<const FrontierPoint*, const Candidate*> best{nullptr, nullptr};
  for (const auto& c : rows)
    if (c.fits && !c.tight && (!only || &c == only))
      for (const auto& f : c.frontier)
        if (!f.hours && f.rate && (!best.first || *f.rate > *best.first->rate)) best = {&f, &c};
  return best;
}

// Training without a job size has no job to finish sooner: its rows, each at the fewest GPUs that fit, compare by
// tokens (or images) per second per GPU, since a row on two GPUs is not faster than one on one GPU of a card that
// does more each (7B fine-tuned: two Gaudi 3s at 24,360 tokens/s were named over one B200 at 19,450). A served
// model without a job is one engine (its rate is what a user sees) and keeps the whole rate.
bool per_gpu_speed(const Candidate& c) { return is_training(c.planned.mode) && !c.time.job_seconds && !c.video; }
// A rate's unit as the fastest line says it (a served rate with the sequences it runs at once).
std::string rate_words(const WorkRate& rate, std::int64_t b) {
  if (rate.unit == "k images") return "images/s";
  if (rate.unit == "M training tokens") return "tokens/s";
  return fmt::format("output tokens/s ({} sequence{} at once)", b, b == 1 ? "" : "s");
}

// What the line adds where it compared per GPU: the row's rate per GPU, or that one GPU does the most.
std::string per_gpu_words(const Candidate& c, const WorkRate& rate, std::size_t rows) {
  if (c.gpus > 1 && rate.per_second) return fmt::format(" ({} per GPU, the most of any GPU)", rate_text(*rate.per_second / static_cast<double>(c.gpus)));
  return rows > 1 ? ", the most per GPU of any GPU" : "";
}
double fastest_score(const Candidate& c) {
  const double s = score(c, RankBy::time);
  return per_gpu_speed(c) && s < 1e299 ? s * static_cast<double>(c.gpus) : s;
}

}  // namespace

namespace {
// A stable sort that moves each element once, plus one move per cycle: the order is found on indices, then applied
// along its cycles through one held element (std::stable_sort would allocate a buffer of whole candidates).
template <class T, class Less>
void sort_in_place(std::vector<T>& v, Less less) {
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return less(v[a], v[b]); });
  // order[i] is the element that belongs at i; follow each cycle once.
  std::vector<bool> done(v.size(), false);
  for (std::size_t start = 0; start < v.size(); ++start) {
    if (done[start]) continue;
    if (order[start] == start) {
      done[start] = true;
      continue;
    }
    T held = std::move(v[start]);
    std::size_t i = start;
    while (order[i] != start) {
      v[i] = std::move(v[order[i]]);
      done[i] = true;
      i = order[i];
    }
    v[i] = std::move(held);
    done[i] = true;
  }
}
}  // namespace

namespace {
// The recommendation lines: best value, fastest, and the cheapest single card one can rent or buy.
// `stepped`: the job steps with a global batch (each GPU's share is the batch to grow).
void recommend(Ranking& r, const RankOptions& opts, bool job, bool stepped) {
  const Candidate* best_value = nullptr;
  // Best value with a job size is the band's pick (method.md §9), across GPUs as within each: first in the table.
  if (r.order == RankBy::value && job && !opts.deadline_seconds && !opts.budget_usd) {
    std::vector<const Candidate*> pool;
    for (const auto& c : r.rows)
      if (c.fits && !c.tight && c.cost.total_usd) pool.push_back(&c);  // across GPUs only dollars compare
    if (const Candidate* pick = pick_in_value_band(pool)) {
      const auto at = r.rows.begin() + (pick - r.rows.data());
      std::rotate(r.rows.begin(), at, at + 1);
      best_value = &r.rows.front();
    }
  }
  const bool banded = best_value != nullptr;
  const Candidate* fastest = nullptr;
  const Candidate* single_card = nullptr;
  for (const auto& c : r.rows) {
    if (!c.fits || c.tight) continue;
    if (!banded && c.value_usd && (!best_value || *c.value_usd < *best_value->value_usd)) best_value = &c;
    if (score(c, RankBy::time) < 1e299 && (!fastest || fastest_score(c) < fastest_score(*fastest))) fastest = &c;
    // One card that runs the job as asked (its row may use more for speed), in an ordinary computer: no server
    // module, no CPU offload, and no edge module for a data-centre job: an edge module (a Jetson) is the one card for
    // vision inference (cameras, images) or a model served on the device without a job size, never for training
    // (a few tokens per second) or a job of requests (1M requests of a 7B model: 449 days on an Orin NX).
    // A camera job's one card sustains all its streams, decode counted (memory alone is not the job: 32 streams at 30 fps).
    const bool one = c.video ? c.video->gpus_needed <= 1 && c.video->decode_streams : c.gpus == 1 ? c.planned.offload == Offload::none : c.fits_single;
    const bool vision_inference = !is_training(c.planned.mode) && (c.video || c.time.images_per_second);
    const bool edge_misfit = c.gpu->segment == Segment::edge && !vision_inference && (is_training(c.planned.mode) || job);
    if (one && !edge_misfit && !c.gpu->needs_server_chassis && !c.gpu->is_cpu() && (c.usd_per_gpu_hour() || c.gpu->purchase_usd)) {
      auto cheap = [](const Candidate& x) { return x.usd_per_gpu_hour().value_or(1e9); };
      if (!single_card || cheap(c) < cheap(*single_card)) single_card = &c;
    }
  }
  const auto money = usd_text;
  if (best_value) {
    std::string t = fmt::format("{} per {} on {}", money(*best_value->value_usd), best_value->value_unit, best_value->layout);
    // Ranked by another order, each row shows that order's plan; the cheapest plan its searches found, where clearly
    // cheaper (2 %, as the fastest below), is the one named.
    if (const auto cheapest = cheapest_point(r.rows, job); r.order != RankBy::value && cheapest && cheapest->usd < 0.98 * *best_value->value_usd) {
      best_value = cheapest->row;
      t = fmt::format("{} per {} on {} (its row shows the {} order's plan)", money(cheapest->usd), best_value->value_unit, cheapest->point->layout,
                      to_string(r.order));
    }
    r.recommendations.push_back({"best value", best_value->gpu->id, t});
  }
  if (fastest) {
    const WorkRate rate = work_rate(*fastest);
    const std::string what = rate_words(rate, fastest->planned.batch);
    std::string t = fastest->video && fastest->video->latency_ms ? fmt::format("{:.1f} ms per frame end to end on {}", *fastest->video->latency_ms, fastest->layout)
                    : fastest->time.job_seconds                   ? fmt::format("{} for the job on {}", duration_text(fastest->cost.wall_hours * 3600), fastest->layout)
                                                                  : fmt::format("{} {} on {}", rate_text(rate.per_second.value_or(0)), what, fastest->layout);
    // With a job size, the fastest plan the searches found, which may be faster than any row's choice.
    bool from_frontier = false;
    // Clearly faster only (2 %, as pick_plan asks of more GPUs): 8 GPUs for 10 images save milliseconds of a
    // 15-minute start.
    if (const auto [point, owner] = fastest_point(r.rows, opts); point && *point->hours < 0.98 * fastest->cost.wall_hours) {
      fastest = owner;
      from_frontier = true;
      // --rank-by time searches 64 GPUs unless --max-gpus says more: name the count that reaches this plan.
      const std::string reach = !opts.max_gpus_given && point->gpus > RankOptions{}.max_gpus ? fmt::format(" --max-gpus {}", point->gpus) : "";
      t = fmt::format("{} for the job on {} (its row shows {}; --rank-by time{} picks the fastest)", duration_text(*point->hours * 3600), point->layout,
                      opts.deadline_seconds ? "the cheapest plan that meets the deadline" : "the best value", reach);
    }
    // Without one, the fastest plan the searches found by its rate, where clearly faster than any row's choice (for
    // training, its own GPU's: the GPUs compare per GPU).
    const bool per_gpu = per_gpu_speed(*fastest);
    if (const auto [point, owner] = fastest_rate_point(r.rows, per_gpu ? fastest : nullptr);
        !from_frontier && !fastest->time.job_seconds && point && rate.per_second && *point->rate > 1.02 * *rate.per_second) {
      fastest = owner;
      from_frontier = true;
      t = fmt::format("{} {} on {} (its row shows the best value; --rank-by time picks the fastest)", rate_text(*point->rate), what, point->layout);
    }
    if (per_gpu && !from_frontier) t += per_gpu_words(*fastest, rate, r.rows.size());
    // A plan bound by its framework's kernel launches is not faster for its GPU: say so beside it.
    const bool host_bound = !from_frontier && fastest->time.bound == k_host_bound;
    // With a global batch, more images or sequences per step (--global-batch) give each GPU a larger share.
    // (where the micro-batch already accumulates to it, a larger micro-batch, which memory bounds, does).
    const char* larger = !stepped                              ? "a larger --batch"
                         : fastest->planned.grad_accum == 1 ? "a larger --global-batch"
                                                             : "a larger micro-batch, where memory allows it,";
    if (host_bound)
      t += fmt::format("; host-bound: the framework's kernel launches, not the GPU, set this speed ({} uses the GPU)", larger);
    // A training speed that rests on a vendor's projection, not a measurement, says so where it is named fastest.
    if (is_training(fastest->planned.mode) && !fastest->gpu->is_cpu() &&
        std::string_view(family_efficiency(gpu_family(*fastest->gpu)).basis).starts_with("vendor projection"))
      t += "; its training share is the vendor's projection, not a measurement (method.md §8.2)";
    r.recommendations.push_back({"fastest", fastest->gpu->id, t});
  }
  if (single_card) {
    // The purchase price the answer costs with: --purchase-price where given, else the catalogue's.
    std::optional<double> buy = single_card->gpu->purchase_usd;
    if (const auto it = opts.cost.purchase_overrides.find(single_card->gpu->id); it != opts.cost.purchase_overrides.end()) buy = it->second;
    r.recommendations.push_back({"one card", single_card->gpu->id,
                                 single_card->usd_per_gpu_hour() ? fmt::format("the cheapest single card that {}: {}/h {}{}", single_card->video ? "runs every stream" : "fits", money(*single_card->usd_per_gpu_hour()),
                                                                               single_card->cost.price.basis == "owned" ? "owned (amortised)" : "to rent",
                                                                               buy ? fmt::format(", about ${:.0f} to buy", *buy) : "")
                                                                 : fmt::format("about ${:.0f} to buy", buy.value_or(0))});
  }
}

}  // namespace

std::string duration_text(double secs) {
  if (secs < 3600) return fmt::format("{:.0f} min", secs / 60);
  if (secs < 86400 * 3) return fmt::format("{:.1f} h", secs / 3600);
  return fmt::format("{:.1f} d", secs / 86400);
}

Ranking rank_gpus(const Workload& given, const ModelSpec& m, const GpuCatalog& catalog, const RankOptions& opts) {
  // The ranking prints no memory explanations: the layouts it tries skip writing them.
  Workload w = given;
  w.explain = false;
  Ranking r;
  const bool job = w.has_job_size();
  r.has_job = job;
  r.job_size_hint = job_size_flags(w, m);
  r.order = opts.rank_by.value_or(RankBy::value);
  r.price_policy = opts.cost.price_policy;
  // Candidates are large (2.6 KB each): the rows are reserved once, filtered in place and sorted by index, so a
  // run touches no second copy of them (fresh pages are most of a short run's cost).
  r.rows.reserve(catalog.gpus.size());
  TensorMemo memo;
  for (const auto& g : catalog.gpus) {
    if (!opts.only_gpus.empty() && std::find(opts.only_gpus.begin(), opts.only_gpus.end(), g.id) == opts.only_gpus.end())
      continue;
    if (!opts.cost.provider.empty() && !g.offered_by(opts.cost.provider)) continue;
    r.rows.push_back(plan_with(w, m, g, opts, r.order, &memo));
  }
  // --deadline and --budget drop what cannot meet them (an unknown time or cost never passes), and say why.
  std::size_t kept = 0;
  for (auto& c : r.rows) {
    if (auto missed = c.fits ? missed_limit(c, opts) : std::nullopt) {
      r.dropped.push_back(std::move(*missed));
      continue;
    }
    if (&r.rows[kept] != &c) r.rows[kept] = std::move(c);
    ++kept;
  }
  r.rows.erase(r.rows.begin() + static_cast<std::ptrdiff_t>(kept), r.rows.end());
  auto price = [](const Candidate& c) { return c.usd_per_gpu_hour().value_or(1e300); };
  sort_in_place(r.rows, [&](const Candidate& a, const Candidate& b) {
    if (tier(a) != tier(b)) return tier(a) < tier(b);
    if (r.order == RankBy::gpus && a.gpus != b.gpus) return a.gpus < b.gpus;
    const double sa = score(a, r.order == RankBy::gpus ? RankBy::cost : r.order), sb = score(b, r.order == RankBy::gpus ? RankBy::cost : r.order);
    if (sa != sb) return sa < sb;
    if (a.gpus != b.gpus) return a.gpus < b.gpus;
    if (price(a) != price(b)) return price(a) < price(b);
    return a.gpu->id < b.gpu->id;
  });
  // A serving engine without --concurrency runs what its pool holds: only one told to run a single sequence idles.
  if (!is_training(w.mode) && !m.vision && w.batch == 1 && job && (w.batch_given || !framework_profile(w.effective_framework()).kv_pool))
    r.notes.push_back("one sequence at a time leaves most of each GPU's bandwidth idle; serving engines batch requests "
                      "(--concurrency N, --framework vllm) for a far lower cost per token");
  // A deadline or a budget replaces the value band (recommend): each GPU's plan is the cheapest that meets the
  // deadline, or the fastest within the budget, and the rows follow the job's cost.
  std::string limits;
  if (opts.deadline_seconds) limits = "the cheapest plan that meets --deadline " + duration_text(*opts.deadline_seconds);
  if (opts.budget_usd)
    limits += (limits.empty() ? "the fastest plan within --budget $" : ", within --budget $") + fmt::format("{:.2f}", *opts.budget_usd);
  const bool limited = !limits.empty() && r.order == RankBy::value && job;
  r.order_text = "fits first (tight plans after), then " +
                 (limited ? "per GPU " + limits + ", the GPUs by the lowest cost of the completed job" : order_description(r.order, w, m, job)) +
                 "; unknown prices or throughputs after known ones";
  recommend(r, opts, job, w.global_batch.has_value());  // the plans stepped with the workload's own global batch
  return r;
}

}  // namespace gpuadvise
