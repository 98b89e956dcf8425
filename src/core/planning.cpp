// check, fit and launch hints: docs/method.md §11.
#include "gpuadvise/planning.hpp"

#include <cmath>
#include <fmt/format.h>

namespace gpuadvise {

std::string to_string(Maximize m) {
  switch (m) {
    case Maximize::batch: return "batch";
    case Maximize::seq_len: return "seq-len";
    case Maximize::concurrency: return "concurrency";
  }
  return "?";
}

CheckResult check_workload(const Workload& given, const std::string& label, const ModelSpec& m, const GpuSpec& g,
                           const CheckAssertions& a, const CostOptions& cost) {
  Workload w = given;  // a check prints no memory explanations
  w.explain = false;
  CheckResult r;
  r.workload = label;
  RankOptions opts;
  opts.cost = cost;
  opts.max_gpus = a.max_gpus.value_or(1);
  opts.min_headroom_pct = a.min_headroom_pct.value_or(0);  // the check asserts its own margin below
  const Candidate c = (w.gpus == 1 && opts.max_gpus > 1) ? plan(w, m, g, opts, RankBy::value) : evaluate(w, m, g, cost);
  r.plan = CheckedPlan{c.gpu, c.fits, c.gpus, c.layout, c.headroom_bytes, c.memory.device_peak, c.cost.total_usd, c.cost.wall_hours};
  const std::string who = fmt::format("{} on {}", label, g.id);
  const double cap = static_cast<double>(g.memory_bytes);
  if (!c.supported) {
    r.failures.push_back(fmt::format("{}: not supported: {}", who, c.notes.empty() ? "precision" : c.notes.front().text()));
    return r;
  }
  if (!c.fits)
    r.failures.push_back(c.fit_reason.empty() || !c.memory.vllm
                             ? fmt::format("{}: does not fit: needs {:.2f} GB per GPU on {} GPU(s), the GPU has {:.2f} GB", who,
                                           c.memory.device_peak / 1e9, c.gpus, cap / 1e9)
                             : fmt::format("{}: does not fit on {} GPU(s): {}", who, c.gpus, c.fit_reason.text()));
  if (a.min_headroom_pct && c.fits && !c.memory.vllm) {  // vLLM takes its share by design: its pool decides
    const double pct = 100.0 * c.headroom_bytes / cap;
    if (pct < *a.min_headroom_pct)
      r.failures.push_back(fmt::format("{}: headroom {:.1f}% is below --min-headroom {:g}% ({:.2f} of {:.2f} GB free)", who, pct,
                                       *a.min_headroom_pct, c.headroom_bytes / 1e9, cap / 1e9));
  }
  if (a.max_gpus && c.gpus > *a.max_gpus)
    r.failures.push_back(fmt::format("{}: needs {} GPUs, more than --max-gpus {}", who, c.gpus, *a.max_gpus));
  // A video workload's latency budget is part of the plan: a frame later than --max-latency-ms fails the check.
  if (c.video && w.max_latency_ms && c.video->latency_ms && *c.video->latency_ms > *w.max_latency_ms)
    r.failures.push_back(fmt::format("{}: end-to-end latency {:.0f} ms, more than --max-latency-ms {:g}", who, *c.video->latency_ms,
                                     *w.max_latency_ms));
  if (a.max_cost_usd) {
    if (!c.cost.total_usd)
      r.failures.push_back(fmt::format("{}: --max-cost {:g} cannot be checked: {}", who, *a.max_cost_usd,
                                       c.time.job_seconds ? "no price for this GPU (--price ID=USD)"
                                                          : "no job size (tokens, or requests with output tokens)"));
    else if (*c.cost.total_usd > *a.max_cost_usd)
      r.failures.push_back(fmt::format("{}: job costs ${:.2f}, more than --max-cost ${:g} ({} GPU(s) x {:.2f} h at ${:.2f}/GPU-h)", who,
                                       *c.cost.total_usd, *a.max_cost_usd, c.gpus, c.cost.wall_hours, *c.cost.price.usd_per_gpu_hour));
  }
  if (a.max_hours) {
    if (c.cost.wall_hours <= 0)
      r.failures.push_back(fmt::format("{}: --max-hours {:g} cannot be checked: no job size (tokens, or requests with output tokens)",
                                       who, *a.max_hours));
    else if (c.cost.wall_hours > *a.max_hours)
      r.failures.push_back(fmt::format("{}: job takes {:.2f} h, more than --max-hours {:g}", who, c.cost.wall_hours, *a.max_hours));
  }
  return r;
}

FitResult fit_max(const Workload& w, const ModelSpec& m, const GpuSpec& g, Maximize what, const CostOptions& cost) {
  FitResult r;
  r.what = what;
  auto at = [&](std::int64_t v) {
    Workload x = w;
    if (what == Maximize::seq_len) x.seq_len = v;
    else x.batch = v;
    return evaluate(x, m, g, cost);
  };
  // A sequence never goes past the model's context (longer needs RoPE scaling, which the model was not
  // trained for); other counts stop at the input ranges.
  const std::int64_t cap = what == Maximize::seq_len ? (m.context > 0 ? std::min<std::int64_t>(m.context, std::int64_t{1} << 24) : std::int64_t{1} << 24)
                                                     : std::int64_t{1} << 20;
  Candidate one = at(1);
  if (!one.fits) {
    r.next = one;
    return r;
  }
  std::int64_t lo = 1, hi = 2;
  std::optional<Candidate> lo_c = one, hi_c;
  while (hi <= cap) {
    Candidate c = at(hi);
    if (!c.fits) {
      hi_c = c;
      break;
    }
    lo = hi;
    lo_c = c;
    hi *= 2;
  }
  // Moves the bound the candidate at v belongs to.
  auto take = [&](std::int64_t v, Candidate c) {
    if (c.fits) {
      lo = v;
      lo_c = std::move(c);
    } else {
      hi = v;
      hi_c = std::move(c);
    }
  };
  if (!hi_c && lo < cap) take(cap, at(cap));  // the doubling passed the cap: try the cap itself
  if (!hi_c) {  // fits up to the cap
    r.value = lo;
    r.at = lo_c;
    if (what == Maximize::seq_len && m.context > 0 && lo == m.context)
      r.limited_by = fmt::format("the model's context of {} tokens (longer needs RoPE scaling, e.g. YaRN, that the model was not trained for)", m.context);
    else
      r.limited_by = "the search's upper limit";
    return r;
  }
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    take(mid, at(mid));
  }
  r.value = lo;
  r.at = lo_c;
  r.next = hi_c;
  return r;
}

