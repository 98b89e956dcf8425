// The CLI's shared plumbing: workload, cost and output flags, files and streams, catalogues and the names people
// type for GPUs and models (ARCHITECTURE.md). Every problem is a UserError with one line and exit 2.
#include "support.hpp"

#include <CLI/CLI.hpp>

#include "bundled.hpp"
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "gpuadvise/bounds.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/escape.hpp"
#include "gpuadvise/framework.hpp"

namespace gpuadvise::cli {

namespace {
// The placeholder --help shows for a workload setting's value: what kind of thing it takes.
const char* placeholder(const std::string& key) {
  static const std::pair<const char*, const char*> kinds[] = {
      {"model", "MODEL"},       {"mode", "MODE"},           {"precision", "PRECISION"}, {"kv_precision", "PRECISION"}, {"image_size", "N|WxH"},
      {"tokens", "COUNT"},      {"requests", "COUNT"},      {"images", "COUNT"},        {"input_tokens", "COUNT"},     {"output_tokens", "COUNT"},
      {"dataset_tokens", "COUNT"}, {"mfu", "FRACTION"},     {"utilization", "FRACTION"}, {"gpu_memory_utilization", "FRACTION"},
      {"lora_targets", "LIST"}, {"recompute_modules", "LIST"}, {"epochs", "X"},            {"fps", "X"},               {"infer_every", "N"},          {"resolution", "RES"},
      {"setup_hours", "HOURS"}, {"checkpoint_every", "HOURS"}, {"amortize_years", "YEARS"}, {"storage_usd", "USD"},  {"egress_usd", "USD"},
      {"power_price", "USD/kWh"}, {"max_latency_ms", "MS"}, {"max_ttft_ms", "MS"},      {"max_tpot_ms", "MS"}, {"gradient_checkpointing", "KIND"},
      {"master_weights", "NAME"}, {"grad_dtype", "NAME"}, {"optimizer", "NAME"},    {"sharding", "NAME"},       {"framework", "NAME"},         {"offload", "NAME"}, {"codec", "NAME"}, {"tracker", "NAME"}, {"image_decode", "WHERE"}};
  for (const auto& [k, v] : kinds)
    if (key == k) return v;
  return "N";  // the rest are counts: batch, seq_len, classes, lora_rank, gpus, tp, pp, ep, nodes, grad_accum, concurrency, steps, streams
}

// "hf vllm ...; vision: pytorch ...; diffusers [hf]": the frameworks for each kind of model, from the one list
// check_workload_fits_model holds (image generation lists only what the vision list lacks).
std::string framework_help() {
  auto names = [](ModelKind k, const std::vector<Framework>& skip) {
    std::string out;
    for (Framework f : frameworks_for(k))
      if (std::find(skip.begin(), skip.end(), f) == skip.end()) out += (out.empty() ? "" : " ") + to_string(f);
    return out;
  };
  return names(ModelKind::language, {}) + "; vision: " + names(ModelKind::vision, {}) + "; " + names(ModelKind::generation, frameworks_for(ModelKind::vision)) +
         " [hf]";
}

// A workload setting's option, in its --help group; nullptr when the command line does not give it and only the
// given ones are registered (WorkloadFlags::given). Views: a setting left out builds no string.
CLI::Option* add(CLI::App* app, WorkloadFlags& wf, std::string_view key, std::string_view names, std::string_view help, const std::string& group) {
  if (!wanted(wf.given, names)) return nullptr;
  auto f = std::make_unique<Flag>();
  f->key = key;
  f->name = names.substr(0, names.find(','));
  f->opt = app->add_option(std::string(names), f->value, std::string(help))->type_name(placeholder(f->key))->group(group);
  wf.flags.push_back(std::move(f));
  return wf.flags.back()->opt;
}

CLI::Option* add_switch(CLI::App* app, WorkloadFlags& wf, std::string_view key, std::string_view name, std::string_view value, std::string_view help,
                        const std::string& group) {
  if (!wanted(wf.given, name)) return nullptr;
  auto f = std::make_unique<Flag>();
  f->key = key;
  f->name = name;
  f->is_switch = true;
  f->switch_value = value;
  const std::string description(help);
  f->opt = app->add_flag(f->name, description)->group(group);
  wf.flags.push_back(std::move(f));
  return wf.flags.back()->opt;
}

// The user's own GPUs: $GPUADVISE_CATALOG, else $XDG_CONFIG_HOME/gpuadvise/gpus.json, else
// ~/.config/gpuadvise/gpus.json, in the catalogue's schema; each entry adds a GPU or replaces the bundled one
// with its id (a price of your own, a card the catalogue lacks).
std::string user_catalog_path() { return config_path("GPUADVISE_CATALOG", "gpus.json"); }

}  // namespace

void require_named_file(const char* env, const std::string& path, const std::string& what) {
  std::error_code ec;
  if (const char* named = std::getenv(env); named && *named && !std::filesystem::exists(path, ec))
    throw UserError{2, std::string(env) + ": no such file '" + printable(path) + "' (point it at " + what + ", or unset it)"};
}

GivenNames::GivenNames(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word.size() > 2 && word.starts_with("--")) names_.push_back(word.substr(0, word.find('=')));
  }
}

