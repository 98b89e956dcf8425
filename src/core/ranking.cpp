// Ranking: docs/method.md §9.
#include "gpuadvise/ranking.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuadvise/units.hpp"

namespace gpuadvise {

std::string to_string(RankBy r) {
  switch (r) {
    case RankBy::value: return "value";
    case RankBy::gpus: return "gpus";
    case RankBy::cost: return "cost";
    case RankBy::time: return "time";
    case RankBy::headroom: return "headroom";
  }
  return "?";
}

namespace {

std::string layout_text(const Workload& w) {
  const std::string off = w.offload == Offload::optimizer ? " + optimizer offload"
                          : w.offload == Offload::optimizer_params ? " + CPU offload"
                          : w.offload == Offload::model ? " + model CPU offload"
                          : w.offload == Offload::sequential ? " + sequential CPU offload" : "";
  std::string extra;
  if (w.checkpointing != Checkpointing::none) extra += w.checkpointing == Checkpointing::full ? ", full checkpointing" : ", selective checkpointing";
  if (w.grad_accum > 1) extra += fmt::format(", micro-batch {} x {}", w.batch, w.grad_accum);
  if (w.allow_quantization && is_weight_only_quant(w.precision)) extra += ", " + to_string(w.precision) + " weights";
  if (w.vae_tiling) extra += ", tiled VAE";
  if (w.gpus == 1) return "single GPU" + off + extra;
  std::vector<std::string> parts;
  if (w.tp > 1) parts.push_back(fmt::format("tensor parallel {}", w.tp));
  if (w.pp > 1) parts.push_back(fmt::format("pipeline parallel {}", w.pp));
  const std::int64_t dp = w.data_parallel();
  if (w.ep > 1) parts.push_back(fmt::format("expert parallel {}", w.ep));
  if (dp > 1) {
    switch (w.sharding) {
      case Sharding::none: parts.push_back(fmt::format("data parallel {}", dp)); break;
      case Sharding::zero1: parts.push_back(fmt::format("ZeRO-1 over {}", dp)); break;
      case Sharding::zero2: parts.push_back(fmt::format("ZeRO-2 over {}", dp)); break;
      case Sharding::zero3: parts.push_back(fmt::format("FSDP/ZeRO-3 over {}", dp)); break;
    }
  }
  std::string s = w.nodes > 1 ? fmt::format("{} GPUs in {} nodes: ", w.gpus, w.nodes) : fmt::format("{} GPUs: ", w.gpus);
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? " + " : "") + parts[i];
  return s + off + extra;
}

}  // namespace

namespace {

// vLLM's verdict in its own terms (method.md §6.2): the weights and the profiling run must leave a KV-cache
// pool inside gpu_memory_utilization of the card; one sequence of the max model length (--seq-len) must fit
// the pool (vLLM refuses to start otherwise); and the sequences in flight, each holding its prompt and output
// (--input-tokens + --output-tokens, else the max model length), must fit it together. With a request count
// and no --concurrency, the engine runs as many as the pool holds, up to its max_num_seqs of 256.
void serving_fit(Candidate& c, const Workload& w, const ModelSpec& m) {
  const VllmPool& pool = *c.memory.vllm;
  const std::string engine = pool.engine == "sglang" ? "SGLang" : pool.engine == "trtllm" ? "TensorRT-LLM" : "vLLM";
  const std::string knob = pool.engine == "sglang"   ? fmt::format("mem_fraction_static {:.3g}", pool.utilization)
                           : pool.engine == "trtllm" ? fmt::format("kv_cache_free_gpu_mem_fraction {:g}", pool.utilization)
                                                     : fmt::format("gpu_memory_utilization {:g}", pool.utilization);
  const double max_len = static_cast<double>(c.memory.seq_len);
  const double per_seq = (w.input_tokens && w.output_tokens) ? std::min(max_len, *w.input_tokens + *w.output_tokens) : max_len;
  const double kv_seq = kv_tokens_avg(m, per_seq);
  c.fit_reason.clear();
  if (pool.kv_pool_bytes <= 0) {
    c.fit_reason = fmt::format("weights {:.1f} GB per GPU leave no KV-cache pool in {}'s {:.1f} GB budget ({})", c.memory.weights / 1e9, engine,
                               pool.budget_bytes / 1e9, knob);
  } else if (kv_tokens_avg(m, max_len) > pool.max_tokens) {
    c.fit_reason = fmt::format("one sequence of the max model length ({:.0f} tokens) needs {:.1f} GB of KV cache; {}'s pool holds "
                               "{:.1f} GB ({:.0f} tokens): lower --seq-len",
                               max_len, kv_tokens_avg(m, max_len) * pool.kv_bytes_per_token / 1e9, engine, pool.kv_pool_bytes / 1e9, pool.max_tokens);
  } else {
    if (!w.batch_given && w.requests && kv_seq > 0) {
      c.planned.batch = static_cast<std::int64_t>(std::clamp(std::floor(pool.max_tokens / kv_seq), 1.0, 256.0));
      c.notes.push_back(fmt::format("{} requests in flight: what {}'s KV-cache pool holds at {:.0f} tokens each, up to 256 (vLLM's max_num_seqs)",
                                    c.planned.batch, engine, per_seq));
    }
    const double need = static_cast<double>(c.planned.batch) * kv_seq * pool.kv_bytes_per_token;
    if (need > pool.kv_pool_bytes)
      c.fit_reason = fmt::format("{} sequences of {:.0f} tokens need {:.1f} GB of KV cache; {}'s pool holds {:.1f} GB (at most {:.0f} at once)",
                                 c.planned.batch, per_seq, need / 1e9, engine, pool.kv_pool_bytes / 1e9, std::floor(pool.max_tokens / kv_seq));
  }
  c.fits = c.supported && c.fit_reason.empty();
}

// Serving targets (method.md §8.3): TPOT grows with the sequences in flight, so the largest concurrency whose
// TPOT and TTFT meet --max-tpot-ms and --max-ttft-ms is found by bisection up to what the pool holds (or the
// concurrency asked, which must meet them); the cost per token follows from it.
void meet_latency_targets(Candidate& c, const ModelSpec& m, const GpuSpec& g) {
  const Workload& w = c.planned;
  auto meets = [&](const TimeEstimate& t) {
    return (!w.max_tpot_ms || (t.tpot_seconds && *t.tpot_seconds * 1e3 <= *w.max_tpot_ms)) &&
           (!w.max_ttft_ms || (t.ttft_seconds && *t.ttft_seconds * 1e3 <= *w.max_ttft_ms));
  };
  auto at = [&](std::int64_t b) {
    Workload p = w;
    p.batch = b;
    return estimate_time(p, m, g, c.memory);
  };
  auto targets = [&]() {
    std::string s;
    if (w.max_tpot_ms) s += fmt::format("--max-tpot-ms {:g}", *w.max_tpot_ms);
    if (w.max_ttft_ms) s += fmt::format("{}--max-ttft-ms {:g}", s.empty() ? "" : " and ", *w.max_ttft_ms);
    return s;
  };
  if (meets(c.time)) {
    if (w.batch_given) return;
  } else if (w.batch_given || !meets(at(1))) {
    const TimeEstimate t = w.batch_given ? c.time : at(1);
    c.fits = false;
    c.fit_reason = fmt::format("{} sequence{} in flight: TPOT {:.1f} ms, TTFT {:.0f} ms miss {}", w.batch_given ? w.batch : 1,
                               (w.batch_given ? w.batch : 1) == 1 ? "" : "s", t.tpot_seconds.value_or(0) * 1e3, t.ttft_seconds.value_or(0) * 1e3,
                               targets());
    return;
  }
  std::int64_t lo = 1, hi = w.batch;  // meets at lo, the pool's limit at hi
  if (meets(c.time)) lo = hi;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (meets(at(mid)) ? lo : hi) = mid;
  }
  c.planned.batch = lo;
  c.time = at(lo);
  c.notes.push_back(fmt::format("{} sequences in flight: the most that meet {}", lo, targets()));
}

}  // namespace

