// CSV for every command (RFC 4180: a header row, comma-separated, text fields quoted, quotes doubled).
// Quantities carry their unit in the column name (…_bytes, …_seconds, usd_…); an unknown is an empty field.
#include <cmath>
#include <fmt/format.h>

#include "gpuadvise/model.hpp"
#include "gpuadvise/correction.hpp"
#include "gpuadvise/escape.hpp"
#include "gpuadvise/report.hpp"
#include "report_detail.hpp"

namespace gpuadvise {

namespace {
using detail::bytes_int;

// escape.hpp's csv_text: RFC 4180 quoting, control characters escaped, a leading formula character defused.
std::string quoted(const std::string& s) { return csv_text(s); }
std::string num(const std::optional<double>& v) { return v ? fmt::format("{:.6g}", *v) : std::string(); }
std::string usd(const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : std::string(); }
const char* boolean(bool b) { return b ? "true" : "false"; }

// A long-format row: section, quantity, value, unit.
void quantity(std::string& out, const char* section, const char* name, const std::optional<double>& v, const char* unit) {
  out += fmt::format("{},{},{},{}\n", section, name, num(v), unit);
}
void byte_quantity(std::string& out, const char* section, const char* name, double bytes) {
  out += fmt::format("{},{},{},bytes\n", section, name, bytes_int(bytes));
}
}  // namespace

std::string ranking_csv(const Ranking& r) {
  std::string out = "rank,gpu,fits,gpus,layout,device_peak_bytes,capacity_bytes,headroom_bytes,usd_per_gpu_hour,price_provider,price_date,job_seconds,wall_seconds,job_usd,"
                    "supported,train_tokens_per_second_per_gpu,decode_tokens_per_second,ttft_seconds,tpot_seconds,images_per_second\n";
  std::size_t i = 0;
  for (const auto& c : r.rows) {
    // job_seconds is the JSON's time.job_seconds (the compute); wall_seconds the billed wall time (cost.hours.wall).
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},", ++i, c.gpu->id, boolean(c.fits), c.gpus, quoted(c.layout),
                       bytes_int(c.memory.device_peak), c.gpu->memory_bytes, bytes_int(c.headroom_bytes), num(c.usd_per_gpu_hour()),
                       quoted(c.cost.price.provider), quoted(c.cost.price.date_seen), num(c.time.job_seconds),
                       c.cost.wall_hours > 0 ? fmt::format("{:.0f}", c.cost.wall_hours * 3600) : "", usd(c.cost.total_usd));
    out += fmt::format("{},{},{},{},{},{}\n", boolean(c.supported), num(c.time.train_tokens_per_second_per_gpu), num(c.time.decode_tokens_per_second),
                       num(c.time.ttft_seconds), num(c.time.tpot_seconds), num(c.time.images_per_second));
  }
  return out;
}

std::string estimate_csv(const Workload& w, const ModelSpec& m, const Candidate* on_gpu, const MemoryEstimate& mem) {
  std::string out = "section,quantity,value,unit\n";
  out += fmt::format("workload,model,{},\nworkload,mode,{},\nworkload,precision,{},\n", quoted(m.id), to_string(w.mode), to_string(w.precision));
  out += fmt::format("workload,batch,{},sequences\nworkload,seq_len,{},tokens\n", w.batch, mem.seq_len);
  const std::pair<const char*, double> parts[] = {{"weights", mem.weights},         {"gradients", mem.gradients}, {"optimizer_states", mem.optimizer_states},
                                                  {"activations", mem.activations}, {"kv_cache", mem.kv_cache},   {"logits", mem.logits},
                                                  {"allocator_reserve", mem.allocator_reserve}, {"runtime", mem.runtime}};
  for (const auto& [name, bytes] : parts) byte_quantity(out, "memory", name, bytes);
  byte_quantity(out, "memory", "tensor_peak", mem.tensor_peak);
  byte_quantity(out, "memory", "device_peak", mem.device_peak);
  byte_quantity(out, "memory", "device_peak_low", mem.device_low);
  byte_quantity(out, "memory", "device_peak_high", mem.device_high);
  if (!on_gpu) return out;
  const Candidate& c = *on_gpu;
  out += fmt::format("gpu,id,{},\ngpu,fits,{},\n", quoted(c.gpu->id), boolean(c.fits));
  out += fmt::format("gpu,capacity,{},bytes\n", c.gpu->memory_bytes);
  byte_quantity(out, "gpu", "headroom", c.headroom_bytes);
  quantity(out, "time", "train_tokens_per_second_per_gpu", c.time.train_tokens_per_second_per_gpu, "tokens/s");
  quantity(out, "time", "prefill_tokens_per_second", c.time.prefill_tokens_per_second, "tokens/s");
  quantity(out, "time", "decode_tokens_per_second", c.time.decode_tokens_per_second, "tokens/s");
  quantity(out, "time", "ttft_seconds", c.time.ttft_seconds, "s");
  quantity(out, "time", "tpot_seconds", c.time.tpot_seconds, "s");
  quantity(out, "time", "images_per_second", c.time.images_per_second, "images/s");
  quantity(out, "time", "job_seconds", c.time.job_seconds, "s");
  quantity(out, "cost", "usd_per_gpu_hour", c.usd_per_gpu_hour(), "USD/GPU-h");
  quantity(out, "cost", "job_usd", c.cost.total_usd, "USD");
  return out;
}

