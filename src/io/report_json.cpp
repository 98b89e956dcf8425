// JSON for every command (docs/output-json.md, data/schema/): units in key names, null for unknown.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "gpuadvise/report.hpp"
#include "gpuadvise/units.hpp"
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
using detail::ojson;
using detail::opt;

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
  j["deepspeed_config"] = h.deepspeed_config ? detail::deepspeed_json(*h.deepspeed_config) : ojson(nullptr);
  j["hf_trainer_args"] = opt(h.hf_trainer);
  j["skypilot_accelerator"] = opt(h.skypilot_accelerator);
  j["skypilot_task"] = opt(h.skypilot);
  j["notes"] = h.notes;
  return j;
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
  auto link = [&](Link l) { return l == Link::none ? ojson(nullptr) : ojson(link_name(*c.gpu, l)); };
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
  for (const auto& n : c.facts) notes.push_back(n);
  for (const auto& n : c.memory.notes) notes.push_back(n);
  for (const auto& n : c.time.notes) notes.push_back(n);
  j["notes"] = notes;
  return j;
}

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
    for (const auto& n : on_gpu->facts) notes.push_back(n);
    for (const auto& n : on_gpu->time.notes) notes.push_back(n);
  } else {
    notes.push_back("no --gpu given: runtime overhead is that of a current data-centre GPU");
  }
  j["notes"] = notes;
  return j.dump(2) + "\n";
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

std::string check_json(const std::vector<CheckResult>& results, const CheckAssertions& a) {
  ojson j = command_header("check");
  j["assertions"] = {{"min_headroom_pct", opt(a.min_headroom_pct)}, {"max_cost_usd", opt(a.max_cost_usd)}, {"max_hours", opt(a.max_hours)},
                     {"max_gpus", a.max_gpus ? ojson(*a.max_gpus) : ojson(nullptr)}};
  bool ok = true;
  ojson arr = ojson::array();
  for (const auto& r : results) {
    ok = ok && r.passed();
    const CheckedPlan& c = r.plan;
    arr.push_back({{"workload", r.workload}, {"gpu", c.gpu->id}, {"passed", r.passed()}, {"fits", c.fits}, {"gpus", c.gpus},
                   {"layout", c.layout}, {"device_peak_bytes", bytes_int(c.device_peak)}, {"capacity_bytes", c.gpu->memory_bytes},
                   {"headroom_pct", 100.0 * c.headroom_bytes / static_cast<double>(c.gpu->memory_bytes)},
                   {"job_hours", c.wall_hours > 0 ? ojson(c.wall_hours) : ojson(nullptr)}, {"job_usd", opt(c.total_usd)},
                   {"failures", r.failures}});
  }
  j["passed"] = ok;
  j["results"] = arr;
  return j.dump(2) + "\n";
}

std::string fit_json(const Workload& w, const ModelSpec& m, const GpuSpec& g, const FitResult& r) {
  ojson j = command_header("fit");
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
                      {"capacity_bytes", c.gpu->memory_bytes}, {"per_second", opt(detail::sweep_rate(c))},
                      {"job_usd", opt(c.cost.total_usd)}});
    row["gpus"] = gpus;
    pts.push_back(row);
  }
  j["points"] = pts;
  return j.dump(2) + "\n";
}

}  // namespace gpuadvise
