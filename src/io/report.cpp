#include "gpuadvise/report.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "gpuadvise/units.hpp"
#include "report_detail.hpp"

#ifndef GPUADVISE_VERSION
#define GPUADVISE_VERSION "0.0.0"
#endif

namespace gpuadvise {

const char* tool_version() { return GPUADVISE_VERSION; }

namespace {

using ojson = nlohmann::ordered_json;

using detail::bytes_int;

ojson opt(const std::optional<double>& v) { return v ? ojson(*v) : ojson(nullptr); }
ojson opt(const std::optional<std::string>& v) { return v ? ojson(*v) : ojson(nullptr); }

ojson workload_json(const Workload& w, std::int64_t seq_len, const ModelSpec* m = nullptr) {
  ojson j;
  if (w.name) j["name"] = *w.name;
  j["model"] = w.model;
  j["mode"] = to_string(w.mode);
  j["precision"] = to_string(w.precision);
  j["kv_precision"] = w.kv_precision ? ojson(to_string(*w.kv_precision)) : ojson(nullptr);
  j["double_quant"] = w.double_quant;
  j["master_weights"] = to_string(w.effective_master_weights());
  j["optimizer"] = to_string(w.optimizer);
  j["batch"] = w.batch;
  j["seq_len"] = seq_len;
  j["gradient_checkpointing"] = to_string(w.checkpointing);
  j["flash_attention"] = w.flash_attention;
  j["compile"] = w.compile;
  j["cache_latents"] = w.cache_latents;
  j["vae_tiling"] = w.vae_tiling;
  j["lora_rank"] = w.lora_rank;
  j["lora_targets"] = w.lora_targets.spec;
  j["gpus"] = w.gpus;
  j["sharding"] = to_string(w.sharding);
  j["tp"] = w.tp;
  j["pp"] = w.pp;
  j["framework"] = to_string(m && m->vision ? w.framework.value_or(Framework::pytorch) : w.effective_framework());
  if (m && m->vision) {
    const auto [W, H] = image_size(w, *m);
    j["image_size"] = {{"width", W}, {"height", H}};
  }
  j["offload"] = to_string(w.offload);
  j["tokens"] = opt(w.tokens);
  j["requests"] = opt(w.requests);
  j["input_tokens"] = opt(w.input_tokens);
  j["output_tokens"] = opt(w.output_tokens);
  return j;
}

ojson model_json(const ModelSpec& m, const MemoryEstimate& mem) {
  ojson j;
  j["id"] = m.id;
  j["family"] = m.family;
  j["source"] = m.source;
  j["params"] = mem.params_total;
  j["params_active"] = mem.params_active;
  j["params_trainable"] = mem.params_trainable;
  j["layers"] = m.layers + m.encoder_layers;
  j["hidden_size"] = m.hidden;
  j["attention_heads"] = m.heads;
  j["kv_heads"] = m.kv_heads;
  j["head_dim"] = m.head_dim;
  j["intermediate_size"] = m.ffn;
  j["vocab_size"] = m.vocab;
  j["kv_cache_bytes_per_token_16bit"] = kv_elements_per_token(m) * 2.0;
  if (m.vision) {
    j["task"] = m.vision->task;
    j["backbone"] = m.vision->backbone;
    j["classes"] = m.vision->classes;
  }
  if (m.is_moe()) {
    j["experts"] = m.experts;
    j["experts_per_token"] = m.experts_per_token;
  }
  ojson notes = ojson::array();
  for (const auto& n : m.notes) notes.push_back(n);
  j["notes"] = notes;
  return j;
}

ojson memory_json(const MemoryEstimate& mem, bool explain) {
  ojson j;
  j["tensor_peak_bytes"] = bytes_int(mem.tensor_peak);
  j["device_peak_bytes"] = bytes_int(mem.device_peak);
  j["device_peak_low_bytes"] = bytes_int(mem.device_low);
  j["device_peak_high_bytes"] = bytes_int(mem.device_high);
  ojson c;
  c["weights"] = bytes_int(mem.weights);
  c["gradients"] = bytes_int(mem.gradients);
  c["optimizer_states"] = bytes_int(mem.optimizer_states);
  c["activations"] = bytes_int(mem.activations);
  c["kv_cache"] = bytes_int(mem.kv_cache);
  c["logits"] = bytes_int(mem.logits);
  c["allocator_reserve"] = bytes_int(mem.allocator_reserve);
  c["runtime"] = bytes_int(mem.runtime);
  j["components"] = c;
  j["peak_phase"] = mem.peak_phase;
  j["runtime_basis"] = mem.runtime_assumed_generic ? "no --gpu given: runtime overhead of a current data-centre GPU"
                                                   : "runtime overhead of the given GPU";
  if (mem.vllm) {
    ojson v;
    v["engine"] = mem.vllm->engine;
    v["gpu_memory_utilization"] = mem.vllm->utilization;
    v["budget_bytes"] = bytes_int(mem.vllm->budget_bytes);
    v["kv_pool_bytes"] = bytes_int(mem.vllm->kv_pool_bytes);
    v["kv_bytes_per_token"] = mem.vllm->kv_bytes_per_token;
    v["max_tokens"] = mem.vllm->max_tokens;
    v["max_concurrent_sequences"] = mem.vllm->max_concurrent_sequences;
    j["vllm"] = v;
  }
  if (explain) {
    ojson e = ojson::array();
    for (const auto& x : mem.explain)
      e.push_back({{"component", x.component}, {"formula", x.formula}, {"inputs", x.inputs}, {"bytes", bytes_int(x.bytes)},
                   {"source", x.source}});
    j["explain"] = e;
  }
  return j;
}

ojson system_json(const SystemNeeds& s) {
  ojson j;
  j["host_ram_bytes"] = bytes_int(s.host_ram_bytes);
  j["cpu_cores"] = s.cpu_cores;
  j["checkpoint_bytes"] = s.checkpoint_bytes ? ojson(bytes_int(*s.checkpoint_bytes)) : ojson(nullptr);
  j["disk_bytes"] = bytes_int(s.disk_bytes);
  j["basis"] = s.basis;
  j["notes"] = s.notes;
  return j;
}

ojson time_json(const TimeEstimate& t) {
  ojson j;
  j["train_tokens_per_second_per_gpu"] = opt(t.train_tokens_per_second_per_gpu);
  j["train_flops_per_token"] = opt(t.train_flops_per_token);
  j["prefill_tokens_per_second"] = opt(t.prefill_tokens_per_second);
  j["decode_tokens_per_second"] = opt(t.decode_tokens_per_second);
  j["ttft_seconds"] = opt(t.ttft_seconds);
  j["tpot_seconds"] = opt(t.tpot_seconds);
  j["requests_per_second"] = opt(t.requests_per_second);
  j["images_per_second"] = opt(t.images_per_second);
  j["job_seconds"] = opt(t.job_seconds);
  j["utilization"] = t.utilization;
  j["compute_precision"] = t.compute_key;
  j["bound"] = t.bound;
  j["band"] = t.band ? ojson{{"metric", t.band->metric}, {"low", t.band->low}, {"high", t.band->high}, {"drivers", t.band->drivers}} : ojson(nullptr);
  return j;
}

ojson cost_json(const Candidate& c) {
  const JobCost& k = c.cost;
  ojson j;
  if (k.price.usd_per_gpu_hour) {
    j["price"] = {{"usd_per_gpu_hour", *k.price.usd_per_gpu_hour}, {"provider", k.price.provider}, {"date_seen", k.price.date_seen.empty() ? ojson(nullptr) : ojson(k.price.date_seen)},
                  {"source", k.price.source}, {"basis", k.price.basis}};
  } else {
    j["price"] = nullptr;
  }
  j["usd_per_hour"] = opt(c.usd_per_hour());
  j["job_usd"] = opt(k.total_usd);
  j["compute_usd"] = opt(k.compute_usd);
  j["extras_usd"] = opt(k.extras_usd);
  j["usd_per_million_output_tokens"] = opt(k.usd_per_million_output_tokens);
  j["usd_per_million_input_tokens"] = opt(k.usd_per_million_input_tokens);
  j["usd_per_thousand_images"] = opt(k.usd_per_thousand_images);
  j["usd_per_million_output_tokens_apart"] = opt(k.usd_per_million_output_tokens_apart);
  if (k.compute_hours > 0) {
    j["hours"] = {{"compute", k.compute_hours}, {"setup", k.setup_hours}, {"checkpoint_writes", k.checkpoint_hours},
                  {"expected_rework", k.rework_hours}, {"wall", k.wall_hours}, {"gpu_hours", k.gpu_hours}};
    j["expected_interruptions"] = k.expected_interruptions;
  }
  j["energy_usd"] = opt(k.energy_usd);
  j["amortization_usd"] = opt(k.amortization_usd);
  // Without a job size: the hourly rate of the whole layout and, for inference, per million output tokens.
  if (!k.usd_per_million_output_tokens && c.usd_per_hour() && c.time.decode_tokens_per_second && !is_training(c.planned.mode)) {
    const double replicas = static_cast<double>(c.planned.gpus) / static_cast<double>(c.planned.tp * c.planned.pp);
    j["usd_per_million_output_tokens_at_full_load"] = *c.usd_per_hour() / (*c.time.decode_tokens_per_second * replicas * 3600.0) * 1e6;
  }
  return j;
}

ojson video_json(const VideoPlan& v) {
  return {{"streams_per_gpu", v.streams_per_gpu}, {"limiting_stage", v.limit}, {"gpus_needed", v.gpus_needed},
          {"decode_streams_per_gpu", opt(v.decode_streams)}, {"inference_streams_per_gpu", opt(v.inference_streams)},
          {"memory_streams_per_gpu", v.memory_streams}, {"frames_dropped_pct", v.frames_dropped_pct}, {"latency_ms", opt(v.latency_ms)},
          {"usd_per_stream_hour", opt(v.usd_per_stream_hour)}, {"tracking_cpu_cores", v.tracking_cpu_cores},
          {"latency_stages_ms", v.stages ? ojson{{"decode", v.stages->decode_ms}, {"preprocess", v.stages->preprocess_ms},
                                                 {"batch_fill", v.stages->batch_fill_ms}, {"inference", v.stages->inference_ms},
                                                 {"postprocess", v.stages->postprocess_ms}, {"tracking", v.stages->tracking_ms}}
                                         : ojson(nullptr)},
          {"notes", v.notes}};
}

ojson hints_json(const Candidate& c, const ModelSpec& m) {
  const LaunchHints h = launch_hints(c, m);
  ojson j;
  j["vllm"] = opt(h.vllm);
  j["torchrun"] = opt(h.torchrun);
  j["deepspeed_config"] = h.deepspeed_config ? ojson::parse(*h.deepspeed_config) : ojson(nullptr);
  j["hf_trainer_args"] = opt(h.hf_trainer);
  j["skypilot_accelerator"] = opt(h.skypilot_accelerator);
  j["skypilot_task"] = opt(h.skypilot);
  j["notes"] = h.notes;
  return j;
}

std::string hints_text(const Candidate& c, const ModelSpec& m) {
  const LaunchHints h = launch_hints(c, m);
  std::string out;
  if (h.vllm) out += "    vLLM:       " + *h.vllm + "\n";
  if (h.torchrun) out += "    launch:     " + *h.torchrun + "\n";
  if (h.hf_trainer) out += "    Trainer:    " + *h.hf_trainer + "\n";
  if (h.deepspeed_config) out += "    DeepSpeed:  " + *h.deepspeed_config + "\n";
  if (h.skypilot_accelerator) out += fmt::format("    SkyPilot:   resources: accelerators: {}:{}\n", *h.skypilot_accelerator, std::min<std::int64_t>(c.gpus, 8));
  for (const auto& n : h.notes) out += "    note:       " + n + "\n";
  return out;
}

ojson candidate_json(const Candidate& c, bool explain, const ModelSpec& m) {
  ojson j;
  j["gpu"] = c.gpu->id;
  j["name"] = c.gpu->name;
  j["fits"] = c.fits;
  j["fits_single_gpu"] = c.fits_single;
  j["supported"] = c.supported;
  j["gpus"] = c.gpus;
  j["layout"] = c.layout;
  j["why"] = c.why;
  auto link = [](const std::string& l) { return l.empty() ? ojson(nullptr) : ojson(l); };
  j["plan"] = {{"gpus", c.gpus},
               {"nodes", c.nodes},
               {"gpus_per_node", std::max<std::int64_t>(1, c.gpus / std::max<std::int64_t>(1, c.nodes))},
               {"tp", c.planned.tp},
               {"pp", c.planned.pp},
               {"sharding", to_string(c.planned.sharding)},
               {"offload", to_string(c.planned.offload)},
               {"gradient_checkpointing", to_string(c.planned.checkpointing)},
               {"micro_batch", c.planned.batch},
               {"grad_accum", c.planned.grad_accum},
               {"links", {{"tensor_parallel", link(c.links.tp_link)}, {"data_parallel", link(c.links.dp_link)}, {"pipeline", link(c.links.pp_link)}}}};
  j["fit_reason"] = c.fit_reason.empty() ? ojson(nullptr) : ojson(c.fit_reason);
  j["tight"] = c.tight;
  j["nodes"] = c.nodes;
  j["stage"] = c.stage;
  j["value"] = {{"usd", opt(c.value_usd)}, {"unit", c.value_unit}, {"unknown", c.unranked.empty() ? ojson(nullptr) : ojson(c.unranked)}};
  ojson frontier = ojson::array();
  for (const auto& f : c.frontier)
    frontier.push_back({{"gpus", f.gpus}, {"nodes", f.nodes}, {"layout", f.layout}, {"hours", opt(f.hours)}, {"usd", opt(f.usd)}, {"value_usd", opt(f.value_usd)}});
  j["frontier"] = frontier;
  j["capacity_bytes"] = c.gpu->memory_bytes;
  j["capacity_basis"] = c.gpu->capacity_basis;
  j["headroom_bytes"] = bytes_int(c.headroom_bytes);
  j["headroom_pct"] = 100.0 * c.headroom_bytes / static_cast<double>(c.gpu->memory_bytes);
  j["memory"] = memory_json(c.memory, explain);
  j["time"] = time_json(c.time);
  j["cost"] = cost_json(c);
  j["launch_hints"] = c.fits ? hints_json(c, m) : ojson(nullptr);
  j["system"] = system_json(c.system);
  if (c.video) j["video"] = video_json(*c.video);
  ojson notes = ojson::array();
  for (const auto& n : c.notes) notes.push_back(n);
  for (const auto& n : c.memory.notes) notes.push_back(n);
  for (const auto& n : c.time.notes) notes.push_back(n);
  j["notes"] = notes;
  return j;
}

// Memory in the unit chosen once (--units): GB = 1e9 bytes (the default, as vendors write capacities) or
// GiB = 2^30 bytes (what PyTorch's memory summary prints); nvidia-smi's MiB beside the numbers people check.
double mem_div(const Style& s) { return s.units == MemUnits::gib ? 1073741824.0 : 1e9; }
const char* mem_unit(const Style& s) { return s.units == MemUnits::gib ? "GiB" : "GB"; }
std::string gbs(double bytes, const Style& s) { return fmt::format("{:.1f}", bytes / mem_div(s)); }
std::string mib(double bytes) { return fmt::format("{:.0f} MiB", bytes / 1048576.0); }
// The peak against the usable memory in eight cells ('#' used, '.' free); past the capacity the bar is full and
// closes with '>' instead of ']'. Ten characters.
std::string usage_bar(double peak, double capacity) {
  constexpr int cells = 8;
  if (!(capacity > 0) || !(peak >= 0)) return std::string(cells + 2, ' ');
  const double f = peak / capacity;
  const int used = static_cast<int>(std::clamp(std::lround(f * cells), 0L, static_cast<long>(cells)));
  std::string bar = "[" + std::string(static_cast<std::size_t>(used), '#') + std::string(static_cast<std::size_t>(cells - used), '.') + "]";
  if (f > 1.0) bar.back() = '>';
  return bar;
}

std::string paint(const Style& s, const std::string& text, const char* code) {
  if (!s.color) return text;
  return fmt::format("\x1b[{}m{}\x1b[0m", code, text);
}

std::string pad(const std::string& s, std::size_t w, bool right = false) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

std::string hours(double secs) {
  if (secs < 3600) return fmt::format("{:.0f} min", secs / 60);
  if (secs < 86400 * 3) return fmt::format("{:.1f} h", secs / 3600);
  return fmt::format("{:.1f} d", secs / 86400);
}

std::string workload_line(const Workload& w, const ModelSpec& m, const MemoryEstimate& mem) {
  if (m.vision) {
    const auto [W, H] = image_size(w, m);
    return fmt::format("{} ({:.1f}M params, {}), {}, {}, batch {}, {:.0f}x{:.0f}, framework {}", m.id, mem.params_total / 1e6, m.vision->task,
                       to_string(w.mode), to_string(w.precision), w.batch, W, H, to_string(w.framework.value_or(Framework::pytorch)));
  }
  return fmt::format("{} ({:.2f}B params{}), {}, {}, batch {}, seq {}, framework {}", m.id, mem.params_total / 1e9,
                     m.is_moe() ? fmt::format(", {:.2f}B active", mem.params_active / 1e9) : "", to_string(w.mode),
                     to_string(w.precision), w.batch, mem.seq_len, to_string(w.effective_framework()));
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

std::string memory_breakdown(const MemoryEstimate& mem, const Style& style) {
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
  out += fmt::format("  {:<20} {:>9} {}   (torch.cuda.max_memory_allocated)\n", "= tensor peak", gbs(mem.tensor_peak, style), mem_unit(style));
  row("allocator reserve", mem.allocator_reserve);
  row("runtime (CUDA etc.)", mem.runtime);
  out += fmt::format("  {:<20} {:>9} {}   (nvidia-smi: {}; band {}–{} {})\n", paint(style, "= device peak", "1"), gbs(mem.device_peak, style),
                     mem_unit(style), mib(mem.device_peak), gbs(mem.device_low, style), gbs(mem.device_high, style), mem_unit(style));
  if (style.explain) {
    out += "\nHow each component is computed:\n";
    for (const auto& x : mem.explain)
      out += fmt::format("  {:<18} {:>9} {:<3} {}\n  {:<18} {:>9}     inputs: {}\n  {:<18} {:>9}     source: {}\n", x.component,
                         gbs(x.bytes, style), mem_unit(style), x.formula, "", "", x.inputs, "", "", x.source);
  }
  return out;
}

}  // namespace

std::string estimate_json(const Workload& w, const ModelSpec& m, const Candidate* on_gpu, const MemoryEstimate& mem,
                          const std::string& catalog_version) {
  ojson j;
  j["schema_version"] = k_schema_version;
  j["tool_version"] = tool_version();
  j["catalog_version"] = catalog_version;
  j["command"] = "estimate";
  j["workload"] = workload_json(w, mem.seq_len, &m);
  j["model"] = model_json(m, mem);
  j["memory"] = memory_json(mem, true);
  if (on_gpu) {
    j["gpu"] = {{"id", on_gpu->gpu->id}, {"name", on_gpu->gpu->name}, {"capacity_bytes", on_gpu->gpu->memory_bytes},
                {"capacity_basis", on_gpu->gpu->capacity_basis}};
    j["fits"] = on_gpu->fits;
    j["fit_reason"] = on_gpu->fit_reason.empty() ? ojson(nullptr) : ojson(on_gpu->fit_reason);
    j["headroom_bytes"] = bytes_int(on_gpu->headroom_bytes);
    j["time"] = time_json(on_gpu->time);
    j["cost"] = cost_json(*on_gpu);
    j["launch_hints"] = on_gpu->fits ? hints_json(*on_gpu, m) : ojson(nullptr);
    j["system"] = system_json(on_gpu->system);
    if (on_gpu->video) j["video"] = video_json(*on_gpu->video);
  }
  ojson notes = ojson::array();
  for (const auto& n : m.notes) notes.push_back(n);
  for (const auto& n : mem.notes) notes.push_back(n);
  if (on_gpu) {
    for (const auto& n : on_gpu->notes) notes.push_back(n);
    for (const auto& n : on_gpu->time.notes) notes.push_back(n);
  } else {
    notes.push_back("no --gpu given: runtime overhead is that of a current data-centre GPU");
  }
  j["notes"] = notes;
  return j.dump(2) + "\n";
}

std::string estimate_table(const Workload& w, const ModelSpec& m, const Candidate* on_gpu, const MemoryEstimate& mem,
                           const Style& style) {
  std::string out = "Workload: " + workload_line(w, m, mem) + "\n";
  if (w.gpus > 1) out += fmt::format("Layout: {} GPUs, tp {}, pp {}, sharding {} (memory per GPU)\n", w.gpus, w.tp, w.pp, to_string(w.sharding));
  out += "Peak phase: " + mem.peak_phase + "\n\n";
  out += memory_breakdown(mem, style);
  if (on_gpu) out += memory_bar(mem, static_cast<double>(on_gpu->gpu->memory_bytes), style);
  if (mem.vllm) {
    out += fmt::format("\nvLLM: {:.0f}% of the card = {} {}; KV-cache pool {} {} = {:.0f} tokens = {:.1f} sequences of {} tokens\n",
                       mem.vllm->utilization * 100, gbs(mem.vllm->budget_bytes, style), mem_unit(style), gbs(mem.vllm->kv_pool_bytes, style), mem_unit(style), mem.vllm->max_tokens,
                       mem.vllm->max_concurrent_sequences, mem.seq_len);
  }
  if (on_gpu) {
    const auto& g = *on_gpu->gpu;
    // The verdict names why a job cannot run: the precision, the memory, or a video stream it cannot sustain.
    std::string verdict = on_gpu->fits ? paint(style, "fits", "32") : paint(style, "does not fit", "31");
    if (!on_gpu->supported) verdict = paint(style, "cannot run at this precision", "31");
    else if (!on_gpu->fits && on_gpu->video && on_gpu->headroom_bytes >= 0) verdict = paint(style, "cannot sustain one stream", "31");
    if (on_gpu->memory.vllm) {
      // vLLM takes its share of the card by design: the verdict is the pool's, in vLLM's terms.
      out += fmt::format("\nOn {} ({} {} usable): {}{}\n", g.name, gbs(static_cast<double>(g.memory_bytes), style), mem_unit(style), verdict,
                         on_gpu->fit_reason.empty() ? "" : ": " + on_gpu->fit_reason);
    } else {
      out += fmt::format("\nOn {} ({} {} usable = {}): {}, headroom {} {}\n", g.name, gbs(static_cast<double>(g.memory_bytes), style), mem_unit(style),
                         mib(static_cast<double>(g.memory_bytes)), verdict, gbs(on_gpu->headroom_bytes, style), mem_unit(style));
    }
    const auto& t = on_gpu->time;
    if (t.train_tokens_per_second_per_gpu) out += fmt::format("  training: {:.0f} tokens/s per GPU\n", *t.train_tokens_per_second_per_gpu);
    if (t.images_per_second) out += fmt::format("  {:.1f} images/s per GPU\n", *t.images_per_second);
    if (on_gpu->video) {
      const VideoPlan& v = *on_gpu->video;
      out += fmt::format("  video: {:.0f} streams per GPU, limited by {} (decode {}, inference {}, memory {:.0f}); {} GPU(s) for {} streams\n",
                         v.streams_per_gpu, v.limit, v.decode_streams ? fmt::format("{:.1f}", *v.decode_streams) : "unknown",
                         v.inference_streams ? fmt::format("{:.1f}", *v.inference_streams) : "unknown", v.memory_streams, v.gpus_needed,
                         w.streams.value_or(0));
      if (v.frames_dropped_pct > 0) out += fmt::format("  {:.0f}% of frames dropped on {} GPU(s)\n", v.frames_dropped_pct, w.gpus);
      if (v.latency_ms && v.stages)
        out += fmt::format("  end-to-end latency about {:.0f} ms: decode {:.1f}, preprocess {:.1f}, batch fill {:.1f}, inference {:.1f}, "
                           "postprocess {:.1f}, tracking {:.1f}\n",
                           *v.latency_ms, v.stages->decode_ms, v.stages->preprocess_ms, v.stages->batch_fill_ms, v.stages->inference_ms,
                           v.stages->postprocess_ms, v.stages->tracking_ms);
      if (v.usd_per_stream_hour) out += fmt::format("  ${:.3f} per stream-hour\n", *v.usd_per_stream_hour);
      for (const auto& n : v.notes) out += "  note: " + n + "\n";
    }
    if (t.prefill_tokens_per_second) out += fmt::format("  prefill: {:.0f} tokens/s, time to first token {:.3f} s\n", *t.prefill_tokens_per_second, t.ttft_seconds.value_or(0));
    if (t.decode_tokens_per_second) out += fmt::format("  decode: {:.1f} tokens/s ({:.1f} ms per output token)\n", *t.decode_tokens_per_second, t.tpot_seconds.value_or(0) * 1000);
    if (t.band)
      out += fmt::format("  band: {:.3g} to {:.3g} ({}), driven by {}\n", t.band->low, t.band->high,
                         t.band->metric == "train_tokens_per_second_per_gpu" ? "training tokens/s per GPU"
                         : t.band->metric == "images_per_second"             ? "images/s per GPU"
                                                                              : "decode tokens/s",
                         t.band->drivers);
    const JobCost& k = on_gpu->cost;
    {
      const SystemNeeds& sn = on_gpu->system;
      const double u = mem_div(style);
      const char* un = mem_unit(style);
      out += fmt::format("  system: {:.0f} {} host RAM and {:.0f} CPU cores per node{}, {:.0f} {} disk\n", sn.host_ram_bytes / u, un, sn.cpu_cores,
                         sn.checkpoint_bytes ? fmt::format(", {:.1f} {} per checkpoint", *sn.checkpoint_bytes / u, un) : "", sn.disk_bytes / u, un);
    }
    if (t.job_seconds)
      out += fmt::format("  job: {} of compute; billed {} per GPU (setup {:.2f} h, checkpoint writes {:.2f} h, expected rework {:.2f} h)\n",
                         hours(*t.job_seconds), hours(k.wall_hours * 3600), k.setup_hours, k.checkpoint_hours, k.rework_hours);
    if (k.total_usd)
      out += fmt::format("  cost: ${:.2f} for the job at ${:.2f}/GPU-h ({}{})\n", *k.total_usd, *k.price.usd_per_gpu_hour,
                         k.price.provider, k.price.date_seen.empty() ? "" : ", seen " + k.price.date_seen);
    else if (k.price.usd_per_gpu_hour)
      out += fmt::format("  price: ${:.2f}/GPU-h ({}{}); give --tokens or --requests for the job's cost\n", *k.price.usd_per_gpu_hour,
                         k.price.provider, k.price.date_seen.empty() ? "" : ", seen " + k.price.date_seen);
    if (k.usd_per_million_output_tokens) out += fmt::format("  ${:.3f} per million output tokens\n", *k.usd_per_million_output_tokens);
    if (k.usd_per_thousand_images) out += fmt::format("  ${:.3f} per thousand images\n", *k.usd_per_thousand_images);
    if (k.usd_per_million_input_tokens && k.usd_per_million_output_tokens_apart)
      out += fmt::format("  priced apart by the GPU time each takes: ${:.3f} per million input tokens, ${:.3f} per million output tokens\n",
                         *k.usd_per_million_input_tokens, *k.usd_per_million_output_tokens_apart);
    for (const auto& n : on_gpu->notes) out += "  note: " + n + "\n";
    for (const auto& n : on_gpu->time.notes)
      if (std::find(on_gpu->notes.begin(), on_gpu->notes.end(), n) == on_gpu->notes.end()) out += "  note: " + n + "\n";
    if (style.hints && on_gpu->fits) out += "  launch hints:\n" + hints_text(*on_gpu, m);
  } else {
    out += "\nNo --gpu given: runtime overhead is that of a current data-centre GPU.\n";
  }
  for (const auto& n : mem.notes) out += "note: " + n + "\n";
  return out;
}

std::string ranking_json(const Workload& w, const ModelSpec& m, const Ranking& r, const std::string& catalog_version) {
  ojson j;
  j["schema_version"] = k_schema_version;
  j["tool_version"] = tool_version();
  j["catalog_version"] = catalog_version;
  j["command"] = "rank";
  const MemoryEstimate& any = r.rows.empty() ? MemoryEstimate{} : r.rows.front().memory;
  j["workload"] = workload_json(w, any.seq_len, &m);
  j["model"] = model_json(m, any);
  j["order"] = to_string(r.order);
  j["order_text"] = r.order_text;
  ojson recs = ojson::array();
  for (const auto& rec : r.recommendations) recs.push_back({{"label", rec.label}, {"gpu", rec.gpu}, {"reason", rec.reason}});
  j["recommendations"] = recs;
  std::size_t fitting = 0;
  for (const auto& c : r.rows) fitting += c.fits ? 1 : 0;
  j["fitting_gpus"] = fitting;
  ojson rows = ojson::array();
  for (const auto& c : r.rows) rows.push_back(candidate_json(c, false, m));
  j["ranking"] = rows;
  ojson dropped = ojson::array();
  for (const auto& d : r.dropped) dropped.push_back({{"gpu", d.gpu}, {"reason", d.reason}});
  j["dropped"] = dropped;
  ojson notes = ojson::array();
  for (const auto& n : r.notes) notes.push_back(n);
  if (fitting == 0) notes.push_back("no GPU of the catalogue fits this workload within the searched layouts");
  j["notes"] = notes;
  return j.dump(2) + "\n";
}

namespace {
// Notes said once per group: notes that differ only in their numbers form one group, and each number that varies
// is shown as its range ("adds 11–32% to each micro-batch").
struct NoteGroup {
  std::string text;
  std::vector<std::string> gpus;
};
std::vector<NoteGroup> group_notes(const std::vector<std::pair<std::string, std::string>>& notes) {
  struct Split {
    std::vector<std::string> words, numbers;  // words[i] precedes numbers[i]; words has one more
  };
  auto split = [&](const std::string& s) {
    Split out;
    out.words.emplace_back();
    for (std::size_t i = 0; i < s.size();) {
      // A number stands alone: "gfx942", "a100-80gb" or "fp8" are names, not numbers.
      const bool starts = i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '-' || s[i - 1] == '_' || s[i - 1] == '.');
      const bool digit = std::isdigit(static_cast<unsigned char>(s[i])) != 0 && starts;
      if (!digit) {
        out.words.back() += s[i++];
        continue;
      }
      std::size_t j = i;
      while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || (s[j] == '.' && j + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[j + 1])))))
        ++j;
      out.numbers.push_back(s.substr(i, j - i));
      out.words.emplace_back();
      i = j;
    }
    return out;
  };
  struct Acc {
    Split first;
    std::vector<std::pair<double, std::string>> lo, hi;
    std::vector<std::string> gpus;
  };
  std::vector<Acc> groups;
  for (const auto& [text, gpu] : notes) {
    Split sp = split(text);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Acc& a) { return a.first.words == sp.words; });
    if (it == groups.end()) {
      Acc a;
      for (const auto& n : sp.numbers) {
        a.lo.emplace_back(std::stod(n), n);
        a.hi.emplace_back(std::stod(n), n);
      }
      a.first = std::move(sp);
      a.gpus.push_back(gpu);
      groups.push_back(std::move(a));
      continue;
    }
    for (std::size_t k = 0; k < sp.numbers.size(); ++k) {
      const double v = std::stod(sp.numbers[k]);
      if (v < it->lo[k].first) it->lo[k] = {v, sp.numbers[k]};
      if (v > it->hi[k].first) it->hi[k] = {v, sp.numbers[k]};
    }
    if (std::find(it->gpus.begin(), it->gpus.end(), gpu) == it->gpus.end()) it->gpus.push_back(gpu);
  }
  std::vector<NoteGroup> out;
  for (const auto& a : groups) {
    NoteGroup g{a.first.words[0], a.gpus};
    for (std::size_t k = 0; k < a.lo.size(); ++k) {
      g.text.append(a.lo[k].second == a.hi[k].second ? a.lo[k].second : a.lo[k].second + "–" + a.hi[k].second);
      g.text.append(a.first.words[k + 1]);
    }
    out.push_back(std::move(g));
  }
  return out;
}
// GPU ids as a list; with `most` > 0, the first `most - 1` then "and N more" past that many.
std::string join_ids(const std::vector<std::string>& ids, std::size_t most) {
  if (most == 0 || ids.size() <= most) return fmt::format("{}", fmt::join(ids, ", "));
  return fmt::format("{}, {} and {} more", ids[0], ids[1], ids.size() - 2);
}
}  // namespace

