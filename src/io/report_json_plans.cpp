// JSON of the answers about plans (the ranking, `estimate` and `fit`), written as it goes (json_write.hpp), without a
// tree of values first. Units in key names, null for unknown (docs/output-json.md, data/schema/).
#include <algorithm>
#include <cmath>
#include "gpuadvise/report.hpp"
#include "gpuadvise/launch_hints.hpp"
#include "gpuadvise/units.hpp"
#include "json_write.hpp"
#include "report_detail.hpp"
#include "report_json_detail.hpp"

namespace gpuadvise {

namespace {

using detail::bytes_int;
using detail::write_memory;
using detail::JsonWriter;

void write_workload(JsonWriter& o, const Workload& w, std::int64_t seq_len, const ModelSpec* m = nullptr) {
  o.begin_object();
  if (w.name) o.member("name", *w.name);
  o.member("model", w.model);
  o.member("mode", to_string(w.mode));
  o.member("precision", to_string(w.precision));
  o.member("precision_from_checkpoint", w.precision_from_checkpoint);
  o.key("kv_precision");
  w.kv_precision ? o.value(to_string(*w.kv_precision)) : o.null();
  o.member("double_quant", w.double_quant);
  o.member("master_weights", to_string(w.effective_master_weights()));
  o.key("grad_dtype");  // given, else null: the framework's own (the memory's gradients say which)
  w.grad_dtype ? o.value(to_string(*w.grad_dtype)) : o.null();
  o.member("optimizer", to_string(w.optimizer));
  o.member("batch", w.batch);
  o.member("seq_len", seq_len);
  o.member("gradient_checkpointing", to_string(w.checkpointing));
  o.key("recompute_modules");  // given, else null (the default set: core_attn, and MLA's up-projections under Megatron)
  w.recompute_modules ? o.value(w.recompute_modules->spec()) : o.null();
  o.member("flash_attention", w.flash_attention);
  o.member("compile", w.compile);
  o.member("cache_latents", w.cache_latents);
  o.member("channels_last", w.channels_last);  // null: the model's own layout
  o.member("vae_tiling", w.vae_tiling);
  o.member("lora_rank", w.lora_rank);
  o.member("lora_targets", w.lora_targets.spec);
  o.member("gpus", w.gpus);
  o.member("sharding", to_string(w.sharding));
  o.member("tp", w.tp);
  o.member("pp", w.pp);
  o.member("framework", to_string(m ? framework_of(w, *m) : w.effective_framework()));
  if (m && m->vision) {
    const auto [W, H] = image_size(w, *m);
    o.key("image_size");
    o.begin_object();
    o.member("width", W);
    o.member("height", H);
    o.end_object();
    if (m->vision->dit_t5_tokens > 0) o.member("text_tokens", vision_arch(w, *m).dit_t5_tokens);  // T5's max_sequence_length
  }
  o.member("offload", to_string(w.offload));
  o.member("tokens", w.tokens);
  o.member("requests", w.requests);
  o.member("input_tokens", w.input_tokens);
  o.member("output_tokens", w.output_tokens);
  o.end_object();
}

void write_model(JsonWriter& o, const ModelSpec& m, const MemoryEstimate& mem) {
  o.begin_object();
  o.member("id", m.id);
  o.member("family", m.family);
  o.member("source", m.source);
  o.member("params", mem.params_total);
  o.member("params_active", mem.params_active);
  o.member("params_trainable", mem.params_trainable);
  o.member("layers", m.layers + m.encoder_layers);
  o.member("hidden_size", m.hidden);
  o.member("attention_heads", m.heads);
  o.member("kv_heads", m.kv_heads);
  o.member("head_dim", m.head_dim);
  o.member("intermediate_size", m.ffn);
  o.member("vocab_size", m.vocab);
  o.member("kv_cache_bytes_per_token_16bit", kv_elements_per_token(m) * 2.0);
  if (m.vision) {
    o.member("task", m.vision->task);
    o.member("backbone", m.vision->backbone);
    o.member("classes", m.vision->classes);
  }
  if (m.is_moe()) {
    o.member("experts", m.experts);
    o.member("experts_per_token", m.experts_per_token);
  }
  o.member("notes", m.notes);
  o.end_object();
}

void write_system(JsonWriter& o, const SystemNeeds& s) {
  o.begin_object();
  o.member("host_ram_bytes", bytes_int(s.host_ram_bytes));
  o.member("cpu_cores", s.cpu_cores);
  o.key("checkpoint_bytes");
  if (s.checkpoint_bytes) o.value(bytes_int(*s.checkpoint_bytes));
  else o.null();
  o.member("disk_bytes", bytes_int(s.disk_bytes));
  o.member("basis", s.basis);
  o.member("notes", s.notes);
  o.end_object();
}

void write_time(JsonWriter& o, const TimeEstimate& t) {
  o.begin_object();
  o.member("train_tokens_per_second_per_gpu", t.train_tokens_per_second_per_gpu);
  o.member("train_flops_per_token", t.train_flops_per_token);
  o.member("prefill_tokens_per_second", t.prefill_tokens_per_second);
  o.member("decode_tokens_per_second", t.decode_tokens_per_second);
  o.member("ttft_seconds", t.ttft_seconds);
  o.member("tpot_seconds", t.tpot_seconds);
  o.member("requests_per_second", t.requests_per_second);
  o.member("images_per_second", t.images_per_second);
  o.member("input_images_per_second", t.input_images_per_second);
  o.member("denoising_steps_per_second", t.denoising_steps_per_second);
  o.member("job_seconds", t.job_seconds);
  o.member("utilization", t.utilization);
  o.member("compute_precision", t.compute_key);
  o.member("bound", t.bound);
  o.key("band");
  if (t.band) {
    o.begin_object();
    o.member("metric", t.band->metric);
    o.member("low", t.band->low);
    o.member("high", t.band->high);
    o.member("drivers", t.band->drivers);
    o.end_object();
  } else {
    o.null();
  }
  o.end_object();
}

void write_cost(JsonWriter& o, const Candidate& c) {
  const JobCost& k = c.cost;
  o.begin_object();
  o.key("price");
  if (k.price.usd_per_gpu_hour) {
    o.begin_object();
    o.member("usd_per_gpu_hour", *k.price.usd_per_gpu_hour);
    o.member("provider", k.price.provider);
    o.text_or_null("date_seen", k.price.date_seen);
    o.member("source", k.price.source);
    o.member("basis", k.price.basis);
    if (!k.price.policy.empty()) o.member("policy", k.price.policy);
    o.end_object();
  } else {
    o.null();
  }
  o.member("usd_per_hour", c.usd_per_hour());
  o.member("job_usd", k.total_usd);
  o.member("compute_usd", k.compute_usd);
  o.member("extras_usd", k.extras_usd);
  o.member("usd_per_million_output_tokens", k.usd_per_million_output_tokens);
  o.member("usd_per_million_input_tokens", k.usd_per_million_input_tokens);
  o.member("usd_per_thousand_images", k.usd_per_thousand_images);
  o.member("usd_per_million_output_tokens_apart", k.usd_per_million_output_tokens_apart);
  if (k.compute_hours > 0) {
    o.key("hours");
    o.begin_object();
    o.member("compute", k.compute_hours);
    o.member("start", k.start_hours);
    o.member("setup", k.setup_hours);
    o.member("checkpoint_writes", k.checkpoint_hours);
    if (k.checkpoint_every_hours > 0) o.member("checkpoint_interval", k.checkpoint_every_hours);
    o.member("expected_rework", k.rework_hours);
    o.member("wall", k.wall_hours);
    o.member("gpu_hours", k.gpu_hours);
    o.end_object();
    o.member("expected_interruptions", k.expected_interruptions);
  }
  o.member("energy_usd", k.energy_usd);
  o.member("amortization_usd", k.amortization_usd);
  // Without a job size: the hourly rate of the whole layout and, for inference, per million output tokens.
  if (!k.usd_per_million_output_tokens && c.usd_per_hour() && c.time.decode_tokens_per_second && !is_training(c.planned.mode)) {
    const double replicas = static_cast<double>(c.planned.gpus) / static_cast<double>(c.planned.tp * c.planned.pp);
    o.member("usd_per_million_output_tokens_at_full_load", *c.usd_per_hour() / (*c.time.decode_tokens_per_second * replicas * 3600.0) * 1e6);
  }
  o.end_object();
}

void write_video(JsonWriter& o, const VideoPlan& v) {
  o.begin_object();
  o.member("streams_per_gpu", v.streams_per_gpu);
  o.member("limiting_stage", v.limit);
  o.member("gpus_needed", v.gpus_needed);
  o.member("decode_streams_per_gpu", v.decode_streams);
  o.member("inference_streams_per_gpu", v.inference_streams);
  o.member("memory_streams_per_gpu", v.memory_streams);
  o.member("frames_dropped_pct", v.frames_dropped_pct);
  o.member("latency_ms", v.latency_ms);
  o.member("usd_per_stream_hour", v.usd_per_stream_hour);
  o.member("tracking_cpu_cores", v.tracking_cpu_cores);
  o.key("latency_stages_ms");
  if (v.stages) {
    o.begin_object();
    o.member("decode", v.stages->decode_ms);
    o.member("preprocess", v.stages->preprocess_ms);
    o.member("batch_fill", v.stages->batch_fill_ms);
    o.member("inference", v.stages->inference_ms);
    o.member("postprocess", v.stages->postprocess_ms);
    o.member("tracking", v.stages->tracking_ms);
    o.end_object();
  } else {
    o.null();
  }
  o.member("notes", v.notes);
  o.end_object();
}

void write_hints(JsonWriter& o, const Workload& w, const Candidate& c, const ModelSpec& m) {
  const LaunchHints h = launch_hints(w, c, m);
  o.begin_object();
  o.member("vllm", h.vllm);
  o.member("server", h.server);
  o.member("torchrun", h.torchrun);
  o.key("deepspeed_config");
  if (h.deepspeed_config) o.tree(detail::deepspeed_json(*h.deepspeed_config));
  else o.null();
  o.member("hf_trainer_args", h.hf_trainer);
  o.member("skypilot_accelerator", h.skypilot_accelerator);
  o.member("skypilot_task", h.skypilot);
  o.member("notes", h.notes);
  o.end_object();
}

// A plan's GPU and what it needs: the ranking's rows.
void write_candidate(JsonWriter& o, const Workload& w, const Candidate& c, bool explain, const ModelSpec& m) {
  o.begin_object();
  o.member("gpu", c.gpu->id);
  o.member("name", c.gpu->name);
  o.member("fits", c.fits);
  o.member("fits_single_gpu", c.fits_single);
  o.member("supported", c.supported);
  o.member("gpus", c.gpus);
  o.member("layout", c.layout);
  o.member("why", c.why);
  auto link = [&](const char* k, Link l) {
    o.key(k);
    if (l == Link::none) o.null();
    else o.string(link_name(*c.gpu, l));
  };
  o.key("plan");
  o.begin_object();
  o.member("gpus", c.gpus);
  o.member("nodes", c.nodes);
  o.member("gpus_per_node", std::max<std::int64_t>(1, c.gpus / std::max<std::int64_t>(1, c.nodes)));
  o.member("tp", c.planned.tp);
  o.member("pp", c.planned.pp);
  o.member("virtual_stages", c.planned.virtual_stages);
  o.member("sharding", to_string(c.planned.sharding));
  o.member("offload", to_string(c.planned.offload));
  if (c.planned.offload == Offload::layers || c.planned.offload == Offload::experts || c.planned.offload == Offload::activations)
    o.member("gpu_layers", c.planned.gpu_layers);  // -ngl, the expert layers kept, or the layers whose activations stay
  o.member("gradient_checkpointing", to_string(c.planned.checkpointing));
  o.member("micro_batch", c.planned.batch);
  o.member("grad_accum", c.planned.grad_accum);
  // Every setting the planner chose, so that `check` and `estimate` given this plan reproduce the row (cp where used).
  o.member("ep", c.planned.ep);
  if (c.planned.cp > 1) o.member("cp", c.planned.cp);
  if (c.planned.attention_dp) o.member("attention_dp", true);
  o.member("precision", to_string(c.planned.precision));
  o.member("vae_tiling", c.planned.vae_tiling);
  o.key("links");
  o.begin_object();
  link("tensor_parallel", c.links.tp_link);
  link("data_parallel", c.links.dp_link);
  link("pipeline", c.links.pp_link);
  o.end_object();
  o.end_object();
  o.key("fit_reason");
  if (c.fit_reason.empty()) o.null();
  else o.value(c.fit_reason);
  o.member("tight", c.tight);
  o.member("nodes", c.nodes);
  o.member("stage", c.stage);
  o.key("value");
  o.begin_object();
  o.member("usd", c.value_usd);
  o.member("unit", c.value_unit);
  o.text_or_null("unknown", c.unranked);
  o.end_object();
  o.key("frontier");
  detail::write_frontier(o, c.frontier);
  o.key("serving_front");
  detail::write_serving_front(o, c.serving_front);
  o.member("capacity_bytes", c.gpu->memory_bytes);
  o.member("capacity_basis", c.gpu->capacity_basis);
  o.member("headroom_bytes", bytes_int(c.headroom_bytes));
  o.member("headroom_pct", 100.0 * c.headroom_bytes / static_cast<double>(c.gpu->memory_bytes));
  o.key("memory");
  write_memory(o, c.memory, explain);
  o.key("time");
  write_time(o, c.time);
  o.key("cost");
  write_cost(o, c);
  o.key("launch_hints");
  if (c.fits) write_hints(o, w, c, m);
  else o.null();
  o.key("system");
  write_system(o, c.system);
  if (c.video) {
    o.key("video");
    write_video(o, *c.video);
  }
  o.key("notes");
  o.begin_array();
  for (const Notes* list : {&c.notes, &c.facts, &c.memory.notes, &c.time.notes})
    for (const auto& n : *list) o.value(n);
  o.end_array();
  o.end_object();
}

}  // namespace

std::string estimate_json(const Workload& w, const ModelSpec& m, const Candidate* on_gpu, const MemoryEstimate& mem,
                          const std::string& catalog_version) {
  std::string out;
  JsonWriter o(out);
  o.begin_object();
  detail::write_command_header(o, "estimate", &catalog_version);
  o.key("workload");
  write_workload(o, w, mem.seq_len, &m);
  o.key("model");
  write_model(o, m, mem);
  o.key("memory");
  write_memory(o, mem, true);
  if (on_gpu) {
    o.key("gpu");
    o.begin_object();
    o.member("id", on_gpu->gpu->id);
    o.member("name", on_gpu->gpu->name);
    o.member("capacity_bytes", on_gpu->gpu->memory_bytes);
    o.member("capacity_basis", on_gpu->gpu->capacity_basis);
    o.end_object();
    o.member("fits", on_gpu->fits);
    o.key("fit_reason");
    if (on_gpu->fit_reason.empty()) o.null();
    else o.value(on_gpu->fit_reason);
    o.member("headroom_bytes", bytes_int(on_gpu->headroom_bytes));
    o.key("time");
    write_time(o, on_gpu->time);
    o.key("serving_front");
    detail::write_serving_front(o, on_gpu->serving_front);
    o.key("cost");
    write_cost(o, *on_gpu);
    o.key("launch_hints");
    if (on_gpu->fits) write_hints(o, w, *on_gpu, m);
    else o.null();
    o.key("system");
    write_system(o, on_gpu->system);
    if (on_gpu->video) {
      o.key("video");
      write_video(o, *on_gpu->video);
    }
  }
  o.key("notes");
  o.begin_array();
  for (const auto& n : m.notes) o.value(n);
  for (const auto& n : mem.notes) o.value(n);
  if (on_gpu) {
    for (const Notes* list : {&on_gpu->notes, &on_gpu->facts, &on_gpu->time.notes})
      for (const auto& n : *list) o.value(n);
  } else {
    o.value("no --gpu given: runtime overhead is that of a current data-centre GPU");
  }
  o.end_array();
  o.end_object();
  return out + "\n";
}

std::string ranking_json(const Workload& w, const ModelSpec& m, const Ranking& r, const std::string& catalog_version) {
  std::string out;
  out.reserve(8192 + 6144 * r.rows.size());  // about 5 KB a row
  JsonWriter o(out);
  o.begin_object();
  detail::write_command_header(o, "rank", &catalog_version);
  const MemoryEstimate& any = r.rows.empty() ? MemoryEstimate{} : r.rows.front().memory;
  o.key("workload");
  write_workload(o, w, any.seq_len, &m);
  o.key("model");
  write_model(o, m, any);
  o.member("order", to_string(r.order));
  o.member("order_text", r.order_text);
  o.key("recommendations");
  o.begin_array();
  for (const auto& rec : r.recommendations) {
    o.begin_object();
    o.member("label", rec.label);
    o.member("gpu", rec.gpu);
    o.member("reason", rec.reason);
    o.end_object();
  }
  o.end_array();
  std::size_t fitting = 0;
  for (const auto& c : r.rows) fitting += c.fits ? 1 : 0;
  o.member("fitting_gpus", fitting);
  o.key("ranking");
  o.begin_array();
  for (const auto& c : r.rows) write_candidate(o, w, c, false, m);
  o.end_array();
  o.key("cpus");  // CPU instances beside the GPUs (method.md §16), rows of the same shape
  o.begin_array();
  for (const auto& c : r.cpu_rows) write_candidate(o, w, c, false, m);
  o.end_array();
  o.key("dropped");
  o.begin_array();
  for (const auto& d : r.dropped) {
    o.begin_object();
    o.member("gpu", d.gpu);
    o.member("reason", d.reason);
    o.member("gpus", d.gpus);
    o.member("layout", d.layout);
    o.member("wall_hours", d.wall_hours);
    o.member("job_usd", d.job_usd);
    o.end_object();
  }
  o.end_array();
  o.key("notes");
  o.begin_array();
  for (const auto& n : r.notes) o.value(n);
  if (fitting == 0) o.value("no GPU of the catalogue fits this workload within the searched layouts");
  o.end_array();
  o.end_object();
  return out + "\n";
}

std::string fit_json(const Workload& w, const ModelSpec& m, const GpuSpec& g, const FitResult& r) {
  std::string out;
  JsonWriter o(out);
  o.begin_object();
  detail::write_command_header(o, "fit");
  o.member("gpu", g.id);
  o.member("model", m.id);
  o.member("mode", to_string(w.mode));
  o.member("maximize", to_string(r.what));
  o.member("value", r.value);
  o.member("fits_at_all", r.value > 0);
  if (r.at) {
    o.key("memory");
    write_memory(o, r.at->memory, false);
    o.member("headroom_bytes", bytes_int(r.at->headroom_bytes));
  } else {
    o.member("memory", nullptr);
    o.member("headroom_bytes", nullptr);
  }
  o.key("next_device_peak_bytes");
  if (r.next) o.value(bytes_int(r.next->memory.device_peak));
  else o.null();
  o.member("capacity_bytes", g.memory_bytes);
  o.text_or_null("limited_by", r.limited_by);
  o.member("min_headroom_pct", r.min_headroom_pct);
  o.text_or_null("as_given", r.layout_given.empty() ? r.as_given : r.as_given.empty() ? r.layout_given : r.as_given + "; " + r.layout_given);
  o.end_object();
  return out + "\n";
}

}  // namespace gpuadvise
