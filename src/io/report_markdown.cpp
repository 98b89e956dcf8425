// Markdown for CI comments and notes: real tables for the ranking, an estimate and checks; any other text
// output fenced as a code block.
#include <algorithm>
#include <fmt/format.h>

#include "gpuadvise/escape.hpp"
#include "gpuadvise/report.hpp"
#include "report_detail.hpp"

namespace gpuadvise {

// escape.hpp's markdown_text: no cell can end early, open a link, a code span or HTML, or hold a control character.
std::string markdown_cell(const std::string& s) { return markdown_text(s); }

namespace {
using detail::gbs;
using detail::hours;
using detail::mem_div;
using detail::mem_unit;
using detail::workload_line;
std::string cell(const std::string& s) { return markdown_cell(s); }
std::string md_money(const std::optional<double>& v) { return v ? fmt::format("${:.2f}", *v) : "—"; }
}  // namespace

std::string ranking_markdown(const Workload& w, const ModelSpec& m, const Ranking& r, const Style& style) {
  std::string out;
  if (r.rows.empty()) return "No GPU selected.\n";
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
    if (m.vision && c.time.images_per_second) rate = *c.time.images_per_second;
    else if (!m.vision && inference && c.time.decode_tokens_per_second) rate = *c.time.decode_tokens_per_second * replicas;
    else if (!m.vision && !inference && c.time.train_tokens_per_second_per_gpu) rate = *c.time.train_tokens_per_second_per_gpu;
    const std::string rate_s = rate < 0 ? "—" : fmt::format(fmt::runtime(rate < 10 ? "{:.2f}" : "{:.0f}"), rate);
    out += fmt::format("| {} | `{}` | {} | {} | {} | {:.1f} | {:.1f} | {} | {} | {} | {} |\n", i, c.gpu->id,
                       c.fits ? (c.tight ? "tight" : "yes") : (c.supported ? "no" : "n/a"), c.gpus, cell(c.layout), c.memory.device_peak / mem_div(style),
                       static_cast<double>(c.gpu->memory_bytes) / mem_div(style), c.usd_per_gpu_hour() ? fmt::format("{:.2f}", *c.usd_per_gpu_hour()) : "—",
                       rate_s,
                       c.cost.wall_hours > 0 ? hours(c.cost.wall_hours * 3600) : "—", md_money(c.cost.total_usd));
  }
  std::string why;
  for (const auto& c : r.rows)
    if (!c.fits && !c.why.empty()) why += "- `" + c.gpu->id + "`: " + cell(c.why) + "\n";
  if (!why.empty()) out += "\n<details><summary>Why not</summary>\n\n" + why + "\n</details>\n";
  out += "\nMemory is per GPU at the peak (nvidia-smi view); prices are indicative on-demand offers with the date they were seen.\n";
  return out;
}

std::string estimate_markdown(const Workload& w, const ModelSpec& m, const Candidate* on_gpu, const MemoryEstimate& mem, const Style& style) {
  std::string out = "**Workload:** " + cell(workload_line(w, m, mem)) + "\n\n| component | " + mem_unit(style) + " |\n|---|--:|\n";
  const std::pair<const char*, double> parts[] = {{"weights", mem.weights},          {"gradients", mem.gradients},
                                                  {"optimizer states", mem.optimizer_states}, {"activations", mem.activations},
                                                  {"KV cache", mem.kv_cache},        {"logits", mem.logits},
                                                  {"allocator reserve", mem.allocator_reserve}, {"runtime (CUDA etc.)", mem.runtime}};
  for (const auto& [name, bytes] : parts)
    if (bytes > 0) out += fmt::format("| {} | {:.2f} |\n", name, bytes / mem_div(style));
  out += fmt::format("| **device peak** | **{:.2f}** |\n", mem.device_peak / mem_div(style));
  if (on_gpu) {
    const Candidate& c = *on_gpu;
    out += fmt::format("\nOn `{}` ({} {}): **{}**{}\n", c.gpu->id, gbs(static_cast<double>(c.gpu->memory_bytes), style), mem_unit(style),
                       c.fits ? (c.tight ? "tight" : "fits") : "does not fit", c.fit_reason.empty() ? "" : " — " + cell(c.fit_reason.text()));
    if (c.time.train_tokens_per_second_per_gpu) out += fmt::format("- {:.0f} training tokens/s per GPU\n", *c.time.train_tokens_per_second_per_gpu);
    if (c.time.decode_tokens_per_second) out += fmt::format("- {:.0f} output tokens/s, TPOT {:.1f} ms\n", *c.time.decode_tokens_per_second, c.time.tpot_seconds.value_or(0) * 1e3);
    if (c.time.images_per_second) out += fmt::format("- {:.3g} images/s per GPU\n", *c.time.images_per_second);
    if (c.cost.total_usd) out += fmt::format("- job: {} billed, {}\n", hours(c.cost.wall_hours * 3600), md_money(c.cost.total_usd));
  }
  return out;
}

std::string fenced_markdown(const std::string& title, const std::string& text) { return "**" + title + "**\n\n```text\n" + text + "```\n"; }

}  // namespace gpuadvise