std::string ranking_table(const Workload& w, const ModelSpec& m, const Ranking& r, const Style& style) {
  std::string out;
  if (r.rows.empty()) return "No GPU selected.\n";
  out += "Workload: " + workload_line(w, m, r.rows.front().memory) + "\n";
  out += "Order: " + r.order_text + "\n";
  for (const auto& rec : r.recommendations)
    out += fmt::format("{} {:<34} {}\n", paint(style, fmt::format("{:<11}", rec.label + ":"), "1"), rec.gpu, rec.reason);
  if (r.recommendations.empty()) out += "No plan fits within the margin: see the reasons below.\n";
  out += "\n";
  const bool has_time = r.has_job;
  const bool has_vllm = std::any_of(r.rows.begin(), r.rows.end(), [](const Candidate& c) { return c.memory.vllm.has_value(); });
  const bool inference = !is_training(w.mode) && !m.vision;
  const bool vision = m.vision.has_value();
  std::string unit;
  for (const auto& c : r.rows)
    if (!c.value_unit.empty()) {
      unit = c.value_unit;
      break;
    }
  const bool show_value = !r.has_job && !unit.empty() && unit != "stream-hour";
  const bool compact = style.compact;
  const std::size_t lw = compact ? 26 : 44;  // layout column
  // Memory columns carry their unit once, in the header; the bar draws the peak against the usable memory.
  const std::string un = mem_unit(style);
  std::string header = compact ? fmt::format("{:>3}  {:<24} {:<5} {:>4}  {:<26} {:>9} {:<10}", "#", "GPU", "fits", "GPUs", "layout", "peak " + un, "of usable")
                               : fmt::format("{:>3}  {:<32} {:<5} {:>4}  {:<44} {:>9} {:<10} {:>9} {:>11} {:>8}", "#", "GPU", "fits", "GPUs", "layout",
                                             "peak " + un, "of usable", "usable " + un, "headroom " + un, "$/GPU-h");
  if (show_value) header += fmt::format(" {:>10}", "$/" + (unit == "M training tokens" ? std::string("M tok") : unit == "M output tokens" ? "M out" : unit == "k images" ? "k img" : unit));
  if (has_vllm) header += fmt::format(" {:>10} {:>8}", "KV pool " + un, "max seqs");
  const bool video = std::any_of(r.rows.begin(), r.rows.end(), [](const Candidate& c) { return c.video.has_value(); });
  if (vision) header += fmt::format(" {:>9}", "img/s/GPU");
  if (video) header += fmt::format(" {:>11} {:>9} {:>10}", "streams/GPU", "limit", "$/stream-h");
  else if (inference) header += fmt::format(" {:>8} {:>7} {:>8}", "tok/s", "TTFT s", "TPOT ms");
  else if (!vision) header += fmt::format(" {:>9}", "tok/s/GPU");
  if (has_time) header += fmt::format(" {:>9} {:>10}", "job time", "job cost");
  if (has_time && inference) header += fmt::format(" {:>9}", "$/M tok");
  out += paint(style, header, "1") + "\n";
  std::size_t i = 0, fitting = 0;
  for (const auto& c : r.rows) {
    ++i;
    fitting += c.fits ? 1 : 0;
    const std::string fit = c.fits ? (c.tight ? paint(style, pad("tight", 5), "33") : paint(style, pad("yes", 5), "32"))
                                   : paint(style, pad(c.supported ? "no" : "n/a", 5), "31");
    const std::string layout = c.layout.size() > lw ? c.layout.substr(0, lw - 1) + "…" : c.layout;
    const std::string bar = paint(style, usage_bar(c.memory.device_peak, static_cast<double>(c.gpu->memory_bytes)), c.memory.device_peak <= static_cast<double>(c.gpu->memory_bytes) ? "32" : "31");
    std::string line = compact ? fmt::format("{:>3}  {:<24} {} {:>4}  {:<26} {:>9} {}", i, c.gpu->id.substr(0, 24), fit, c.gpus, layout,
                                             gbs(c.memory.device_peak, style), bar)
                               : fmt::format("{:>3}  {:<32} {} {:>4}  {:<44} {:>9} {} {:>9} {:>11} {:>8}", i, c.gpu->id, fit, c.gpus, layout,
                                             gbs(c.memory.device_peak, style), bar, gbs(static_cast<double>(c.gpu->memory_bytes), style),
                                             gbs(c.headroom_bytes, style), c.usd_per_gpu_hour() ? fmt::format("{:.2f}", *c.usd_per_gpu_hour()) : "—");
    if (show_value)
      line += fmt::format(" {:>10}", c.fits && c.value_usd ? (*c.value_usd >= 10 ? fmt::format("{:.1f}", *c.value_usd) : fmt::format("{:.3f}", *c.value_usd)) : "—");
    if (has_vllm)
      line += fmt::format(" {:>10} {:>8}", c.memory.vllm ? gbs(c.memory.vllm->kv_pool_bytes, style) : "—",
                          c.memory.vllm ? fmt::format("{:.1f}", c.memory.vllm->max_concurrent_sequences) : "—");
    if (vision) {
      line += fmt::format(" {:>9}", c.time.images_per_second ? fmt::format(fmt::runtime(*c.time.images_per_second < 10 ? "{:.2f}" : "{:.0f}"), *c.time.images_per_second) : "—");
      if (video)
        line += fmt::format(" {:>11} {:>9} {:>10}", c.video ? fmt::format("{:.0f}", c.video->streams_per_gpu) : "—", c.video ? c.video->limit : "—",
                            c.video && c.video->usd_per_stream_hour ? fmt::format("{:.3f}", *c.video->usd_per_stream_hour) : "—");
    } else if (inference) {
      const double replicas = static_cast<double>(c.planned.gpus) / static_cast<double>(c.planned.tp * c.planned.pp);
      line += fmt::format(" {:>8} {:>7} {:>8}", c.time.decode_tokens_per_second ? fmt::format("{:.0f}", *c.time.decode_tokens_per_second * replicas) : "—",
                          c.time.ttft_seconds ? fmt::format("{:.2f}", *c.time.ttft_seconds) : "—",
                          c.time.tpot_seconds ? fmt::format("{:.1f}", *c.time.tpot_seconds * 1000) : "—");
    } else {
      line += fmt::format(" {:>9}", c.time.train_tokens_per_second_per_gpu ? fmt::format("{:.0f}", *c.time.train_tokens_per_second_per_gpu) : "—");
    }
    if (has_time)
      line += fmt::format(" {:>9} {:>10}", c.cost.wall_hours > 0 ? hours(c.cost.wall_hours * 3600) : "—",
                          c.cost.total_usd ? fmt::format("${:.2f}", *c.cost.total_usd) : "—");
    if (has_time && inference)
      line += fmt::format(" {:>9}", c.cost.usd_per_million_output_tokens ? fmt::format("{:.3f}", *c.cost.usd_per_million_output_tokens) : "—");
    out += line + "\n";
  }
  out += "\n";
  if (style.hints) {
    out += "Launch hints (first 5 that fit):\n";
    std::size_t shown_h = 0;
    for (const auto& c : r.rows) {
      if (!c.fits || shown_h >= 5) continue;
      ++shown_h;
      out += "  " + c.gpu->id + " (" + c.layout + "): " + c.why + "\n" + hints_text(c, m);
    }
    out += "\n";
  }
  if (fitting == 0) out += paint(style, "Nothing in the catalogue fits this workload within the searched layouts.", "31") + "\n";
  else out += fmt::format("{} of {} GPU types can run it. Memory is per GPU at the peak (nvidia-smi view).\n", fitting, r.rows.size());
  // Every row that is not a plain fit says why; rows with the same reason, and notes that differ only in their
  // numbers, are said once with the GPUs they concern (and the numbers' range).
  std::vector<std::pair<std::string, std::string>> reasons;
  for (const auto& c : r.rows) {
    if (c.fits && !c.tight && c.value_usd) continue;
    std::string why;
    if (!c.supported) {
      why = "not supported: " + (c.notes.empty() ? std::string("this precision or software") : c.notes.front());
    } else if (!c.fits) {
      why = c.why.empty() ? fmt::format("needs {} {} per GPU of {} {}", gbs(c.memory.device_peak, style), un, gbs(static_cast<double>(c.gpu->memory_bytes), style), un) : c.why;
    } else if (c.tight) {
      why = "tight: " + c.why;
    } else {
      why = "not ranked by value: " + (c.unranked.empty() ? std::string("figure unknown") : c.unranked);
    }
    reasons.emplace_back(why, c.gpu->id);
  }
  for (const auto& d : r.dropped) reasons.emplace_back(d.reason, d.gpu + " (dropped)");
  if (!reasons.empty()) {
    out += "Why not:\n";
    for (const auto& g : group_notes(reasons)) out += "  " + join_ids(g.gpus, 0) + ": " + g.text + "\n";
  }
  std::vector<std::pair<std::string, std::string>> notes;
  for (const auto& c : r.rows) {
    if (!c.fits) continue;
    std::vector<std::string> ns = c.notes;
    for (const auto& n : c.time.notes) ns.push_back(n);
    for (const auto& n : ns) {
      if (n.find("server module") != std::string::npos || n.find("nominal") != std::string::npos || n.find("no price") != std::string::npos) continue;
      notes.emplace_back(n, c.gpu->id);
    }
  }
  out += "Notes:\n";
  for (const auto& n : r.notes) out += "  " + n + "\n";
  for (const auto& g : group_notes(notes)) out += "  " + g.text + " (" + join_ids(g.gpus, 3) + ")\n";
  if (has_time)
    out += "Job time is billed wall time per GPU: compute + setup + checkpoint writes + expected rework after interruptions.\n";
  else
    out += "No job size given: add --tokens N (training) or --requests N --input-tokens I --output-tokens O for time and cost per job.\n";
  out += "Prices are indicative on-demand offers with the date they were seen (gpuadvise gpus ID shows them).\n";
  return out;
}

