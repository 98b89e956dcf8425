// JSON for the catalogue, check and sweep commands (docs/output-json.md, data/schema/): units in key names, null for
// unknown. `check` and `sweep`, whose size grows with their input, are written as they go (json_write.hpp); the
// catalogue's fixed listings are trees. The plans' JSON (the ranking, estimate, fit): report_json_plans.cpp.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "gpuadvise/report.hpp"
#include "gpuadvise/units.hpp"
#include "json_write.hpp"
#include "report_detail.hpp"
#include "report_json_detail.hpp"

namespace gpuadvise {

namespace detail {
ojson command_header(const char* command) {
  ojson j;
  j["schema_version"] = k_schema_version;
  j["tool_version"] = tool_version();
  j["command"] = command;
  return j;
}

void write_command_header(JsonWriter& o, const char* command, const std::string* catalog_version) {
  o.member("schema_version", k_schema_version);
  o.member("tool_version", tool_version());
  if (catalog_version) o.member("catalog_version", *catalog_version);
  o.member("command", command);
}

ojson deepspeed_json(const DeepSpeedConfig& ds) {
  const ojson on_cpu = {{"device", "cpu"}, {"pin_memory", true}};
  ojson j;
  j["train_micro_batch_size_per_gpu"] = ds.micro_batch;
  if (ds.grad_accum) j["gradient_accumulation_steps"] = *ds.grad_accum;
  j["bf16"] = {{"enabled", ds.bf16}};
  if (ds.fp16) j["fp16"] = {{"enabled", *ds.fp16}};
  ojson zero;
  zero["stage"] = ds.stage;
  if (ds.overlap_comm) zero["overlap_comm"] = true;
  if (ds.offload_optimizer) zero["offload_optimizer"] = on_cpu;
  if (ds.offload_param) zero["offload_param"] = on_cpu;
  j["zero_optimization"] = zero;
  return j;
}

std::string one_line(const ojson& j) {
  if (!j.is_object()) return j.dump();
  std::string out = "{";
  for (auto it = j.begin(); it != j.end(); ++it) out += (it == j.begin() ? "" : ", ") + ojson(it.key()).dump() + ": " + one_line(it.value());
  return out + "}";
}
}  // namespace detail

namespace {

using detail::bytes_int;
using detail::command_header;
using detail::JsonWriter;
using detail::ojson;
using detail::opt;

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
  for (std::size_t i = 0; i < DenseTflops::keys.size(); ++i) tf[std::string(DenseTflops::keys[i])] = opt(g.dense_tflops.values[i]);
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
  j["host_link_gb_per_s"] = opt(g.host_link_gb_per_s);
  j["board_power_w"] = opt(g.board_power_w);
  j["sustained_clock_share"] = opt(g.sustained_clock_share);
  j["multiprocessors"] = g.multiprocessors ? ojson(*g.multiprocessors) : ojson(nullptr);
  j["boost_clock_mhz"] = opt(g.boost_clock_mhz);
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

}  // namespace

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



std::string sweep_json(const Sweep& s) {
  std::string out;
  JsonWriter o(out);
  o.begin_object();
  detail::write_command_header(o, "sweep");
  o.member("vary", s.vary);
  o.member("metric", s.metric);
  o.key("points");
  o.begin_array();
  for (const auto& p : s.points) {
    o.begin_object();
    o.member("value", p.value);
    o.key("gpus");
    o.begin_array();
    for (const auto& c : p.per_gpu) {
      o.begin_object();
      o.member("gpu", c.gpu->id);
      o.member("fits", c.fits);
      o.member("layout", c.layout);
      o.member("device_peak_bytes", bytes_int(c.memory.device_peak));
      o.member("capacity_bytes", c.gpu->memory_bytes);
      o.member("per_second", detail::sweep_rate(c));
      o.member("job_usd", c.cost.total_usd);
      o.text_or_null("fit_reason", c.fits ? std::string() : c.fit_reason.text());
      o.end_object();
    }
    o.end_array();
    o.end_object();
  }
  o.end_array();
  o.key("notes");
  o.begin_array();
  for (const auto& n : s.notes) o.value(n);
  o.end_array();
  o.end_object();
  return out + "\n";
}

}  // namespace gpuadvise