Candidate evaluate(const Workload& w_in, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost) {
  // More GPUs than one server holds run on several nodes: whole nodes of this GPU's usual server unless the
  // workload says how many.
  Workload w = w_in;
  if (w.nodes == 1 && w.gpus > g.gpus_per_node()) w.nodes = (w.gpus + g.gpus_per_node() - 1) / g.gpus_per_node();
  Candidate c;
  c.gpu = &g;
  c.planned = w;
  c.gpus = w.gpus;
  c.layout = layout_text(w);
  const PrecisionSupport ps = precision_support(w, g);
  c.supported = ps.supported;
  if (!ps.note.empty()) c.notes.push_back(ps.note);
  const Framework fw = w.effective_framework();
  if ((fw == Framework::tensorrt || fw == Framework::trtllm) && g.stack != "cuda") {
    c.supported = false;
    c.notes.push_back("TensorRT, TensorRT-LLM and DeepStream run on NVIDIA GPUs only (CUDA)");
  }
  c.memory = estimate_memory(w, m, &g);
  c.fits = c.supported && c.memory.device_peak <= static_cast<double>(g.memory_bytes);
  if (!c.fits && c.supported)
    c.fit_reason = fmt::format("needs {:.1f} GB per GPU at the peak; the GPU has {:.1f} GB usable", c.memory.device_peak / 1e9,
                               static_cast<double>(g.memory_bytes) / 1e9);
  if (c.memory.vllm) serving_fit(c, w, m);
  c.time = estimate_time(c.planned, m, g, c.memory);
  // A local correction for this GPU, framework and kind of work (method.md §15) scales the tensor peak and the
  // throughput, and says so in every answer it touches.
  const std::string fw_name = to_string(w.effective_framework());
  for (const auto& k : cost.corrections) {
    if (k.gpu != g.id || k.framework != fw_name || k.training != is_training(w.mode)) continue;
    // A serving engine's pool takes its share of the card whatever the tensors need: only the speed applies.
    const double delta = c.memory.vllm ? 0.0 : c.memory.tensor_peak * (k.memory_factor - 1.0);
    c.memory.tensor_peak += delta;
    c.memory.device_peak += delta;
    c.memory.device_low += delta;
    c.memory.device_high += delta;
    auto scale = [&](std::optional<double>& v, double f) {
      if (v) *v *= f;
    };
    scale(c.time.train_tokens_per_second_per_gpu, k.speed_factor);
    scale(c.time.images_per_second, k.speed_factor);
    scale(c.time.decode_tokens_per_second, k.speed_factor);
    scale(c.time.prefill_tokens_per_second, k.speed_factor);
    scale(c.time.requests_per_second, k.speed_factor);
    scale(c.time.tpot_seconds, 1.0 / k.speed_factor);
    scale(c.time.ttft_seconds, 1.0 / k.speed_factor);
    scale(c.time.job_seconds, 1.0 / k.speed_factor);
    if (c.time.band) {
      c.time.band->low *= k.speed_factor;
      c.time.band->high *= k.speed_factor;
    }
    c.notes.push_back(fmt::format("corrected by your calibration of {} with {} ({}; memory x{:.3f}, throughput x{:.3f}) from {}; "
                                  "remove it with gpuadvise calibrate --reset",
                                  g.id, fw_name, k.saved, k.memory_factor, k.speed_factor, cost.corrections_file));
    if (!c.memory.vllm) {
      c.fits = c.supported && c.memory.device_peak <= static_cast<double>(g.memory_bytes);
      c.fit_reason = c.fits || !c.supported ? "" : fmt::format("needs {:.1f} GB per GPU at the peak (calibrated); the GPU has {:.1f} GB usable",
                                                                c.memory.device_peak / 1e9, static_cast<double>(g.memory_bytes) / 1e9);
    }
    break;
  }
  c.headroom_bytes = static_cast<double>(g.memory_bytes) - c.memory.device_peak;
  if (c.fits && c.memory.vllm && (w.max_ttft_ms || w.max_tpot_ms)) meet_latency_targets(c, m, g);
  c.cost = estimate_cost(c.planned, g, c.time, c.memory.params_total, c.memory.params_trainable, cost);
  if (c.fits && !c.memory.vllm && c.headroom_bytes < 0.1 * static_cast<double>(g.memory_bytes))
    c.notes.push_back("less than 10% headroom: real peaks vary with data and library versions; leave a margin");
  if (g.stack == "rocm") c.notes.push_back("AMD: runs through ROCm/HIP (" + g.gfx_target.value_or("?") + "), not CUDA; check your framework's ROCm support");
  if (g.stack == "synapseai") c.notes.push_back("Intel Gaudi: runs through the Gaudi software stack (SynapseAI), not CUDA");
  if (g.needs_server_chassis) c.facts.push_back("server module: needs an HGX/OAM server chassis, power and cooling");
  if (g.segment == Segment::edge)
    c.notes.push_back(fmt::format("edge module: its memory is shared with the CPU (the OS and the application take part of it) and the power mode "
                                  "(up to {:.0f} W) sets the clocks the figures assume", g.board_power_w.value_or(0)));
  if (w.gpus > 1 && !g.fast_link_joins(w.gpus_per_node()))
    c.notes.push_back(g.node.pcie_p2p == false
                          ? "no NVLink and no PCIe peer-to-peer: the GPUs exchange data through host memory, so sharding and tensor parallelism scale poorly"
                          : "no NVLink between all of them: the GPUs talk over PCIe, so sharding and tensor parallelism scale poorly");
  if (w.nodes > 1) c.notes.push_back(fmt::format("{} nodes joined by {} ({:g} Gb/s per GPU)", w.nodes, g.node.network, g.node.network_gbit_per_gpu.value_or(0)));
  if (g.capacity_basis == "nominal") c.facts.push_back("capacity is the vendor's nominal size; CUDA reports a little less");
  c.system = system_needs(c.planned, m, g, c.memory);
  for (const auto& n : c.system.notes) c.notes.push_back(n);
  for (const auto& n : c.cost.notes) c.notes.push_back(n);
  if (c.cost.missing_price) c.facts.push_back(*c.cost.missing_price);
  if (w.streams && m.vision && !is_training(w.mode)) {
    c.video = plan_video(w, g, c.memory, c.time, c.cost.price.usd_per_gpu_hour);
    c.fits = c.fits && c.video->streams_per_gpu >= 1;
    if (c.video->gpus_needed > 0) {
      c.gpus = c.video->gpus_needed;
      c.layout = fmt::format("{} GPU{}, {:.0f} streams each, batch {}", c.gpus, c.gpus > 1 ? "s" : "", c.video->streams_per_gpu, w.batch);
    }
  }
  return c;
}