std::string check_json(const std::vector<CheckResult>& results, const CheckAssertions& a) {
  ojson j;
  j["schema_version"] = k_schema_version;
  j["tool_version"] = tool_version();
  j["command"] = "check";
  j["assertions"] = {{"min_headroom_pct", opt(a.min_headroom_pct)}, {"max_cost_usd", opt(a.max_cost_usd)}, {"max_hours", opt(a.max_hours)},
                     {"max_gpus", a.max_gpus ? ojson(*a.max_gpus) : ojson(nullptr)}};
  bool ok = true;
  ojson arr = ojson::array();
  for (const auto& r : results) {
    ok = ok && r.passed();
    const Candidate& c = r.candidate;
    arr.push_back({{"workload", r.workload}, {"gpu", c.gpu->id}, {"passed", r.passed()}, {"fits", c.fits}, {"gpus", c.gpus},
                   {"layout", c.layout}, {"device_peak_bytes", bytes_int(c.memory.device_peak)}, {"capacity_bytes", c.gpu->memory_bytes},
                   {"headroom_pct", 100.0 * c.headroom_bytes / static_cast<double>(c.gpu->memory_bytes)},
                   {"job_hours", c.cost.wall_hours > 0 ? ojson(c.cost.wall_hours) : ojson(nullptr)}, {"job_usd", opt(c.cost.total_usd)},
                   {"failures", r.failures}});
  }
  j["passed"] = ok;
  j["results"] = arr;
  return j.dump(2) + "\n";
}

