// Text for the listings and the smaller commands: the GPU catalogue and one GPU, the model presets, a
// calibration beside its estimate, a sweep drawn in the terminal, and the results of check.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "gpuadvise/correction.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/escape.hpp"
#include "gpuadvise/report.hpp"
#include "gpuadvise/units.hpp"
#include "report_detail.hpp"
#include "report_json_detail.hpp"
#include "gpuadvise/bounds.hpp"
#include "gpuadvise/error.hpp"

namespace gpuadvise {

namespace {
using detail::gbs;
using detail::mem_div;
using detail::mem_unit;
using detail::mib;
using detail::paint;
}  // namespace

namespace {

std::string num_or_dash(const std::optional<double>& v, const char* f = "{:.0f}") {
  return v ? fmt::format(fmt::runtime(f), *v) : std::string("—");
}
}  // namespace


namespace {
// The catalogue as columns and rows: what the text and the markdown tables of `gpus` show.
std::pair<std::vector<detail::TextColumn>, std::vector<std::vector<std::string>>> gpu_grid(const GpuCatalog& cat, const Style& style) {
  std::vector<detail::TextColumn> cols{{"id", false, 0},          {"vendor", false, 20},      {std::string("mem ") + mem_unit(style), true, 90},
                                       {"TB/s", true, 60},        {"bf16 TF", true, 70},       {"fp8 TF", true, 40},
                                       {"link GB/s", true, 30},   {"stack", false, 50},        {"$/GPU-h", true, 80}};
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : cat.gpus) {
    const PriceOffer* o = g.cheapest_offer();
    auto tf = [&](const char* k) { return g.dense_tflops.get(k); };
    rows.push_back({g.id, g.vendor, gbs(static_cast<double>(g.memory_bytes), style),
                    g.bandwidth_gb_per_s ? fmt::format("{:.2f}", *g.bandwidth_gb_per_s / 1000) : "—", num_or_dash(tf("bf16")), num_or_dash(tf("fp8")),
                    num_or_dash(g.interconnect_gb_per_s), g.stack, o ? fmt::format("{:.2f}", *o->usd_per_gpu_hour) : "—"});
  }
  return {cols, rows};
}

std::string gpus_footer(const GpuCatalog& cat, const Style& style) {
  return fmt::format("{} GPUs, catalogue {}. Memory is the capacity CUDA reports ({}); TFLOPS are dense.\n", cat.gpus.size(), cat.version,
                     style.units == MemUnits::gib ? "GiB = 2^30 bytes" : "GB = 1e9 bytes");
}

std::pair<std::vector<detail::TextColumn>, std::vector<std::vector<std::string>>> model_grid(const ModelCatalog& cat) {
  std::vector<detail::TextColumn> cols{{"id", false, 0}, {"family", false, 30}, {"params B", true, 80}, {"active B", true, 70}, {"shape", false, 20, true}};
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : cat.models) {
    const ParamCounts pc = count_params(m);
    std::string shape;
    if (m.vision) {
      shape = fmt::format("{} at {}x{}", m.vision->task, m.vision->ref_w, m.vision->ref_h);
    } else {
      shape = fmt::format("L={} h={} heads={} kv={} f={} V={}", m.layers + m.encoder_layers, m.hidden, m.heads, m.kv_heads, m.ffn, m.vocab);
      if (m.is_moe()) shape += fmt::format(" experts={}/{}", m.experts_per_token, m.experts);
    }
    rows.push_back({m.id, m.family, fmt::format("{:.3f}", pc.total / 1e9), fmt::format("{:.3f}", pc.active / 1e9), shape});
  }
  return {cols, rows};
}

std::string models_footer(const ModelCatalog& cat) {
  return fmt::format("{} presets. --model also takes a size (7B) or a Hugging Face config.json path.\n", cat.models.size());
}
}  // namespace

std::string gpus_table(const GpuCatalog& cat, const Style& style) {
  const auto [cols, rows] = gpu_grid(cat, style);
  return detail::text_table(cols, rows, style.width) + "\n" + gpus_footer(cat, style);
}

std::string gpus_markdown(const GpuCatalog& cat, const Style& style) {
  const auto [cols, rows] = gpu_grid(cat, style);
  return "## GPU catalogue\n\n" + detail::markdown_grid(cols, rows) + "\n" + gpus_footer(cat, style);
}