bool GivenNames::any_of(std::string_view names) const {
  while (!names.empty()) {
    const std::size_t comma = names.find(',');
    const std::string_view name = names.substr(0, comma);
    if (std::find(names_.begin(), names_.end(), name) != names_.end()) return true;
    if (comma == std::string_view::npos) break;
    names.remove_prefix(comma + 1);
  }
  return false;
}

void add_workload_flags(CLI::App* app, WorkloadFlags& wf) {
  const std::string g = "Workload";
  add(app, wf, "model", "--model", "a size (7B, 350M, 6.74e9), a preset id (gpuadvise models) or its Hugging Face repo id (mistralai/Mixtral-8x7B-v0.1, -Instruct variants too), or a config.json path or snapshot folder [7B]", g);
  add(app, wf, "mode", "--mode", "train | finetune | lora | qlora | inference [inference]", g);
  add(app, wf, "precision", "--precision", "fp32 tf32 fp16 bf16 fp8 fp4 int8 int4 nf4, GGUF q8_0 q6_k q5_k_m q5_0 q4_k_m q4_0 q4_1 q3_k_m q2_k [bf16; inference: a pre-quantised checkpoint's own (fp8, int4 for AWQ/GPTQ, fp4 for MXFP4)]", g);
  add(app, wf, "kv_precision", "--kv-precision", "KV-cache precision [16-bit, fp32 for fp32; fp8 under trtllm at fp8 or fp4]", g);
  add_switch(app, wf, "double_quant", "--double-quant", "true", "NF4 with double quantisation (bitsandbytes)", g);
  add(app, wf, "master_weights", "--master-weights", "fp32 | none (pure 16-bit training) [fp32]", g);
  add(app, wf, "grad_dtype", "--grad-dtype", "mixed-precision training: the gradients' accumulation and reduction buffer, fp32 | bf16 [the framework's: fp32 under Megatron-LM, torchtitan and Hugging Face DDP; bf16 under ZeRO/FSDP with Hugging Face, LitGPT, torchtune, llm.q; Megatron-Bridge's benchmarks set bf16]", g);
  add(app, wf, "optimizer", "--optimizer", "adamw | adamw-8bit | adafactor | sgd | sgd-momentum [adamw]", g);
  add(app, wf, "batch", "--batch", "micro-batch per GPU; for inference, sequences in flight [1; images trained with --images: the task's recipe batch over all GPUs, 256 or 16; images inferred: the planner's]", g);
  add(app, wf, "seq_len", "--seq-len", "tokens per sequence (inference: prompt + output) [2048 or the model's context]", g);
  add(app, wf, "image_size", "--image-size", "N or WxH pixels (vision)", g);
  add(app, wf, "text_tokens", "--text-tokens", "image generation with FLUX or SD3: T5 prompt tokens in the joint attention (diffusers' max_sequence_length) [the pipeline's own: FLUX.1-dev 512, FLUX.1-schnell and SD3 Medium 256]", g);
  add(app, wf, "classes", "--classes", "vision: classes of your data set (the preset's by default: 1000 ImageNet, 80 COCO, ...)", g);
  add(app, wf, "recompute_modules", "--recompute-modules", "Megatron's selective recompute of these modules (its recompute_modules): a comma list of core_attn, layernorm, mla_up_proj, moe_act, mlp [core_attn; with MLA core_attn,mla_up_proj]", g);
  if (CLI::Option* o = add(app, wf, "gradient_checkpointing", "--gradient-checkpointing", "activation recomputation: full (bare flag) | selective [off]", g))
    o->expected(0, 1);
  add_switch(app, wf, "flash_attention", "--no-flash-attention", "false", "eager attention that materialises the scores", g);
  add_switch(app, wf, "compile", "--compile", "true", "torch.compile: fused norms, activations and residual adds (training time)", g);
  add_switch(app, wf, "cache_latents", "--cache-latents", "true", "image-generation training on precomputed latents and text embeddings (no text encoders or VAE resident)", g);
  add_switch(app, wf, "channels_last", "--channels-last", "true", "channels_last memory format: an image-generation UNet in it (diffusers' benchmarks set it); classifier CNNs run so by default", g);
  add_switch(app, wf, "channels_last", "--no-channels-last", "false", "classifier CNNs (ResNet, ResNeXt, EfficientNet) channels-first, PyTorch's default: cuDNN transposes around every convolution", g);
  add(app, wf, "image_decode", "--image-decode", "vision models fed JPEG files: cpu (PyTorch DataLoader workers on the host) | gpu (NVIDIA DALI with nvJPEG, AMD rocAL with rocJPEG, Intel Gaudi's media loader) | none (decoded or synthetic tensors, as benchmarks run) [cpu]", g);
  add_switch(app, wf, "vae_tiling", "--vae-tiling", "true", "image generation: decode in 512x512 tiles (diffusers enable_vae_tiling)", g);
  add(app, wf, "lora_rank", "--lora-rank", "LoRA rank [16]", g);
  add(app, wf, "lora_targets", "--lora-targets", "all-linear | attention | comma list of q,k,v,o,gate,up,down [all-linear]", g);
  add(app, wf, "gpus", "--gpus", "GPUs in the job; given without --tp, --pp, --cp, --ep, --sharding, --offload or --nodes, the ranking and check search the best layout of that many (estimate: data parallel) [1]", g);
  add(app, wf, "sharding", "--sharding", "none | zero1 | zero2 | zero3 (fsdp) [none]", g);
  add(app, wf, "tp", "--tp", "tensor-parallel degree [1]", g);
  add(app, wf, "pp", "--pp", "pipeline-parallel degree [1]", g);
  add(app, wf, "virtual_stages", "--virtual-stages", "training with --pp: model chunks per stage of the interleaved schedule (Megatron's virtual pipeline size) [1]", g);
  add(app, wf, "ep", "--ep", "expert-parallel degree for mixture-of-experts models: experts split over data-parallel ranks, or beyond them folded over tensor-parallel ranks too (whole experts per GPU) [1]", g);
  add(app, wf, "cp", "--cp", "context-parallel degree (training): each sequence split over N GPUs, ring attention [1]", g);
  add(app, wf, "nodes", "--nodes", "servers the GPUs are spread over [1]", g);
  add_switch(app, wf, "allow_quantization", "--allow-quantization", "true", "inference: the planner may serve int8 or int4 weights on fewer GPUs", g);
  add_switch(app, wf, "rope_scaling", "--rope-scaling", "true", "a --seq-len beyond the model's trained context is meant (RoPE scaling such as YaRN)", g);
  add_switch(app, wf, "disaggregate", "--disaggregate", "true", "serving: prefill and decode on separate replicas of the layout, the KV cache sent between them (vLLM, SGLang, TensorRT-LLM)", g);
  add_switch(app, wf, "ep_overlap", "--ep-overlap", "true", "Megatron training of a mixture of experts: the expert all-to-alls of one micro-batch beside another's compute (--overlap-moe-expert-parallel-comm; needs an interleaved schedule with pipeline stages and no full recomputation)", g);
  add_switch(app, wf, "full_cuda_graph", "--full-cuda-graph", "true", "Megatron training captured whole in one CUDA graph (--cuda-graph-impl local --cuda-graph-scope full_iteration): no host launches per layer or per expert", g);
  add_switch(app, wf, "attention_dp", "--attention-dp", "true", "serving a mixture of experts: attention and its KV cache data parallel over the --tp GPUs, each with its own sequences, the experts split over them (TensorRT-LLM, SGLang, vLLM)", g);
  add(app, wf, "grad_accum", "--grad-accum", "micro-batches of --batch per optimizer step [1]", g);
  add(app, wf, "global_batch", "--global-batch", "training: sequences per optimizer step over all GPUs (256, 1k), or tokens with a suffix (4Mtok); each layout's accumulation reaches it [pre-training with --tokens: DeepSeek LLM's law; fine-tuning: 128]", g);
  if (wanted(wf.given, "--framework,--engine")) add(app, wf, "framework", "--framework,--engine", framework_help(), g);  // the list built when needed
  add(app, wf, "offload", "--offload", "none | optimizer | optimizer+params (training) | activations (Megatron training: the activations of the layers beyond --gpu-layers wait in host memory, its --cpu-offloading-num-layers) | model | sequential (image generation) | layers (llama.cpp: the layers beyond --gpu-layers in host memory, run by the CPU) | experts (llama.cpp, a mixture of experts: the routed experts of the layers beyond --gpu-layers in host memory, its --n-cpu-moe) [none]", g);
  add(app, wf, "gpu_layers", "--gpu-layers", "llama.cpp with --offload layers: layers kept on the GPU (its -ngl); with --offload experts: layers whose routed experts stay on the GPU (--n-cpu-moe is the rest) [the most that fit]", g);
  add(app, wf, "gpu_memory_utilization", "--gpu-memory-utilization", "vLLM's share of the card [0.9]", g);
  add(app, wf, "tokens", "--tokens", "training job size in tokens (100M, 2B)", "Job size");
  add(app, wf, "requests", "--requests", "inference job: number of requests", "Job size");
  add(app, wf, "images", "--images", "vision job: images per epoch (training, with --epochs) or images to generate or process", "Job size");
  add(app, wf, "input_tokens", "--input-tokens", "inference job: prompt tokens per request", "Job size");
  add(app, wf, "output_tokens", "--output-tokens", "inference job: generated tokens per request", "Job size");
  add(app, wf, "concurrency", "--concurrency", "inference: sequences in flight per model replica (same as --batch)", "Job size");
  add(app, wf, "dataset_tokens", "--dataset-tokens", "training: tokens in the data set (with --epochs)", "Job size");
  add(app, wf, "epochs", "--epochs", "training: passes over --dataset-tokens [1]", "Job size");
  add(app, wf, "steps", "--steps", "training: optimizer steps (x batch x seq-len x data-parallel GPUs)", "Job size");
  add(app, wf, "diffusion_steps", "--diffusion-steps", "image generation: denoising steps per image [the pipeline's own: Stable Diffusion 1.x and SDXL 50, FLUX.1-dev and SD3 Medium 28, FLUX.1-schnell 4]", "Job size");
  add(app, wf, "mfu", "--mfu", "override the achievable model-FLOPs utilisation (0-1)", "Job size");
  const std::string v = "Video";
  add(app, wf, "streams", "--streams", "video analytics: camera or file streams decoded in full", v);
  add(app, wf, "fps", "--fps", "frames per second of each stream [30]", v);
  add(app, wf, "resolution", "--resolution", "720p | 1080p | 1440p | 4k | WxH [1080p]", v);
  add(app, wf, "codec", "--codec", "h264 | hevc | av1 [h264]", v);
  add(app, wf, "infer_every", "--infer-every", "run the model on every K-th frame [1]", v);
  add(app, wf, "max_latency_ms", "--max-latency-ms", "end-to-end latency budget", v);
  add(app, wf, "max_ttft_ms", "--max-ttft-ms", "serving: time to first token a request may wait (ms)", "Job size");
  add(app, wf, "max_tpot_ms", "--max-tpot-ms", "serving: time per output token (ms)", "Job size");
  add(app, wf, "tracker", "--tracker", "none | sort | bytetrack: CPU-side tracking of every inferred frame [none]", v);
  const std::string c = "Cost";
  add(app, wf, "setup_hours", "--setup-hours", "time billed before computing (hours, or 30m, 1h30m): provisioning, environment, data download [0]", c);
  add(app, wf, "storage_usd", "--storage-usd", "storage bill of the job in USD [0]", c);
  add(app, wf, "egress_usd", "--egress-usd", "data-transfer bill of the job in USD [0]", c);
  add(app, wf, "checkpoint_every", "--checkpoint-every", "training checkpoint interval: 30m, 2h [1h]", c);
  add_switch(app, wf, "owned", "--owned", "true", "cost owned hardware: purchase price amortised + energy, not rent", c);
  add(app, wf, "amortize_years", "--amortize-years", "owned: years to amortise the purchase over [3]", c);
  add(app, wf, "utilization", "--utilization", "owned: share of the hardware's life doing useful work [0.5]", c);
  add(app, wf, "power_price", "--power-price", "owned: USD per kWh [0.15]", c);
  wf.workload_opt = app->add_option("--workload", wf.workload_file, "workload JSON file (snake_case flag names; - reads stdin); flags override it")
                        ->type_name("FILE")
                        ->group(g);
}