std::string check_table(const std::vector<CheckResult>& results, const Style& style) {
  std::string out;
  std::size_t failed = 0;
  for (const auto& r : results) {
    const Candidate& c = r.candidate;
    const std::string mark = r.passed() ? paint(style, "PASS", "32") : paint(style, "FAIL", "31");
    out += fmt::format("{}  {} on {}: {:.2f} of {:.2f} {} per GPU on {} GPU(s), headroom {:.1f}%{}\n", mark, r.workload, c.gpu->id,
                       c.memory.device_peak / mem_div(style), static_cast<double>(c.gpu->memory_bytes) / mem_div(style), mem_unit(style), c.gpus,
                       100.0 * c.headroom_bytes / static_cast<double>(c.gpu->memory_bytes),
                       c.cost.total_usd ? fmt::format(", job ${:.2f} in {:.2f} h", *c.cost.total_usd, c.cost.wall_hours) : "");
    for (const auto& f : r.failures) out += "      " + f + "\n";
    failed += r.passed() ? 0 : 1;
  }
  out += fmt::format("{} of {} checks passed\n", results.size() - failed, results.size());
  return out;
}

std::string markdown_cell(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out.append("\\|");
    else if (ch == '\n') out.push_back(' ');
    else out.push_back(ch);
  }
  return out;
}

