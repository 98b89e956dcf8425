// The plan an engineer would pick for one GPU (method.md §9): memory savers on one GPU first, then more GPUs
// in one node, then several nodes, CPU offload last; the best plan by the order at each count.
#include "gpuadvise/ranking.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <utility>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/global_batch.hpp"
#include "gpuadvise/units.hpp"
#include "layout_space.hpp"
#include "layer_offload.hpp"
#include "ranking_common.hpp"

namespace gpuadvise {

using namespace ranking_detail;
using namespace layout_space;

namespace {
std::string stage_of(const PlanShape& p) {
  if (p.offload != Offload::none) return "CPU offload";
  if (p.gpus == 1) return "one GPU";
  return p.nodes > 1 ? "several nodes" : "one node";
}

void finish_candidate(Candidate& c, const GpuSpec& g, const RankOptions& opts) {
  c.nodes = c.planned.nodes;
  c.stage = stage_of(c.planned);
  c.links = plan_links(g, c.planned);
  const bool engine_pool = c.memory.vllm.has_value();  // vLLM takes its share by design: its pool decides
  c.tight = c.fits && !engine_pool && c.headroom_bytes < opts.min_headroom_pct / 100.0 * static_cast<double>(g.memory_bytes);
  c.unranked.clear();  // the planner's reused candidate may hold an earlier layout's
  c.value_usd = value_of(c, c.value_unit, c.unranked);
  if (!c.usd_per_gpu_hour() && !opts.cost.provider.empty())
    if (const PriceOffer* offer = g.offer_from(opts.cost.provider); offer && !offer->usd_per_gpu_hour)
      // The provider rents this GPU but no price could be sourced: say so rather than guess.
      c.unranked = offer->provider + " rents it, but no price could be sourced (" + offer->note + ")";
}

// Video without --batch: frames of the streams on one GPU are batched as a DeepStream-style pipeline does (batch
// size = sources); the batch that sustains the most streams per GPU within --max-latency-ms wins, the smaller on a
// tie.
Candidate batch_video_frames(const Workload& w, const ModelSpec& m, const GpuSpec& g, const RankOptions& opts, const Candidate& single) {
  auto latency_ok = [&](const Candidate& c) {
    return !w.max_latency_ms || !c.video || !c.video->latency_ms || *c.video->latency_ms <= *w.max_latency_ms;
  };
  auto streams_of = [](const Candidate& c) { return c.video ? c.video->streams_per_gpu : 0.0; };
  Candidate best = single;
  for (std::int64_t b = 2; b <= std::min<std::int64_t>(64, *w.streams); b *= 2) {
    Workload p = w;
    p.batch = b;
    Candidate c = evaluate(p, m, g, opts.cost);
    const bool ok = latency_ok(c), best_ok = latency_ok(best);
    if ((ok && !best_ok) || (ok == best_ok && streams_of(c) > streams_of(best))) best = std::move(c);
  }
  finish_candidate(best, g, opts);
  best.tight = false;
  best.fits_single = best.fits;
  best.why = fmt::format("frames of the streams batched {} at a time", best.planned.batch);
  return best;
}

// A layout that fits in memory but misses --max-tpot-ms/--max-ttft-ms: kept if it misses them by less than the
// nearest so far, to say how close the GPU came where no layout meets them. Returns false (the layout is not a fit).
bool keep_nearest_miss(std::optional<Candidate>& nearest, const Candidate& c) {
  if (c.latency_miss > 0 && (!nearest || c.latency_miss < nearest->latency_miss)) nearest = c;
  return false;
}

// What a layout that does not fit needs per GPU: its fit reason where it has one, else its peak.
std::string per_gpu_need(const Candidate& c) {
  return c.fit_reason.empty() ? fmt::format("{:.1f} GB per GPU", c.memory.device_peak / 1e9) : c.fit_reason.text();
}

// Nothing fits within the margin but some plans fit tightly: the one with the most room.
Candidate roomiest_tight(const std::vector<Candidate>& tight, bool single_fits, const GpuSpec& g, const RankOptions& opts) {
  Candidate c = *std::min_element(tight.begin(), tight.end(), [](const Candidate& a, const Candidate& b) { return a.headroom_bytes > b.headroom_bytes; });
  c.fits_single = single_fits;
  c.why = fmt::format("fits only with {:.1f} GB free per GPU ({:.1f}% of the card), under the {:.0f}% margin",
                      c.headroom_bytes / 1e9, 100.0 * c.headroom_bytes / static_cast<double>(g.memory_bytes), opts.min_headroom_pct);
  return c;
}

// Nothing fits within the GPUs searched: the roomiest layout of the most of them where it needs less per GPU than one
// GPU does (405B fine-tuned on 8 RTX 3090s: FSDP over 8 still needs about 1 TB a GPU, not one GPU's 8.6 TB), else the
// one-GPU verdict, with why the search found nothing.
Candidate no_fitting_plan(Candidate single, const std::optional<Candidate>& roomiest, const GpuSpec& g, const RankOptions& opts, const std::string& offload_short) {
  const std::int64_t reach = search_reach(g, opts);
  const bool spread = roomiest && roomiest->memory.device_peak < single.memory.device_peak;
  const double card_gb = static_cast<double>(g.memory_bytes) / 1e9;
  std::string need;
  if (spread)
    need = fmt::format("the roomiest, {}: {}", roomiest->layout,
                       roomiest->fit_reason.empty() ? per_gpu_need(*roomiest) + fmt::format(" of {:.1f} GB", card_gb) : roomiest->fit_reason.text());
  else
    need = single.memory.vllm && !single.fit_reason.empty() ? "on one GPU: " + single.fit_reason.text()
                                                            : fmt::format("needs {:.1f} GB on one GPU of {:.1f} GB", single.memory.device_peak / 1e9, card_gb);
  const bool single_fits = single.fits;
  Candidate c = spread ? *roomiest : std::move(single);
  c.fits_single = single_fits;
  c.why = fmt::format("does not fit within {} GPU{}{} in the layouts searched ({})", reach, reach > 1 ? "s" : "",
                      g.multi_node() ? "" : fmt::format(" (one node: {})", g.node.network.empty() ? "no network between nodes known" : "no multi-node network: " + g.node.network),
                      need);
  if (!offload_short.empty()) c.why += "; " + offload_short;
  return c;
}

// Where no layout of a count given alone fits: the layout of that count that needs the least memory per GPU, each
// assessed in full (the screen skips what does not fit) with the most frugal of the savers the search tries (a
// training layout's deepest checkpointing allowed, micro-batch 1), with its own reason, so the answer names the
// nearest miss (DeepSeek-V3 on 8 H100s: tensor parallel 8 over 84 GB of weights per GPU, not data parallel over 673).
Candidate roomiest_layout(const Workload& w, const ModelSpec& m, const GpuSpec& g, const RankOptions& opts, TensorMemo* memo) {
  Candidate best, c;
  const LocalCorrection* best_k = nullptr;
  bool found = false;
  for_each_layout(w, m, g, w.gpus, [&](Workload& layout) {
    Workload p = layout;
    most_frugal(p);
    const LocalCorrection* k = assess_fit(c, p, m, g, opts.cost, memo);
    if (c.supported && (!found || c.memory.device_peak < best.memory.device_peak)) {
      best = c;
      best_k = k;
      found = true;
    }
    return false;  // the first micro-batch of each layout
  });
  if (!found) return best;
  score_layout(best, w, m, g, opts.cost, best_k);
  finish_candidate(best, g, opts);
  best.why = fmt::format("no layout of the {} GPUs given fits; the roomiest, {}: {}", w.gpus, best.layout, per_gpu_need(best));
  return best;
}

// No plan fits: the tight plan with the most room, else for a count given alone its roomiest layout (or, where it has
// none to search, the layout given), else the one-GPU verdict.
Candidate nothing_fits(Candidate single, const std::vector<Candidate>& tight, const std::optional<Candidate>& nearest_miss, const Workload& w,
                       const ModelSpec& m, const GpuSpec& g, const RankOptions& opts, const std::string& offload_short, bool count_only, TensorMemo* memo) {
  if (tight.empty() && nearest_miss) {
    // Layouts fit in memory, but none meets the latency targets: the nearest, and by how much it misses them.
    Candidate c = *nearest_miss;
    const std::int64_t reach = count_only ? w.gpus : search_reach(g, opts);
    c.why = fmt::format("no layout {} {} GPU{} meets the latency targets; the nearest, {}: {}", count_only ? "of the" : "within", reach, reach > 1 ? "s" : "",
                        c.layout, c.fit_reason.text());
    return c;
  }
  if (!tight.empty()) return roomiest_tight(tight, single.fits, g, opts);
  if (!count_only) {
    // The roomiest layout of the most GPUs searched (none beyond one GPU).
    Workload at = w;
    at.gpus = search_reach(g, opts);
    std::optional<Candidate> roomiest;
    if (at.gpus > 1)
      if (Candidate r = roomiest_layout(at, m, g, opts, memo); !r.why.empty()) roomiest = std::move(r);
    return no_fitting_plan(std::move(single), roomiest, g, opts, offload_short);
  }
  if (Candidate nearest = roomiest_layout(w, m, g, opts, memo); !nearest.why.empty()) return nearest;
  single.why = single.fits ? "the layout given"
                           : fmt::format("no layout of the {} GPUs given fits (data parallel: {})", w.gpus, per_gpu_need(single));
  return single;
}

// The layout as asked, as the answer: why, and no job figures where it does not fit.
Candidate layout_as_given(Candidate single, const Workload& w, const GpuSpec& g) {
  single.why = w.gpus <= 1 ? ""
               : count_without_layout(w) && !whole_nodes(w.gpus, g) ? fmt::format("the layout given (the search runs whole nodes of {} GPUs)", g.gpus_per_node())
                                                                    : "the layout given";
  if (!single.fits && !single.fit_reason.empty()) single.why += (single.why.empty() ? "" : ": ") + single.fit_reason.text();
  withhold_unfit(single);
  return single;
}

// Why a plan of a count given alone was chosen: the order's pick among the layouts of that count that fit.
std::string count_choice(const Candidate& chosen, std::size_t fitting, RankBy order, const RankOptions& opts) {
  const char* best = opts.deadline_seconds ? "cheapest that meets the deadline"
                     : opts.budget_usd     ? "fastest within the budget"
                     : order == RankBy::time ? "fastest"
                     : order == RankBy::headroom ? "roomiest"
                     : order == RankBy::cost     ? "cheapest"
                                                 : "best value";
  return fmt::format("the {} of {} layout{} of the {} GPUs given that fit{} (--tp, --pp, --ep or --sharding fixes one)", best, fitting,
                     fitting == 1 ? "" : "s", chosen.gpus,
                     chosen.planned.offload != Offload::none ? ", with CPU offload (slow): none fits without it" : "");
}

// The chosen plan (pick_plan, plan_choice.cpp), moved out of `fits`, with why it was chosen and its frontier.
Candidate choose_plan(const Workload& w, const Candidate& single, std::vector<Candidate>& fits, std::int64_t first_fit, RankBy order,
                      const RankOptions& opts) {
  std::vector<const Candidate*> pool;
  for (const auto& c : fits) pool.push_back(&c);
  // A count given alone is the count searched: its plans compete whatever --max-gpus says (64 unless given), or the
  // fastest of 256 GPUs given fell back to the cheapest, and without a price to the first that fit.
  RankOptions asked = opts;
  if (count_without_layout(w)) asked.max_gpus = std::max(asked.max_gpus, w.gpus);
  const Pick chosen = pick_plan(pool, first_fit, w.has_job_size(), order, asked);
  const Candidate* best = chosen.plan;
  const RankBy pick = chosen.by;
  std::vector<FrontierPoint> frontier = frontier_of(pool);  // before the chosen plan leaves `fits`
  const std::size_t fitting = fits.size();
  // The job runs on one card: as asked, or with the savers the search applied there (no CPU offload).
  const bool one_card = std::any_of(fits.begin(), fits.end(), [](const Candidate& c) { return c.gpus == 1 && c.planned.offload == Offload::none; });
  const bool without_offload = std::any_of(fits.begin(), fits.end(), [](const Candidate& c) { return c.planned.offload == Offload::none; });
  Candidate out = std::move(fits[static_cast<std::size_t>(best - fits.data())]);
  out.fits_single = (single.fits && !single.tight && w.gpus == 1) || one_card;
  out.why = describe_choice(out, single, fitting, pick, opts, chosen.in_band, without_offload);
  // The cheapest plan may be one nobody would wait for: say how to trade money for time.
  if (count_without_layout(w) && !opts.deadline_seconds && out.cost.wall_hours > 30 * 24 && out.gpu->multi_node())
    out.notes.push_back(Note::format("this plan takes {:.0f} days on the {} GPUs given: --max-gpus N instead of --gpus searches every count up to N "
                                     "(with --deadline, the cheapest plan that meets it)", out.cost.wall_hours / 24, w.gpus));
  else if (pick != RankBy::time && !opts.deadline_seconds && out.cost.wall_hours > 30 * 24 && out.gpu->multi_node() && out.gpus < opts.max_gpus)
    out.notes.push_back(Note::format("this plan takes {:.0f} days: --deadline keeps the cheapest plan that meets one, --rank-by time the "
                                     "fastest within --max-gpus ({})", out.cost.wall_hours / 24, opts.max_gpus));
  out.frontier = std::move(frontier);
  return out;
}
// The planner tries Megatron-Core's CPU offload of activations (method.md §4.5) on a GPU with a host link of its own,
// a Grace superchip's NVLink-C2C, where Megatron-Bridge's Llama 3 70B recipes offload 20 to 40 layers (GB300, GB200);
// over PCIe, a link the model does not see shared, it runs as asked (Megatron-Bridge's B200 recipe offloads 5).
bool offload_searched(const GpuSpec& g) { return g.host_link_gb_per_s.has_value() && g.segment != Segment::edge; }

// A layout that offloads activations with its layer count unsettled (layout_space.hpp's savers) keeps the most layers'
// activations on the GPU that leave the offload margin free (method.md §4.5), settled before its screen, which counts
// what the GPU holds.
const Workload& settled_offload(const Workload& p, const ModelSpec& m, const GpuSpec& g, const RankOptions& opts, Workload& scratch) {
  if (!offloads_activations(p) || !gpu_layers_unsettled(p)) return p;
  scratch = p;
  scratch.gpu_layers = most_gpu_layers(scratch, m, g, opts.offload_margin_pct.value_or(opts.min_headroom_pct));
  return scratch;
}

// The count searched after n: counts 1, 2, 4, ... up to --max-gpus; a node that is not a power of two (an NVL72 rack
// of 72) comes whole in its turn and its multiples follow (... 32, 64, 72, 144, 288 ...). --max-gpus itself comes last
// where the doubling steps over it and it runs whole nodes (or equal shares of racks): the fastest plan within 256
// GB200s is four racks of 64 (Megatron-Bridge's runs), not two racks of 72; within 96 H100s, 12 servers.
std::int64_t next_count(std::int64_t n, const GpuSpec& g, std::int64_t max_gpus) {
  const std::int64_t per_node = g.gpus_per_node();
  const std::int64_t doubled = n < per_node && n * 2 > per_node ? per_node : n * 2;
  return doubled > max_gpus && n < max_gpus && whole_nodes(max_gpus, g) ? max_gpus : doubled;
}

// The counts of GPUs the last resorts try, doubling from `from` to `to`: one node's worth up to --max-gpus, or the count
// given alone where one node holds it (none where it does not).
std::pair<std::int64_t, std::int64_t> counts_in_one_node(const GpuSpec& g, const RankOptions& opts, std::int64_t count_given) {
  if (count_given) return {count_given, count_given <= g.gpus_per_node() ? count_given : 0};
  return {1, std::min<std::int64_t>(opts.max_gpus, g.gpus_per_node())};
}

// llama.cpp with host memory beside its GPUs (method.md §8.3): the layers past -ngl in host memory, run by the CPU,
// as many kept on the GPUs as leave the margin asked free; a mixture of experts may instead keep every layer there
// but some layers' routed experts, which the CPU runs (--n-cpu-moe), a token then reading only the experts it routes
// to in host memory. Both are tried on one card and on llama.cpp's layer split over 2, 4, ... cards of one machine
// (the count given, where one is), for the order asked to choose among them and any layout of more cards; a count
// that holds the whole model needs no host memory and is left to the plain layouts. An edge module's host memory is
// the GPU's own.
template <class TryLayout>
void try_host_offloads(const Workload& w, const ModelSpec& m, const GpuSpec& g, const RankOptions& opts, TryLayout&& try_layout,
                       std::int64_t count_given) {
  if (!host_offload_applies(w, m, g) || g.is_cpu()) return;  // a CPU instance's memory is the host's
  const auto [from, to] = counts_in_one_node(g, opts, count_given);
  for (std::int64_t n = from; n <= to && n <= m.layers; n *= 2) {
    for (Offload off : {Offload::experts, Offload::layers}) {
      if (off == Offload::experts && !m.is_moe()) continue;
      Workload p = w;
      p.offload = off;
      p.gpus = p.pp = n;
      p.tp = p.nodes = 1;
      p.gpu_layers = most_gpu_layers(p, m, g, opts.offload_margin_pct.value_or(opts.min_headroom_pct));
      if (n > 1 && (off == Offload::layers ? p.gpu_layers >= m.layers : cpu_moe_layers(p, m) == 0)) continue;
      try_layout(p);
    }
  }
}

// Where no layout fits, the last resorts, until one does: CPU offload for training (the optimizer states, then the
// parameters, in host memory, on one GPU or a layout of one node that keeps one copy of them); llama.cpp's layers past -ngl, or
// a mixture of experts' routed experts, on the CPU; diffusers' memory options for image generation,
// cheapest first (method.md §12.4): model CPU offload, then tiled VAE decoding with it, then sequential CPU offload
// (slow: the denoiser crosses PCIe at every step).
template <class TryLayout>
void try_last_resorts(const Workload& w, const ModelSpec& m, const GpuSpec& g, const RankOptions& opts, const std::vector<Candidate>& fits,
                      TryLayout&& try_layout, std::int64_t count_given) {
  if (g.is_cpu()) return;  // a CPU instance's memory is the host's: nothing to offload to
  if (is_training(w.mode) && !m.vision) {
    // Each offload on every layout of one node that keeps one copy of the offloaded states (sharded, or split by
    // tensor or pipeline parallel: plain data parallel would keep a copy per rank on the host), all of them, for
    // the order asked to choose among (ZeRO-3 over 8 GPUs, or Megatron's tensor parallel 8, finishes about 8x
    // sooner than one GPU at about the same cost).
    // A count given alone tries that count; else every count searched, several nodes too: ZeRO-Offload and FSDP's
    // CPU offload run over nodes, each node's host holding its own ranks' shards (70B fully fine-tuned on 16 H100s
    // in two nodes fits so, where no layout of the 16 without it does).
    const std::int64_t from = count_given ? count_given : 1, to = count_given ? count_given : search_reach(g, opts);
    for (Offload off : {Offload::optimizer, Offload::optimizer_params}) {
      for (std::int64_t n = from; n <= to; n *= 2)
        for_each_layout(w, m, g, n, [&](Workload& p) {
          if (p.sharding == Sharding::none && p.data_parallel() > 1) return false;
          p.offload = off;
          return try_layout(p);
        });
      if (!fits.empty()) return;
    }
  }
  try_host_offloads(w, m, g, opts, try_layout, count_given);
  if (!fits.empty()) return;
  if (!is_training(w.mode) && m.vision && m.vision->task == "generation" && w.offload == Offload::none) {
    for (Offload off : {Offload::model, Offload::sequential}) {
      for (bool tiling : {w.vae_tiling, true}) {
        Workload p = w;
        p.offload = off;
        p.vae_tiling = tiling;
        try_layout(p);
        if (!fits.empty()) return;
      }
    }
  }
}
}  // namespace

bool count_without_layout(const Workload& w) {
  if (w.gpus < 2 || !w.given("gpus")) return false;
  return std::none_of(k_layout_keys.begin(), k_layout_keys.end(), [&](const char* k) { return w.given(k); });
}

Candidate plan(const Workload& w, const ModelSpec& m, const GpuSpec& g, const RankOptions& opts, RankBy order) {
  return plan_with(w, m, g, opts, order, nullptr);
}

namespace {
// An offload whose host share is more than a node's host memory (each node's host holds its own ranks' share, as
// system.cpp divides it): not a plan, and `why` says what it would need.
bool offload_beyond_host(const Workload& p, const Candidate& c, const GpuSpec& g, std::string& why) {
  if (p.offload == Offload::none) return false;
  const double per_node = offload_host_bytes(p, c.memory) / static_cast<double>(std::max<std::int64_t>(1, p.nodes));
  const double have = node_host_ram_bytes(g, static_cast<double>(p.gpus_per_node()));
  if (per_node <= have) return false;
  why = fmt::format("CPU offload would need {:.0f} GB of host memory per node, more than such a node's {:.0f} GB", per_node / 1e9, have / 1e9);
  return true;
}
}  // namespace

Candidate ranking_detail::plan_with(const Workload& w, const ModelSpec& m, const GpuSpec& g, const RankOptions& opts, RankBy order, TensorMemo* memo) {
  // The layout as asked: its memory and verdict first; its time, cost and notes only where it is shown or kept
  // (it fits, the search is skipped, or nothing else fits). Choosing another plan reads its verdict and memory.
  Candidate single;
  const LocalCorrection* single_k = assess_fit(single, w, m, g, opts.cost, memo);
  bool single_complete = false;
  auto complete_single = [&]() {
    if (single_complete) return;
    single_complete = true;
    score_layout(single, w, m, g, opts.cost, single_k);
    describe_layout(single, w, m, g, opts.cost);
    finish_candidate(single, g, opts);
    single.fits_single = single.fits && !single.tight && w.gpus == 1;
  };
  // The user's own layout, video (sized by streams), or nothing to search: the layout as asked is the answer. A
  // count given alone searches the layouts of that count, one node or whole nodes.
  const bool count_only = count_without_layout(w) && whole_nodes(w.gpus, g) && single.supported && !w.streams;
  const bool no_search = (w.gpus > 1 && !count_only) || !single.supported || w.streams;
  if (single.fits || no_search) complete_single();
  if (w.streams && !w.batch_given && single.supported) return batch_video_frames(w, m, g, opts, single);
  if (no_search) return layout_as_given(std::move(single), w, g);
  // Reserved once: a GPU keeps a plan per layout that fits at the counts searched, and a growing vector would copy
  // its candidates (2.5 KB each) into fresh memory at every step.
  std::vector<Candidate> fits, tight;
  std::optional<Candidate> nearest_miss;  // the layout that fits in memory and comes nearest the latency targets
  fits.reserve(8);
  std::int64_t first_fit = 0;
  std::string offload_short;
  // The screens and the layouts that do not fit are assessed in one reused candidate: only a layout that fits
  // becomes a candidate of its own.
  Candidate scratch;
  // The numeric screen first (screen.cpp); a layout it cannot judge alone is assessed in full.
  auto screened_out = [&](const Workload& p) {
    const std::optional<bool> verdict = memo ? screen_fit(p, m, g, opts.cost, *memo) : std::nullopt;
    return verdict && !*verdict;
  };
  auto could_fit = [&](const Workload& p) {
    if (screened_out(p)) return false;
    assess_fit(scratch, p, m, g, opts.cost, memo);
    return scratch.fits;
  };
  // A layout at a larger micro-batch than the default (layout_space.hpp) is worth trying only while the one below
  // kept its micro-batch, gained speed over the one before, and spends a tenth or more of its micro-batch on costs
  // paid per micro-batch (host launches, a MoE layer's experts launched one by one, weights streamed for few
  // tokens: TimeEstimate::fixed_share); below that, twice the micro-batch gains under 5 % and its memory and
  // pipeline bubble cost more.
  constexpr double k_amortisable_share = 0.1;
  double previous_rate = 0;
  Workload settling;  // a layout whose offloaded layers are settled
  auto try_layout = [&](Workload& layout) {
    if (layout.batch <= w.batch) previous_rate = 0;
    const std::size_t kept = fits.size();
    for_each_saver(layout, could_fit, [&](const Workload& asked) {
      const Workload& p = settled_offload(asked, m, g, opts, settling);
      const bool as_asked = p.gpus == 1 && p.offload == Offload::none && p.checkpointing == w.checkpointing && p.batch == w.batch &&
                            p.precision == w.precision;
      if (!as_asked && screened_out(p)) return false;
      const LocalCorrection* k = as_asked ? nullptr : assess_fit(scratch, p, m, g, opts.cost, memo);
      if (!(as_asked ? single.fits || single.latency_miss > 0 : scratch.fits)) return false;
      if (as_asked) scratch = single;
      else score_layout(scratch, w, m, g, opts.cost, k);
      Candidate& c = scratch;  // moved into `fits` or `tight` below when kept
      finish_candidate(c, g, opts);
      if (!c.fits) return keep_nearest_miss(nearest_miss, c);  // fits in memory, misses the latency targets
      if (offload_beyond_host(p, c, g, offload_short)) return false;
      if (c.tight) {
        tight.push_back(std::move(c));
        return false;
      }
      fits.push_back(std::move(c));
      return true;
    }, layout.batch > w.batch ? layout.batch : 1, offload_searched(g));
    if (fits.size() == kept) return false;
    const Candidate& c = fits.back();
    const double rate = c.time.train_tokens_per_second_per_gpu.value_or(c.time.paced_images_per_second().value_or(0));
    const bool gained = rate > previous_rate;
    previous_rate = rate;
    return gained && c.planned.batch == layout.batch && c.time.fixed_share >= k_amortisable_share;
  };
  for (std::int64_t n = count_only ? w.gpus : 1; n <= (count_only ? w.gpus : opts.max_gpus); n = next_count(n, g, opts.max_gpus)) {
    if (!count_only && !search_further(fits, n, first_fit, w.has_job_size(), order, opts)) break;
    const std::size_t before = fits.size();
    for_each_layout(w, m, g, n, try_layout);
    if (!first_fit && fits.size() > before) first_fit = n;
  }
  // Where more cards fit but one does not, llama.cpp's offloads to the host on that one card are plans too: the
  // order asked weighs them (one card and the CPU often cost least per token of a mixture of experts).
  if (!fits.empty() && !count_only && !single.fits) try_host_offloads(w, m, g, opts, try_layout, 0);
  if (fits.empty()) try_last_resorts(w, m, g, opts, fits, try_layout, count_only ? w.gpus : 0);
  if (fits.empty()) complete_single();
  Candidate chosen = fits.empty() ? nothing_fits(std::move(single), tight, nearest_miss, w, m, g, opts, offload_short, count_only, memo)
                                  : choose_plan(w, single, fits, first_fit, order, opts);
  if (count_only && chosen.fits && !chosen.tight && !fits.empty()) chosen.why = count_choice(chosen, fits.size(), order, opts);
  describe_layout(chosen, w, m, g, opts.cost);
  withhold_unfit(chosen);
  return chosen;
}

}  // namespace gpuadvise