namespace detail {
GpuDetail gpu_detail(const GpuSpec& g, const Style& style) {
  GpuDetail d;
  d.title = fmt::format("{} ({})", printable(g.name), g.id);
  auto add = [&](const char* label, std::string value) { d.fields.emplace_back(label, std::move(value)); };
  add("vendor", g.vendor);
  add("architecture", g.architecture);
  add("segment", fmt::format("{} ({})", to_string(g.segment), g.form_factor));
  add("memory", fmt::format("{} bytes = {:.2f} {} = {} ({}), {} {:.0f} GB nominal", g.memory_bytes, static_cast<double>(g.memory_bytes) / mem_div(style),
                            mem_unit(style), mib(static_cast<double>(g.memory_bytes)), g.capacity_basis, g.memory_type, g.nominal_memory_gb));
  add("bandwidth", num_or_dash(g.bandwidth_gb_per_s) + " GB/s");
  std::string tf;
  for (std::size_t i = 0; i < DenseTflops::keys.size(); ++i)
    tf += fmt::format("{}{}={}", i ? " " : "", DenseTflops::keys[i], num_or_dash(g.dense_tflops.values[i], "{:g}"));
  add("dense TFLOPS", tf);
  add("interconnect", fmt::format("{} ({} GB/s)", g.interconnect, num_or_dash(g.interconnect_gb_per_s)));
  add("PCIe gen", g.pcie_gen ? std::to_string(*g.pcie_gen) : "—");
  if (g.host_link_gb_per_s)
    add("host link", fmt::format("{:g} GB/s both ways to its CPU's memory, not PCIe: CPU offload crosses it (method.md §8.4)", *g.host_link_gb_per_s));
  add("board power", num_or_dash(g.board_power_w) + " W");
  if (g.sustained_clock_share)
    add("clock under load", fmt::format("{:g} of the boost clock: the time model runs its peaks at that share (method.md §8.2)", *g.sustained_clock_share));
  if (g.multiprocessors || g.boost_clock_mhz)
    add("multiprocessors", fmt::format("{} at {} MHz boost", g.multiprocessors ? std::to_string(*g.multiprocessors) : std::string("—"), num_or_dash(g.boost_clock_mhz, "{:g}")));
  add("node", fmt::format("{} GPUs per server{}; fast link joins {}; PCIe peer-to-peer {}", g.gpus_per_node(),
                          g.node_size_assumed() ? " (assumed: not in the catalogue)" : "", g.node.fast_link_gpus,
                          g.node.pcie_p2p ? (*g.node.pcie_p2p ? "yes" : "no (stock driver)") : "not known"));
  add("network", (g.node.network.empty() ? std::string("not known") : g.node.network) +
                     (g.node.network_gbit_per_gpu ? fmt::format(" ({:g} Gb/s per GPU)", *g.node.network_gbit_per_gpu) : ""));
  add("formats", fmt::format("fp8 {}, fp4 {}", g.fp8 ? "yes" : "no", g.fp4 ? "yes" : "no"));
  add("software", fmt::format("{} {}", g.stack, g.compute_capability ? "compute capability " + *g.compute_capability : (g.gfx_target ? *g.gfx_target : "")));
  add("server chassis", g.needs_server_chassis ? "required" : "not required");
  add("video decode", (g.nvdec_engines ? fmt::format("{} NVDEC engine(s)", *g.nvdec_engines) : std::string("unknown")) +
                          (g.decode_streams_1080p30 ? fmt::format(", {:g} H.264 1080p30 streams published", *g.decode_streams_1080p30) : std::string()));
  for (const auto& p : g.prices)
    d.prices.push_back({p.provider, p.usd_per_gpu_hour ? fmt::format("${:.2f}", *p.usd_per_gpu_hour) : "—", p.date_seen, p.source});
  for (const auto& [k, v] : g.sources) d.sources.emplace_back(k, v);
  d.uncertain = g.uncertain;
  d.notes = g.notes;
  return d;
}
}  // namespace detail