void add_cost_flags(CLI::App* app, CostFlags& cf) {
  const GivenNames* g = cf.given;
  if (wanted(g, "--price")) app->add_option("--price", cf.prices, "price per GPU-hour for a GPU (repeatable)")->type_name("ID=USD")->group("Cost");
  if (wanted(g, "--prices"))
    app->add_option("--prices", cf.prices_file, "JSON file of prices: {\"ID\": USD per GPU-hour, ...}")->type_name("FILE")->group("Cost");
  if (wanted(g, "--purchase-price"))
    app->add_option("--purchase-price", cf.purchases, "owned: purchase price of a GPU (repeatable)")->type_name("ID=USD")->group("Cost");
  if (wanted(g, "--provider")) app->add_option("--provider", cf.provider, "use only this provider's catalogue prices")->type_name("NAME")->group("Cost");
  if (wanted(g, "--price-policy"))
    app->add_option("--price-policy", cf.price_policy, "which catalogue offer prices a GPU: cheapest | median (the middle offer) [cheapest]")
        ->type_name("POLICY")
        ->group("Cost");
}

void add_output_flags(CLI::App* app, OutputFlags& of, bool with_explain) {
  const GivenNames* g = of.given;  // -q and -v are always registered: short flags combine (-qv, -vv)
  if (wanted(g, "--format")) app->add_option("--format", of.format, "table | json | markdown (CI comments) | csv [table]")->type_name("FORMAT")->group("Output");
  if (wanted(g, "--wide")) app->add_flag("--wide", of.wide, "full-width tables whatever the terminal's width")->group("Output");
  if (wanted(g, "--units"))
    app->add_option("--units", of.units, "gb (1e9 bytes) | gib (2^30 bytes, as PyTorch prints) for memory in tables [gb]; JSON and CSV carry bytes")
        ->type_name("UNIT")->group("Output");
  app->add_flag("-q,--quiet", of.quiet, "print nothing on stdout: the exit status is the answer (check: 0 pass, 1 fail)")->group("Output");
  if (wanted(g, "--color")) app->add_option("--color", of.color, "auto | always | never [auto; NO_COLOR honoured]")->type_name("WHEN")->group("Output");
  if (with_explain && wanted(g, "--explain"))
    app->add_flag("--explain", of.explain, "show each memory component with its formula, inputs and source")->group("Output");
  if (wanted(g, "--hints"))
    app->add_flag("--hints", of.hints, "print launch hints (vLLM, SGLang, TensorRT-LLM, llama.cpp; torchrun with Megatron-LM, FSDP, DeepSpeed or the Trainer; SkyPilot); JSON always has them")->group("Output");
  if (wanted(g, "--catalog"))
    app->add_option("--catalog", of.catalog, "GPU catalogue JSON replacing the bundled one (same schema)")->type_name("FILE")->group("Output");
  app->add_flag("-v,--verbose", of.verbose, "log more to stderr (-vv for debug)")->group("Output");
}

