#include "gpuadvise/escape.hpp"
#include "gpuadvise/report.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/ranges.h>


#include "gpuadvise/launch_hints.hpp"
#include "gpuadvise/units.hpp"
#include "report_detail.hpp"
#include "report_json_detail.hpp"

#ifndef GPUADVISE_VERSION
#define GPUADVISE_VERSION "0.0.0"
#endif

namespace gpuadvise {

const char* tool_version() { return GPUADVISE_VERSION; }

namespace detail {
// Memory in the unit chosen once (--units): GB = 1e9 bytes (the default, as vendors write capacities) or
// GiB = 2^30 bytes (what PyTorch's memory summary prints); nvidia-smi's MiB beside the numbers people check.
double mem_div(const Style& s) { return s.units == MemUnits::gib ? 1073741824.0 : 1e9; }
const char* mem_unit(const Style& s) { return s.units == MemUnits::gib ? "GiB" : "GB"; }
std::string gbs(double bytes, const Style& s) { return fmt::format(FMT_COMPILE("{:.1f}"), bytes / mem_div(s)); }
std::string image_rate(double v) { return v >= 10 ? fmt::format("{:.0f}", v) : v >= 1 ? fmt::format("{:.2f}", v) : fmt::format("{:.3g}", v); }

const char* fit_verb(const FitResult& r) {
  return r.latency_bound() ? "meets the latency targets on" : r.pool_bound() ? "runs at once in the KV-cache pool on" : "fits";
}

std::string workload_line(const Workload& w, const ModelSpec& m, const MemoryEstimate& mem) {
  if (m.vision) {
    const auto [W, H] = image_size(w, m);
    return fmt::format("{} ({:.1f}M params, {}), {}, {}, batch {}, {:.0f}x{:.0f}, framework {}", printable(m.id), mem.params_total / 1e6, m.vision->task,
                       to_string(w.mode), to_string(w.precision), w.batch, W, H, to_string(w.framework.value_or(Framework::pytorch)));
  }
  return fmt::format("{} ({:.2f}B params{}), {}, {}, batch {}, seq {}, framework {}", printable(m.id), mem.params_total / 1e9,
                     m.is_moe() ? fmt::format(", {:.2f}B active", mem.params_active / 1e9) : "", to_string(w.mode),
                     to_string(w.precision) + (w.precision_from_checkpoint ? " (the checkpoint's own; --precision sets another)" : ""), w.batch,
                     mem.seq_len, to_string(w.effective_framework()));
}
std::string paint(const Style& s, const std::string& text, const char* code) {
  if (!s.color) return text;
  return fmt::format("\x1b[{}m{}\x1b[0m", code, text);
}
std::string mib(double bytes) { return fmt::format("{:.0f} MiB", bytes / 1048576.0); }
// The peak against the usable memory in eight cells ('#' used, '.' free); past the capacity the bar is full and
// closes with '>' instead of ']'. Ten characters.
std::string usage_bar(double peak, double capacity) {
  constexpr int cells = 8;
  if (!(capacity > 0) || !(peak >= 0)) return std::string(cells + 2, ' ');
  const double f = peak / capacity;
  const int used = static_cast<int>(std::clamp(std::lround(f * cells), 0L, static_cast<long>(cells)));
  std::string bar(1, '[');
  bar.append(static_cast<std::size_t>(used), '#').append(static_cast<std::size_t>(cells - used), '.').push_back(']');
  if (f > 1.0) bar.back() = '>';
  return bar;
}

std::string sweep_value(double v) { return v == std::floor(v) ? fmt::format("{:.0f}", v) : fmt::format("{:g}", v); }
}  // namespace detail

namespace {
using detail::gbs;
using detail::mib;
using detail::paint;
using detail::mem_div;
using detail::image_rate;
using detail::mem_unit;
using detail::workload_line;

using detail::bytes_int;

std::string hints_text(const Workload& w, const Candidate& c, const ModelSpec& m) {
  const LaunchHints h = launch_hints(w, c, m);
  std::string out;
  if (h.vllm) out += "    vLLM:       " + *h.vllm + "\n";
  if (h.server) out += "    server:     " + *h.server + "\n";
  if (h.torchrun) out += "    launch:     " + *h.torchrun + "\n";
  if (h.hf_trainer) out += "    Trainer:    " + *h.hf_trainer + "\n";
  if (h.deepspeed_config) out += "    DeepSpeed:  " + detail::one_line(detail::deepspeed_json(*h.deepspeed_config)) + "\n";
  if (h.skypilot_accelerator) out += fmt::format("    SkyPilot:   resources: accelerators: {}:{}\n", *h.skypilot_accelerator, std::min<std::int64_t>(c.gpus, 8));
  for (const auto& n : h.notes) out += "    note:       " + n + "\n";
  return out;
}




// Where the memory goes against the card's capacity, one letter per part: W weights, G gradients, O optimizer
// states, A activations, K KV cache, L logits, R allocator reserve and runtime; '.' is free memory, '|' the capacity.
std::string memory_bar(const MemoryEstimate& mem, double capacity, const Style& style) {
  const double width = 50.0, scale = std::max(capacity, mem.device_peak);
  const std::pair<char, double> parts[] = {{'W', mem.weights},        {'G', mem.gradients}, {'O', mem.optimizer_states}, {'A', mem.activations},
                                           {'K', mem.kv_cache},       {'L', mem.logits},    {'R', mem.allocator_reserve + mem.runtime}};
  std::string bar;
  double used = 0;
  for (const auto& [letter, bytes] : parts) {
    used += std::max(0.0, bytes);
    const auto upto = static_cast<std::size_t>(std::lround(used / scale * width));
    while (bar.size() < upto) bar.push_back(letter);
  }
  const auto cap = static_cast<std::size_t>(std::lround(capacity / scale * width));
  while (bar.size() < cap) bar.push_back('.');
  if (cap < bar.size()) bar.insert(cap, 1, '|');
  else bar.push_back('|');
  return fmt::format("  [{}] {} of {} {}\n  W weights, G gradients, O optimizer, A activations, K KV cache, L logits, R reserve+runtime, . free\n",
                     paint(style, bar, mem.device_peak <= capacity ? "32" : "31"), gbs(mem.device_peak, style), gbs(capacity, style), mem_unit(style));
}

// On a CPU instance (cpu) the runtime is the process's and the peak its resident memory: no CUDA, no nvidia-smi.
std::string memory_breakdown(const MemoryEstimate& mem, const Style& style, bool cpu = false) {
  std::string out;
  // Parts the workload does not have (no gradients in inference, no KV cache in training) are left out.
  auto row = [&](const std::string& name, double b) {
    if (b >= 0.5e8) out += fmt::format("  {:<20} {:>9} {}\n", name, gbs(b, style), mem_unit(style));
  };
  row("weights", mem.weights);
  row("gradients", mem.gradients);
  row("optimizer states", mem.optimizer_states);
  row("activations", mem.activations);
  row("kv cache", mem.kv_cache);
  row("logits", mem.logits);
  out += fmt::format("  {:<20} {:>9} {}   ({})\n", "= tensor peak", gbs(mem.tensor_peak, style), mem_unit(style),
                     cpu ? "the tensors' peak" : "torch.cuda.max_memory_allocated");
  row("allocator reserve", mem.allocator_reserve);
  row(cpu ? "runtime (process)" : "runtime (CUDA etc.)", mem.runtime);
  out += fmt::format("  {:<20} {:>9} {}   ({}: {}; band {}–{} {})\n", paint(style, cpu ? "= memory peak" : "= device peak", "1"), gbs(mem.device_peak, style),
                     mem_unit(style), cpu ? "resident" : "nvidia-smi", mib(mem.device_peak), gbs(mem.device_low, style), gbs(mem.device_high, style), mem_unit(style));
  if (style.explain) {
    out += "\nHow each component is computed:\n";
    for (const auto& x : mem.explain)
      out += fmt::format("  {:<18} {:>9} {:<3} {}\n  {:<18} {:>9}     inputs: {}\n  {:<18} {:>9}     source: {}\n", x.component,
                         gbs(x.bytes, style), mem_unit(style), x.formula, "", "", x.inputs, "", "", x.source);
  }
  return out;
}

}  // namespace


namespace {
// estimate's verdict on the GPU asked: fits or why not (the precision or layout, the memory, the engine's pool, a
// stream it cannot sustain, nodes with no network), and, where it cannot run, that its rate is a what-if.
std::string verdict_lines(const Candidate& c, const Style& style) {
  std::string out;
  const auto& g = *c.gpu;
  // The verdict names why a job cannot run: the precision, the memory, or a video stream it cannot sustain.
  std::string verdict = c.fits ? paint(style, "fits", "32") : paint(style, "does not fit", "31");
  // Not supported: the precision on this GPU, or the layout in this framework; the first note says which.
  if (!c.supported) verdict = paint(style, "cannot run as asked (the first note says why)", "31");
  else if (!c.fits && c.video && c.headroom_bytes >= 0) verdict = paint(style, "cannot sustain one stream", "31");
  if (c.memory.vllm) {
    // vLLM takes its share of the card by design: the verdict is the pool's, in vLLM's terms.
    out += fmt::format("\nOn {} ({} {} usable): {}{}\n", printable(g.name), gbs(static_cast<double>(g.memory_bytes), style), mem_unit(style), verdict,
                       c.fit_reason.empty() || !c.supported ? "" : ": " + c.fit_reason.text());
  } else {
    // A plan that cannot run for a reason beyond the GPU's own memory (several nodes of a GPU with no network
    // between them, an edge module's offload into the memory it shares) says why.
    const bool other = !c.fits && c.supported && !c.fit_reason.empty();
    out += fmt::format("\nOn {} ({} {} usable = {}): {}, headroom {} {}{}\n", printable(g.name), gbs(static_cast<double>(g.memory_bytes), style), mem_unit(style),
                       mib(static_cast<double>(g.memory_bytes)), verdict, gbs(c.headroom_bytes, style), mem_unit(style),
                       other ? "; " + c.fit_reason.text() : "");
  }
  const auto& t = c.time;
  const bool rates = t.train_tokens_per_second_per_gpu || t.images_per_second || t.prefill_tokens_per_second || t.decode_tokens_per_second;
  if (!c.fits && c.supported && rates) out += "  were it to fit (it does not: no job time or cost), it would run at:\n";
  else if (!c.supported && rates) out += "  were it to run as asked (it cannot: no job time or cost), it would run at:\n";
  return out;
}
}  // namespace

namespace {
// An inference plan's prefill and decode lines. Serving rates are one replica's (the JSON's keys); a plan of several
// says so and gives the sum: replicas, or under expert parallelism the data-parallel ranks that share the experts
// (disaggregated plans split theirs between prefill and decode: their note gives each pool).
std::string serving_rates_text(const Workload& w, const Candidate& c) {
  const TimeEstimate& t = c.time;
  std::string out;
  const double replicas = w.disaggregate ? 1.0 : static_cast<double>(w.replica_ranks());  // `estimate`: the plan is the workload's layout
  const char* unit = w.ep > 1 ? "rank" : "replica";
  auto each = [&](double rate) {
    return replicas > 1 ? fmt::format(" per {}, {:.0f} in all over {:.0f} {}s", unit, rate * replicas, replicas, unit) : std::string();
  };
  if (t.prefill_tokens_per_second)
    out += fmt::format("  prefill: {:.0f} tokens/s{}, time to first token {:.3f} s\n", *t.prefill_tokens_per_second, each(*t.prefill_tokens_per_second),
                       t.ttft_seconds.value_or(0));
  if (t.decode_tokens_per_second)
    out += fmt::format("  decode: {:.1f} tokens/s{} ({:.1f} ms per output token)\n", *t.decode_tokens_per_second, each(*t.decode_tokens_per_second),
                       t.tpot_seconds.value_or(0) * 1000);
  return out;
}
}  // namespace

std::string estimate_table(const Workload& w, const ModelSpec& m, const Candidate* on_gpu, const MemoryEstimate& mem,
                           const Style& style) {
  std::string out = "Workload: " + workload_line(w, m, mem) + "\n";
  if (w.gpus > 1)
    out += fmt::format("Layout: {} GPUs, tp {}{}, pp {}{}{}{}, sharding {} (memory per GPU)\n", w.gpus, w.tp,
                       w.attention_dp && w.tp > 1 ? " (attention data parallel)" : "", w.pp,
                       w.virtual_stages > 1 ? fmt::format(" ({} chunks per stage, interleaved)", w.virtual_stages) : "",
                       w.cp > 1 ? fmt::format(", cp {}", w.cp) : "", w.ep > 1 ? fmt::format(", ep {}", w.ep) : "", to_string(w.sharding));
  out += "Peak phase: ";
  out += mem.peak_phase;
  out += "\n\n";
  const bool cpu = on_gpu && on_gpu->gpu->is_cpu();
  const char* per = cpu ? "instance" : "GPU";  // what a rate and a bill are per
  out += memory_breakdown(mem, style, cpu);
  if (on_gpu) out += memory_bar(mem, static_cast<double>(on_gpu->gpu->memory_bytes), style);
  if (mem.vllm) {
    const bool trt = mem.vllm->engine == "trtllm";
    out += fmt::format("\n{}: {}{:.0f}% of {} = {} {}; KV-cache pool {} {} = {:.0f} tokens = {:.1f} sequences of {} tokens\n", mem.vllm->engine_name(),
                       trt ? "the engine and " : "", mem.vllm->utilization * 100, trt ? "the memory it leaves free" : "the card", gbs(mem.vllm->budget_bytes, style), mem_unit(style), gbs(mem.vllm->kv_pool_bytes, style), mem_unit(style), mem.vllm->max_tokens,
                       mem.vllm->max_concurrent_sequences, mem.seq_len);
  }
  if (on_gpu) {
    out += verdict_lines(*on_gpu, style);
    const auto& t = on_gpu->time;
    if (t.train_tokens_per_second_per_gpu) out += fmt::format("  training: {:.0f} tokens/s per {}\n", *t.train_tokens_per_second_per_gpu, per);
    if (t.images_per_second)
      out += fmt::format("  {} images/s per {}{}\n", image_rate(*t.images_per_second), per,
                         *t.images_per_second < 1 ? fmt::format(" ({:.1f} s per image)", 1.0 / *t.images_per_second) : "");
    if (t.input_bound())
      out += fmt::format("  input: {} images/s per {} reach it (JPEG decoding, --image-decode): the job runs at that pace\n",
                         image_rate(*t.input_images_per_second), per);
    if (on_gpu->video) {
      const VideoPlan& v = *on_gpu->video;
      out += fmt::format("  video: {:.0f} streams per GPU, limited by {} (decode {}, inference {}, memory {:.0f}); {} GPU{} for {} streams\n",
                         v.streams_per_gpu, v.limit, v.decode_streams ? fmt::format("{:.1f}", *v.decode_streams) : "unknown",
                         v.inference_streams ? fmt::format("{:.1f}", *v.inference_streams) : "unknown", v.memory_streams, v.gpus_needed,
                         v.gpus_needed == 1 ? "" : "s", w.streams.value_or(0));
      if (v.frames_dropped_pct > 0) out += fmt::format("  {:.0f}% of frames dropped on {} GPU{}\n", v.frames_dropped_pct, w.gpus, w.gpus == 1 ? "" : "s");
      if (v.latency_ms && v.stages)
        out += fmt::format("  end-to-end latency about {:.0f} ms: decode {:.1f}, preprocess {:.1f}, batch fill {:.1f}, inference {:.1f}, "
                           "postprocess {:.1f}, tracking {:.1f}\n",
                           *v.latency_ms, v.stages->decode_ms, v.stages->preprocess_ms, v.stages->batch_fill_ms, v.stages->inference_ms,
                           v.stages->postprocess_ms, v.stages->tracking_ms);
      if (v.usd_per_stream_hour) out += fmt::format("  {} per stream-hour\n", usd_text(*v.usd_per_stream_hour));
      for (const auto& n : v.notes) out += "  note: " + n.text() + "\n";
    }
    out += serving_rates_text(w, *on_gpu);
    if (t.band)
      out += fmt::format("  band: {:.3g} to {:.3g} ({}), driven by {}\n", t.band->low, t.band->high,
                         t.band->metric == "train_tokens_per_second_per_gpu" ? fmt::format("training tokens/s per {}", per)
                         : t.band->metric == "images_per_second"             ? fmt::format("images/s per {}", per)
                                                                              : std::string("decode tokens/s"),
                         t.band->drivers.text());
    const JobCost& k = on_gpu->cost;
    {
      const SystemNeeds& sn = on_gpu->system;
      const double u = mem_div(style);
      const char* un = mem_unit(style);
      // An instance is the host: no other host RAM or cores to name, its disk still.
      const std::string host = cpu ? "" : fmt::format("{:.0f} {} host RAM and {:.0f} CPU cores per node, ", sn.host_ram_bytes / u, un, sn.cpu_cores);
      out += fmt::format("  system: {}{}{:.0f} {} disk\n", host,
                         sn.checkpoint_bytes ? fmt::format("{:.1f} {} per checkpoint, ", *sn.checkpoint_bytes / u, un) : "", sn.disk_bytes / u, un);
    }
    if (t.job_seconds)
      out += fmt::format("  job: {} of compute; billed {} per {} (start {:.2f} h, setup {:.2f} h, checkpoint writes {:.2f} h, expected rework {:.2f} h)\n",
                         duration_text(*t.job_seconds), duration_text(k.wall_hours * 3600), per, k.start_hours, k.setup_hours, k.checkpoint_hours, k.rework_hours);
    if (k.total_usd)
      out += fmt::format("  cost: ${:.2f} for the job at ${:.2f}/{}-h ({}{})\n", *k.total_usd, *k.price.usd_per_gpu_hour, per,
                         k.price.provider, k.price.date_seen.empty() ? "" : ", seen " + k.price.date_seen);
    else if (k.price.usd_per_gpu_hour)
      out += fmt::format("  price: ${:.2f}/{}-h ({}{}); {}\n", *k.price.usd_per_gpu_hour, per, k.price.provider,
                         k.price.date_seen.empty() ? "" : ", seen " + k.price.date_seen,
                         on_gpu->fits ? "give " + job_size_flags(w, m) + " for the job's cost" : on_gpu->supported ? "no job cost: the plan does not fit" : "no job cost: it cannot run as asked");
    if (k.usd_per_million_output_tokens) out += fmt::format("  {} per million output tokens\n", usd_text(*k.usd_per_million_output_tokens));
    if (k.usd_per_thousand_images) out += fmt::format("  {} per thousand images\n", usd_text(*k.usd_per_thousand_images));
    if (k.usd_per_million_input_tokens && k.usd_per_million_output_tokens_apart)
      out += fmt::format("  priced apart by the GPU time each takes: {} per million input tokens, {} per million output tokens\n",
                         usd_text(*k.usd_per_million_input_tokens), usd_text(*k.usd_per_million_output_tokens_apart));
    for (const auto& n : on_gpu->notes) out += "  note: " + n.text() + "\n";
    for (const auto& n : on_gpu->facts) out += "  note: " + n.text() + "\n";
    for (const auto& n : on_gpu->time.notes)
      if (std::find(on_gpu->notes.begin(), on_gpu->notes.end(), n) == on_gpu->notes.end()) out += "  note: " + n.text() + "\n";
    if (style.hints && on_gpu->fits) out += "  launch hints:\n" + hints_text(w, *on_gpu, m);
  } else {
    out += "\nNo --gpu given: runtime overhead is that of a current data-centre GPU.\n";
  }
  for (const auto& n : m.notes) out += "note: " + n + "\n";
  for (const auto& n : mem.notes) out += "note: " + n.text() + "\n";
  return out;
}

namespace {
// Below the rows, appended to the table: launch hints, the count that fits, why the others do not, and the
// grouped notes.
void ranking_footer(std::string& out, const Workload& w, const Ranking& r, const ModelSpec& m, const Style& style, std::size_t fitting) {
  const bool has_time = r.has_job;
  const std::string un = mem_unit(style);
  out += "\n";
  if (style.hints) {
    out += "Launch hints (first 5 that fit):\n";
    std::size_t shown_h = 0;
    for (const auto& c : r.rows) {
      if (!c.fits || shown_h >= 5) continue;
      ++shown_h;
      out += "  " + c.gpu->id + " (" + c.layout + "): " + c.why + "\n" + hints_text(w, c, m);
    }
    out += "\n";
  }
  if (fitting == 0 && !r.dropped.empty())
    out += paint(style, fmt::format("No plan meets the deadline or budget: {} GPU type(s) fit the workload but are dropped, each with its closest plan below.",
                                    r.dropped.size()), "31") + "\n";
  else if (fitting == 0) out += paint(style, "Nothing in the catalogue fits this workload within the searched layouts.", "31") + "\n";
  else out += fmt::format("{} of {} GPU types can run it. Memory is per GPU at the peak (nvidia-smi view).\n", fitting, r.rows.size());
  // Every row that is not a plain fit says why; rows with the same reason, and notes that differ only in their
  // numbers, are said once with the GPUs they concern (and the numbers' range).
  std::vector<std::pair<std::string, std::string_view>> reasons;
  for (const auto& c : r.rows) {
    if (c.fits && !c.tight && c.value_usd) continue;
    std::string why;
    if (!c.supported) {
      why = "not supported: " + (c.notes.empty() ? std::string("this precision or software") : c.notes.front().text());
    } else if (!c.fits) {
      why = c.why.empty() ? fmt::format("needs {} {} per GPU of {} {}", gbs(c.memory.device_peak, style), un, gbs(static_cast<double>(c.gpu->memory_bytes), style), un) : c.why;
    } else if (c.tight) {
      why = "tight: " + c.why;
    } else {
      why = "not ranked by value: " + (c.unranked.empty() ? std::string("figure unknown") : c.unranked);
    }
    reasons.emplace_back(why, c.gpu->id);
  }
  // Dropped GPUs whose closest plan is known each get their own line (nearest to the limit first); those that
  // could not be judged are grouped by reason with the rest.
  std::vector<std::string> dropped_ids;  // the views in `reasons` point here: reserved, so never moved
  dropped_ids.reserve(r.dropped.size());
  for (const auto& d : r.dropped)
    if (!d.has_plan()) reasons.emplace_back(d.reason, dropped_ids.emplace_back(d.gpu + " (dropped)"));
  if (!reasons.empty()) {
    out += "Why not:\n";
    for (const auto& g : detail::group_notes(reasons)) out += "  " + detail::join_ids(g.gpus, 0) + ": " + g.text + "\n";
  }
  const Dropped* before = nullptr;
  for (const Dropped* d : detail::dropped_in_order(r)) {
    if (!d->has_plan()) break;  // the rest were not judged: grouped above
    if (!before || d->over_budget != before->over_budget)
      out += d->over_budget ? "Dropped by --budget, the cheapest first:\n" : "Dropped by --deadline, the fastest first:\n";
    out += "  " + d->gpu + ": " + d->reason + "\n";
    before = d;
  }
  std::vector<std::pair<std::string, std::string_view>> notes;
  for (const auto& c : r.rows) {
    if (!c.fits) continue;
    for (const auto& n : c.notes) notes.emplace_back(n.text(), c.gpu->id);
    for (const auto& n : c.time.notes) notes.emplace_back(n.text(), c.gpu->id);
  }
  out += "Notes:\n";
  for (const auto& n : m.notes) out += "  " + n + "\n";  // what the model's shape rests on (a bare size, a multimodal checkpoint)
  for (const auto& n : r.notes) out += "  " + n.text() + "\n";
  for (const auto& g : detail::group_notes(notes)) out += "  " + g.text + " (" + detail::join_ids(g.gpus, 3) + ")\n";
  if (has_time)
    out += "Job time is billed wall time per GPU: compute + start + setup + checkpoint writes + expected rework after interruptions.\n";
  else
    out += "No job size given: add " + r.job_size_hint + " for time and cost per job.\n";
  // The stated price policy (method.md §10), as asked: the cheapest of each GPU's offers unless --price-policy median;
  // where no row has a price, that is what the footer says.
  const bool priced = std::any_of(r.rows.begin(), r.rows.end(), [](const Candidate& c) { return c.cost.price.usd_per_gpu_hour.has_value(); });
  const bool median = r.price_policy == PricePolicy::median;
  const char *used = median ? "median" : "cheapest", *other = median ? "cheapest" : "median";
  if (w.owned)  // owned hardware: the purchase amortised and the energy, not the offers to rent (method.md §10)
    out += priced ? fmt::format("Costs are owned hardware: each GPU's purchase price (the catalogue's, or --purchase-price) over {:g} years at {:.0f}% "
                                "use, plus energy at ${:g}/kWh.\n", w.amortize_years, 100.0 * w.utilization, w.power_usd_per_kwh)
                  : "No row has a price: the catalogue has no purchase price for these GPUs (--purchase-price ID=USD sets one).\n";
  else if (!priced)
    out += "No row has a price: the catalogue has none for these GPUs (--price ID=USD sets one, per GPU-hour).\n";
  else
    out += fmt::format("Prices are the {} of each GPU's indicative on-demand offers with the date they were seen (gpuadvise gpus ID shows them; "
                       "--price-policy {} takes the {}).\n", used, other, other);
}

}  // namespace

std::string ranking_table(const Workload& w, const ModelSpec& m, const Ranking& r, const Style& style) {
  std::string out;
  if (r.rows.empty()) {
    // Every GPU asked was dropped (a deadline or budget no plan meets): say how close each came, as below a table.
    if (r.dropped.empty()) return "No GPU selected.\n";
    out = paint(style, "No plan meets the deadline or budget: every GPU asked fits the workload but is dropped, each with its closest plan:", "31") + "\n";
    for (const Dropped* d : detail::dropped_in_order(r)) out += "  " + d->gpu + ": " + d->reason + "\n";
    return out;
  }
  // Written once into room for the whole table (a row is under 256 bytes, the notes a few KB): growing by
  // doubling would touch about twice the memory.
  out.reserve(256 * r.rows.size() + 8192);
  // The lines above and below the table wrap at the terminal's width (the launch hints stay whole, to be copied).
  std::string top = "Workload: " + workload_line(w, m, r.rows.front().memory) + "\n";
  top += "Order: " + r.order_text + "\n";
  for (const auto& rec : r.recommendations)
    top += fmt::format("{} {:<34} {}\n", paint(style, fmt::format("{:<11}", rec.label + ":"), "1"), rec.gpu, rec.reason);
  if (r.recommendations.empty())
    top += r.dropped.empty() ? "No plan fits within the margin: see the reasons below.\n"
                             : "No plan meets the deadline or budget: the GPUs dropped below say how close each came.\n";
  out += wrap_text(top, style.width) + "\n";
  out += detail::ranking_grid(w, m, r, style);
  // The CPU instances, where one finishes the job within a day (the "on a CPU" line): their rows beneath.
  if (std::any_of(r.recommendations.begin(), r.recommendations.end(), [](const Recommendation& x) { return x.label == "on a CPU"; })) {
    Ranking cpus;
    cpus.order = r.order;
    cpus.has_job = r.has_job;
    cpus.rows = r.cpu_rows;
    out += "\nCPU instances, one each, beside the GPUs (method.md §16):\n" + detail::ranking_grid(w, m, cpus, style);
  }
  const auto fitting = static_cast<std::size_t>(std::count_if(r.rows.begin(), r.rows.end(), [](const Candidate& c) { return c.fits; }));
  std::string footer;
  ranking_footer(footer, w, r, m, style, fitting);
  std::size_t at = 0;
  while (at < footer.size()) {
    const std::size_t end = std::min(footer.find('\n', at), footer.size());
    const std::string line = footer.substr(at, end - at);
    out += line.rfind("    ", 0) == 0 ? line : wrap_text(line, style.width);
    if (end < footer.size()) out += '\n';
    at = end + 1;
  }
  return out;
}

std::string fit_table(const Workload& w, const ModelSpec& m, const GpuSpec& g, const FitResult& r, const Style& style) {
  std::string out;
  const std::string what = r.what == Maximize::seq_len ? "sequence length" : r.what == Maximize::batch ? "batch" : "concurrency";
  if (r.value == 0) {
    return fmt::format("{} does not fit on {} even at {} 1: {} {} per GPU needed, {} {} usable\n{}{}", m.id, g.id, what,
                       gbs(r.next ? r.next->memory.device_peak : 0.0, style), mem_unit(style), gbs(static_cast<double>(g.memory_bytes), style), mem_unit(style),
                       r.as_given.empty() ? "" : "  " + r.as_given + "\n", r.layout_given.empty() ? "" : "  " + r.layout_given + "\n");
  }
  const bool pool = r.pool_bound(), latency = r.latency_bound();
  out += fmt::format("Largest {} that {} {} ({} {} usable, {:g}% kept free) for {} {}: {}\n", what, detail::fit_verb(r), g.id, gbs(static_cast<double>(g.memory_bytes), style), mem_unit(style), r.min_headroom_pct, m.id, to_string(w.mode),
                     paint(style, std::to_string(r.value), "1"));
  if (!r.as_given.empty()) out += "  " + r.as_given + "\n";
  if (!r.layout_given.empty()) out += "  " + r.layout_given + "\n";
  out += fmt::format("  at {}: device peak {} {}, headroom {} {}\n", r.value, gbs(r.at->memory.device_peak, style), mem_unit(style), gbs(r.at->headroom_bytes, style), mem_unit(style));
  if (latency) out += fmt::format("  at {}: {}\n", r.value + 1, r.next->fit_reason.text());
  else if (r.next && pool) out += fmt::format("  at {}: the pool is full; the engine runs {} and queues the rest\n", r.value + 1, r.value);
  else if (r.next) out += fmt::format("  at {}: {} {}, does not fit within the margin\n", r.value + 1, gbs(r.next->memory.device_peak, style), mem_unit(style));
  else out += "  limited by " + (r.limited_by.empty() ? std::string("the search's upper limit") : r.limited_by) + ", not by memory\n";
  out += "\n";
  out += memory_breakdown(r.at->memory, style);
  return out;
}

}  // namespace gpuadvise