std::string gpu_detail_table(const GpuSpec& g, const Style& style) {
  const detail::GpuDetail d = detail::gpu_detail(g, style);
  std::string out = d.title + "\n";
  for (const auto& [label, value] : d.fields) out += fmt::format("  {:<15} {}\n", label, value);
  out += "  prices (indicative, on-demand per GPU-hour):\n";
  if (d.prices.empty()) out += "    none known\n";
  for (const auto& p : d.prices) out += fmt::format("    {:<24} {:>8}  seen {}  {}\n", p[0], p[1], p[2], p[3]);
  out += "  sources:\n";
  for (const auto& [k, v] : d.sources) out += fmt::format("    {:<22} {}\n", k, v);
  if (!d.uncertain.empty()) {
    out += "  uncertain:\n";
    for (const auto& u : d.uncertain) out += "    " + u + "\n";
  }
  if (!d.notes.empty()) out += "  notes: " + d.notes + "\n";
  return out;
}

std::string models_table(const ModelCatalog& cat, const Style& style) {
  const auto [cols, rows] = model_grid(cat);
  return detail::text_table(cols, rows, style.width) + "\n" + models_footer(cat);
}

std::string models_markdown(const ModelCatalog& cat) {
  const auto [cols, rows] = model_grid(cat);
  return "## Model presets\n\n" + detail::markdown_grid(cols, rows) + "\n" + models_footer(cat);
}



std::string calibration_view_table(const CalibrationView& v, const Style& style) {
  auto err = [](double measured, double est) { return fmt::format("{:+.1f}%", 100.0 * (est / measured - 1.0)); };
  std::string out = fmt::format("Probe of: gpuadvise estimate {} --gpu {} ({}, torch run)\n\n", printable(v.probe.estimate_args), v.gpu_id,
                                printable(v.probe.gpu_name));
  out += fmt::format("{:<14} {:>14} {:>14} {:>9}\n", "", "measured", "estimated", "error");
  const double u = mem_div(style);
  const std::string un = mem_unit(style);
  out += fmt::format("{:<14} {:>11.2f} {:<3} {:>10.2f} {:<3} {:>9}   torch.cuda.max_memory_allocated\n", "tensor peak", v.probe.max_allocated_bytes / u, un,
                     v.est_tensor_peak / u, un, err(v.probe.max_allocated_bytes, v.est_tensor_peak));
  out += fmt::format("{:<14} {:>11.2f} {:<3} {:>14} {:>9}   torch.cuda.max_memory_reserved\n", "reserved", v.probe.max_reserved_bytes / u, un, "", "");
  out += fmt::format("{:<14} {:>11.2f} {:<3} {:>10.2f} {:<3} {:>9}   the device view (used at the end / estimated peak)\n", "device",
                     v.probe.device_used_bytes / u, un, v.est_device_peak / u, un, err(v.probe.device_used_bytes, v.est_device_peak));
  if (v.est_per_second)
    out += fmt::format("{:<14} {:>14.4g} {:>14.4g} {:>9}   {} per second\n", "throughput", v.probe.per_second, *v.est_per_second,
                       err(v.probe.per_second, *v.est_per_second), v.probe.unit);
  out += fmt::format("\nCorrection for {} with {} ({}): memory x{:.3f}, throughput x{:.3f} (--save keeps it for later answers like this one)\n",
                     v.gpu_id, v.framework, v.training ? "training" : "inference", v.correction.memory_factor, v.correction.speed_factor);
  if (v.correction.scope) out += "It applies to " + scope_text(*v.correction.scope) + "; other workloads keep the plain estimate.\n";
  return out;
}


std::string calibration_view_markdown(const CalibrationView& v, const Style& style) {
  auto err = [](double measured, double est) { return fmt::format("{:+.1f}%", 100.0 * (est / measured - 1.0)); };
  const double u = mem_div(style);
  std::string out = fmt::format("## Calibration on `{}`\n\nProbe of: gpuadvise estimate {} --gpu {} ({}, torch run)\n\n", v.gpu_id,
                                markdown_text(printable(v.probe.estimate_args)), v.gpu_id, markdown_text(printable(v.probe.gpu_name)));
  std::vector<std::vector<std::string>> rows{
      {"tensor peak", fmt::format("{:.2f}", v.probe.max_allocated_bytes / u), fmt::format("{:.2f}", v.est_tensor_peak / u),
       err(v.probe.max_allocated_bytes, v.est_tensor_peak), "torch.cuda.max_memory_allocated"},
      {"reserved", fmt::format("{:.2f}", v.probe.max_reserved_bytes / u), "", "", "torch.cuda.max_memory_reserved"},
      {"device", fmt::format("{:.2f}", v.probe.device_used_bytes / u), fmt::format("{:.2f}", v.est_device_peak / u),
       err(v.probe.device_used_bytes, v.est_device_peak), "the device view (used at the end / estimated peak)"}};
  if (v.est_per_second)
    rows.push_back({"throughput", fmt::format("{:.4g}", v.probe.per_second), fmt::format("{:.4g}", *v.est_per_second), err(v.probe.per_second, *v.est_per_second),
                    v.probe.unit + " per second"});
  using detail::TextColumn;
  out += detail::markdown_grid({TextColumn{std::string("quantity (") + mem_unit(style) + ")"}, TextColumn{"measured", true}, TextColumn{"estimated", true},
                                TextColumn{"error", true}, TextColumn{"what"}},
                               rows);
  out += fmt::format("\nCorrection for `{}` with {} ({}): memory x{:.3f}, throughput x{:.3f} (--save keeps it for later answers like this one).\n", v.gpu_id,
                     markdown_text(v.framework), v.training ? "training" : "inference", v.correction.memory_factor, v.correction.speed_factor);
  if (v.correction.scope) out += "It applies to " + markdown_text(scope_text(*v.correction.scope)) + "; other workloads keep the plain estimate.\n";
  return out;
}

