// Markdown for CI comments and notes: real tables for the ranking, an estimate, a fit and one GPU's entry
// (the lists, sweep, check and calibration have theirs beside their text in report_lists.cpp and report_check.cpp).
#include <algorithm>
#include <fmt/format.h>

#include "gpuadvise/escape.hpp"
#include "gpuadvise/planning.hpp"
#include "gpuadvise/report.hpp"
#include "report_detail.hpp"

namespace gpuadvise {

// escape.hpp's markdown_text: no cell can end early, open a link, a code span or HTML, or hold a control character.
std::string markdown_cell(const std::string& s) { return markdown_text(s); }

namespace {
using detail::gbs;
using detail::mem_div;
using detail::mem_unit;
using detail::workload_line;
std::string cell(const std::string& s) { return markdown_cell(s); }
std::string md_money(const std::optional<double>& v) { return v ? fmt::format("${:.2f}", *v) : "—"; }

// The components of a peak and their sum, one row each (as the text's breakdown).
std::string memory_rows(const MemoryEstimate& mem, const Style& style) {
  std::string out = std::string("| component | ") + mem_unit(style) + " |\n|---|--:|\n";
  const std::pair<const char*, double> parts[] = {{"weights", mem.weights},          {"gradients", mem.gradients},
                                                  {"optimizer states", mem.optimizer_states}, {"activations", mem.activations},
                                                  {"KV cache", mem.kv_cache},        {"logits", mem.logits},
                                                  {"allocator reserve", mem.allocator_reserve}, {"runtime (CUDA etc.)", mem.runtime}};
  for (const auto& [name, bytes] : parts)
    if (bytes > 0) out += fmt::format("| {} | {:.2f} |\n", name, bytes / mem_div(style));
  return out + fmt::format("| **device peak** | **{:.2f}** |\n", mem.device_peak / mem_div(style));
}
}  // namespace

std::string ranking_markdown(const Workload& w, const ModelSpec& m, const Ranking& r, const Style& style) {
  std::string out;
  if (r.rows.empty()) {
    if (r.dropped.empty()) return "No GPU selected.\n";
    out = "- No plan meets the deadline or budget: every GPU asked fits the workload but is dropped, each with its closest plan:\n";
    for (const Dropped* d : detail::dropped_in_order(r)) out += "  - `" + d->gpu + "`: " + cell(d->reason) + "\n";
    return out;
  }
  out += "**Workload:** " + cell(workload_line(w, m, r.rows.front().memory)) + "\n\n";
  for (const auto& rec : r.recommendations) out += "- **" + rec.label + ":** `" + rec.gpu + "` " + cell(rec.reason) + "\n";
  if (r.recommendations.empty())
    out += r.dropped.empty() ? "- No plan fits within the margin.\n" : "- No plan meets the deadline or budget: the GPUs dropped say how close each came.\n";
  const bool inference = !is_training(w.mode) && !m.vision;
  out += "\n| # | GPU | fits | GPUs | layout | peak/GPU (" + std::string(mem_unit(style)) + ") | usable (" + mem_unit(style) + ") | $/GPU-h | " +
         std::string(m.vision ? "img/s/GPU" : inference ? "output tok/s" : "tok/s/GPU") + " | job time | job cost |\n";
  out += "|--:|---|---|--:|---|--:|--:|--:|--:|--:|--:|\n";
  std::size_t i = 0;
  for (const auto& c : r.rows) {
    ++i;
    const double replicas = static_cast<double>(c.planned.gpus) / static_cast<double>(std::max<std::int64_t>(1, c.planned.tp * c.planned.pp));
    double rate = -1.0;
    if (m.vision && c.time.images_per_second) rate = *c.time.paced_images_per_second();
    else if (!m.vision && inference && c.time.decode_tokens_per_second) rate = *c.time.decode_tokens_per_second * replicas;
    else if (!m.vision && !inference && c.time.train_tokens_per_second_per_gpu) rate = *c.time.train_tokens_per_second_per_gpu;
    const std::string rate_s = rate < 0 ? "—" : fmt::format(fmt::runtime(rate < 10 ? "{:.2f}" : "{:.0f}"), rate);
    out += fmt::format("| {} | `{}` | {} | {} | {} | {:.1f} | {:.1f} | {} | {} | {} | {} |\n", i, c.gpu->id,
                       c.fits ? (c.tight ? "tight" : "yes") : (c.supported ? "no" : "n/a"), c.gpus, cell(c.layout), c.memory.device_peak / mem_div(style),
                       static_cast<double>(c.gpu->memory_bytes) / mem_div(style), c.usd_per_gpu_hour() ? fmt::format("{:.2f}", *c.usd_per_gpu_hour()) : "—",
                       rate_s,
                       c.cost.wall_hours > 0 ? duration_text(c.cost.wall_hours * 3600) : "—", md_money(c.cost.total_usd));
  }
  std::string why;
  for (const auto& c : r.rows)
    if (!c.fits && !c.why.empty()) why += "- `" + c.gpu->id + "`: " + cell(c.why) + "\n";
  // The GPUs --deadline or --budget dropped, each with its closest plan (nearest first), then those not judged.
  for (const Dropped* d : detail::dropped_in_order(r)) why += "- `" + d->gpu + "` (dropped): " + cell(d->reason) + "\n";
  if (!why.empty()) out += "\n<details><summary>Why not</summary>\n\n" + why + "\n</details>\n";
  // What the model's shape rests on and what the ranking says of the whole table, as the text table's notes.
  std::string notes;
  for (const auto& n : m.notes) notes += "- " + cell(n) + "\n";
  for (const auto& n : r.notes) notes += "- " + cell(n.text()) + "\n";
  if (!notes.empty()) out += "\n**Notes:**\n\n" + notes;
  out += w.owned ? "\nMemory is per GPU at the peak (nvidia-smi view); costs are owned hardware: purchase prices amortised, plus energy.\n"
                 : "\nMemory is per GPU at the peak (nvidia-smi view); prices are indicative on-demand offers with the date they were seen.\n";
  return out;
}

std::string estimate_markdown(const Workload& w, const ModelSpec& m, const Candidate* on_gpu, const MemoryEstimate& mem, const Style& style) {
  std::string out = "**Workload:** " + cell(workload_line(w, m, mem)) + "\n\n" + memory_rows(mem, style);
  if (on_gpu) {
    const Candidate& c = *on_gpu;
    out += fmt::format("\nOn `{}` ({} {}): **{}**{}\n", c.gpu->id, gbs(static_cast<double>(c.gpu->memory_bytes), style), mem_unit(style),
                       c.fits ? (c.tight ? "tight" : "fits") : "does not fit", c.fit_reason.empty() ? "" : " — " + cell(c.fit_reason.text()));
    if (c.time.train_tokens_per_second_per_gpu) out += fmt::format("- {:.0f} training tokens/s per GPU\n", *c.time.train_tokens_per_second_per_gpu);
    if (c.time.decode_tokens_per_second) out += fmt::format("- {:.0f} output tokens/s, TPOT {:.1f} ms\n", *c.time.decode_tokens_per_second, c.time.tpot_seconds.value_or(0) * 1e3);
    if (c.time.images_per_second)
      out += fmt::format("- {:.3g} images/s per GPU{}\n", *c.time.paced_images_per_second(),
                         c.time.input_bound() ? fmt::format(" (its input's pace; the GPU's own {:.3g})", *c.time.images_per_second) : "");
    if (c.cost.total_usd) out += fmt::format("- job: {} billed, {}\n", duration_text(c.cost.wall_hours * 3600), md_money(c.cost.total_usd));
  }
  return out;
}

std::string fit_markdown(const Workload& w, const ModelSpec& m, const GpuSpec& g, const FitResult& r, const Style& style) {
  const std::string what = r.what == Maximize::seq_len ? "sequence length" : r.what == Maximize::batch ? "batch" : "concurrency";
  const std::string usable = gbs(static_cast<double>(g.memory_bytes), style) + " " + mem_unit(style);
  const bool pool = r.pool_bound(), latency = r.latency_bound();
  std::string out = fmt::format("## Largest {} that {} `{}`\n\n**Workload:** {} {}; {} usable, {:g}% kept free.\n\n", what,
                                detail::fit_verb(r), g.id, cell(m.id), to_string(w.mode), usable, r.min_headroom_pct);
  if (r.value == 0)
    return out + fmt::format("Does not fit even at {} 1: {} {} per GPU needed.\n{}", what, gbs(r.next ? r.next->memory.device_peak : 0.0, style), mem_unit(style),
                             r.layout_given.empty() ? "" : "\n" + cell(r.layout_given) + "\n");
  if (!r.as_given.empty()) out += cell(r.as_given) + "\n\n";
  if (!r.layout_given.empty()) out += cell(r.layout_given) + "\n\n";
  out += fmt::format("| {} | device peak ({}) | headroom ({}) | verdict |\n|--:|--:|--:|---|\n", what, mem_unit(style), mem_unit(style));
  out += fmt::format("| **{}** | {} | {} | fits |\n", r.value, gbs(r.at->memory.device_peak, style), gbs(r.at->headroom_bytes, style));
  if (latency)
    out += fmt::format("| {} | {} | {} | {} |\n", r.value + 1, gbs(r.next->memory.device_peak, style), gbs(r.next->headroom_bytes, style),
                       cell(r.next->fit_reason.text()));
  else if (r.next && pool)
    out += fmt::format("| {} | {} | {} | the pool is full: queued |\n", r.value + 1, gbs(r.next->memory.device_peak, style), gbs(r.next->headroom_bytes, style));
  else if (r.next)
    out += fmt::format("| {} | {} | {} | does not fit within the margin |\n", r.value + 1, gbs(r.next->memory.device_peak, style), gbs(r.next->headroom_bytes, style));
  else out += "\nLimited by " + cell(r.limited_by.empty() ? std::string("the search's upper limit") : r.limited_by) + ", not by memory.\n";
  return out + "\nAt " + std::to_string(r.value) + ":\n\n" + memory_rows(r.at->memory, style);
}

std::string gpu_detail_markdown(const GpuSpec& g, const Style& style) {
  const detail::GpuDetail d = detail::gpu_detail(g, style);
  using detail::TextColumn;
  std::vector<std::vector<std::string>> rows;
  for (const auto& [label, value] : d.fields) rows.push_back({label, value});
  std::string out = "## " + cell(d.title) + "\n\n" + detail::markdown_grid({TextColumn{"field"}, TextColumn{"value"}}, rows);
  out += "\n### Prices (indicative, on-demand per GPU-hour)\n\n";
  rows.clear();
  for (const auto& p : d.prices) rows.push_back({p[0], p[1], p[2], p[3]});
  out += d.prices.empty() ? "None known.\n"
                          : detail::markdown_grid({TextColumn{"provider"}, TextColumn{"USD/GPU-h", true}, TextColumn{"seen"}, TextColumn{"source"}}, rows);
  rows.clear();
  for (const auto& [k, v] : d.sources) rows.push_back({k, v});
  out += "\n### Sources\n\n" + detail::markdown_grid({TextColumn{"field"}, TextColumn{"source"}}, rows);
  if (!d.uncertain.empty()) {
    out += "\n### Uncertain\n\n";
    for (const auto& u : d.uncertain) out += "- " + cell(u) + "\n";
  }
  if (!d.notes.empty()) out += "\n" + cell(d.notes) + "\n";
  return out;
}

}  // namespace gpuadvise
