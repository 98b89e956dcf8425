// Launch hints: a plan as the command lines and configs of the tools that run it (`--hints`; always in the JSON).
#include "gpuadvise/launch_hints.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuadvise/escape.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/perf.hpp"

namespace gpuadvise {

namespace {

// What the engine loads, as one shell word: a local config.json's folder (vLLM and SGLang take the folder with
// the config and weights), else the Hugging Face repository of the preset's source, else its id.
std::string hf_repo(const ModelSpec& m) {
  if (!m.local_path.empty()) {
    std::string folder = m.local_path;
    if (folder.ends_with(".json")) {
      const auto slash = folder.find_last_of('/');
      folder = slash == std::string::npos ? "." : slash == 0 ? "/" : folder.substr(0, slash);
    }
    return shell_word(folder);
  }
  const std::string prefix = "https://huggingface.co/";
  if (m.source.rfind(prefix, 0) == 0) {
    std::string rest = m.source.substr(prefix.size());
    const auto blob = rest.find("/blob/");
    if (blob != std::string::npos) return shell_word(rest.substr(0, blob));
  }
  return shell_word(m.id);
}

// A command as the body of a YAML literal block: every line indented, so no line of it can end the block.
std::string yaml_block(const std::string& text, const char* indent) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t nl = text.find('\n', start);
    const std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    out += indent + line + "\n";
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
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

// Megatron's pipeline split as the time assumes it (the largest stage holds ceil(layers/p) layers, in v chunks of at
// most ceil(stage/v); method.md §8.4): where the layers divide evenly, layers per virtual stage; otherwise an explicit
// --pipeline-model-parallel-layout (chunks in model order, embedding E first, loss L last) whose first and last
// chunks give up the layers the stages do not divide (pipeline_parallel_layer_layout.py parses "(t*3|)*29").
std::string megatron_pipeline_split(const Workload& w, const ModelSpec& m) {
  const std::int64_t layers = m.layers, pp = w.pp, vp = std::max<std::int64_t>(1, w.virtual_stages);
  const std::int64_t per_stage = (layers + pp - 1) / pp, per_chunk = (per_stage + vp - 1) / vp;
  if (layers % pp == 0 && per_stage % vp == 0) return vp > 1 ? fmt::format(" --num-layers-per-virtual-pipeline-stage {}", per_chunk) : std::string();
  const std::int64_t chunks = pp * vp;
  std::vector<std::int64_t> size(static_cast<std::size_t>(chunks), per_chunk);
  for (std::int64_t deficit = chunks * per_chunk - layers, i = 0; deficit > 0; ++i) {  // first, last, second, last but one, ...
    const std::int64_t k = i % chunks, j = k % 2 == 0 ? k / 2 : chunks - 1 - k / 2;
    auto& s = size[static_cast<std::size_t>(j)];
    if (s > 0) --s, --deficit;
  }
  auto chunk = [](std::int64_t n) { return n == 0 ? std::string() : n == 1 ? std::string("t") : fmt::format("t*{}", n); };
  std::string layout = "E" + chunk(size.front()) + "|";
  for (std::size_t j = 1; j + 1 < size.size();) {  // runs of equal chunks as (t*k|)*n
    std::size_t run = 1;
    while (j + run + 1 < size.size() && size[j + run] == size[j]) ++run;
    layout += run > 1 ? fmt::format("({}|)*{}", chunk(size[j]), run) : chunk(size[j]) + "|";
    j += run;
  }
  return " --pipeline-model-parallel-layout " + shell_word(layout + chunk(size.back()) + "L");
}

// A training plan as Megatron-LM runs it (method.md §11), where Megatron-LM runs it as planned: full training or
// fine-tuning (adapters are Megatron-Bridge's and NeMo's, not pretrain_gpt.py's) with AdamW or SGD, split by tensor,
// pipeline, expert or context parallelism (any framework's plan: Hugging Face's Trainer has none of them), or under
// --framework megatron, and sharded as Megatron shards: its distributed optimizer (ZeRO-1), Megatron-FSDP (ZeRO-2, ZeRO-3) beside
// tensor and expert parallelism (its user guide: `--use-megatron-fsdp --data-parallel-sharding-strategy
// optim_grads_params --ckpt-format fsdp_dtensor`; `optim_grads` for ZeRO-2), the optimizer (not the parameters) on the CPU. Flags from
// megatron/training/arguments.py and the config dataclasses it turns into flags (TransformerConfig, TrainingConfig,
// OptimizerConfig): the optimizer's CPU offload needs the distributed and precision-aware optimizers.
std::optional<std::string> megatron_args(const Workload& w, const ModelSpec& m, std::int64_t seq_len, const GpuSpec* gpu) {
  if (!megatron_runs(w, m) || (w.mode != Mode::train && w.mode != Mode::finetune)) return std::nullopt;
  const bool sgd = w.optimizer == Optimizer::sgd || w.optimizer == Optimizer::sgd_momentum;
  if (sgd && w.offload == Offload::optimizer) return std::nullopt;  // the precision-aware optimizer the offload needs is Adam's only
  // Gradients sharded (ZeRO-2, ZeRO-3) are Megatron-FSDP's: its distributed optimizer shards the optimizer states and
  // master weights but keeps the whole gradient buffer (docs/user-guide/features/dist_optimizer.md: 6 + 12/d bytes).
  const bool fsdp = w.sharding == Sharding::zero3 || w.sharding == Sharding::zero2, fp8_weights = fp8_params_gathered(w, m);
  if (fsdp && (w.pp > 1 || (w.offload != Offload::none && w.offload != Offload::activations))) return std::nullopt;
  std::string a = fmt::format("--tensor-model-parallel-size {} --pipeline-model-parallel-size {}", w.tp, w.pp);
  if (w.pp > 1) a += megatron_pipeline_split(w, m);
  if (w.ep > 1) a += fmt::format(" --expert-model-parallel-size {}{}", w.ep, experts_folded(w) && w.tp > 1 ? " --expert-tensor-parallel-size 1" : "");
  // The all-to-all dispatcher the time assumes (Megatron's default gathers every token to every rank), and, asked
  // for, its batch-level overlap (method.md §8.4).
  if (w.ep > 1) a += " --moe-token-dispatcher-type alltoall";
  if (expert_all_to_all_overlapped(w, m)) a += " --overlap-moe-expert-parallel-comm";
  if (w.full_cuda_graph) a += " --cuda-graph-impl local --cuda-graph-scope full_iteration";  // Megatron-LM arguments.py: full_iteration needs local
  if (w.cp > 1) a += fmt::format(" --context-parallel-size {}", w.cp);
  if (w.tp > 1) a += " --sequence-parallel";
  if (gpu && tp_comm_overlapped(w, m, *gpu)) a += " --tp-comm-overlap";  // the time counts it (method.md §8.4)
  a += fmt::format(" --micro-batch-size {} --global-batch-size {} --seq-length {}", w.batch, w.batch * w.grad_accum * w.data_parallel(), seq_len);
  if (w.precision == Precision::bf16 || w.precision == Precision::fp8) a += " --bf16";
  if (w.precision == Precision::fp8) a += " --fp8-format hybrid";
  if (w.grad_dtype == Precision::bf16) a += " --grad-reduce-in-bf16";  // Megatron-LM reduces bf16 training's gradients in fp32 unless told
  if (w.precision == Precision::fp16) a += " --fp16";
  if (sgd) a += " --optimizer sgd";
  if (fsdp)
    a += fmt::format(" --use-megatron-fsdp --data-parallel-sharding-strategy {} --ckpt-format fsdp_dtensor",
                     w.sharding == Sharding::zero3 ? "optim_grads_params" : "optim_grads");
  else if (w.sharding != Sharding::none || w.offload == Offload::optimizer || fp8_weights) a += " --use-distributed-optimizer";
  if (fp8_weights) a += " --fp8-param-gather";  // FP8 parameters, as the memory counts them (method.md §3.1)
  if (w.offload == Offload::optimizer) a += " --use-precision-aware-optimizer --optimizer-cpu-offload";
  // Megatron-Core's CPU offload of activations (method.md §4.5): arguments.py turns cpu_offloading on with a count.
  if (w.offload == Offload::activations && w.gpu_layers > 0 && w.gpu_layers < m.layers)
    a += fmt::format(" --cpu-offloading-num-layers {}", m.layers - w.gpu_layers);
  if (w.checkpointing == Checkpointing::full) a += " --recompute-granularity full --recompute-method uniform --recompute-num-layers 1";
  if (w.checkpointing == Checkpointing::selective) a += " --recompute-granularity selective";
  // The modules the memory counts as recomputed, where they are not Megatron's default core_attn alone (method.md §4.2;
  // transformer_config.py's recompute_modules, a list flag): a given --recompute-modules, MLA's up-projections.
  if (const std::string rc = recomputed_modules(w, m).spec(); w.checkpointing == Checkpointing::selective && rc != "core_attn")
    a += " --recompute-modules " + rc;
  return a;
}

// llama.cpp's server for a plan (method.md §11): its layer split or row split, the layers or experts left to the CPU.
void llamacpp_hints(LaunchHints& h, const Workload& w, const Candidate& c, const ModelSpec& m) {
  // llama.cpp splits layers over several GPUs by default (--split-mode layer): one card works at a time; --tp is its
  // row split. A plan of replicas runs this server once per replica, on its own GPUs.
  // With --offload layers, -ngl keeps that many on the GPU and the CPU runs the rest (method.md §8.3).
  // With --offload experts, every layer is on the GPU but for the routed experts of the first --n-cpu-moe ones.
  const std::int64_t cpu_moe = w.offload == Offload::experts ? c.memory.cpu_moe_layers : 0;
  // Over several GPUs with some layers' experts on the CPU, the layers each GPU holds balance its bytes (-ts).
  const bool balanced = cpu_moe > 0 && c.memory.layer_split.size() > 1;
  h.server = fmt::format("llama-server -m {}.gguf -c {} -ngl {}{}{}{}{}", m.id, c.memory.seq_len, w.offload == Offload::layers && w.gpu_layers > 0 ? w.gpu_layers : 999,
                         cpu_moe > 0 ? fmt::format(" --n-cpu-moe {}", cpu_moe) : "", w.batch > 1 ? fmt::format(" --parallel {}", w.batch) : "",
                         w.tp > 1 ? " --split-mode row" : w.pp > 1 ? " --split-mode layer" : "",
                         balanced ? fmt::format(" --tensor-split {}", fmt::join(c.memory.layer_split, ",")) : "");
  h.notes.push_back("llama.cpp: a GGUF file of the model at the planned quantisation (" + to_string(w.precision) + ")");
}

// TensorRT-LLM's server: one engine over `engine_tp` GPUs (a wide expert-parallel engine's tp_size counts all of
// them, as SGLang's --tp does), its attention data parallel where `attention_dp` (an LLM API options file).
void trtllm_hints(LaunchHints& h, const Workload& w, const Candidate& c, const std::string& repo, std::int64_t engine_tp, bool attention_dp,
                  std::int64_t engine_nodes) {
  const bool triton_moe = c.gpu && trtllm_triton_moe(w, *c.gpu);
  const char* options = triton_moe ? "llm_options.yml" : attention_dp ? "attention_dp.yml" : "";
  const bool wide = experts_over_serving_ranks(w);
  h.server = fmt::format("trtllm-serve {} --tp_size {} --pp_size {}{} --max_seq_len {} --kv_cache_free_gpu_memory_fraction {:g}{}{}", repo, engine_tp,
                         w.pp, w.ep > 1 ? fmt::format(" --ep_size {}", wide ? engine_tp : w.ep) : "", c.memory.seq_len, w.gpu_memory_utilization,
                         *options ? " --extra_llm_api_options " : "", options);
  if (triton_moe)
    h.notes.push_back(fmt::format("llm_options.yml holds TensorRT-LLM's LLM API options: the lines 'moe_config:' and '  backend: TRITON' (its "
                                  "MXFP4 experts on Hopper){}", attention_dp ? " and 'enable_attention_dp: true'" : ""));
  else if (attention_dp)
    h.notes.push_back("attention_dp.yml holds the line 'enable_attention_dp: true' (TensorRT-LLM's LLM API option)");
  if (engine_nodes > 1) h.notes.push_back(fmt::format("TensorRT-LLM over {} nodes: launch trtllm-serve under mpirun (or Slurm srun) on every node", engine_nodes));
}

// A serving plan as its engine's command (method.md §11): vLLM, SGLang, TensorRT-LLM or llama.cpp, with the
// weights the plan serves read the way that engine can read them from the repository named; ExLlama, ExLlamaV2 and
// AutoAWQ, which have no server command, as a note.
void serving_hints(LaunchHints& h, const Workload& w, const Candidate& c, const ModelSpec& m, const std::string& repo) {
  const Framework engine = w.effective_framework();
  if (engine == Framework::llamacpp || is_gguf(w.precision)) {
    llamacpp_hints(h, w, c, m);
    return;
  }
  if (engine == Framework::exllama || engine == Framework::exllamav2 || engine == Framework::autoawq) {
    // Libraries with no server command of their own: how they are run, and the checkpoint they read.
    h.notes.push_back(engine == Framework::autoawq
                          ? "AutoAWQ runs in Python on an AWQ checkpoint (AutoAWQForCausalLM.from_quantized); vLLM and SGLang serve the same checkpoint"
                          : engine == Framework::exllama
                                ? "ExLlama runs in Python on a GPTQ checkpoint (its model directory); ExLlamaV2 and TabbyAPI serve the same checkpoint"
                                : "ExLlamaV2 runs in Python on a GPTQ or EXL2 checkpoint (its model directory, ExLlamaV2DynamicGenerator); TabbyAPI "
                                  "serves it over an OpenAI-compatible API");
    return;
  }
  std::string quant;
  const bool prequantised = !m.checkpoint_format.empty();  // the engine reads the checkpoint's own format
  // Quantised weights from a 16-bit repository: 4-bit in flight (bitsandbytes, quantised as each weight loads),
  // 8-bit as fp8 (weight-only Marlin kernels from Ampere on); a pre-quantised checkpoint names its own format.
  if (prequantised) {
    h.notes.push_back("the checkpoint is pre-quantised (" + m.checkpoint_format + "): the engine reads its format from the checkpoint");
  } else if (w.precision == Precision::int4) {
    quant = " --quantization bitsandbytes";
    h.notes.push_back("int4: vLLM quantises the 16-bit checkpoint to 4 bits as it loads (bitsandbytes); a pre-quantised AWQ or GPTQ "
                      "checkpoint serves faster, and vLLM reads its format from the checkpoint itself");
  } else if (w.precision == Precision::int8 || w.precision == Precision::fp8) {
    quant = " --quantization fp8";
    const double sixteen_bit = 2.0 * c.memory.params_total / static_cast<double>(std::max<std::int64_t>(1, w.tp * w.pp));
    if (c.memory.vllm && sixteen_bit > c.memory.vllm->budget_bytes)
      h.notes.push_back(fmt::format("--quantization fp8 loads the 16-bit weights first ({:.0f} GB per GPU, more than the engine's {:.0f} GB): serve a "
                                    "pre-quantised FP8 checkpoint (the publisher's -FP8 repository), whose format vLLM and SGLang read themselves",
                                    sixteen_bit / 1e9, c.memory.vllm->budget_bytes / 1e9));
  } else if (w.precision == Precision::fp4) {
    h.notes.push_back("fp4: serve a pre-quantised NVFP4 checkpoint (the publisher's -FP4 repository, NVIDIA ModelOpt's format; MXFP4 on AMD "
                      "CDNA 4); the engine reads its format from the checkpoint, and no engine quantises a 16-bit one to FP4 as it loads");
  } else if (w.precision == Precision::bf16) {
    quant = " --dtype bfloat16";
  } else if (w.precision == Precision::fp16) {
    quant = " --dtype float16";
  }
  // Attention data parallel (method.md §8.3): vLLM runs one engine per GPU (--data-parallel-size) with the experts
  // spread over all of them; SGLang --enable-dp-attention with --dp; TensorRT-LLM's enable_attention_dp option.
  const bool adp = w.attention_dp && w.tp > 1;
  // Experts split over data-parallel ranks (method.md §8.3): one engine over the ep x tp GPUs, its attention data
  // parallel over the ep ranks, DeepEP carrying the tokens: SGLang's --tp counts every GPU of the engine, --dp the
  // ranks, --moe-a2a-backend deepep; vLLM's --data-parallel-size ranks with --enable-expert-parallel.
  const bool wide = experts_over_serving_ranks(w);
  // The hosts one engine spans: whole servers, or on a rack-scale GPU (an NVL72) its compute trays of 4 GPUs, each
  // with its own host; a plan of several engines starts each on its own.
  const std::int64_t engine_gpus = wide ? w.ep * w.tp : w.tp * w.pp;
  const std::int64_t host_gpus = c.gpu->rack_scale() ? std::min<std::int64_t>(w.gpus_per_node(), k_tray_gpus) : w.gpus_per_node();
  const std::int64_t engine_nodes = std::max<std::int64_t>(1, (engine_gpus + host_gpus - 1) / host_gpus);
  std::string cmd = fmt::format("vllm serve {} --tensor-parallel-size {} --max-model-len {} --gpu-memory-utilization {:g}", repo, adp ? 1 : w.tp,
                                c.memory.seq_len, w.gpu_memory_utilization);
  if (adp) cmd += fmt::format(" --data-parallel-size {}", w.tp);
  if (wide) cmd += fmt::format(" --data-parallel-size {}", w.ep);
  if (w.pp > 1) cmd += fmt::format(" --pipeline-parallel-size {}", w.pp);
  // Expert parallel serving: vLLM spreads the experts over the tensor-parallel GPUs (its EP size is tp x dp).
  if (w.ep > 1 || adp) cmd += " --enable-expert-parallel";
  if (w.kv_precision && (*w.kv_precision == Precision::fp8 || *w.kv_precision == Precision::int8)) cmd += " --kv-cache-dtype fp8";
  cmd += quant;
  if (w.batch > 1) cmd += fmt::format(" --max-num-seqs {}", w.batch);
  if (const std::int64_t engines = w.gpus / std::max<std::int64_t>(1, engine_gpus); engines > 1 && !w.disaggregate)
    h.notes.push_back(fmt::format("the plan runs {} such engines of {} GPU{} each, every one started alone, requests spread over them by a load balancer",
                                  engines, engine_gpus, engine_gpus == 1 ? "" : "s"));
  if (engine == Framework::sglang) {
    // SGLang across nodes: one tensor-parallel group over all of them, each node started with its rank.
    h.server = fmt::format("python -m sglang.launch_server --model-path {} --tp {} --context-length {}{}{}{}{}{}", repo, engine_gpus, c.memory.seq_len,
                           adp ? fmt::format(" --dp {} --enable-dp-attention", w.tp * w.pp)
                           : wide ? fmt::format(" --dp {} --enable-dp-attention --moe-a2a-backend deepep", w.ep)
                                  : "",
                           w.ep > 1 ? fmt::format(" --ep-size {}", wide ? engine_gpus : w.ep) : "",
                           w.gpu_memory_utilization_given ? fmt::format(" --mem-fraction-static {:g}", w.gpu_memory_utilization) : "",
                           !prequantised && (w.precision == Precision::fp8 || w.precision == Precision::int8) ? " --quantization fp8" : "",
                           engine_nodes > 1 ? fmt::format(" --nnodes {} --node-rank $NODE_RANK --dist-init-addr $HEAD:5000", engine_nodes) : "");
  } else if (engine == Framework::trtllm) {
    trtllm_hints(h, w, c, repo, wide ? engine_gpus : w.tp, adp || wide, engine_nodes);
  } else {
    h.vllm = cmd;
    if (wide)
      h.notes.push_back("vLLM's default all2all backend gathers every rank's tokens (allgather_reducescatter); the estimate's exchange is DeepEP's: "
                        "VLLM_ALL2ALL_BACKEND=deepep_low_latency for decode, deepep_high_throughput for prompts (its expert-parallel deployment guide)");
    if (engine_nodes > 1)
      h.notes.push_back(adp || wide ? fmt::format("{} nodes: vLLM's data parallel spans them with --data-parallel-size-local and --data-parallel-address on "
                                                  "each node (its data-parallel deployment guide)", engine_nodes)
                                    : fmt::format("{} nodes: start a Ray cluster over them first (vLLM's multi-node serving); tensor parallel stays inside each node",
                                                  engine_nodes));
  }
}

}  // namespace

LaunchHints launch_hints(const Workload& asked, const Candidate& c, const ModelSpec& m) {
  LaunchHints h;
  const Workload w = c.planned.applied_to(asked);
  const std::string repo = hf_repo(m);
  const std::int64_t nodes = std::max<std::int64_t>({1, c.nodes, w.nodes});  // the plan's (an estimate's given layout too)
  const std::int64_t per_node = std::max<std::int64_t>(1, w.gpus / nodes);
  h.skypilot_accelerator = skypilot_name(c.gpu->id);
  // A training launch: torchrun on each host, the hosts meeting at the head's rendezvous. A node wider than a server
  // (an NVL72 rack: one NVLink domain of 18 compute trays, 4 GPUs and their own host each) runs it per tray.
  const std::int64_t per_host = c.gpu->rack_scale() ? std::min<std::int64_t>(per_node, k_tray_gpus) : per_node, hosts = nodes * ((per_node + per_host - 1) / per_host);
  const std::string launcher = hosts > 1 ? fmt::format("torchrun --nnodes {} --nproc_per_node {} --rdzv_backend c10d --rdzv_endpoint $HEAD:29500", hosts,
                                                       std::min(per_node, per_host))
                                         : fmt::format("torchrun --nproc_per_node {}", per_node);
  if (m.vision && !is_training(w.mode)) {
    // Vision inference: no LLM server; the pipeline is the application's (DeepStream/Triton for streams).
    // The settings go in a note: a shell comment in the command would swallow whatever a user appends to it.
    h.torchrun = "python infer.py";
    h.notes.push_back(fmt::format("infer.py: batch {} at {}x{}", w.batch, w.image_width.value_or(m.vision->ref_w), w.image_height.value_or(m.vision->ref_h)));
    h.notes.push_back(w.streams ? "video streams: NVIDIA DeepStream or Triton with hardware decode (NVDEC) keeps frames on the GPU"
                                : "export to TensorRT or ONNX Runtime for lower latency at small batches");
  } else if (!is_training(w.mode)) {
    serving_hints(h, w, c, m, repo);
  } else if (const auto megatron = megatron_args(w, m, c.memory.seq_len, c.gpu)) {
    h.torchrun = launcher + " pretrain_gpt.py " + *megatron;
    h.notes.push_back(fmt::format("Megatron-LM's pretrain_gpt.py: add the model's shape ({} layers, hidden {}; --num-layers, --hidden-size, ...), the data "
                                  "(--data-path) and, to fine-tune, a checkpoint converted to Megatron's format (--load DIR --finetune)",
                                  m.layers, m.hidden));
  } else {
    const bool deepspeed = w.sharding != Sharding::none && (w.offload != Offload::none || w.sharding == Sharding::zero1 || w.sharding == Sharding::zero2);
    const bool fsdp = w.sharding == Sharding::zero3 && !deepspeed;
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
    if (w.mode == Mode::lora || w.mode == Mode::qlora) {
      // QLoRA: bitsandbytes' NF4 layers. Sharded (FSDP or ZeRO-3), the 4-bit weights must be stored in the model's
      // 16-bit dtype so the sharder can flatten them with the rest (bnb_4bit_quant_storage; PEFT's "FSDP-QLoRA"
      // and "DeepSpeed ZeRO-3 QLoRA" guides, and the model loaded with the same torch_dtype).
      const char* dtype = w.precision == Precision::fp16 ? "torch.float16" : "torch.bfloat16";
      std::string bnb;
      if (w.mode == Mode::qlora) {
        bnb = fmt::format("; BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=\"nf4\", bnb_4bit_compute_dtype={}{}{})", dtype,
                          w.double_quant ? ", bnb_4bit_use_double_quant=True" : "",
                          w.sharding == Sharding::zero3 ? fmt::format(", bnb_4bit_quant_storage={}", dtype) : std::string());
        if (w.sharding == Sharding::zero3) bnb += fmt::format(", the model loaded with torch_dtype={}", dtype);
      }
      h.notes.push_back(fmt::format("PEFT: LoraConfig(r={}, target_modules={}){}", w.lora_rank, python_literal(w.lora_targets.spec), bnb));
    }
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
    if (w.tp > 1 || w.pp > 1 || w.ep > 1 || w.cp > 1)
      h.notes.push_back(fmt::format("tensor/pipeline/expert/context parallelism needs Megatron-LM or torchtitan: --tensor-model-parallel-size {} "
                                    "--pipeline-model-parallel-size {}{} --expert-model-parallel-size {}{}{}{}",
                                    w.tp, w.pp, w.pp > 1 ? megatron_pipeline_split(w, m) : "",
                                    w.ep, experts_folded(w) && w.tp > 1 ? " --expert-tensor-parallel-size 1" : "",  // folded: whole experts (method.md §3.4)
                                    w.cp > 1 ? fmt::format(" --context-parallel-size {}", w.cp) : "",
                                    // the overlap the time counts (method.md §8.4), with the sequence parallelism it needs
                                    c.gpu && tp_comm_overlapped(w, m, *c.gpu) ? " --sequence-parallel --tp-comm-overlap" : ""));
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
  const std::string run = h.vllm ? *h.vllm : h.server ? *h.server : h.torchrun.value_or("");
  if (h.skypilot_accelerator && !run.empty()) {  // a task needs a command to run
    h.skypilot = fmt::format("resources:\n  accelerators: {}:{}\n{}run: |\n{}", *h.skypilot_accelerator, per_node,
                             nodes > 1 ? fmt::format("num_nodes: {}\n", nodes) : "", yaml_block(run, "  "));
  } else if (!h.skypilot_accelerator) {
    h.notes.push_back("no SkyPilot accelerator name known for " + c.gpu->id);
  }
  return h;
}

}  // namespace gpuadvise