namespace {

// Tensor parallelism splits the attention heads: a degree must divide them, and divide the KV heads (or,
// for inference, be a multiple of them: vLLM replicates KV heads then). method.md §9.
bool tp_divides(const ModelSpec& m, std::int64_t tp, bool training) {
  if (tp <= 1) return true;
  if (m.heads <= 0 || m.heads % tp != 0) return false;
  if (m.is_mla() || m.kv_heads <= 0) return true;
  return m.kv_heads % tp == 0 || (!training && tp % m.kv_heads == 0);
}

Workload with_layout(const Workload& w, std::int64_t gpus, std::int64_t nodes, std::int64_t tp, std::int64_t pp, Sharding sh,
                     Offload off) {
  Workload p = w;
  p.gpus = gpus;
  p.nodes = nodes;
  p.tp = tp;
  p.pp = pp;
  p.sharding = sh;
  p.offload = off;
  p.ep = 1;
  return p;
}

// The layouts worth trying at n GPUs (method.md §9). Inside one node: data parallel, ZeRO-1/2/3, tensor
// parallel over degrees that divide the heads (the rest data parallel with ZeRO-1), pipeline stages that
// divide the layers. Across nodes (whole nodes, where the catalogue knows a network): the same data-parallel
// family over every GPU, tensor parallel inside each node with data parallel or pipeline stages across.
// Inference splits with tensor parallelism inside a node and pipeline stages across nodes (unevenly where the
// stages do not divide the layers, as serving engines do).
std::vector<Workload> layouts_at(const Workload& w, const ModelSpec& m, const GpuSpec& g, std::int64_t n) {
  std::vector<Workload> out;
  const std::int64_t per_node = g.gpus_per_node();
  const std::int64_t nodes = n <= per_node ? 1 : n / per_node;
  if (n > per_node && (!g.multi_node() || n % per_node != 0)) return out;
  const std::int64_t in_node = std::min(n, per_node);
  const bool training = is_training(w.mode);
  const std::int64_t layers = m.layers + m.encoder_layers;
  if (n == 1) {
    out.push_back(with_layout(w, 1, 1, 1, 1, Sharding::none, Offload::none));
    return out;
  }
  if (training) {
    for (Sharding sh : {Sharding::none, Sharding::zero1, Sharding::zero2, Sharding::zero3})
      out.push_back(with_layout(w, n, nodes, 1, 1, sh, Offload::none));
    if (m.vision) return out;
    for (std::int64_t tp = 2; tp <= in_node; tp *= 2) {
      if (!tp_divides(m, tp, true)) continue;
      out.push_back(with_layout(w, n, nodes, tp, 1, n / tp > 1 ? Sharding::zero1 : Sharding::none, Offload::none));
      // Pipeline stages across the nodes, tensor parallel inside each.
      if (nodes > 1 && tp == in_node && layers % nodes == 0) out.push_back(with_layout(w, n, nodes, tp, nodes, Sharding::none, Offload::none));
    }
    for (std::int64_t pp = 2; pp <= in_node; pp *= 2)
      if (layers % pp == 0 && nodes == 1) out.push_back(with_layout(w, n, 1, 1, pp, n / pp > 1 ? Sharding::zero1 : Sharding::none, Offload::none));
    // Mixture of experts: the routed experts split over an expert-parallel group inside each node (degrees
    // that divide the experts), the rest data parallel with ZeRO-1 or ZeRO-3.
    if (m.is_moe())
      for (std::int64_t ep = 2; ep <= in_node; ep *= 2)
        if (m.experts % ep == 0)
          for (Sharding sh : {Sharding::zero1, Sharding::zero3}) {
            Workload p = with_layout(w, n, nodes, 1, 1, sh, Offload::none);
            p.ep = ep;
            out.push_back(p);
          }
    return out;
  }
  if (m.vision) return out;
  if (nodes == 1 && tp_divides(m, n, false)) out.push_back(with_layout(w, n, 1, n, 1, Sharding::none, Offload::none));
  // Serving engines split layers the stages do not divide unevenly (vLLM's get_pp_indices): DeepSeek-V3's 61
  // layers over 2 nodes are 31 + 30.
  if (nodes > 1 && tp_divides(m, per_node, false) && layers >= nodes)
    out.push_back(with_layout(w, n, nodes, per_node, nodes, Sharding::none, Offload::none));
  return out;
}

// Memory savers an engineer tries before adding GPUs (method.md §9): selective then full activation
// checkpointing (unless the user chose one), then smaller micro-batches with gradient accumulation that keep
// the asked batch per optimizer step. Returned in that order; the first that fits is the plan for a layout.
std::vector<Workload> with_savers(const Workload& p) {
  std::vector<Workload> out;
  if (!is_training(p.mode)) {
    out.push_back(p);
    // Quantised weights only when the user allows them: 8-bit, then 4-bit (AWQ-style int4) on the same GPUs.
    if (p.allow_quantization && (p.precision == Precision::bf16 || p.precision == Precision::fp16))
      for (Precision q : {Precision::int8, Precision::int4}) {
        Workload w = p;
        w.precision = q;
        out.push_back(w);
      }
    return out;
  }
  std::vector<Checkpointing> levels{p.checkpointing};
  if (!p.checkpointing_given && p.checkpointing == Checkpointing::none) levels = {Checkpointing::none, Checkpointing::selective, Checkpointing::full};
  for (std::int64_t micro = p.batch; micro >= 1; micro /= 2) {
    if (p.batch % micro != 0) continue;
    for (Checkpointing c : levels) {
      Workload q = p;
      q.checkpointing = c;
      q.batch = micro;
      q.grad_accum = p.grad_accum * (p.batch / micro);
      out.push_back(q);
    }
    if (micro == 1) break;
  }
  return out;
}

std::string stage_of(const Workload& p) {
  if (p.offload != Offload::none) return "CPU offload";
  if (p.gpus == 1) return "one GPU";
  return p.nodes > 1 ? "several nodes" : "one node";
}

// The plan's work per second and its unit: images (every GPU), training tokens (every GPU) or output tokens
// (every replica); empty when the throughput is unknown.
struct WorkRate {
  std::optional<double> per_second;
  std::string unit;  // as value_of names it
  double scale = 1e6;
};

WorkRate work_rate(const Candidate& c) {
  const Workload& w = c.planned;
  const double gpus = static_cast<double>(c.gpus);
  WorkRate r;
  if (c.time.images_per_second) {
    r.unit = "k images";
    r.per_second = *c.time.images_per_second * gpus;
    r.scale = 1e3;
  } else if (is_training(w.mode)) {
    r.unit = "M training tokens";
    if (c.time.train_tokens_per_second_per_gpu) r.per_second = *c.time.train_tokens_per_second_per_gpu * gpus;
  } else {
    r.unit = "M output tokens";
    if (c.time.decode_tokens_per_second) r.per_second = *c.time.decode_tokens_per_second * std::max(1.0, gpus / static_cast<double>(w.tp * w.pp));
  }
  return r;
}

// Lower is better: the order's figure, with unknowns last.
double score(const Candidate& c, RankBy order) {
  constexpr double unknown = 1e300;
  switch (order) {
    case RankBy::time: {
      if (c.time.job_seconds) return *c.time.job_seconds;
      const auto rate = work_rate(c).per_second;
      return rate ? 1.0 / *rate : unknown;
    }
    case RankBy::cost:
      if (c.cost.total_usd) return *c.cost.total_usd;
      if (c.usd_per_hour()) return *c.usd_per_hour();
      return unknown;
    case RankBy::headroom: return -c.headroom_bytes;
    case RankBy::gpus:
    case RankBy::value: return c.value_usd.value_or(unknown);
  }
  return unknown;
}

std::string describe_choice(const Candidate& chosen, const Candidate& single, std::size_t fitting, RankBy order,
                            const RankOptions& opts) {
  std::string why;
  const auto& p = chosen.planned;
  std::vector<std::string> savers;
  if (p.checkpointing != single.planned.checkpointing)
    savers.push_back(p.checkpointing == Checkpointing::full ? "full activation checkpointing" : "selective activation checkpointing");
  if (p.precision != single.planned.precision) savers.push_back(to_string(p.precision) + " weights (--allow-quantization)");
  if (p.grad_accum > single.planned.grad_accum)
    savers.push_back(fmt::format("micro-batch {} x {} accumulation steps", p.batch, p.grad_accum));
  const std::string with = savers.empty() ? "" : " with " + fmt::format("{}", fmt::join(savers, " and "));
  const double cap = static_cast<double>(chosen.gpu->memory_bytes) / 1e9;
  if (chosen.planned.offload == Offload::model || chosen.planned.offload == Offload::sequential) {
    why = fmt::format("one GPU needs {:.1f} GB of {:.1f} GB with every component resident; diffusers' {} CPU offload keeps {} on it{}",
                      single.memory.device_peak / 1e9, cap, chosen.planned.offload == Offload::model ? "model" : "sequential",
                      chosen.planned.offload == Offload::model ? "one component at a time" : "one block at a time (slow: the denoiser crosses PCIe every step)",
                      chosen.planned.vae_tiling && !single.planned.vae_tiling ? " and the VAE decodes in tiles" : "");
  } else if (chosen.planned.offload != Offload::none) {
    why = fmt::format("nothing else fits within {} GPUs: one GPU needs {:.1f} GB of {:.1f} GB; the optimizer states move to "
                      "CPU memory (slow)", opts.max_gpus, single.memory.device_peak / 1e9, cap);
  } else if (chosen.gpus == 1) {
    why = single.fits && savers.empty() ? "fits on one GPU" : fmt::format("fits on one GPU{} ({:.1f} GB without)", with, single.memory.device_peak / 1e9);
  } else {
    const std::string one = single.memory.vllm && !single.fit_reason.empty()
                                ? "on one GPU " + single.fit_reason
                                : fmt::format("one GPU needs {:.1f} GB of {:.1f} GB", single.memory.device_peak / 1e9, cap);
    why = single.fits ? fmt::format("fits on one GPU, but {} GPUs{}", chosen.gpus, opts.deadline_seconds ? " meet the deadline" : " finish the job for less")
                      : fmt::format("{}; {} GPUs{} fit{}", one, chosen.gpus, chosen.nodes > 1 ? fmt::format(" in {} nodes", chosen.nodes) : "", with);
  }
  if (fitting > 1)
    why += fmt::format("; the {} of {} plans that fit", order == RankBy::time ? "fastest" : order == RankBy::headroom ? "roomiest" : "best value", fitting);
  return why;
}

// Keeps the plans no other plan beats on both time and cost (with a job size), else the best value per GPU count.
std::vector<FrontierPoint> frontier_of(std::vector<const Candidate*> plans) {
  std::vector<FrontierPoint> out;
  std::sort(plans.begin(), plans.end(), [](const Candidate* a, const Candidate* b) {
    if (a->gpus != b->gpus) return a->gpus < b->gpus;
    return score(*a, RankBy::value) < score(*b, RankBy::value);
  });
  for (const Candidate* c : plans) {
    FrontierPoint f{c->gpus, c->nodes, c->layout, std::nullopt, std::nullopt, c->value_usd};
    if (c->cost.total_usd && c->time.job_seconds) {
      f.hours = c->cost.wall_hours;
      f.usd = c->cost.total_usd;
      bool dominated = false;
      for (const Candidate* o : plans)
        if (o != c && o->cost.total_usd && o->time.job_seconds && o->cost.wall_hours <= c->cost.wall_hours &&
            *o->cost.total_usd <= *c->cost.total_usd && (o->cost.wall_hours < c->cost.wall_hours || *o->cost.total_usd < *c->cost.total_usd))
          dominated = true;
      if (dominated) continue;
    } else if (!out.empty() && out.back().gpus == c->gpus) {
      continue;  // without a job size: the best value at each count
    }
    out.push_back(f);
  }
  return out;
}

bool meets_deadline(const Candidate& c, const RankOptions& o) {
  return c.time.job_seconds && c.cost.wall_hours * 3600.0 <= *o.deadline_seconds;
}
bool within_budget(const Candidate& c, const RankOptions& o) { return c.cost.total_usd && *c.cost.total_usd <= *o.budget_usd; }

}  // namespace