namespace {
using detail::sweep_rate;
using detail::sweep_value;
// The metric a sweep draws, per candidate: bytes of device peak per GPU, throughput per GPU, or job cost.
std::optional<double> sweep_metric(const Sweep& s, const Candidate& c) {
  if (s.metric == "memory") return c.memory.device_peak;
  if (s.metric == "cost") return c.fits ? c.cost.total_usd : std::nullopt;
  return sweep_rate(c);
}
std::string sweep_cell(const Sweep& s, const Candidate& c, const Style& style) {
  const auto v = sweep_metric(s, c);
  const char* no = c.latency_miss > 0 ? "no: latency" : kept_out_by_margin(c) ? "tight" : "no";
  if (!v) return c.fits ? "—" : no;
  if (s.metric == "memory") return fmt::format("{} {}{}{}", gbs(*v, style), mem_unit(style), c.fits ? "" : " ", c.fits ? "" : no);
  if (s.metric == "cost") return fmt::format("${:.2f}", *v);
  return fmt::format(fmt::runtime(*v < 10 ? "{:.2f}/s" : "{:.0f}/s"), *v);
}
}  // namespace

std::string sweep_markdown(const Sweep& s, const Style& style) {
  std::string out = "## Sweep of --" + s.vary + "\n\n" + s.workload_line + "\n\n";
  if (s.points.empty() || s.points.front().per_gpu.empty()) return out + "no points\n";
  std::vector<detail::TextColumn> cols{{"--" + s.vary, true, 0}};
  for (const auto& c : s.points.front().per_gpu) cols.push_back({c.gpu->id, true, 0});
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : s.points) {
    rows.push_back({sweep_value(p.value)});
    for (const auto& c : p.per_gpu) rows.back().push_back(sweep_cell(s, c, style));
  }
  out += detail::markdown_grid(cols, rows);
  for (const auto& n : s.notes) out += "\n- " + n + "\n";
  return out;
}