void add_job_flags(CLI::App* app, WorkloadFlags& wf, CostFlags& cf, OutputFlags& of, bool with_explain) {
  add_workload_flags(app, wf);
  add_cost_flags(app, cf);
  add_output_flags(app, of, with_explain);
}

// Every option's --help placeholder says what kind of value it takes (N, ID, FILE, USD, ...), never CLI11's generic
// TEXT; the workload settings get theirs from `placeholder` when added. One app's own options: each subcommand's later.
void name_placeholders(CLI::App& app) {
  static const std::pair<const char*, const char*> kinds[] = {
      {"--rank-by", "KEY"},   {"--only", "ID"},          {"--deadline", "DURATION"}, {"--budget", "USD"},     {"--min-headroom", "PCT"},
      {"--max-gpus", "N"},    {"--gpu", "ID"},           {"--max-cost", "USD"},      {"--max-hours", "HOURS"}, {"--maximize", "SETTING"},
      {"id", "ID"},           {"--vendor", "VENDOR"},    {"--min-memory", "GB"},     {"--provider", "NAME"},  {"--sort", "KEY"},
      {"--kind", "KIND"},     {"--family", "FAMILY"},    {"--vary", "SETTING"},      {"--from", "N"},         {"--to", "N"},
      {"--points", "N"},      {"--metric", "METRIC"},    {"--probe-steps", "N"},     {"result", "FILE"},      {"shell", "SHELL"},
      {"--format", "FORMAT"}};
  for (CLI::Option* o : app.get_options()) {
    if (o->get_type_name() != "TEXT") continue;
    const std::string name = o->get_name(false, true);
    for (const auto& [key, kind] : kinds)
      if (name == key || name.find(std::string(key) + ",") != std::string::npos || name.find("," + std::string(key)) != std::string::npos) o->type_name(kind);
  }
}