namespace {
std::string cell(const std::string& s) { return markdown_cell(s); }
std::string md_money(const std::optional<double>& v) { return v ? fmt::format("${:.2f}", *v) : "—"; }
}  // namespace

std::string ranking_markdown(const Workload& w, const ModelSpec& m, const Ranking& r, const Style& style) {
  std::string out;
  if (r.rows.empty()) return "No GPU selected.\n";
  out += "**Workload:** " + cell(workload_line(w, m, r.rows.front().memory)) + "\n\n";
  for (const auto& rec : r.recommendations) out += "- **" + rec.label + ":** `" + rec.gpu + "` " + cell(rec.reason) + "\n";
  if (r.recommendations.empty()) out += "- No plan fits within the margin.\n";
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
                       c.fits ? (c.tight ? "tight" : "fits") : "does not fit", c.fit_reason.empty() ? "" : " — " + cell(c.fit_reason));
    if (c.time.train_tokens_per_second_per_gpu) out += fmt::format("- {:.0f} training tokens/s per GPU\n", *c.time.train_tokens_per_second_per_gpu);
    if (c.time.decode_tokens_per_second) out += fmt::format("- {:.0f} output tokens/s, TPOT {:.1f} ms\n", *c.time.decode_tokens_per_second, c.time.tpot_seconds.value_or(0) * 1e3);
    if (c.time.images_per_second) out += fmt::format("- {:.3g} images/s per GPU\n", *c.time.images_per_second);
    if (c.cost.total_usd) out += fmt::format("- job: {} billed, {}\n", hours(c.cost.wall_hours * 3600), md_money(c.cost.total_usd));
  }
  return out;
}