namespace {

std::string hf_repo(const ModelSpec& m) {
  const std::string prefix = "https://huggingface.co/";
  if (m.source.rfind(prefix, 0) == 0) {
    std::string rest = m.source.substr(prefix.size());
    const auto blob = rest.find("/blob/");
    if (blob != std::string::npos) return rest.substr(0, blob);
  }
  return m.id;
}

// SkyPilot accelerator names (`sky show-gpus`) of the catalogue GPUs that have one.
std::optional<std::string> skypilot_name(const std::string& id) {
  static const std::pair<const char*, const char*> names[] = {
      {"h100-sxm-80gb", "H100"},       {"h100-pcie-80gb", "H100"},     {"h200-sxm-141gb", "H200"},  {"b200-hgx-180gb", "B200"},
      {"a100-sxm-80gb", "A100-80GB"},  {"a100-pcie-80gb", "A100-80GB"}, {"a100-sxm-40gb", "A100"},  {"a100-pcie-40gb", "A100"},
      {"l4-24gb", "L4"},               {"l40s-48gb", "L40S"},          {"a10g-24gb", "A10G"},        {"a10-24gb", "A10"},
      {"t4-16gb", "T4"},               {"v100-sxm2-16gb", "V100"},     {"v100-pcie-16gb", "V100"},  {"v100-sxm2-32gb", "V100-32GB"},
      {"rtx-4090-24gb", "RTX4090"},    {"mi300x-192gb", "MI300X"},     {"gh200-96gb", "GH200"}};
  for (const auto& [k, v] : names)
    if (id == k) return v;
  return std::nullopt;
}

std::string optim_name(Optimizer o) {
  switch (o) {
    case Optimizer::adamw: return "adamw_torch_fused";
    case Optimizer::adamw_8bit: return "adamw_bnb_8bit";
    case Optimizer::adafactor: return "adafactor";
    case Optimizer::sgd: return "sgd";
    case Optimizer::sgd_momentum: return "sgd";
  }
  return "adamw_torch";
}

}  // namespace