std::optional<double> value_of(const Candidate& c, std::string& unit, std::string& why_unknown) {
  const Workload& w = c.planned;
  const auto hourly = c.usd_per_hour();
  auto need_price = [&]() -> std::optional<double> {
    why_unknown = "no price (--price ID=USD sets one)";
    return std::nullopt;
  };
  if (c.video) {
    unit = "stream-hour";
    if (c.video->usd_per_stream_hour) return c.video->usd_per_stream_hour;
    why_unknown = !hourly ? "no price (--price ID=USD sets one)" : "streams per GPU unknown";
    return std::nullopt;
  }
  if (w.has_job_size()) {
    unit = "job";
    if (c.cost.total_usd) return c.cost.total_usd;
    if (!c.time.job_seconds) {
      why_unknown = "throughput unknown";
      return std::nullopt;
    }
    return need_price();
  }
  const WorkRate rate = work_rate(c);
  unit = rate.unit;
  if (!rate.per_second) {
    why_unknown = "throughput unknown";
    return std::nullopt;
  }
  if (!hourly) return need_price();
  return *hourly / (*rate.per_second * 3600.0) * rate.scale;
}

namespace {

void finish_candidate(Candidate& c, const GpuSpec& g, const RankOptions& opts) {
  c.nodes = c.planned.nodes;
  c.stage = stage_of(c.planned);
  c.links = plan_links(g, c.planned);
  const bool engine_pool = c.memory.vllm.has_value();  // vLLM takes its share by design: its pool decides
  c.tight = c.fits && !engine_pool && c.headroom_bytes < opts.min_headroom_pct / 100.0 * static_cast<double>(g.memory_bytes);
  c.value_usd = value_of(c, c.value_unit, c.unranked);
  if (!c.usd_per_gpu_hour() && !opts.cost.provider.empty())
    if (const PriceOffer* offer = g.offer_from(opts.cost.provider); offer && !offer->usd_per_gpu_hour)
      // The provider rents this GPU but no price could be sourced: say so rather than guess.
      c.unranked = offer->provider + " rents it, but no price could be sourced (" + offer->note + ")";
}

}  // namespace

