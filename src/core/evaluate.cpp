// One workload at its own layout on one GPU (`evaluate`): memory, serving pool and latency targets, time, cost,
// system needs and the notes that go with them.
#include "gpuadvise/ranking.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <tuple>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuadvise/correction.hpp"
#include "gpuadvise/units.hpp"
#include "gpuadvise/coefficients.hpp"
#include "layer_offload.hpp"
#include "ranking_common.hpp"

namespace gpuadvise {

namespace {
// The fields a plan chooses (workload.hpp's PlanShape), in one list: copied between a workload and its plan, and
// hashed by the ranking's tensor memo.
template <class T>
auto plan_fields(T& x) {
  return std::tie(x.precision, x.checkpointing, x.sharding, x.offload, x.vae_tiling, x.batch, x.grad_accum, x.gpus, x.nodes, x.tp, x.pp, x.ep,
                  x.virtual_stages, x.cp, x.attention_dp, x.gpu_layers);
}
}  // namespace

// What a plan records of the workload it was evaluated at.
PlanShape PlanShape::of(const Workload& w) {
  PlanShape s;
  s.mode = w.mode;
  s.job_size = w.has_job_size();
  plan_fields(s) = plan_fields(w);
  return s;
}

Workload PlanShape::applied_to(const Workload& asked) const {
  Workload w = asked;
  plan_fields(w) = plan_fields(*this);
  return w;
}

namespace {

// The tokens each sequence of a serving workload holds: its prompt and output, else the max model length.
double sequence_tokens(const MemoryEstimate& mem, const Workload& w) {
  const double max_len = static_cast<double>(mem.seq_len);
  return (w.input_tokens && w.output_tokens) ? std::min(max_len, *w.input_tokens + *w.output_tokens) : max_len;
}

}  // namespace

double ranking_detail::engine_max_seqs(const MemoryEstimate& mem, const GpuSpec& g) {
  if (!mem.vllm) return 256.0;
  // TensorRT-LLM's LLM API: max_batch_size 2048 (tensorrt_llm/llmapi/llm_args.py).
  if (mem.vllm->engine == "trtllm") return 2048.0;
  // SGLang sizes its request pool from its token pool: min(max(tokens / context length x 512, 2048), 4096)
  // (model_runner.py, init_memory_pool).
  if (mem.vllm->engine == "sglang")
    return std::clamp(std::floor(mem.vllm->max_tokens / static_cast<double>(std::max<std::int64_t>(1, mem.seq_len)) * 512.0), 2048.0, 4096.0);
  // vLLM: max_num_seqs 1024 on a GPU of 70 GiB or more that is not an A100 (an H100, H200, MI300X), else 256.
  return vllm_batch_defaults(&g).max_num_seqs;
}

double ranking_detail::pool_sequences(const MemoryEstimate& mem, const Workload& w, const ModelSpec& m) {
  const double kv_seq = kv_tokens_avg(m, sequence_tokens(mem, w));
  return mem.vllm && kv_seq > 0 ? std::floor(mem.vllm->max_tokens / kv_seq) : 0.0;
}

namespace {

// The replicas of a serving layout: its GPUs over the tp x pp each replica spans.
double layout_replicas(const Workload& w) {
  return std::max(1.0, static_cast<double>(w.gpus) / static_cast<double>(std::max<std::int64_t>(1, w.tp * w.pp)));
}

// The most sequences a replica of the layout can run at once: the job's requests over its replicas (all of them
// when no request count is given).
std::int64_t requests_in_flight(const Workload& w) {
  if (!w.requests) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(std::ceil(*w.requests / layout_replicas(w)));
}

// vLLM's verdict in its own terms (method.md §6.2): the weights and the profiling run must leave a KV-cache
// pool inside gpu_memory_utilization of the card; one sequence of the max model length (--seq-len) must fit
// the pool (vLLM refuses to start otherwise); and the sequences in flight, each holding its prompt and output
// (--input-tokens + --output-tokens, else the max model length), must fit it together. With a request count
// and no --concurrency, the engine runs as many as the pool holds, up to its own default (engine_max_seqs).
void serving_fit(Candidate& c, const Workload& w, const ModelSpec& m, const GpuSpec& g) {
  const VllmPool& pool = *c.memory.vllm;
  const char* engine = pool.engine_name();
  const std::string knob = pool.engine == "sglang"   ? fmt::format("mem_fraction_static {:.3g}", pool.utilization)
                           : pool.engine == "trtllm" ? fmt::format("kv_cache_free_gpu_mem_fraction {:g}", pool.utilization)
                                                     : fmt::format("gpu_memory_utilization {:g}", pool.utilization);
  const double max_len = static_cast<double>(c.memory.seq_len);
  const double per_seq = sequence_tokens(c.memory, w);
  const double kv_seq = kv_tokens_avg(m, per_seq);
  c.fit_reason.clear();
  c.latency_miss = 0;
  if (pool.kv_pool_bytes <= 0) {
    c.fit_reason = Note::format("weights {:.1f} GB per GPU leave no KV-cache pool in {}'s {:.1f} GB budget ({})", c.memory.weights / 1e9, engine,
                               pool.budget_bytes / 1e9, knob);
  } else if (kv_tokens_avg(m, max_len) > pool.max_tokens) {
    c.fit_reason = Note::format("one sequence of the max model length ({:.0f} tokens) needs {:.1f} GB of KV cache; {}'s pool holds "
                               "{:.1f} GB ({:.0f} tokens): lower --seq-len",
                               max_len, kv_tokens_avg(m, max_len) * pool.kv_bytes_per_token / 1e9, engine, pool.kv_pool_bytes / 1e9, pool.max_tokens);
  } else {
    const double holds = ranking_detail::pool_sequences(c.memory, w, m);  // sequences of per_seq tokens the pool runs at once
    if (!w.batch_given && w.requests && kv_seq > 0) {
      const double most = ranking_detail::engine_max_seqs(c.memory, g);
      c.planned.batch = static_cast<std::int64_t>(std::clamp(holds, 1.0, most));
      c.notes.push_back(Note::format("{} requests in flight: what {}'s KV-cache pool holds at {:.0f} tokens each, up to {:.0f} ({})", c.planned.batch,
                                    engine, per_seq, most,
                                    pool.engine == "trtllm" ? "its max_batch_size" : pool.engine == "sglang" ? "its max_running_requests"
                                                                                                             : "its max_num_seqs on this GPU"));
    }
    // No more sequences run at once than the job has requests for each replica of the layout: a job of 1,500
    // requests submitted at once on one engine runs 1,500, whatever --concurrency allows (trtllm-bench's rows
    // cap the batch at 4,096 and send 1,500 long requests).
    if (const std::int64_t per_replica = requests_in_flight(w); c.planned.batch > per_replica) {
      const double replicas = layout_replicas(w);
      c.notes.push_back(Note::format("{} sequences in flight: the job's {:.0f} requests over {:g} replica{} (--concurrency {} is never reached)", per_replica,
                                    *w.requests, replicas, replicas == 1 ? "" : "s", c.planned.batch));
      c.planned.batch = per_replica;
    }
    // vLLM's scheduler runs at most max_num_batched_tokens tokens a step, decodes and prompt chunks together: to
    // keep b sequences decoding it must take in b/out new requests a step, b x in/out prompt tokens, so the budget
    // holds b x (1 + in/out) tokens and caps b at budget x out/(in + out) (vllm/engine/arg_utils.py defaults:
    // 8,192 on a GPU of 70 GiB or more that is not an A100, else 2,048).
    if (pool.engine == "vllm" && w.input_tokens && w.output_tokens && *w.output_tokens > 0) {
      const double budget = vllm_batch_defaults(&g).max_num_batched_tokens;
      const auto cap = static_cast<std::int64_t>(std::floor(budget * *w.output_tokens / (*w.input_tokens + *w.output_tokens)));
      if (cap >= 1 && c.planned.batch > cap) {
        c.notes.push_back(Note::format("{} sequences in flight: vLLM's step budget of {:.0f} tokens (max_num_batched_tokens) takes their decodes and "
                                      "the prompts that replace them ({:.0f} + {:.0f} tokens a request)",
                                      cap, budget, *w.input_tokens, *w.output_tokens));
        c.planned.batch = cap;
      }
    }
    const double need = static_cast<double>(c.planned.batch) * kv_seq * pool.kv_bytes_per_token;
    if (need > pool.kv_pool_bytes && w.batch_given && holds >= 1) {
      // More sequences than the pool holds: the engine's scheduler admits what fits and the rest wait in its
      // queue (vLLM and SGLang schedule by free KV blocks, TensorRT-LLM's capacity scheduler likewise), so the
      // job runs at what the pool holds and the waiting shows in the time to first token.
      c.notes.push_back(Note::format("{} sequences asked in flight; {}'s KV-cache pool holds {:.0f} sequences of {:.0f} tokens at once: the other {:.0f} wait "
                                    "in its queue (the time to first token counts the wait)",
                                    c.planned.batch, engine, holds, per_seq, static_cast<double>(c.planned.batch) - holds));
      c.planned.batch = static_cast<std::int64_t>(holds);
    } else if (need > pool.kv_pool_bytes)
      c.fit_reason = Note::format("{} sequences of {:.0f} tokens need {:.1f} GB of KV cache; {}'s pool holds {:.1f} GB (at most {:.0f} at once)",
                                 c.planned.batch, per_seq, need / 1e9, engine, pool.kv_pool_bytes / 1e9, holds);
  }
  c.fits = c.supported && c.fit_reason.empty();
}

// Serving targets (method.md §8.3): TPOT grows with the sequences in flight, so the largest concurrency whose
// TPOT and TTFT meet --max-tpot-ms and --max-ttft-ms is found by bisection up to what the pool holds (or the
// concurrency asked, which must meet them); the cost per token follows from it. A framework without a KV pool
// (Hugging Face generate, llama.cpp, ExLlama) runs the batch it is given: that batch must meet them.
void meet_latency_targets(Candidate& c, const Workload& w, const ModelSpec& m, const GpuSpec& g) {
  const bool fixed = w.batch_given || !c.memory.vllm;
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
    if (fixed) return;
  } else if (fixed || !meets(at(1))) {
    const TimeEstimate t = fixed ? c.time : at(1);
    c.fits = false;
    // Only the targets missed are named as missed; the ones met are said as met. latency_miss: by how much the
    // worse one misses (the planner keeps the nearest miss to say how close a GPU came).
    const double tpot_ms = t.tpot_seconds.value_or(0) * 1e3, ttft_ms = t.ttft_seconds.value_or(0) * 1e3;
    const bool tpot_miss = w.max_tpot_ms && !(t.tpot_seconds && tpot_ms <= *w.max_tpot_ms);
    const bool ttft_miss = w.max_ttft_ms && !(t.ttft_seconds && ttft_ms <= *w.max_ttft_ms);
    std::string missed, met;
    auto say = [](std::string& to, const std::string& part) { to += (to.empty() ? "" : " and ") + part; };
    if (w.max_tpot_ms) say(tpot_miss ? missed : met, fmt::format("TPOT {:.1f} ms {} --max-tpot-ms {:g}", tpot_ms, tpot_miss ? "over" : "within", *w.max_tpot_ms));
    if (w.max_ttft_ms) say(ttft_miss ? missed : met, fmt::format("TTFT {:.0f} ms {} --max-ttft-ms {:g}", ttft_ms, ttft_miss ? "over" : "within", *w.max_ttft_ms));
    const std::int64_t n = fixed ? w.batch : 1;
    c.fit_reason = Note::format("{} sequence{} in flight {} the latency target: {}{}", n, n == 1 ? "" : "s", n == 1 ? "misses" : "miss", missed,
                                met.empty() ? "" : " (" + met + ")");
    c.latency_miss = std::max(tpot_miss ? tpot_ms / *w.max_tpot_ms : 1.0, ttft_miss ? ttft_ms / *w.max_ttft_ms : 1.0);
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
  c.notes.push_back(Note::format("{} sequence{} in flight: the most that meet {}", lo, lo == 1 ? "" : "s", targets()));
}

}  // namespace

const TensorMemory& ranking_detail::TensorMemo::of(const PlanShape& shape, const Workload& w, const ModelSpec& m) {
  const std::size_t h = hash(shape);
  if (entries_.size() * 2 >= slots_.size()) grow();  // at most half full: short probes
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = h & mask;
  for (; slots_[i].entry; i = (i + 1) & mask)
    if (slots_[i].hash == h && entries_[slots_[i].entry - 1].first == shape) return entries_[slots_[i].entry - 1].second;
  entries_.emplace_back(shape, tensor_memory(w, m));
  slots_[i] = {h, static_cast<std::uint32_t>(entries_.size())};
  return entries_.back().second;
}

void ranking_detail::TensorMemo::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(std::max<std::size_t>(1024, old.size() * 2), Slot{});
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (!s.entry) continue;
    std::size_t i = s.hash & mask;
    while (slots_[i].entry) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

std::size_t ranking_detail::TensorMemo::hash(const PlanShape& s) {
  std::size_t h = 0;
  std::apply([&h](const auto&... v) { ((h = h * 1099511628211ULL + static_cast<std::size_t>(v)), ...); }, plan_fields(s));
  return h ^ (h >> 29);  // the low bits pick the slot: fold the high ones in
}

Candidate evaluate(const Workload& w_in, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost) {
  Candidate c;
  const LocalCorrection* k = ranking_detail::assess_fit(c, w_in, m, g, cost);
  ranking_detail::score_layout(c, w_in, m, g, cost, k);
  ranking_detail::describe_layout(c, w_in, m, g, cost);
  return c;
}

const LocalCorrection* ranking_detail::assess_fit(Candidate& c, const Workload& w_in, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost,
                                                  TensorMemo* memo) {
  // More GPUs than one server holds run on several nodes: whole nodes of this GPU's usual server unless the
  // workload says how many.
  c.gpu = &g;
  c.planned = PlanShape::of(w_in);
  c.notes.clear();  // the planner reuses one candidate for its screens
  c.fit_reason.clear();
  c.latency_miss = 0;
  // The plan as evaluated (a copy only where its nodes change); a serving engine's pool and the latency targets
  // change only its batch below.
  std::optional<Workload> spread;
  if (w_in.nodes == 1 && w_in.gpus > g.gpus_per_node()) {
    spread = w_in;
    spread->nodes = c.planned.nodes = (w_in.gpus + g.gpus_per_node() - 1) / g.gpus_per_node();
  }
  if (gpu_layers_unsettled(w_in)) {  // -ngl unset: the most layers that leave the default margin free (§8.3)
    if (!spread) spread = w_in;
    spread->gpu_layers = c.planned.gpu_layers = most_gpu_layers(*spread, m, g, k_default_margin_pct);
  }
  const Workload& w = spread ? *spread : w_in;
  c.gpus = w.gpus;
  c.supported = layout_supported(w, m, g, &c.notes);
  const Framework fw = framework_of(w, m);  // the one calibrate saved the correction under
  c.memory = memo && !m.vision ? device_memory(memo->of(c.planned, w, m), w, m, &g) : estimate_memory(w, m, &g);
  // A local correction scales the tensor peak and the throughput, and says so in every answer it touches. A
  // serving engine's pool takes its share of the card whatever the tensors need: only the speed applies there.
  // Only a correction measured on a workload like this one applies (correction.hpp); one saved for this GPU
  // that does not is named in a note.
  const LocalCorrection* k = nullptr;
  if (!cost.corrections.empty()) {
    const CorrectionMatch match = find_correction(cost, g, fw, is_training(w.mode), correction_scope(w, m, c.memory.params_total));
    k = match.applied;
    if (!match.skipped.empty()) c.notes.push_back(match.skipped);
  }
  if (k && !c.memory.vllm) {
    const double delta = c.memory.tensor_peak * (k->memory_factor - 1.0);
    c.memory.tensor_peak += delta;
    c.memory.device_peak += delta;
    c.memory.device_low += delta;
    c.memory.device_high += delta;
  }
  c.fits = c.supported && c.memory.device_peak <= static_cast<double>(g.memory_bytes);
  if (c.memory.vllm) serving_fit(c, w, m, g);
  c.headroom_bytes = static_cast<double>(g.memory_bytes) - c.memory.device_peak;
  // Several nodes need a network between them: a GPU whose servers have none known runs in one server only,
  // whatever the memory says (the same verdict in every command).
  if (c.fits && w.nodes > 1 && !g.multi_node()) {
    c.fits = false;
    c.fit_reason = Note::format("{} nodes, but no network between servers of this GPU is known ({}): at most {} GPUs in one server", w.nodes,
                                g.node.network.empty() ? "not in the catalogue" : g.node.network, g.gpus_per_node());
  }
  edge_shared_memory(c, w, g);  // an edge module's offload lands in the memory the GPU uses (system.cpp)
  return k;
}

void ranking_detail::score_layout(Candidate& c, const Workload& asked, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost,
                                  const LocalCorrection* k) {
  Workload w = c.planned.applied_to(asked);
  c.layout = ranking_detail::layout_text(w, m, g.is_cpu() ? "one instance" : "single GPU");
  if (!c.fits && c.supported && !c.memory.vllm && c.fit_reason.empty())
    c.fit_reason = Note::format("needs {:.1f} GB per GPU at the peak{}; the GPU has {:.1f} GB usable", c.memory.device_peak / 1e9,
                               k ? " (calibrated)" : "", static_cast<double>(g.memory_bytes) / 1e9);
  c.time = estimate_time(w, m, g, c.memory);
  const std::int64_t asked_in_flight = std::min(asked.batch, requests_in_flight(w));
  if (c.memory.vllm && asked_in_flight > w.batch && c.time.ttft_seconds && c.time.tpot_seconds && asked.output_tokens) {
    // The queue beyond the pool (serving_fit): with N asked (no more than the job's requests) and M running, each
    // lasting L = TTFT + output x TPOT, the engine completes M per L, so a request waits (N - M) x L / M before it
    // starts (Little's law).
    const double life = *c.time.ttft_seconds + *asked.output_tokens * *c.time.tpot_seconds;
    *c.time.ttft_seconds += static_cast<double>(asked_in_flight - w.batch) * life / static_cast<double>(w.batch);
  }
  if (k) {
    auto scale = [&](std::optional<double>& v, double f) {
      if (v) *v *= f;
    };
    const std::optional<double> paced = c.time.paced_images_per_second();  // a vision job's pace before the correction
    for (auto* rate : {&c.time.train_tokens_per_second_per_gpu, &c.time.images_per_second, &c.time.decode_tokens_per_second,
                       &c.time.prefill_tokens_per_second, &c.time.requests_per_second})
      scale(*rate, k->speed_factor);
    for (auto* seconds : {&c.time.tpot_seconds, &c.time.ttft_seconds}) scale(*seconds, 1.0 / k->speed_factor);
    // A vision job runs at the lesser of the GPU's rate and its input's (image_feed.hpp): the correction moves the
    // GPU's only, so the job moves with its pace; any other job with the GPU's speed.
    scale(c.time.job_seconds, paced ? *paced / *c.time.paced_images_per_second() : 1.0 / k->speed_factor);
    if (c.time.band) {
      c.time.band->low *= k->speed_factor;
      c.time.band->high *= k->speed_factor;
    }
    c.notes.push_back(Note(fmt::format("corrected by your calibration of {} with {} ({}; memory x{:.3f}, throughput x{:.3f}) from {}, which "
                                       "applies to {}; remove it with gpuadvise calibrate --reset",
                                       g.id, k->framework, k->saved, k->memory_factor, k->speed_factor, cost.corrections_file, scope_text(*k->scope))));
  }
  if (c.fits && !m.vision && (w.max_ttft_ms || w.max_tpot_ms)) {
    meet_latency_targets(c, w, m, g);
    w.batch = c.planned.batch;
  }
  c.cost = estimate_cost(w, g, c.time, c.memory.params_total, c.memory.params_trainable, cost);
  // The planner keeps one of the layouts that fit: what only a shown plan needs is written for that one
  // (describe_layout).
  c.described = false;
}

void withhold_job(Candidate& c) {
  if (c.fits) return;
  const PriceChoice price = c.cost.price;
  const std::optional<std::string> missing = c.cost.missing_price;
  c.time.job_seconds.reset();
  c.cost = JobCost{};
  c.cost.price = price;
  c.cost.missing_price = missing;
}

void ranking_detail::withhold_unfit(Candidate& c) {
  if (c.fits) return;
  withhold_job(c);
  c.time = TimeEstimate{};
  c.value_usd.reset();
  c.unranked = "does not fit";
  c.frontier.clear();
}

void ranking_detail::describe_layout(Candidate& c, const Workload& asked, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost) {
  if (c.described) return;
  c.described = true;
  const Workload w = c.planned.applied_to(asked);
  if (w.global_batch && c.fits) {
    // How the layout reaches the global batch, and where the number came from (method.md §9.1).
    const std::int64_t seq = effective_seq_len(w, m);
    const std::int64_t stepped = w.batch * w.grad_accum * w.data_parallel();
    std::string source = w.global_batch_tokens ? fmt::format("--global-batch {:.3g} tokens", *w.global_batch_tokens) : std::string("--global-batch");
    if (w.global_batch_from_law)
      source = fmt::format("DeepSeek LLM's B_opt = 0.292 x C^0.3271 tokens for C = 6 x N x D = {:.3g} FLOPs; --global-batch sets another",
                           6.0 * count_params(m).active * w.job_tokens(seq).value_or(0));
    else if (w.global_batch_from_recipe && m.vision)
      source = m.vision->task == "classification" ? "ResNet's ImageNet recipe: 256; --global-batch or --batch sets another"
                                                  : "detectron2's and Ultralytics' 16; --global-batch or --batch sets another";
    else if (w.global_batch_from_recipe)
      source = fmt::format("fine-tuning recipes' {:.0f} (Stanford Alpaca); --global-batch sets another", coef::finetune_global_batch.value);
    const std::string size = m.vision ? fmt::format("{} images ({})", *w.global_batch, source)
                                      : fmt::format("{} sequences ({:.3g} tokens; {})", *w.global_batch, static_cast<double>(*w.global_batch) * static_cast<double>(seq), source);
    c.notes.push_back(Note(fmt::format("global batch {}: micro-batch {} x {} accumulation steps x {} data-parallel ranks{}", size, w.batch, w.grad_accum,
                                       w.data_parallel(), stepped > *w.global_batch ? fmt::format(" = {} (rounded up)", stepped) : "")));
  }
  if (c.fits && !c.memory.vllm && c.headroom_bytes < 0.1 * static_cast<double>(g.memory_bytes))
    c.notes.push_back("less than 10% headroom: real peaks vary with data and library versions; leave a margin");
  if (g.stack == "rocm") c.notes.push_back(Note::format("AMD: runs through ROCm/HIP ({}), not CUDA; check your framework's ROCm support", g.gfx_target.value_or("?")));
  if (g.stack == "synapseai") c.notes.push_back("Intel Gaudi: runs through the Gaudi software stack (SynapseAI), not CUDA");
  if (g.is_cpu())
    c.notes.push_back("a CPU instance: PyTorch on the CPU (oneDNN: AMX for bf16 and int8 matmuls, AVX-512 for fp32); its rate rests on one GEMM "
                      "measurement and the theoretical memory bandwidth (method.md §16): measure before you commit");
  if (g.needs_server_chassis) c.facts.push_back("server module: needs an HGX/OAM server chassis, power and cooling");
  if (g.segment == Segment::edge)
    c.notes.push_back(Note::format("edge module: its memory is shared with the CPU (the OS and the application take part of it) and the power mode "
                                  "(up to {:.0f} W) sets the clocks the figures assume", g.board_power_w.value_or(0)));
  if (w.gpus > 1 && !g.fast_link_joins(w.gpus_per_node()))
    c.notes.push_back(g.node.pcie_p2p == false
                          ? Note("no NVLink and no PCIe peer-to-peer: the GPUs exchange data through host memory, so sharding and tensor parallelism scale poorly")
                          : Note("no NVLink between all of them: the GPUs talk over PCIe, so sharding and tensor parallelism scale poorly"));
  if (w.nodes > 1 && g.multi_node())
    c.notes.push_back(Note::format("{} {} joined by {} ({:g} Gb/s per GPU)", w.nodes, g.rack_scale() ? "racks" : "nodes", g.node.network, g.node.network_gbit_per_gpu.value_or(0)));
  // Several GPUs at --tp 1 and --pp 1 serve copies of the model: one that does not fit one GPU needs a split.
  if (!c.fits && !m.vision && !is_training(w.mode) && w.gpus > 1 && w.tp * w.pp == 1)
    c.notes.push_back(Note::format("{0} GPUs at --tp 1 are {0} copies of the model, each whole on one GPU; --tp {1} splits it over the GPUs of a node "
                                   "(the layout the ranking plans)", w.gpus, std::min<std::int64_t>(w.gpus, g.gpus_per_node())));
  if (g.capacity_basis == "nominal" && !g.is_cpu()) c.facts.push_back("capacity is the vendor's nominal size; CUDA reports a little less");
  c.system = system_needs(w, m, g, c.memory, &c.time);
  for (const auto& n : c.system.notes) c.notes.push_back(n);
  if (c.fits && c.memory.vllm) c.serving_front = serving_front(w, m, g, cost);
  for (const auto& n : c.cost.notes) c.notes.push_back(n);
  if (c.cost.missing_price) c.facts.push_back(*c.cost.missing_price);
  if (w.streams && m.vision && !is_training(w.mode)) {
    c.video = std::make_shared<const VideoPlan>(plan_video(w, g, c.memory, c.time, c.cost.price.usd_per_gpu_hour));
    c.fits = c.fits && c.video->streams_per_gpu >= 1;
    if (c.video->gpus_needed > 0) {
      c.gpus = c.video->gpus_needed;
      c.layout = fmt::format("{} GPU{}, up to {:.0f} streams each, batch {}", c.gpus, c.gpus > 1 ? "s" : "", c.video->streams_per_gpu, w.batch);
    }
  }
}

}  // namespace gpuadvise