std::string sweep_table(const Sweep& s, const Style& style) {
  std::string out = "Sweep of --" + s.vary + ": " + s.workload_line + "\n";
  if (s.points.empty() || s.points.front().per_gpu.empty()) return out + "no points\n";
  // Each GPU's column is as wide as its id (never cut) or its widest cell; the bar takes what a narrow terminal
  // leaves (10 to 40 columns).
  std::vector<std::size_t> col;
  for (std::size_t k = 0; k < s.points.front().per_gpu.size(); ++k) {
    std::size_t w = s.points.front().per_gpu[k].gpu->id.size();
    for (const auto& p : s.points) w = std::max(w, sweep_cell(s, p.per_gpu[k], style).size());
    col.push_back(w);
  }
  std::size_t cells = 0;
  for (std::size_t w : col) cells += w + 1;
  const std::size_t room = style.width > 0 && static_cast<std::size_t>(style.width) > 14 + cells ? static_cast<std::size_t>(style.width) - 14 - cells : 40;
  const std::size_t width = std::clamp<std::size_t>(room, 10, 40);
  double top = 0;
  for (const auto& p : s.points)
    for (const auto& c : p.per_gpu) {
      if (auto v = sweep_metric(s, c)) top = std::max(top, *v);
      if (s.metric == "memory") top = std::max(top, static_cast<double>(c.gpu->memory_bytes));
    }
  if (top <= 0) top = 1;
  const char* marks = "|!:+*#";
  const auto& first = s.points.front().per_gpu;
  const std::string what = s.metric == "memory" ? "device peak per GPU (bar: " + first.front().gpu->id + ")"
                           : s.metric == "cost" ? "job cost (bar: " + first.front().gpu->id + ")"
                                                : "throughput per GPU (bar: " + first.front().gpu->id + ")";
  out += fmt::format("{:>10}  {:<{}}", "--" + s.vary, what.size() > width + 2 ? what.substr(0, width + 2) : what, width + 2);
  for (std::size_t k = 0; k < first.size(); ++k) out += fmt::format(" {:>{}}", first[k].gpu->id, col[k]);
  out += "\n";
  for (const auto& p : s.points) {
    std::string bar(width, ' ');
    const auto v = sweep_metric(s, p.per_gpu.front());
    const std::size_t n = v ? static_cast<std::size_t>(std::lround(std::min(1.0, *v / top) * static_cast<double>(width))) : 0;
    std::string drawn;
    for (std::size_t i = 0; i < width; ++i) {
      bool mark = false;
      if (s.metric == "memory")
        for (std::size_t k = 0; k < p.per_gpu.size() && k < 6; ++k) {
          const auto at = static_cast<std::size_t>(std::lround(static_cast<double>(p.per_gpu[k].gpu->memory_bytes) / top * static_cast<double>(width)));
          if (std::min(at, width - 1) == i) {
            drawn.push_back(marks[k]);
            mark = true;
            break;
          }
        }
      if (mark) continue;
      if (i < n) drawn.append("#");
      else drawn.push_back(' ');
    }
    const bool fits_first = p.per_gpu.front().fits;
    out += fmt::format("{:>10}  {}  ", sweep_value(p.value), paint(style, drawn, fits_first ? "32" : "31"));
    for (std::size_t k = 0; k < p.per_gpu.size(); ++k) out += fmt::format(" {:>{}}", sweep_cell(s, p.per_gpu[k], style), col[k]);
    out += "\n";
  }
  if (s.metric == "memory") {
    out += fmt::format("scale 0 to {:.0f} {}; usable memory:", top / mem_div(style), mem_unit(style));
    for (std::size_t k = 0; k < first.size() && k < 6; ++k)
      out += fmt::format(" {} {} {} {}{}", marks[k], first[k].gpu->id, gbs(static_cast<double>(first[k].gpu->memory_bytes), style), mem_unit(style),
                         k + 1 < first.size() ? "," : "");
    out += "\n";
  }
  // Where each GPU starts and stops fitting (more GPUs, each count searched, fit from some count on).
  for (std::size_t k = 0; k < first.size(); ++k) {
    std::optional<double> first_fit, last_fit, fail_before, fail_after;
    for (const auto& p : s.points) {
      if (p.per_gpu[k].fits) {
        if (!first_fit) first_fit = p.value;
        if (!fail_after) last_fit = p.value;
      } else if (first_fit) {
        if (!fail_after) fail_after = p.value;
      } else {
        fail_before = p.value;
      }
    }
    const std::string id = first[k].gpu->id, flag = "--" + s.vary + " ";
    if (!first_fit) out += fmt::format("{}: does not fit from {}{} to {}\n", id, flag, sweep_value(s.points.front().value), sweep_value(s.points.back().value));
    else if (!fail_before && !fail_after) out += id + ": fits the whole range\n";
    else if (!fail_before) out += fmt::format("{}: fits up to {}{}, not at {}\n", id, flag, sweep_value(*last_fit), sweep_value(*fail_after));
    else if (!fail_after) out += fmt::format("{}: fits from {}{} on, not at {}\n", id, flag, sweep_value(*first_fit), sweep_value(*fail_before));
    else out += fmt::format("{}: fits from {}{} to {} only\n", id, flag, sweep_value(*first_fit), sweep_value(*last_fit));
  }
  for (const auto& n : s.notes) out += "note: " + n + "\n";
  return out;
}


using detail::command_header;
using detail::ojson;
using detail::opt;