Candidate plan(const Workload& w, const ModelSpec& m, const GpuSpec& g, const RankOptions& opts, RankBy order) {
  Candidate single = evaluate(w, m, g, opts.cost);
  finish_candidate(single, g, opts);
  single.fits_single = single.fits && !single.tight && w.gpus == 1;
  if (w.streams && !w.batch_given && single.supported) {
    // Video without --batch: frames of the streams on one GPU are batched as a DeepStream-style pipeline does
    // (batch size = sources); the batch that sustains the most streams per GPU within --max-latency-ms wins,
    // the smaller on a tie.
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
  if (w.gpus > 1 || !single.supported || w.streams) {  // the user's own layout, video (sized by streams), or nothing to search
    single.why = w.gpus > 1 ? "the layout given" : "";
    return single;
  }
  const bool explore = w.has_job_size() || opts.deadline_seconds || opts.budget_usd || order == RankBy::time;
  std::vector<Candidate> fits, tight;
  std::int64_t first_fit = 0;
  std::string offload_short;
  auto try_layout = [&](const Workload& layout) {
    for (const Workload& p : with_savers(layout)) {
      Candidate c = (p.gpus == 1 && p.offload == Offload::none && p.checkpointing == w.checkpointing && p.batch == w.batch &&
                     p.precision == w.precision)
                        ? single
                        : evaluate(p, m, g, opts.cost);
      finish_candidate(c, g, opts);
      if (!c.fits) continue;
      if (p.offload != Offload::none && offload_host_bytes(p, c.memory) > node_host_ram_bytes(g)) {
        offload_short = fmt::format("CPU offload would need {:.0f} GB of host memory, more than such a node's {:.0f} GB",
                                    offload_host_bytes(p, c.memory) / 1e9, node_host_ram_bytes(g) / 1e9);
        continue;
      }
      if (c.tight) {
        tight.push_back(std::move(c));
        continue;
      }
      fits.push_back(std::move(c));
      return;
    }
  };
  for (std::int64_t n = 1; n <= opts.max_gpus; n *= 2) {
    if (first_fit) {
      const bool deadline_unmet = opts.deadline_seconds &&
                                  std::none_of(fits.begin(), fits.end(), [&](const Candidate& c) { return meets_deadline(c, opts); });
      if (!deadline_unmet && (!explore || n > 8 * first_fit)) break;
    }
    const std::size_t before = fits.size();
    for (const Workload& layout : layouts_at(w, m, g, n)) try_layout(layout);
    if (!first_fit && fits.size() > before) first_fit = n;
  }
  if (fits.empty() && is_training(w.mode) && !m.vision) {
    // CPU offload, last: the optimizer states (then the parameters) in host memory, on one GPU or sharded
    // over one node.
    for (Offload off : {Offload::optimizer, Offload::optimizer_params}) {
      try_layout(with_layout(w, 1, 1, 1, 1, Sharding::none, off));
      for (std::int64_t n = 2; n <= std::min<std::int64_t>(opts.max_gpus, g.gpus_per_node()) && fits.empty(); n *= 2)
        try_layout(with_layout(w, n, 1, 1, 1, Sharding::zero3, off));
      if (!fits.empty()) break;
    }
  }
  if (fits.empty() && !is_training(w.mode) && m.vision && m.vision->task == "generation" && w.offload == Offload::none) {
    // diffusers' memory options, cheapest first (method.md §12.4): model CPU offload, then tiled VAE decoding
    // with it, then sequential CPU offload (slow: the denoiser crosses PCIe at every step).
    for (Offload off : {Offload::model, Offload::sequential}) {
      for (bool tiling : {w.vae_tiling, true}) {
        Workload p = w;
        p.offload = off;
        p.vae_tiling = tiling;
        try_layout(p);
        if (!fits.empty()) break;
      }
      if (!fits.empty()) break;
    }
  }
  if (fits.empty()) {
    if (!tight.empty()) {
      auto best = std::min_element(tight.begin(), tight.end(), [](const Candidate& a, const Candidate& b) { return a.headroom_bytes > b.headroom_bytes; });
      Candidate c = *best;
      c.fits_single = single.fits;
      c.why = fmt::format("fits only with {:.1f} GB free per GPU ({:.1f}% of the card), under the {:.0f}% margin",
                          c.headroom_bytes / 1e9, 100.0 * c.headroom_bytes / static_cast<double>(g.memory_bytes), opts.min_headroom_pct);
      return c;
    }
    const std::int64_t reach = g.multi_node() ? opts.max_gpus : std::min<std::int64_t>(opts.max_gpus, g.gpus_per_node());
    const std::string one_gpu = single.memory.vllm && !single.fit_reason.empty()
                                    ? "on one GPU: " + single.fit_reason
                                    : fmt::format("needs {:.1f} GB on one GPU of {:.1f} GB", single.memory.device_peak / 1e9, static_cast<double>(g.memory_bytes) / 1e9);
    single.why = fmt::format("does not fit within {} GPU{}{} in the layouts searched ({})", reach, reach > 1 ? "s" : "",
                             g.multi_node() ? "" : fmt::format(" (one node: {})", g.node.network.empty() ? "no network between nodes known" : "no multi-node network: " + g.node.network),
                             one_gpu);
    if (!offload_short.empty()) single.why += "; " + offload_short;
    return single;
  }
  std::vector<const Candidate*> pool;
  for (const auto& c : fits) pool.push_back(&c);
  // Which plans compete: those meeting the deadline (the cheapest wins), those within the budget (the fastest
  // wins), else the smallest count that fits (and, with a job size, up to 4x that count for a cheaper job).
  RankBy pick = order;
  std::vector<const Candidate*> eligible;
  if (opts.deadline_seconds) {
    for (auto* c : pool)
      if (meets_deadline(*c, opts)) eligible.push_back(c);
    pick = RankBy::cost;
  }
  if (opts.budget_usd) {
    std::vector<const Candidate*> base = opts.deadline_seconds ? eligible : pool, kept;
    for (auto* c : base)
      if (within_budget(*c, opts)) kept.push_back(c);
    eligible = kept;
    if (!opts.deadline_seconds) pick = RankBy::time;
  }
  if (!opts.deadline_seconds && !opts.budget_usd) {
    const std::int64_t limit = (w.has_job_size() || order == RankBy::time) && order != RankBy::gpus ? 4 * first_fit : first_fit;
    for (auto* c : pool)
      if (c->gpus <= limit) eligible.push_back(c);
    if (order == RankBy::gpus) pick = RankBy::value;
  }
  const Candidate* best = nullptr;
  for (auto* c : eligible) {
    // More GPUs must be clearly better (2 %) to be chosen: fewer GPUs are simpler and less exposed.
    const double margin = (best && c->gpus > best->gpus) ? 0.98 : 1.0;
    if (!best || score(*c, pick) < margin * score(*best, pick)) best = c;
  }
  Candidate out;
  if (best) {
    out = *best;
  } else {
    // No plan meets the deadline or the budget: report the closest (fastest, or cheapest) so the row can say why.
    const RankBy closest = opts.deadline_seconds ? RankBy::time : RankBy::cost;
    out = **std::min_element(pool.begin(), pool.end(), [&](const Candidate* a, const Candidate* b) { return score(*a, closest) < score(*b, closest); });
  }
  out.fits_single = single.fits && !single.tight;
  out.why = describe_choice(out, single, fits.size(), pick, opts);
  out.frontier = frontier_of(pool);
  return out;
}

namespace {

std::string order_description(RankBy order, const Workload& w, bool job) {
  switch (order) {
    case RankBy::value:
      if (w.streams) return "best value: lowest cost per stream-hour";
      if (job) return "best value: lowest cost of the completed job";
      return is_training(w.mode) ? "best value: lowest cost per unit of work (no job size: --tokens N prices the whole job)"
                                 : "best value: lowest cost per unit of work (no job size: --requests N --output-tokens O prices the whole job)";
    case RankBy::cost: return job ? "lowest cost of the completed job" : "lowest hourly cost of the plan";
    case RankBy::time: return job ? "shortest job" : "highest throughput";
    case RankBy::gpus: return "fewest GPUs, then the lowest hourly price";
    case RankBy::headroom: return "most memory headroom per GPU";
  }
  return "";
}

// Fits without a margin problem first, then tight plans, then what does not fit; unknown figures after known ones.
int tier(const Candidate& c) { return c.fits ? (c.tight ? 1 : 0) : 2; }

}  // namespace

Ranking rank_gpus(const Workload& given, const ModelSpec& m, const GpuCatalog& catalog, const RankOptions& opts) {
  // The ranking prints no memory explanations: the layouts it tries skip writing them.
  Workload w = given;
  w.explain = false;
  Ranking r;
  const bool job = w.has_job_size();
  r.has_job = job;
  r.order = opts.rank_by.value_or(RankBy::value);
  for (const auto& g : catalog.gpus) {
    if (!opts.only_gpus.empty() && std::find(opts.only_gpus.begin(), opts.only_gpus.end(), g.id) == opts.only_gpus.end())
      continue;
    if (!opts.cost.provider.empty() && !g.offered_by(opts.cost.provider)) continue;
    r.rows.push_back(plan(w, m, g, opts, r.order));
  }
  // --deadline and --budget drop what cannot meet them (an unknown time or cost never passes), and say why.
  std::vector<Candidate> kept;
  for (auto& c : r.rows) {
    if (c.fits && opts.deadline_seconds && !meets_deadline(c, opts)) {
      r.dropped.push_back({c.gpu->id, c.time.job_seconds
                                          ? fmt::format("the fastest plan within {} GPUs ({}) takes {:.1f} h, over the {:.1f} h deadline",
                                                        opts.max_gpus, c.layout, c.cost.wall_hours, *opts.deadline_seconds / 3600.0)
                                          : "job time unknown (no throughput figure), so the deadline cannot be checked"});
      continue;
    }
    if (c.fits && opts.budget_usd && !within_budget(c, opts)) {
      r.dropped.push_back({c.gpu->id, c.cost.total_usd ? fmt::format("the cheapest plan costs ${:.2f}, over the ${:.2f} budget", *c.cost.total_usd, *opts.budget_usd)
                                                       : "job cost unknown (" + (c.unranked.empty() ? std::string("no price or throughput") : c.unranked) + "), so the budget cannot be checked"});
      continue;
    }
    kept.push_back(std::move(c));
  }
  r.rows = std::move(kept);
  auto price = [](const Candidate& c) { return c.usd_per_gpu_hour().value_or(1e300); };
  std::stable_sort(r.rows.begin(), r.rows.end(), [&](const Candidate& a, const Candidate& b) {
    if (tier(a) != tier(b)) return tier(a) < tier(b);
    if (r.order == RankBy::gpus && a.gpus != b.gpus) return a.gpus < b.gpus;
    const double sa = score(a, r.order == RankBy::gpus ? RankBy::cost : r.order), sb = score(b, r.order == RankBy::gpus ? RankBy::cost : r.order);
    if (sa != sb) return sa < sb;
    if (a.gpus != b.gpus) return a.gpus < b.gpus;
    if (price(a) != price(b)) return price(a) < price(b);
    return a.gpu->id < b.gpu->id;
  });
  if (!is_training(w.mode) && w.batch == 1 && job)
    r.notes.push_back("one sequence at a time leaves most of each GPU's bandwidth idle; serving engines batch requests "
                      "(--concurrency N, --framework vllm) for a far lower cost per token");
  r.order_text = "fits first (tight plans after), then " + order_description(r.order, w, job) + "; unknown prices or throughputs after known ones";
  // The recommendation: best value, fastest, and the cheapest single card one can rent or buy.
  const Candidate* best_value = nullptr;
  const Candidate* fastest = nullptr;
  const Candidate* single_card = nullptr;
  for (const auto& c : r.rows) {
    if (!c.fits || c.tight) continue;
    if (c.value_usd && (!best_value || *c.value_usd < *best_value->value_usd)) best_value = &c;
    if (score(c, RankBy::time) < 1e299 && (!fastest || score(c, RankBy::time) < score(*fastest, RankBy::time))) fastest = &c;
    if (c.gpus == 1 && c.planned.offload == Offload::none && !c.gpu->needs_server_chassis && (c.usd_per_gpu_hour() || c.gpu->purchase_usd)) {
      auto cheap = [](const Candidate& x) { return x.usd_per_gpu_hour().value_or(1e9); };
      if (!single_card || cheap(c) < cheap(*single_card)) single_card = &c;
    }
  }
  auto money = [](double v) { return v >= 100 ? fmt::format("${:.0f}", v) : v >= 1 ? fmt::format("${:.2f}", v) : fmt::format("${:.3f}", v); };
  if (best_value)
    r.recommendations.push_back({"best value", best_value->gpu->id,
                                 fmt::format("{} per {} on {}", money(*best_value->value_usd), best_value->value_unit, best_value->layout)});
  if (fastest) {
    const WorkRate rate = work_rate(*fastest);
    const std::int64_t b = fastest->planned.batch;
    const std::string what = rate.unit == "k images"            ? "images/s"
                             : rate.unit == "M training tokens" ? "tokens/s"
                                                                : fmt::format("output tokens/s ({} sequence{} at once)", b, b == 1 ? "" : "s");
    const std::string t = fastest->time.job_seconds ? fmt::format("{:.1f} h for the job on {}", fastest->cost.wall_hours, fastest->layout)
                                                    : fmt::format("{:.0f} {} on {}", rate.per_second.value_or(0), what, fastest->layout);
    r.recommendations.push_back({"fastest", fastest->gpu->id, t});
  }
  if (single_card)
    r.recommendations.push_back({"one card", single_card->gpu->id,
                                 single_card->usd_per_gpu_hour() ? fmt::format("the cheapest single card that fits: {}/h to rent{}", money(*single_card->usd_per_gpu_hour()),
                                                                               single_card->gpu->purchase_usd ? fmt::format(", about ${:.0f} to buy", *single_card->gpu->purchase_usd) : "")
                                                                 : fmt::format("about ${:.0f} to buy", *single_card->gpu->purchase_usd)});
  return r;
}

}  // namespace gpuadvise