std::string check_markdown(const std::vector<CheckResult>& results, const Style& style) {
  const std::string un = mem_unit(style);
  std::string out = "| result | workload | GPU | GPUs | peak/GPU (" + un + ") | capacity (" + un + ") | headroom | job cost | failures |\n"
                    "|---|---|---|--:|--:|--:|--:|--:|---|\n";
  std::size_t failed = 0;
  for (const auto& r : results) {
    const Candidate& c = r.candidate;
    std::string fails;
    for (const auto& f : r.failures) fails += (fails.empty() ? "" : "; ") + cell(f);
    out += fmt::format("| {} | {} | `{}` | {} | {:.2f} | {:.2f} | {:.1f}% | {} | {} |\n", r.passed() ? "✅ pass" : "❌ fail", cell(r.workload), c.gpu->id,
                       c.gpus, c.memory.device_peak / mem_div(style), static_cast<double>(c.gpu->memory_bytes) / mem_div(style),
                       100.0 * c.headroom_bytes / static_cast<double>(c.gpu->memory_bytes), md_money(c.cost.total_usd), fails.empty() ? "—" : fails);
    failed += r.passed() ? 0 : 1;
  }
  out += fmt::format("\n{} of {} checks passed.\n", results.size() - failed, results.size());
  return out;
}

std::string fenced_markdown(const std::string& title, const std::string& text) { return "**" + title + "**\n\n```text\n" + text + "```\n"; }

std::string fit_json(const Workload& w, const ModelSpec& m, const GpuSpec& g, const FitResult& r) {
  ojson j;
  j["schema_version"] = k_schema_version;
  j["tool_version"] = tool_version();
  j["command"] = "fit";
  j["gpu"] = g.id;
  j["model"] = m.id;
  j["mode"] = to_string(w.mode);
  j["maximize"] = to_string(r.what);
  j["value"] = r.value;
  j["fits_at_all"] = r.value > 0;
  if (r.at) {
    j["memory"] = memory_json(r.at->memory, false);
    j["headroom_bytes"] = bytes_int(r.at->headroom_bytes);
  } else {
    j["memory"] = nullptr;
    j["headroom_bytes"] = nullptr;
  }
  j["next_device_peak_bytes"] = r.next ? ojson(bytes_int(r.next->memory.device_peak)) : ojson(nullptr);
  j["capacity_bytes"] = g.memory_bytes;
  j["limited_by"] = r.limited_by.empty() ? ojson(nullptr) : ojson(r.limited_by);
  return j.dump(2) + "\n";
}