CalibrationView calibration_view(const std::string& estimate_json_text, const ProbeResult& probe, const GpuSpec& g) {
  CalibrationView v;
  v.probe = probe;
  v.gpu_id = g.id;
  nlohmann::json e;
  try {
    e = nlohmann::json::parse(estimate_json_text);
  } catch (const nlohmann::json::exception&) {
    throw InputError("calibrate: the estimate of estimate_args wrote no JSON object");
  }
  if (!e.is_object() || !e.contains("workload") || !e.contains("memory") || !e.contains("time"))
    throw InputError("calibrate: the estimate of estimate_args wrote no estimate (workload, memory and time)");
  v.framework = e["workload"]["framework"].is_string() ? e["workload"]["framework"].get<std::string>() : "";
  v.training = e["workload"]["mode"].get<std::string>() != "inference";
  v.est_tensor_peak = e["memory"]["tensor_peak_bytes"].get<double>();
  v.est_device_peak = e["memory"]["device_peak_bytes"].get<double>();
  const auto& t = e["time"];
  for (const char* key : {"train_tokens_per_second_per_gpu", "images_per_second", "decode_tokens_per_second"})
    if (t.contains(key) && t[key].is_number()) {
      v.est_per_second = t[key].get<double>();
      v.unit = key;
      break;
    }
  v.correction.gpu = g.id;
  v.correction.framework = v.framework;
  v.correction.training = v.training;
  // The workload measured, from the estimate's own fields: the same formula as a later estimate's (correction.hpp).
  const auto& wk = e["workload"];
  double per_sample = wk["seq_len"].get<double>();
  if (wk.contains("image_size")) per_sample = wk["image_size"]["width"].get<double>() * wk["image_size"]["height"].get<double>();
  v.correction.scope = make_correction_scope(wk["mode"].get<std::string>(), wk["precision"].get<std::string>(),
                                             wk["gradient_checkpointing"].get<std::string>(), wk["sharding"].get<std::string>(),
                                             wk["gpus"].get<std::int64_t>(), wk["tp"].get<std::int64_t>(), wk["pp"].get<std::int64_t>(),
                                             e["model"]["params"].get<double>(), wk["batch"].get<double>(), per_sample);
  // A measurement far from the estimate is another workload or a lie, not a correction: refused, not clamped
  // (docs/method.md §15; the factors a calibration file may hold are the same).
  const double memory_ratio = probe.max_allocated_bytes / v.est_tensor_peak;
  if (!(memory_ratio >= k_calibration_memory_min && memory_ratio <= k_calibration_memory_max))
    throw InputError(fmt::format("calibrate: the measured tensor peak is {:.3g}x the estimate's; a probe of this estimate measures within "
                                 "{:g}x to {:g}x of it (another workload, another GPU, or a result edited by hand): refused",
                                 memory_ratio, k_calibration_memory_min, k_calibration_memory_max));
  const double speed_ratio = v.est_per_second && *v.est_per_second > 0 ? probe.per_second / *v.est_per_second : 1.0;
  if (!(speed_ratio >= k_calibration_speed_min && speed_ratio <= k_calibration_speed_max))
    throw InputError(fmt::format("calibrate: the measured throughput is {:.3g}x the estimate's; a probe of this estimate measures within "
                                 "{:g}x to {:g}x of it: refused", speed_ratio, k_calibration_speed_min, k_calibration_speed_max));
  v.correction.memory_factor = memory_ratio;
  v.correction.speed_factor = speed_ratio;
  return v;
}

std::string calibration_view_json(const CalibrationView& v) {
  ojson j = command_header("calibrate");
  j["estimate_args"] = v.probe.estimate_args;
  j["gpu"] = v.gpu_id;
  j["gpu_name"] = v.probe.gpu_name;
  j["measured"] = {{"tensor_peak_bytes", v.probe.max_allocated_bytes}, {"reserved_bytes", v.probe.max_reserved_bytes},
                   {"device_used_bytes", v.probe.device_used_bytes}, {"per_second", v.probe.per_second}, {"unit", v.probe.unit}};
  j["estimated"] = {{"tensor_peak_bytes", v.est_tensor_peak}, {"device_peak_bytes", v.est_device_peak}, {"per_second", opt(v.est_per_second)}};
  j["correction"] = {{"gpu", v.correction.gpu}, {"framework", v.correction.framework}, {"training", v.correction.training},
                     {"memory_factor", v.correction.memory_factor}, {"speed_factor", v.correction.speed_factor},
                     {"applies_to", v.correction.scope ? scope_text(*v.correction.scope) : ""}};
  return j.dump(2) + "\n";
}

}  // namespace gpuadvise