// The terminal's width: $COLUMNS, else the TTY's; 0 when stdout is not a terminal (pipes get full tables).
int terminal_width() {
  if (const char* c = std::getenv("COLUMNS"); c && *c) {
    const int v = std::atoi(c);
    if (v > 0) return v;
  }
  if (!isatty(STDOUT_FILENO)) return 0;
  struct winsize ws {};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 0;
}

bool use_color(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  if (mode != "auto") throw UserError{2, "--color: unknown value '" + mode + "' (valid: " + choices_text("--color") + ")"};
  const char* force = std::getenv("CLICOLOR_FORCE");
  if (force && *force && std::string(force) != "0") return true;
  const char* no = std::getenv("NO_COLOR");
  if (no && *no) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string(term) == "dumb") return false;
  return isatty(STDOUT_FILENO) != 0;
}

void check_format(const std::string& f) {
  if (f == "md" || is_choice("--format", f)) return;
  throw UserError{2, "--format: unknown value '" + f + "' (valid: " + choices_text("--format") + ")"};
}

namespace {
// The flags given beside a workload file override its values.
void apply_workload_flags(RawWorkload& raw, const WorkloadFlags& wf) {
  for (const auto& f : wf.flags) {
    if (f->opt->count() == 0) continue;
    std::string v = f->is_switch ? f->switch_value : f->value;
    if (f->key == "gradient_checkpointing" && v.empty()) v = "full";
    // Two switches of one setting (--channels-last, --no-channels-last) given together contradict each other.
    if (auto it = raw.find(f->key); it != raw.end() && it->second.origin.rfind("--", 0) == 0 && it->second.value != v) throw UserError{2, f->name + ": contradicts " + it->second.origin + " (give one of them)"};
    raw[f->key] = RawValue{v, f->name};
  }
}
std::string workload_origin(const WorkloadFlags& wf) { return wf.workload_file == "-" ? "stdin" : wf.workload_file; }
}  // namespace