std::string fit_table(const Workload& w, const ModelSpec& m, const GpuSpec& g, const FitResult& r, const Style& style) {
  std::string out;
  const std::string what = r.what == Maximize::seq_len ? "sequence length" : r.what == Maximize::batch ? "batch" : "concurrency";
  if (r.value == 0) {
    return fmt::format("{} does not fit on {} even at {} 1: {} {} per GPU needed, {} {} usable\n", m.id, g.id, what,
                       gbs(r.next ? r.next->memory.device_peak : 0.0, style), mem_unit(style), gbs(static_cast<double>(g.memory_bytes), style), mem_unit(style));
  }
  out += fmt::format("Largest {} that fits {} ({} {} usable) for {} {}: {}\n", what, g.id, gbs(static_cast<double>(g.memory_bytes), style), mem_unit(style), m.id,
                     to_string(w.mode), paint(style, std::to_string(r.value), "1"));
  out += fmt::format("  at {}: device peak {} {}, headroom {} {}\n", r.value, gbs(r.at->memory.device_peak, style), mem_unit(style), gbs(r.at->headroom_bytes, style), mem_unit(style));
  if (r.next) out += fmt::format("  at {}: {} {}, does not fit\n", r.value + 1, gbs(r.next->memory.device_peak, style), mem_unit(style));
  else out += "  limited by " + (r.limited_by.empty() ? std::string("the search's upper limit") : r.limited_by) + ", not by memory\n";
  out += "\n";
  out += memory_breakdown(r.at->memory, style);
  return out;
}

namespace {
ojson gpu_to_json(const GpuSpec& g) {
  ojson j;
  j["id"] = g.id;
  j["vendor"] = g.vendor;
  j["name"] = g.name;
  j["architecture"] = g.architecture;
  j["segment"] = to_string(g.segment);
  j["form_factor"] = g.form_factor;
  j["memory"] = {{"nominal_gb", g.nominal_memory_gb}, {"capacity_bytes", g.memory_bytes}, {"capacity_basis", g.capacity_basis}, {"type", g.memory_type}};
  j["memory_bandwidth_gb_per_s"] = opt(g.bandwidth_gb_per_s);
  ojson tf;
  for (const char* k : {"fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp4"}) {
    auto it = g.dense_tflops.find(k);
    tf[k] = it == g.dense_tflops.end() ? ojson(nullptr) : opt(it->second);
  }
  j["dense_tflops"] = tf;
  j["interconnect"] = {{"kind", g.interconnect}, {"gb_per_s", opt(g.interconnect_gb_per_s)}};
  j["node"] = {{"gpus_per_node", g.node.gpus_per_node ? ojson(*g.node.gpus_per_node) : ojson(nullptr)},
               {"fast_link_gpus", g.node.fast_link_gpus},
               {"pcie_p2p", g.node.pcie_p2p ? ojson(*g.node.pcie_p2p) : ojson(nullptr)},
               {"network_gb_per_s_per_gpu", opt(g.node.network_gbit_per_gpu)},
               {"network", g.node.network},
               {"host_ram_gb", opt(g.node.host_ram_gb)},
               {"source", g.node.source}};
  j["low_precision"] = {{"fp8", g.fp8}, {"fp4", g.fp4}};
  j["pcie_gen"] = g.pcie_gen ? ojson(*g.pcie_gen) : ojson(nullptr);
  j["board_power_w"] = opt(g.board_power_w);
  j["software"] = {{"stack", g.stack}, {"compute_capability", opt(g.compute_capability)}, {"gfx_target", opt(g.gfx_target)}};
  j["needs_server_chassis"] = g.needs_server_chassis;
  j["nvdec_engines"] = g.nvdec_engines ? ojson(*g.nvdec_engines) : ojson(nullptr);
  j["decode_streams_1080p30"] = g.decode_streams_1080p30 ? ojson(*g.decode_streams_1080p30) : ojson(nullptr);
  j["purchase_usd"] = opt(g.purchase_usd);
  ojson prices = ojson::array();
  for (const auto& p : g.prices)
    prices.push_back({{"provider", p.provider}, {"usd_per_gpu_hour", opt(p.usd_per_gpu_hour)}, {"date_seen", p.date_seen.empty() ? ojson(nullptr) : ojson(p.date_seen)}, {"source", p.source}, {"note", p.note}});
  j["prices"] = prices;
  ojson src;
  for (const auto& [k, v] : g.sources) src[k] = v;
  j["sources"] = src;
  j["uncertain"] = g.uncertain;
  j["notes"] = g.notes;
  return j;
}

std::string num_or_dash(const std::optional<double>& v, const char* f = "{:.0f}") {
  return v ? fmt::format(fmt::runtime(f), *v) : std::string("—");
}
}  // namespace

// The keys every command's JSON opens with.
ojson command_header(const char* command) {
  ojson j;
  j["schema_version"] = k_schema_version;
  j["tool_version"] = tool_version();
  j["command"] = command;
  return j;
}

std::string gpus_table(const GpuCatalog& cat, const Style& style) {
  std::string out = fmt::format("{:<32} {:<8} {:>8} {:>8} {:>8} {:>8} {:>10} {:<8} {:>8}\n", "id", "vendor", std::string("mem ") + mem_unit(style), "TB/s", "bf16 TF",
                                "fp8 TF", "link GB/s", "stack", "$/GPU-h");
  for (const auto& g : cat.gpus) {
    const PriceOffer* o = g.cheapest_offer();
    auto tf = [&](const char* k) { auto it = g.dense_tflops.find(k); return it == g.dense_tflops.end() ? std::optional<double>{} : it->second; };
    out += fmt::format("{:<32} {:<8} {:>8} {:>8} {:>8} {:>8} {:>10} {:<8} {:>8}\n", g.id, g.vendor,
                       gbs(static_cast<double>(g.memory_bytes), style),
                       g.bandwidth_gb_per_s ? fmt::format("{:.2f}", *g.bandwidth_gb_per_s / 1000) : "—", num_or_dash(tf("bf16")),
                       num_or_dash(tf("fp8")), num_or_dash(g.interconnect_gb_per_s), g.stack,
                       o ? fmt::format("{:.2f}", *o->usd_per_gpu_hour) : "—");
  }
  out += fmt::format("\n{} GPUs, catalogue {}. Memory is the capacity CUDA reports ({}); TFLOPS are dense.\n", cat.gpus.size(), cat.version,
                     style.units == MemUnits::gib ? "GiB = 2^30 bytes" : "GB = 1e9 bytes");
  return out;
}

std::string gpus_json(const GpuCatalog& cat) {
  ojson j = command_header("gpus");
  j["catalog_version"] = cat.version;
  ojson arr = ojson::array();
  for (const auto& g : cat.gpus) arr.push_back(gpu_to_json(g));
  j["gpus"] = arr;
  return j.dump(2) + "\n";
}

std::string gpu_json(const GpuSpec& g) {
  ojson j = command_header("gpus");
  j["gpu"] = gpu_to_json(g);
  return j.dump(2) + "\n";
}