std::string fit_csv(const GpuSpec& g, const FitResult& r) {
  std::string out = "gpu,maximize,value,device_peak_bytes,headroom_bytes,next_device_peak_bytes,capacity_bytes,limited_by\n";
  out += fmt::format("{},{},{},{},{},{},{},{}\n", g.id, to_string(r.what), r.value, r.at ? std::to_string(bytes_int(r.at->memory.device_peak)) : "",
                     r.at ? std::to_string(bytes_int(r.at->headroom_bytes)) : "", r.next ? std::to_string(bytes_int(r.next->memory.device_peak)) : "",
                     g.memory_bytes, quoted(r.limited_by));
  return out;
}

std::string gpus_csv(const GpuCatalog& cat) {
  std::string out = "id,vendor,name,architecture,segment,form_factor,capacity_bytes,memory_bandwidth_gb_per_s,fp32_tflops,tf32_tflops,fp16_tflops,"
                    "bf16_tflops,fp8_tflops,int8_tflops,fp4_tflops,interconnect,interconnect_gb_per_s,stack,needs_server_chassis,"
                    "usd_per_gpu_hour,price_provider,price_date\n";
  for (const auto& g : cat.gpus) {
    out += fmt::format("{},{},{},{},{},{},{},{},", g.id, quoted(g.vendor), quoted(g.name), quoted(g.architecture), to_string(g.segment),
                       quoted(g.form_factor), g.memory_bytes, num(g.bandwidth_gb_per_s));
    for (const auto& v : g.dense_tflops.values) out += num(v) + ",";
    const PriceOffer* o = g.cheapest_offer();
    out += fmt::format("{},{},{},{},{},{},{}\n", quoted(g.interconnect), num(g.interconnect_gb_per_s), g.stack, boolean(g.needs_server_chassis),
                       o ? num(o->usd_per_gpu_hour) : "", o ? quoted(o->provider) : "", o ? quoted(o->date_seen) : "");
  }
  return out;
}

std::string models_csv(const ModelCatalog& cat) {
  std::string out = "id,family,kind,params,params_active,layers,hidden_size,attention_heads,kv_heads,vocab_size,experts,experts_per_token\n";
  for (const auto& m : cat.models) {
    const ParamCounts pc = count_params(m);
    const std::string kind = m.vision ? (m.vision->task == "generation" ? "diffusion" : "vision") : "llm";
    out += fmt::format("{},{},{},{:.0f},{:.0f},{},{},{},{},{},{},{}\n", quoted(m.id), quoted(m.family), kind, pc.total, pc.active,
                       m.layers + m.encoder_layers, m.hidden, m.heads, m.kv_heads, m.vocab, m.experts, m.experts_per_token);
  }
  return out;
}

std::string calibration_view_csv(const CalibrationView& v) {
  std::string out = "quantity,measured,estimated,unit\n";
  out += fmt::format("tensor_peak,{:.0f},{:.0f},bytes\n", v.probe.max_allocated_bytes, v.est_tensor_peak);
  out += fmt::format("reserved,{:.0f},,bytes\n", v.probe.max_reserved_bytes);
  out += fmt::format("device_peak,{:.0f},{:.0f},bytes\n", v.probe.device_used_bytes, v.est_device_peak);
  out += fmt::format("per_second,{:.6g},{},{}\n", v.probe.per_second, num(v.est_per_second), quoted(v.probe.unit + "/s"));
  out += fmt::format("memory_factor,,{:.4f},ratio\nspeed_factor,,{:.4f},ratio\n", v.correction.memory_factor, v.correction.speed_factor);
  if (v.correction.scope) out += "applies_to,," + quoted(scope_text(*v.correction.scope)) + ",workloads\n";
  return out;
}

std::string sweep_csv(const Sweep& s) {
  std::string out = s.vary + ",gpu,fits,layout,device_peak_bytes,capacity_bytes,per_second,job_usd\n";
  for (const auto& p : s.points)
    for (const auto& c : p.per_gpu)
      out += fmt::format("{},{},{},{},{},{},{},{}\n", detail::sweep_value(p.value), c.gpu->id, boolean(c.fits), quoted(c.layout), bytes_int(c.memory.device_peak),
                         c.gpu->memory_bytes, num(detail::sweep_rate(c)), usd(c.cost.total_usd));
  return out;
}

}  // namespace gpuadvise