std::vector<RawWorkload> collect_workloads(const WorkloadFlags& wf, std::istream& in) {
  std::vector<RawWorkload> base{RawWorkload{}};
  if (!wf.workload_file.empty()) {
    auto text = read_file(wf.workload_file, in, "--workload");
    if (!text) throw UserError{2, "--workload: cannot read '" + wf.workload_file + "'"};
    base = parse_workload_file(*text, workload_origin(wf));
  }
  for (auto& raw : base) apply_workload_flags(raw, wf);
  return base;
}

RawWorkload one_workload(const WorkloadFlags& wf, std::istream& in, const std::string& command) {
  auto raws = collect_workloads(wf, in);
  if (raws.size() > 1) throw UserError{2, "--workload: the file holds " + std::to_string(raws.size()) + " workloads; " + command + " takes one"};
  return std::move(raws[0]);
}

std::size_t for_each_given_workload(const WorkloadFlags& wf, std::istream& in, const std::function<void(RawWorkload&&)>& each,
                                    const std::function<void(RawWorkload&&)>& check_all) {
  if (wf.workload_file.empty()) {
    RawWorkload raw;
    apply_workload_flags(raw, wf);
    if (check_all) check_all(RawWorkload(raw));
    each(std::move(raw));
    return 1;
  }
  auto text = read_file(wf.workload_file, in, "--workload");
  if (!text) throw UserError{2, "--workload: cannot read '" + wf.workload_file + "'"};
  std::size_t count = 0;
  if (check_all)
    for_each_workload(*text, workload_origin(wf), [&](RawWorkload&& raw) {
      apply_workload_flags(raw, wf);
      check_all(std::move(raw));
    });
  for_each_workload(*text, workload_origin(wf), [&](RawWorkload&& raw) {
    apply_workload_flags(raw, wf);
    ++count;
    each(std::move(raw));
  });
  return count;
}