LaunchHints launch_hints(const Candidate& c, const ModelSpec& m) {
  LaunchHints h;
  const Workload& w = c.planned;
  const std::string repo = hf_repo(m);
  const std::int64_t nodes = std::max<std::int64_t>(1, c.nodes);
  const std::int64_t per_node = std::max<std::int64_t>(1, w.gpus / nodes);
  h.skypilot_accelerator = skypilot_name(c.gpu->id);
  if (m.vision && !is_training(w.mode)) {
    // Vision inference: no LLM server; the pipeline is the application's (DeepStream/Triton for streams).
    h.torchrun = fmt::format("python infer.py  # batch {}, {}x{}", w.batch, w.image_width.value_or(m.vision->ref_w),
                             w.image_height.value_or(m.vision->ref_h));
    h.notes.push_back(w.streams ? "video streams: NVIDIA DeepStream or Triton with hardware decode (NVDEC) keeps frames on the GPU"
                                : "export to TensorRT or ONNX Runtime for lower latency at small batches");
  } else if (!is_training(w.mode)) {
    std::string cmd = fmt::format("vllm serve {} --tensor-parallel-size {} --max-model-len {} --gpu-memory-utilization {:g}", repo,
                                  w.tp, c.memory.seq_len, w.gpu_memory_utilization);
    if (w.pp > 1) cmd += fmt::format(" --pipeline-parallel-size {}", w.pp);
    if (w.kv_precision && (*w.kv_precision == Precision::fp8 || *w.kv_precision == Precision::int8)) cmd += " --kv-cache-dtype fp8";
    if (w.precision == Precision::int4) cmd += " --quantization awq  # or gptq: the checkpoint's format";
    else if (w.precision == Precision::fp8) cmd += " --quantization fp8";
    else if (w.precision == Precision::bf16) cmd += " --dtype bfloat16";
    else if (w.precision == Precision::fp16) cmd += " --dtype float16";
    if (w.batch > 1) cmd += fmt::format(" --max-num-seqs {}", w.batch);
    const Framework engine = w.effective_framework();
    if (engine == Framework::sglang) {
      h.notes.push_back(fmt::format("SGLang: python -m sglang.launch_server --model-path {} --tp {} --context-length {}{}", repo, w.tp,
                                    c.memory.seq_len, w.gpu_memory_utilization_given ? fmt::format(" --mem-fraction-static {:g}", w.gpu_memory_utilization) : ""));
    } else if (engine == Framework::trtllm) {
      h.notes.push_back(fmt::format("TensorRT-LLM: trtllm-serve {} --tp_size {} --pp_size {} --max_seq_len {} --kv_cache_free_gpu_memory_fraction {:g}",
                                    repo, w.tp, w.pp, c.memory.seq_len, w.gpu_memory_utilization));
    } else {
      h.vllm = cmd;
    }
    if (is_gguf(w.precision)) h.notes.push_back("GGUF weights: llama.cpp's llama-server -c " + std::to_string(c.memory.seq_len) + " -ngl 999");
    if (nodes > 1) h.notes.push_back(fmt::format("{} nodes: start a Ray cluster over them first (vLLM's multi-node serving); tensor parallel stays inside each node", nodes));
  } else {
    const bool deepspeed = w.sharding != Sharding::none && (w.offload != Offload::none || w.sharding == Sharding::zero1 || w.sharding == Sharding::zero2);
    const bool fsdp = w.sharding == Sharding::zero3 && !deepspeed;
    const std::string launcher = nodes > 1 ? fmt::format("torchrun --nnodes {} --nproc_per_node {} --rdzv_backend c10d --rdzv_endpoint $HEAD:29500", nodes, per_node)
                                           : fmt::format("torchrun --nproc_per_node {}", per_node);
    h.torchrun = launcher + " train.py" + (deepspeed ? " --deepspeed ds_config.json" : "");
    std::string args = fmt::format("--per_device_train_batch_size {}", w.batch);
    if (w.precision == Precision::bf16 || w.precision == Precision::fp8) args += " --bf16";
    else if (w.precision == Precision::fp16) args += " --fp16";
    else if (w.precision == Precision::tf32) args += " --tf32 true";
    if (w.checkpointing != Checkpointing::none) args += " --gradient_checkpointing";
    if (w.grad_accum > 1) args += fmt::format(" --gradient_accumulation_steps {}", w.grad_accum);
    args += " --optim " + optim_name(w.optimizer);
    if (fsdp) args += " --fsdp \"full_shard auto_wrap\"";
    if (deepspeed) args += " --deepspeed ds_config.json";
    if (w.mode == Mode::lora || w.mode == Mode::qlora)
      args += fmt::format("  # PEFT LoraConfig(r={}, target_modules=\"{}\"){}", w.lora_rank, w.lora_targets.spec,
                          w.mode == Mode::qlora ? ", BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=\"nf4\", bnb_4bit_compute_dtype=torch.bfloat16)" : "");
    h.hf_trainer = args;
    if (deepspeed || w.sharding != Sharding::none) {
      DeepSpeedConfig ds;
      ds.micro_batch = w.batch;
      ds.grad_accum = w.grad_accum;
      ds.bf16 = w.precision == Precision::bf16;
      ds.fp16 = w.precision == Precision::fp16;
      ds.stage = w.sharding == Sharding::zero1 ? 1 : w.sharding == Sharding::zero2 ? 2 : w.sharding == Sharding::zero3 ? 3 : 0;
      ds.overlap_comm = true;
      ds.offload_optimizer = w.offload == Offload::optimizer || w.offload == Offload::optimizer_params;
      ds.offload_param = w.offload == Offload::optimizer_params;
      h.deepspeed_config = ds;
    }
    if (w.tp > 1 || w.pp > 1 || w.ep > 1)
      h.notes.push_back(fmt::format("tensor/pipeline/expert parallelism needs Megatron-LM or torchtitan: --tensor-model-parallel-size {} "
                                    "--pipeline-model-parallel-size {} --expert-model-parallel-size {}",
                                    w.tp, w.pp, w.ep));
    if (w.offload != Offload::none && w.sharding == Sharding::none && w.gpus == 1) {
      DeepSpeedConfig ds;  // the one-GPU form: ZeRO-2 with the optimizer on the CPU
      ds.micro_batch = w.batch;
      ds.bf16 = w.precision == Precision::bf16;
      ds.stage = 2;
      ds.offload_optimizer = true;
      h.deepspeed_config = ds;
      h.torchrun = "deepspeed --num_gpus 1 train.py --deepspeed ds_config.json";
    }
  }
  if (h.skypilot_accelerator) {
    std::string run = h.vllm ? *h.vllm : *h.torchrun;
    h.skypilot = fmt::format("resources:\n  accelerators: {}:{}\n{}run: |\n  {}\n", *h.skypilot_accelerator, per_node,
                             nodes > 1 ? fmt::format("num_nodes: {}\n", nodes) : "", run);
  } else {
    h.notes.push_back("no SkyPilot accelerator name known for " + c.gpu->id);
  }
  return h;
}

}  // namespace gpuadvise