std::string gpu_detail_table(const GpuSpec& g, const Style& style) {
  std::string out = fmt::format("{} ({})\n", g.name, g.id);
  out += fmt::format("  vendor          {}\n  architecture    {}\n  segment         {} ({})\n", g.vendor, g.architecture, to_string(g.segment), g.form_factor);
  out += fmt::format("  memory          {} bytes = {:.2f} {} = {} ({}), {} {:.0f} GB nominal\n", g.memory_bytes, static_cast<double>(g.memory_bytes) / mem_div(style),
                     mem_unit(style), mib(static_cast<double>(g.memory_bytes)),
                     g.capacity_basis, g.memory_type, g.nominal_memory_gb);
  out += fmt::format("  bandwidth       {} GB/s\n", num_or_dash(g.bandwidth_gb_per_s));
  out += "  dense TFLOPS   ";
  for (const char* k : {"fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp4"}) {
    auto it = g.dense_tflops.find(k);
    out += fmt::format(" {}={}", k, it == g.dense_tflops.end() ? "—" : num_or_dash(it->second, "{:g}"));
  }
  out += "\n";
  out += fmt::format("  interconnect    {} ({} GB/s)\n  PCIe gen        {}\n  board power     {} W\n", g.interconnect, num_or_dash(g.interconnect_gb_per_s),
                     g.pcie_gen ? std::to_string(*g.pcie_gen) : "—", num_or_dash(g.board_power_w));
  out += fmt::format("  node            {} GPUs per server{}; fast link joins {}; PCIe peer-to-peer {}\n", g.gpus_per_node(),
                     g.node_size_assumed() ? " (assumed: not in the catalogue)" : "", g.node.fast_link_gpus,
                     g.node.pcie_p2p ? (*g.node.pcie_p2p ? "yes" : "no (stock driver)") : "not known");
  out += fmt::format("  network         {}{}\n", g.node.network.empty() ? "not known" : g.node.network,
                     g.node.network_gbit_per_gpu ? fmt::format(" ({:g} Gb/s per GPU)", *g.node.network_gbit_per_gpu) : "");
  out += fmt::format("  formats         fp8 {}, fp4 {}\n", g.fp8 ? "yes" : "no", g.fp4 ? "yes" : "no");
  out += fmt::format("  software        {} {}\n  server chassis  {}\n", g.stack,
                     g.compute_capability ? "compute capability " + *g.compute_capability : (g.gfx_target ? *g.gfx_target : ""),
                     g.needs_server_chassis ? "required" : "not required");
  out += fmt::format("  video decode    {}{}\n", g.nvdec_engines ? fmt::format("{} NVDEC engine(s)", *g.nvdec_engines) : std::string("unknown"),
                     g.decode_streams_1080p30 ? fmt::format(", {:g} H.264 1080p30 streams published", *g.decode_streams_1080p30) : std::string());
  out += "  prices (indicative, on-demand per GPU-hour):\n";
  if (g.prices.empty()) out += "    none known\n";
  for (const auto& p : g.prices)
    out += fmt::format("    {:<24} {:>8}  seen {}  {}\n", p.provider, p.usd_per_gpu_hour ? fmt::format("${:.2f}", *p.usd_per_gpu_hour) : "—", p.date_seen, p.source);
  out += "  sources:\n";
  for (const auto& [k, v] : g.sources) out += fmt::format("    {:<22} {}\n", k, v);
  if (!g.uncertain.empty()) {
    out += "  uncertain:\n";
    for (const auto& u : g.uncertain) out += "    " + u + "\n";
  }
  if (!g.notes.empty()) out += "  notes: " + g.notes + "\n";
  return out;
}

std::string models_table(const ModelCatalog& cat) {
  std::string out = fmt::format("{:<34} {:<18} {:>10} {:>10}  {}\n", "id", "family", "params B", "active B", "shape");
  for (const auto& m : cat.models) {
    const ParamCounts pc = count_params(m);
    std::string shape;
    if (m.vision) {
      shape = fmt::format("{} at {}x{}", m.vision->task, m.vision->ref_w, m.vision->ref_h);
    } else {
      shape = fmt::format("L={} h={} heads={} kv={} f={} V={}", m.layers + m.encoder_layers, m.hidden, m.heads, m.kv_heads, m.ffn, m.vocab);
      if (m.is_moe()) shape += fmt::format(" experts={}/{}", m.experts_per_token, m.experts);
    }
    out += fmt::format("{:<34} {:<18} {:>10.3f} {:>10.3f}  {}\n", m.id, m.family, pc.total / 1e9, pc.active / 1e9, shape);
  }
  out += fmt::format("\n{} presets. --model also takes a size (7B) or a Hugging Face config.json path.\n", cat.models.size());
  return out;
}

std::string models_json(const ModelCatalog& cat) {
  ojson j = command_header("models");
  ojson arr = ojson::array();
  for (const auto& m : cat.models) {
    const ParamCounts pc = count_params(m);
    arr.push_back({{"id", m.id}, {"family", m.family}, {"params", bytes_int(pc.total)}, {"params_active", bytes_int(pc.active)}, {"layers", m.layers + m.encoder_layers},
                   {"hidden_size", m.hidden}, {"attention_heads", m.heads}, {"kv_heads", m.kv_heads}, {"vocab_size", m.vocab}, {"source", m.source}});
  }
  j["models"] = arr;
  return j.dump(2) + "\n";
}

CalibrationView calibration_view(const std::string& estimate_json_text, const ProbeResult& probe, const GpuSpec& g) {
  CalibrationView v;
  v.probe = probe;
  v.gpu_id = g.id;
  const nlohmann::json e = nlohmann::json::parse(estimate_json_text);
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
  v.correction.memory_factor = std::clamp(probe.max_allocated_bytes / v.est_tensor_peak, 0.2, 5.0);
  v.correction.speed_factor = v.est_per_second && *v.est_per_second > 0 ? std::clamp(probe.per_second / *v.est_per_second, 0.1, 10.0) : 1.0;
  return v;
}

std::string calibration_view_table(const CalibrationView& v, const Style& style) {
  auto err = [](double measured, double est) { return fmt::format("{:+.1f}%", 100.0 * (est / measured - 1.0)); };
  std::string out = fmt::format("Probe of: gpuadvise estimate {} --gpu {} ({}, torch run)\n\n", v.probe.estimate_args, v.gpu_id, v.probe.gpu_name);
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
  out += fmt::format("\nCorrection for {} with {} ({}): memory x{:.3f}, throughput x{:.3f} (--save keeps it for later answers)\n", v.gpu_id,
                     v.framework, v.training ? "training" : "inference", v.correction.memory_factor, v.correction.speed_factor);
  return out;
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
                     {"memory_factor", v.correction.memory_factor}, {"speed_factor", v.correction.speed_factor}};
  return j.dump(2) + "\n";
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
  if (!v) return c.fits ? "—" : "no";
  if (s.metric == "memory") return fmt::format("{} {}{}", gbs(*v, style), mem_unit(style), c.fits ? "" : " no");
  if (s.metric == "cost") return fmt::format("${:.2f}", *v);
  return fmt::format(fmt::runtime(*v < 10 ? "{:.2f}/s" : "{:.0f}/s"), *v);
}
}  // namespace

std::string sweep_table(const Sweep& s, const Style& style) {
  std::string out = "Sweep of --" + s.vary + ": " + s.workload_line + "\n";
  if (s.points.empty() || s.points.front().per_gpu.empty()) return out + "no points\n";
  const std::size_t width = 40;
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
  out += fmt::format("{:>10}  {:<{}}", "--" + s.vary, what, width + 2);
  for (const auto& c : first) out += fmt::format(" {:>18}", c.gpu->id.substr(0, 18));
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
    for (const auto& c : p.per_gpu) out += fmt::format(" {:>18}", sweep_cell(s, c, style));
    out += "\n";
  }
  if (s.metric == "memory") {
    out += fmt::format("scale 0 to {:.0f} {}; usable memory:", top / mem_div(style), mem_unit(style));
    for (std::size_t k = 0; k < first.size() && k < 6; ++k)
      out += fmt::format(" {} {} {} {}{}", marks[k], first[k].gpu->id, gbs(static_cast<double>(first[k].gpu->memory_bytes), style), mem_unit(style),
                         k + 1 < first.size() ? "," : "");
    out += "\n";
  }
  // Where each GPU stops fitting.
  for (std::size_t k = 0; k < first.size(); ++k) {
    std::optional<double> last_fit, first_fail;
    for (const auto& p : s.points) {
      if (p.per_gpu[k].fits) {
        if (!first_fail) last_fit = p.value;
      } else if (!first_fail) {
        first_fail = p.value;
      }
    }
    const std::string id = first[k].gpu->id;
    if (!first_fail) out += id + ": fits the whole range\n";
    else if (!last_fit) out += id + ": does not fit at --" + s.vary + " " + sweep_value(s.points.front().value) + " already\n";
    else out += fmt::format("{}: fits up to --{} {}, not at {}\n", id, s.vary, sweep_value(*last_fit), sweep_value(*first_fail));
  }
  return out;
}

std::string sweep_json(const Sweep& s) {
  ojson j = command_header("sweep");
  j["vary"] = s.vary;
  j["metric"] = s.metric;
  ojson pts = ojson::array();
  for (const auto& p : s.points) {
    ojson row;
    row["value"] = p.value;
    ojson gpus = ojson::array();
    for (const auto& c : p.per_gpu)
      gpus.push_back({{"gpu", c.gpu->id}, {"fits", c.fits}, {"device_peak_bytes", bytes_int(c.memory.device_peak)},
                      {"capacity_bytes", c.gpu->memory_bytes}, {"per_second", opt(sweep_rate(c))},
                      {"job_usd", opt(c.cost.total_usd)}});
    row["gpus"] = gpus;
    pts.push_back(row);
  }
  j["points"] = pts;
  return j.dump(2) + "\n";
}

}  // namespace gpuadvise