GpuCatalog load_gpus(const OutputFlags& of, std::istream& in, Provenance provenance) {
  GpuCatalog cat;
  if (of.catalog.empty()) {
    cat = make_bundled_gpus(provenance);  // data/gpus.json, turned into C++ at build time (src/gen/)
  } else {
    auto text = read_file(of.catalog, in, "--catalog");
    if (!text) throw UserError{2, "--catalog: cannot read '" + of.catalog + "'"};
    spdlog::info("catalogue replaced by {}", of.catalog);
    cat = parse_gpu_catalog(*text, of.catalog);
  }
  const std::string user = user_catalog_path();
  require_named_file("GPUADVISE_CATALOG", user, "a catalogue in data/gpus.json's schema");
  const auto text = read_config_file(user, "user catalogue", "unset GPUADVISE_CATALOG or remove the file");
  if (!text) return cat;
  const GpuCatalog mine = parse_gpu_catalog(*text, user);
  for (const auto& g : mine.gpus) {
    auto it = std::find_if(cat.gpus.begin(), cat.gpus.end(), [&](const GpuSpec& x) { return x.id == g.id; });
    if (it != cat.gpus.end()) *it = g;
    else cat.gpus.push_back(g);
  }
  cat.version += " + " + user;
  spdlog::info("user catalogue {}: {} entries", user, mine.gpus.size());
  return cat;
}

const ModelCatalog& load_models() { return bundled_models(); }  // data/models.json, as C++ (src/gen/)

ModelSpec model_for(const Workload& w, std::istream& in) {
  const std::string where = w.where("model");
  try {
    auto reader = [&](const std::string& p) { return read_file(p, in, "--model"); };
    ModelSpec m;
    std::string id = w.model;
    for (auto& ch : id) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (auto preset = bundled_model(id)) {
      m = std::move(*preset);  // a preset id: that one preset is built, not the whole catalogue
    } else {
      // A size or a config.json needs no preset; anything else (a repo id, a typo and its hint) reads them all.
      try {
        m = resolve_model(w.model, ModelCatalog{}, reader);
      } catch (const InputError&) {
        m = resolve_model(w.model, load_models(), reader);
      }
    }
    check_workload_fits_model(w, m);
    return m;
  } catch (const InputError& e) {
    // The model reader names the flag; a model from a workload file is named by its file and key.
    const std::string msg = e.what();
    if (where != "--model" && msg.rfind("--model: ", 0) == 0) throw InputError(where + msg.substr(7));
    throw;
  }
}

// `--gpu local`: this machine's first GPU as nvidia-smi names it (as llmfit does); a clear line where there
// is no NVIDIA driver or the name is not in the catalogue.
std::string local_gpu_name(const std::string& flag) {
  FILE* p = popen("nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null", "r");
  std::string text;
  if (p) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) text.append(buf);
    const int rc = pclose(p);
    if (rc != 0) text.clear();
  }
  const auto nl = text.find('\n');
  std::string first = text.substr(0, nl);
  while (!first.empty() && std::isspace(static_cast<unsigned char>(first.back()))) first.pop_back();
  if (first.empty())
    throw UserError{2, flag + ": local needs nvidia-smi and an NVIDIA GPU on this machine (none found); name the GPU with " + flag +
                           " ID ('gpuadvise gpus' lists them)"};
  return first;
}

const GpuCatalog& cpu_instances() {
  static const GpuCatalog cpus = parse_cpu_catalog(bundled_cpu_catalog(), "data/cpus.json");
  return cpus;
}

const GpuSpec& gpu_for(const std::string& id_in, const GpuCatalog& cat, const std::string& flag) {
  const bool local = id_in == "local";
  const std::string id = local ? local_gpu_name(flag) : id_in;
  if (const GpuSpec* g = cat.resolve(id)) return *g;
  if (const GpuSpec* cpu = local ? nullptr : cpu_instances().find(id)) return *cpu;  // the ranking's CPU rows, by id (method.md §16)
  if (local) throw UserError{2, flag + ": this machine's GPU '" + id + "' is not in the catalogue; name the closest with " + flag + " ID"};
  std::string hint = did_you_mean(id, cat.ids());
  throw UserError{2, flag + ": unknown GPU '" + id + "' (" + (hint.empty() ? "'gpuadvise gpus' lists the catalogue" : hint) + ")"};
}

// A number on the command line within [lo, hi] (whole when `integer`; `lo_open`: above lo; `hi_open`: below
// hi): one error line naming the flag and `what` otherwise.
double flag_number(const std::string& text, const std::string& flag, const std::string& what, double lo, double hi, bool integer,
                   bool lo_open, bool hi_open) {
  // The value grammar of every count (1k, 2.5M, 1e3): values.cpp.
  const std::optional<double> parsed = parse_suffixed(text);
  if (!parsed) throw UserError{2, flag + ": expected " + what + ", got '" + text + "'"};
  const double v = *parsed;
  const bool low_ok = lo_open ? v > lo : v >= lo, high_ok = hi_open ? v < hi : v <= hi;
  if (!low_ok || !high_ok || (integer && v != std::floor(v))) throw UserError{2, flag + ": expected " + what + ", got '" + text + "'"};
  return v;
}

std::pair<std::string, double> parse_id_usd(const std::string& text, const std::string& flag, const GpuCatalog& cat) {
  const auto eq = text.find('=');
  if (eq == std::string::npos) throw UserError{2, flag + ": expected ID=USD (e.g. h100-sxm-80gb=2.50), got '" + text + "'"};
  const std::string id = text.substr(0, eq);
  const GpuSpec& g = gpu_for(id, cat, flag);
  const std::string num = text.substr(eq + 1);
  // The bounds of bounds.hpp: a GPU-hour, or for --purchase-price the card.
  const bool purchase = flag == "--purchase-price";
  const double hi = purchase ? k_max_purchase_usd : k_max_usd_per_gpu_hour;
  return {g.id, flag_number(num, flag, fmt::format("USD {} after '=', more than 0 and at most {:g}", purchase ? "per card" : "per GPU-hour", hi), 0, hi,
                            false, true)};
}

// The calibration file: $GPUADVISE_CALIBRATION, else $XDG_CONFIG_HOME/gpuadvise/calibration.json, else
// ~/.config/gpuadvise/calibration.json (docs/method.md §15).
std::string calibration_path() { return config_path("GPUADVISE_CALIBRATION", "calibration.json"); }

std::vector<LocalCorrection> load_corrections(const std::string& path) {
  const auto text = read_config_file(path, "calibration file", "gpuadvise calibrate --reset removes it");
  return text ? parse_calibration(*text, path) : std::vector<LocalCorrection>{};
}

// A provider with no offer in the catalogue is a typo or a provider it does not know: bad input listing those it has.
void check_provider(const std::string& provider, const GpuCatalog& cat) {
  if (std::any_of(cat.gpus.begin(), cat.gpus.end(), [&](const GpuSpec& g) { return g.offered_by(provider); })) return;
  std::vector<std::string> providers;
  for (const auto& g : cat.gpus)
    for (const auto& offer : g.prices)
      if (std::find(providers.begin(), providers.end(), offer.provider) == providers.end()) providers.push_back(offer.provider);
  throw UserError{2, "--provider: no offer from '" + provider + "' in the catalogue (providers: " + join(providers, ", ") + ")"};
}

CostOptions cost_options(const CostFlags& cf, const GpuCatalog& cat, std::istream& in) {
  CostOptions o;
  o.provider = cf.provider;
  o.corrections_file = calibration_path();
  o.corrections = load_corrections(o.corrections_file);
  for (const auto& [id, usd] : cf.default_prices) o.price_overrides[gpu_for(id, cat, defaults_path() + ".prices").id] = usd;
  if (!cf.prices_file.empty()) {
    auto text = read_file(cf.prices_file, in, "--prices");
    if (!text) throw UserError{2, "--prices: cannot read '" + cf.prices_file + "'"};
    for (const auto& [id, usd] : parse_price_file(*text, cf.prices_file)) o.price_overrides[gpu_for(id, cat, cf.prices_file).id] = usd;
  }
  for (const auto& p : cf.prices) o.price_overrides.insert_or_assign(parse_id_usd(p, "--price", cat).first, parse_id_usd(p, "--price", cat).second);
  for (const auto& p : cf.purchases) {
    const auto [id, usd] = parse_id_usd(p, "--purchase-price", cat);
    o.purchase_overrides[id] = usd;
  }
  if (!o.provider.empty()) check_provider(o.provider, cat);
  if (cf.price_policy == "median") o.price_policy = PricePolicy::median;
  else if (!cf.price_policy.empty() && cf.price_policy != "cheapest")
    throw UserError{2, "--price-policy: unknown value '" + cf.price_policy + "' (valid: " + choices_text("--price-policy") + ")"};
  return o;
}

std::string sweep_value_text(double v) { return fmt::format("{:.0f}", v); }

}  // namespace gpuadvise::cli
