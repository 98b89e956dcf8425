// The command line: owns files, streams, colour, logging and exit codes; everything else is the library.
#include "app.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/ranking.hpp"
#include "gpuadvise/probe.hpp"
#include "gpuadvise/report.hpp"

namespace gpuadvise::cli {

namespace {

struct UserError {
  int code;
  std::string message;
};

// One workload flag: its snake_case key (workload files use the same), the flag text and its value.
struct Flag {
  std::string key;
  std::string name;
  std::string value;
  CLI::Option* opt = nullptr;
  bool is_switch = false;        // a flag without value
  std::string switch_value;      // value a switch stands for
};

struct WorkloadFlags {
  std::vector<std::unique_ptr<Flag>> flags;
  std::string workload_file;
  CLI::Option* workload_opt = nullptr;
};

struct CostFlags {
  std::vector<std::string> prices;     // ID=USD
  std::vector<std::string> purchases;  // ID=USD
  std::string prices_file;
  std::string provider;
};

struct OutputFlags {
  std::string format = "table";
  std::string color = "auto";
  bool explain = false;
  bool hints = false;
  std::string catalog;
  int verbose = 0;
  bool quiet = false;
  bool wide = false;
  std::string units = "gb";
};

// The placeholder --help shows for a workload setting's value: what kind of thing it takes.
const char* placeholder(const std::string& key) {
  static const std::pair<const char*, const char*> kinds[] = {
      {"model", "MODEL"},       {"mode", "MODE"},           {"precision", "PRECISION"}, {"kv_precision", "PRECISION"}, {"image_size", "N|WxH"},
      {"tokens", "COUNT"},      {"requests", "COUNT"},      {"images", "COUNT"},        {"input_tokens", "COUNT"},     {"output_tokens", "COUNT"},
      {"dataset_tokens", "COUNT"}, {"mfu", "FRACTION"},     {"utilization", "FRACTION"}, {"gpu_memory_utilization", "FRACTION"},
      {"lora_targets", "LIST"}, {"epochs", "X"},            {"fps", "X"},               {"infer_every", "N"},          {"resolution", "RES"},
      {"setup_hours", "HOURS"}, {"checkpoint_every", "HOURS"}, {"amortize_years", "YEARS"}, {"storage_usd", "USD"},  {"egress_usd", "USD"},
      {"power_price", "USD/kWh"}, {"max_latency_ms", "MS"}, {"max_ttft_ms", "MS"},      {"max_tpot_ms", "MS"},
      {"master_weights", "NAME"}, {"optimizer", "NAME"},    {"sharding", "NAME"},       {"framework", "NAME"},         {"offload", "NAME"},
      {"codec", "NAME"},        {"tracker", "NAME"},        {"gradient_checkpointing", "KIND"}};
  for (const auto& [k, v] : kinds)
    if (key == k) return v;
  return "N";  // the rest are counts: batch, seq_len, classes, lora_rank, gpus, tp, pp, ep, nodes, grad_accum, concurrency, steps, streams
}

CLI::Option* add(CLI::App* app, WorkloadFlags& wf, const std::string& key, const std::string& names, const std::string& help) {
  auto f = std::make_unique<Flag>();
  f->key = key;
  f->name = names.substr(0, names.find(','));
  f->opt = app->add_option(names, f->value, help)->type_name(placeholder(key));
  wf.flags.push_back(std::move(f));
  return wf.flags.back()->opt;
}

CLI::Option* add_switch(CLI::App* app, WorkloadFlags& wf, const std::string& key, const std::string& name, const std::string& value,
                 const std::string& help) {
  auto f = std::make_unique<Flag>();
  f->key = key;
  f->name = name;
  f->is_switch = true;
  f->switch_value = value;
  f->opt = app->add_flag(name, help);
  wf.flags.push_back(std::move(f));
  return wf.flags.back()->opt;
}

void add_workload_flags(CLI::App* app, WorkloadFlags& wf) {
  const std::string g = "Workload";
  add(app, wf, "model", "--model", "a size (7B, 350M, 6.74e9), a preset id (gpuadvise models), or a config.json path [7B]")->group(g);
  add(app, wf, "mode", "--mode", "train | finetune | lora | qlora | inference [inference]")->group(g);
  add(app, wf, "precision", "--precision", "fp32 tf32 fp16 bf16 fp8 int8 int4 nf4, GGUF q8_0 q6_k q5_k_m q5_0 q4_k_m q4_0 q4_1 q3_k_m q2_k [bf16]")->group(g);
  add(app, wf, "kv_precision", "--kv-precision", "KV-cache precision [the compute precision]")->group(g);
  add_switch(app, wf, "double_quant", "--double-quant", "true", "NF4 with double quantisation (bitsandbytes)")->group(g);
  add(app, wf, "master_weights", "--master-weights", "fp32 | none (pure 16-bit training) [fp32]")->group(g);
  add(app, wf, "optimizer", "--optimizer", "adamw | adamw-8bit | adafactor | sgd | sgd-momentum [adamw]")->group(g);
  add(app, wf, "batch", "--batch", "micro-batch per GPU; for inference, sequences in flight [1]")->group(g);
  add(app, wf, "seq_len", "--seq-len", "tokens per sequence (inference: prompt + output) [2048 or the model's context]")->group(g);
  add(app, wf, "image_size", "--image-size", "N or WxH pixels (vision)")->group(g);
  add(app, wf, "classes", "--classes", "vision: classes of your data set (the preset's by default: 1000 ImageNet, 80 COCO, ...)")->group(g);
  add(app, wf, "gradient_checkpointing", "--gradient-checkpointing", "activation recomputation: full (bare flag) | selective [off]")
      ->expected(0, 1)
      ->group(g);
  add_switch(app, wf, "flash_attention", "--no-flash-attention", "false", "eager attention that materialises the scores")->group(g);
  add_switch(app, wf, "compile", "--compile", "true", "torch.compile: fused norms, activations and residual adds (training time)")->group(g);
  add_switch(app, wf, "cache_latents", "--cache-latents", "true", "image-generation training on precomputed latents and text embeddings (no text encoders or VAE resident)")->group(g);
  add_switch(app, wf, "vae_tiling", "--vae-tiling", "true", "image generation: decode in 512x512 tiles (diffusers enable_vae_tiling)")->group(g);
  add(app, wf, "lora_rank", "--lora-rank", "LoRA rank [16]")->group(g);
  add(app, wf, "lora_targets", "--lora-targets", "all-linear | attention | comma list of q,k,v,o,gate,up,down [all-linear]")->group(g);
  add(app, wf, "gpus", "--gpus", "GPUs in the job [1]")->group(g);
  add(app, wf, "sharding", "--sharding", "none | zero1 | zero2 | zero3 (fsdp) [none]")->group(g);
  add(app, wf, "tp", "--tp", "tensor-parallel degree [1]")->group(g);
  add(app, wf, "pp", "--pp", "pipeline-parallel degree [1]")->group(g);
  add(app, wf, "ep", "--ep", "expert-parallel degree for mixture-of-experts models: experts split over data-parallel ranks [1]")->group(g);
  add(app, wf, "nodes", "--nodes", "servers the GPUs are spread over [1]")->group(g);
  add_switch(app, wf, "allow_quantization", "--allow-quantization", "true", "inference: the planner may serve int8 or int4 weights on fewer GPUs")->group(g);
  add_switch(app, wf, "rope_scaling", "--rope-scaling", "true", "a --seq-len beyond the model's trained context is meant (RoPE scaling such as YaRN)")->group(g);
  add(app, wf, "grad_accum", "--grad-accum", "micro-batches of --batch per optimizer step [1]")->group(g);
  add(app, wf, "framework", "--framework,--engine", "hf vllm sglang trtllm llamacpp exllama autoawq litgpt torchtune torchtitan megatron; vision: pytorch detectron2 mmdet ultralytics tensorrt; diffusers [hf]")->group(g);
  add(app, wf, "offload", "--offload", "none | optimizer | optimizer+params [none]")->group(g);
  add(app, wf, "gpu_memory_utilization", "--gpu-memory-utilization", "vLLM's share of the card [0.9]")->group(g);
  add(app, wf, "tokens", "--tokens", "training job size in tokens (100M, 2B)")->group("Job size");
  add(app, wf, "requests", "--requests", "inference job: number of requests")->group("Job size");
  add(app, wf, "images", "--images", "vision job: images per epoch (training, with --epochs) or images to generate or process")->group("Job size");
  add(app, wf, "input_tokens", "--input-tokens", "inference job: prompt tokens per request")->group("Job size");
  add(app, wf, "output_tokens", "--output-tokens", "inference job: generated tokens per request")->group("Job size");
  add(app, wf, "concurrency", "--concurrency", "inference: sequences in flight per model replica (same as --batch)")->group("Job size");
  add(app, wf, "dataset_tokens", "--dataset-tokens", "training: tokens in the data set (with --epochs)")->group("Job size");
  add(app, wf, "epochs", "--epochs", "training: passes over --dataset-tokens [1]")->group("Job size");
  add(app, wf, "steps", "--steps", "training: optimizer steps (x batch x seq-len x data-parallel GPUs)")->group("Job size");
  add(app, wf, "mfu", "--mfu", "override the achievable model-FLOPs utilisation (0-1)")->group("Job size");
  const std::string v = "Video";
  add(app, wf, "streams", "--streams", "video analytics: camera or file streams decoded in full")->group(v);
  add(app, wf, "fps", "--fps", "frames per second of each stream [30]")->group(v);
  add(app, wf, "resolution", "--resolution", "720p | 1080p | 1440p | 4k | WxH [1080p]")->group(v);
  add(app, wf, "codec", "--codec", "h264 | hevc | av1 [h264]")->group(v);
  add(app, wf, "infer_every", "--infer-every", "run the model on every K-th frame [1]")->group(v);
  add(app, wf, "max_latency_ms", "--max-latency-ms", "end-to-end latency budget")->group(v);
  add(app, wf, "max_ttft_ms", "--max-ttft-ms", "serving: time to first token a request may wait (ms)")->group("Job size");
  add(app, wf, "max_tpot_ms", "--max-tpot-ms", "serving: time per output token (ms)")->group("Job size");
  add(app, wf, "tracker", "--tracker", "none | sort | bytetrack: CPU-side tracking of every inferred frame [none]")->group(v);
  const std::string c = "Cost";
  add(app, wf, "setup_hours", "--setup-hours", "hours billed before computing: provisioning, environment, data download [0]")->group(c);
  add(app, wf, "storage_usd", "--storage-usd", "storage bill of the job in USD [0]")->group(c);
  add(app, wf, "egress_usd", "--egress-usd", "data-transfer bill of the job in USD [0]")->group(c);
  add(app, wf, "checkpoint_every", "--checkpoint-every", "training checkpoint interval: 30m, 2h [1h]")->group(c);
  add_switch(app, wf, "owned", "--owned", "true", "cost owned hardware: purchase price amortised + energy, not rent")->group(c);
  add(app, wf, "amortize_years", "--amortize-years", "owned: years to amortise the purchase over [3]")->group(c);
  add(app, wf, "utilization", "--utilization", "owned: share of the hardware's life doing useful work [0.5]")->group(c);
  add(app, wf, "power_price", "--power-price", "owned: USD per kWh [0.15]")->group(c);
  wf.workload_opt = app->add_option("--workload", wf.workload_file, "workload JSON file (snake_case flag names; - reads stdin); flags override it")
                        ->type_name("FILE")
                        ->group(g);
}

void add_cost_flags(CLI::App* app, CostFlags& cf) {
  app->add_option("--price", cf.prices, "price per GPU-hour for a GPU (repeatable)")->type_name("ID=USD")->group("Cost");
  app->add_option("--prices", cf.prices_file, "JSON file of prices: {\"ID\": USD per GPU-hour, ...}")->type_name("FILE")->group("Cost");
  app->add_option("--purchase-price", cf.purchases, "owned: purchase price of a GPU (repeatable)")->type_name("ID=USD")->group("Cost");
  app->add_option("--provider", cf.provider, "use only this provider's catalogue prices")->type_name("NAME")->group("Cost");
}

void add_output_flags(CLI::App* app, OutputFlags& of, bool with_explain) {
  app->add_option("--format", of.format, "table | json | markdown (CI comments) | csv [table]")->type_name("FORMAT")->group("Output");
  app->add_flag("--wide", of.wide, "full-width tables whatever the terminal's width")->group("Output");
  app->add_option("--units", of.units, "gb (1e9 bytes) | gib (2^30 bytes, as PyTorch prints) for memory in tables [gb]; JSON and CSV carry bytes")
      ->type_name("UNIT")->group("Output");
  app->add_flag("-q,--quiet", of.quiet, "print nothing on stdout: the exit status is the answer (check: 0 pass, 1 fail)")->group("Output");
  app->add_option("--color", of.color, "auto | always | never [auto; NO_COLOR honoured]")->type_name("WHEN")->group("Output");
  if (with_explain) app->add_flag("--explain", of.explain, "show each memory component with its formula, inputs and source")->group("Output");
  app->add_flag("--hints", of.hints, "print launch hints (vLLM, torchrun/FSDP, DeepSpeed, Trainer, SkyPilot); JSON always has them")->group("Output");
  app->add_option("--catalog", of.catalog, "GPU catalogue JSON replacing the bundled one (same schema)")->type_name("FILE")->group("Output");
  app->add_flag("-v,--verbose", of.verbose, "log more to stderr (-vv for debug)")->group("Output");
}

// Every option's --help placeholder says what kind of value it takes (N, ID, FILE, USD, ...), never CLI11's
// generic TEXT; the workload settings get theirs from `placeholder` when they are added.
void name_placeholders(CLI::App& app) {
  static const std::pair<const char*, const char*> kinds[] = {
      {"--rank-by", "KEY"},   {"--only", "ID"},          {"--deadline", "DURATION"}, {"--budget", "USD"},     {"--min-headroom", "PCT"},
      {"--max-gpus", "N"},    {"--gpu", "ID"},           {"--max-cost", "USD"},      {"--max-hours", "HOURS"}, {"--maximize", "SETTING"},
      {"id", "ID"},           {"--vendor", "VENDOR"},    {"--min-memory", "GB"},     {"--provider", "NAME"},  {"--sort", "KEY"},
      {"--kind", "KIND"},     {"--family", "FAMILY"},    {"--vary", "SETTING"},      {"--from", "N"},         {"--to", "N"},
      {"--points", "N"},      {"--metric", "METRIC"},    {"--probe-steps", "N"},     {"result", "FILE"},      {"shell", "SHELL"},
      {"--format", "FORMAT"}};
  std::vector<CLI::App*> apps{&app};
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) apps.push_back(sub);
  for (CLI::App* a : apps)
    for (CLI::Option* o : a->get_options()) {
      if (o->get_type_name() != "TEXT") continue;
      const std::string name = o->get_name(false, true);
      for (const auto& [key, kind] : kinds)
        if (name == key || name.find(std::string(key) + ",") != std::string::npos || name.find("," + std::string(key)) != std::string::npos) o->type_name(kind);
    }
}

std::optional<std::string> read_file(const std::string& path, std::istream& in) {
  if (path == "-") {
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    // A model snapshot folder: its config.json. Any other folder is not a file to read.
    const auto config = std::filesystem::path(path) / "config.json";
    if (!std::filesystem::is_regular_file(config, ec)) return std::nullopt;
    std::ifstream f(config, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
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
  if (mode != "auto") throw UserError{2, "--color: unknown value '" + mode + "' (valid: auto, always, never)"};
  const char* force = std::getenv("CLICOLOR_FORCE");
  if (force && *force && std::string(force) != "0") return true;
  const char* no = std::getenv("NO_COLOR");
  if (no && *no) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string(term) == "dumb") return false;
  return isatty(STDOUT_FILENO) != 0;
}

void check_format(const std::string& f) {
  if (f == "table" || f == "json" || f == "markdown" || f == "md" || f == "csv") return;
  throw UserError{2, "--format: unknown value '" + f + "' (valid: table, json, markdown, csv)"};
}

std::vector<RawWorkload> collect_workloads(const WorkloadFlags& wf, std::istream& in) {
  std::vector<RawWorkload> base{RawWorkload{}};
  if (!wf.workload_file.empty()) {
    auto text = read_file(wf.workload_file, in);
    if (!text) throw UserError{2, "--workload: cannot read '" + wf.workload_file + "'"};
    base = parse_workload_file(*text, wf.workload_file == "-" ? "stdin" : wf.workload_file);
  }
  for (auto& raw : base) {
    for (const auto& f : wf.flags) {
      if (f->opt->count() == 0) continue;
      std::string v = f->is_switch ? f->switch_value : f->value;
      if (f->key == "gradient_checkpointing" && v.empty()) v = "full";
      raw[f->key] = RawValue{v, f->name};
    }
  }
  return base;
}

// A user file: $ENV, else $XDG_CONFIG_HOME/gpuadvise/NAME, else ~/.config/gpuadvise/NAME ("" without a home).
std::string config_path(const char* env, const std::string& name) {
  if (const char* p = std::getenv(env); p && *p) return p;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/gpuadvise/" + name;
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/gpuadvise/" + name;
  return "";
}

// Its text, or nothing when there is no such file; a file that exists but cannot be read is bad input.
std::optional<std::string> read_config_file(const std::string& path, const std::string& what, const std::string& remedy) {
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec)) return std::nullopt;
  std::ifstream f(path);
  if (!f) throw UserError{2, what + " '" + path + "' cannot be read (" + remedy + ")"};
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The user's own GPUs: $GPUADVISE_CATALOG, else $XDG_CONFIG_HOME/gpuadvise/gpus.json, else
// ~/.config/gpuadvise/gpus.json, in the catalogue's schema; each entry adds a GPU or replaces the bundled one
// with its id (a price of your own, a card the catalogue lacks).
std::string user_catalog_path() { return config_path("GPUADVISE_CATALOG", "gpus.json"); }

GpuCatalog load_gpus(const OutputFlags& of, std::istream& in) {
  GpuCatalog cat;
  if (of.catalog.empty()) {
    cat = parse_gpu_catalog(bundled_gpu_catalog(), "bundled data/gpus.json");
  } else {
    auto text = read_file(of.catalog, in);
    if (!text) throw UserError{2, "--catalog: cannot read '" + of.catalog + "'"};
    spdlog::info("catalogue replaced by {}", of.catalog);
    cat = parse_gpu_catalog(*text, of.catalog);
  }
  const std::string user = user_catalog_path();
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

ModelCatalog load_models() { return parse_model_catalog(bundled_model_catalog(), "bundled data/models.json"); }

ModelSpec model_for(const Workload& w, const ModelCatalog& models, std::istream& in) {
  const std::string where = w.where("model");
  try {
    ModelSpec m = resolve_model(w.model, models, [&](const std::string& p) { return read_file(p, in); });
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

const GpuSpec& gpu_for(const std::string& id_in, const GpuCatalog& cat, const std::string& flag = "--gpu") {
  const bool local = id_in == "local";
  const std::string id = local ? local_gpu_name(flag) : id_in;
  if (const GpuSpec* g = cat.resolve(id)) return *g;
  if (local) throw UserError{2, flag + ": this machine's GPU '" + id + "' is not in the catalogue; name the closest with " + flag + " ID"};
  std::string hint = did_you_mean(id, cat.ids());
  throw UserError{2, flag + ": unknown GPU '" + id + "' (" + (hint.empty() ? "'gpuadvise gpus' lists the catalogue" : hint) + ")"};
}

// A number on the command line within [lo, hi] (whole when `integer`; `lo_open`: above lo; `hi_open`: below
// hi): one error line naming the flag and `what` otherwise.
double flag_number(const std::string& text, const std::string& flag, const std::string& what, double lo, double hi,
                   bool integer = false, bool lo_open = false, bool hi_open = false) {
  const double v = parse_decimal(text, flag, what);
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
  return {g.id, flag_number(num, flag, "a USD amount from 0 to 1e9 after '='", 0, 1e9)};
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
  if (!cf.prices_file.empty()) {
    auto text = read_file(cf.prices_file, in);
    if (!text) throw UserError{2, "--prices: cannot read '" + cf.prices_file + "'"};
    for (const auto& [id, usd] : parse_price_file(*text, cf.prices_file)) o.price_overrides[gpu_for(id, cat, cf.prices_file).id] = usd;
  }
  for (const auto& p : cf.prices) o.price_overrides.insert_or_assign(parse_id_usd(p, "--price", cat).first, parse_id_usd(p, "--price", cat).second);
  for (const auto& p : cf.purchases) {
    const auto [id, usd] = parse_id_usd(p, "--purchase-price", cat);
    o.purchase_overrides[id] = usd;
  }
  if (!o.provider.empty()) check_provider(o.provider, cat);
  return o;
}

std::string sweep_value_text(double v) { return fmt::format("{:.0f}", v); }

// Shell completions and the man page, generated from the option definitions so they cannot drift.
struct CommandInfo {
  std::string name, description;
  std::vector<const CLI::Option*> options;
};

std::vector<const CLI::Option*> named_options(const CLI::App& a) {
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* o : a.get_options())
    if (o->nonpositional()) out.push_back(o);
  return out;
}

std::vector<CommandInfo> command_infos(CLI::App& app) {
  std::vector<CommandInfo> out;
  out.push_back(CommandInfo{"", app.get_description(), named_options(app)});
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    out.push_back(CommandInfo{sub->get_name(), sub->get_description(), named_options(*sub)});
  return out;
}

std::string option_words(const std::vector<const CLI::Option*>& opts) {
  std::string w;
  for (const auto* o : opts) {
    for (const auto& l : o->get_lnames()) {
      if (!w.empty()) w.push_back(' ');
      w.append("--").append(l);
    }
    for (const auto& sn : o->get_snames()) {
      if (!w.empty()) w.push_back(' ');
      w.append("-").append(sn);
    }
  }
  return w;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) {
    if (ch == '\'') out.append("'\\''");
    else out.push_back(ch);
  }
  return out + "'";
}

std::string completion_script(const std::string& shell, CLI::App& app, const GpuCatalog& gpus, const ModelCatalog& models) {
  const auto cmds = command_infos(app);
  std::string subs, gpu_ids, model_ids;
  for (const auto& c : cmds)
    if (!c.name.empty()) subs += (subs.empty() ? "" : " ") + c.name;
  for (const auto& g : gpus.gpus) gpu_ids += (gpu_ids.empty() ? "" : " ") + g.id;
  for (const auto& m : models.models) model_ids += (model_ids.empty() ? "" : " ") + m.id;
  std::string out;
  if (shell == "bash") {
    out += "# bash completion for gpuadvise (generated by `gpuadvise completions bash` from its option definitions)\n";
    out += "_gpuadvise() {\n  local cur prev sub opts\n  cur=\"${COMP_WORDS[COMP_CWORD]}\"\n  prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n";
    out += "  sub=\"\"\n  for w in \"${COMP_WORDS[@]:1:COMP_CWORD-1}\"; do case \"$w\" in " + subs;
    std::string pattern = subs;
    for (char& ch : pattern)
      if (ch == ' ') ch = '|';
    out.resize(out.size() - subs.size());
    out += pattern + ") sub=\"$w\"; break;; esac; done\n";
    out += "  case \"$prev\" in\n    --gpu|--only) COMPREPLY=( $(compgen -W \"" + gpu_ids + "\" -- \"$cur\") ); return;;\n";
    out += "    --model) COMPREPLY=( $(compgen -W \"" + model_ids + "\" -- \"$cur\") $(compgen -f -- \"$cur\") ); return;;\n";
    out += "    --workload|--catalog|--prices) COMPREPLY=( $(compgen -f -- \"$cur\") ); return;;\n  esac\n";
    out += "  case \"$sub\" in\n";
    for (const auto& c : cmds) {
      if (c.name.empty()) continue;
      out += "    " + c.name + ") opts=\"" + option_words(c.options) + "\";;\n";
    }
    out += "    *) opts=\"" + subs + " " + option_words(cmds.front().options) + "\";;\n  esac\n";
    out += "  COMPREPLY=( $(compgen -W \"$opts\" -- \"$cur\") )\n}\ncomplete -F _gpuadvise gpuadvise\n";
  } else if (shell == "zsh") {
    out += "#compdef gpuadvise\n# zsh completion for gpuadvise (generated by `gpuadvise completions zsh` from its option definitions)\n";
    out += "_gpuadvise() {\n  local -a subcommands\n  subcommands=(\n";
    for (const auto& c : cmds)
      if (!c.name.empty()) out += "    " + shell_quote(c.name + ":" + c.description) + "\n";
    out += "  )\n  local -a gpus models\n  gpus=(" + gpu_ids + ")\n  models=(" + model_ids + ")\n";
    out += "  if (( CURRENT == 2 )) && [[ $words[2] != -* ]]; then _describe 'command' subcommands; return; fi\n";
    out += "  local sub=${words[2]}\n  case $sub in\n";
    for (const auto& c : cmds) {
      out += "    " + (c.name.empty() ? std::string("*") : c.name) + ")\n      _arguments -s";
      for (const auto* o : c.options)
        for (const auto& l : o->get_lnames()) {
          std::string desc = o->get_description();
          for (char& ch : desc)
            if (ch == '[' || ch == ']' || ch == ':') ch = ' ';
          const bool value = o->get_expected_min() > 0;
          const std::string action = !value ? "" : l == "gpu" || l == "only" ? ":GPU:($gpus)" : l == "model" ? ":model:($models)" : ":value:";
          out += " \\\n        " + shell_quote("--" + l + "[" + desc + "]" + action);
        }
      out += " ;;\n";
    }
    out += "  esac\n}\n_gpuadvise \"$@\"\n";
  } else if (shell == "fish") {
    out += "# fish completion for gpuadvise (generated by `gpuadvise completions fish` from its option definitions)\n";
    out += "complete -c gpuadvise -f\n";
    for (const auto& c : cmds)
      if (!c.name.empty()) out += "complete -c gpuadvise -n __fish_use_subcommand -a " + c.name + " -d " + shell_quote(c.description) + "\n";
    for (const auto& c : cmds)
      for (const auto* o : c.options)
        for (const auto& l : o->get_lnames()) {
          const std::string cond = c.name.empty() ? "__fish_use_subcommand" : "'__fish_seen_subcommand_from " + c.name + "'";
          out += "complete -c gpuadvise -n " + cond + " -l " + l + (o->get_expected_min() > 0 ? " -r" : "") + " -d " + shell_quote(o->get_description());
          if (l == "gpu" || l == "only") out += " -a " + shell_quote(gpu_ids);
          if (l == "model") out += " -a " + shell_quote(model_ids);
          out += "\n";
        }
  } else {
    throw UserError{2, "completions: unknown shell '" + shell + "' (valid: bash, zsh, fish)"};
  }
  return out;
}

std::string roff(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '\\') out.append("\\e");
    else if (ch == '-') out.append("\\-");
    else out.push_back(ch);
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) {
    std::string guarded = "\\&";
    guarded.append(out);
    return guarded;
  }
  return out;
}

std::string man_page(CLI::App& app) {
  const auto cmds = command_infos(app);
  std::string out = ".\\\" gpuadvise(1), generated by `gpuadvise manpage` from its option definitions\n";
  out += ".TH GPUADVISE 1 \"\" \"gpuadvise " + std::string(tool_version()) + "\" \"User Commands\"\n";
  out += ".SH NAME\ngpuadvise \\- " + roff("rank GPUs for a deep-learning job: fit, memory, GPUs needed, time and the cost of the completed job") + "\n";
  out += ".SH SYNOPSIS\n.B gpuadvise\n[\\fIOPTIONS\\fR]\n.br\n.B gpuadvise\n\\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n";
  out += ".SH DESCRIPTION\n" + roff(app.get_description()) + "\n";
  for (const auto& c : cmds) {
    out += c.name.empty() ? ".SH OPTIONS (the ranking)\n" : ".SH COMMAND: " + roff(c.name) + "\n" + roff(c.description) + "\n";
    for (const auto* o : c.options) {
      std::string names;
      auto add_name = [&](const std::string& dashes, const std::string& n) {
        if (!names.empty()) names.append(", ");
        names.append("\\fB").append(dashes).append(roff(n)).append("\\fR");
      };
      for (const auto& s : o->get_snames()) add_name("\\-", s);
      for (const auto& l : o->get_lnames()) add_name("\\-\\-", l);
      if (o->get_expected_min() > 0) {
        const std::string type = o->get_type_name();
        names.append(" \\fI").append(roff(type.empty() || type == "TEXT" ? "VALUE" : type)).append("\\fR");
      }
      out += ".TP\n" + names + "\n" + roff(o->get_description()) + "\n";
    }
  }
  out += ".SH EXIT STATUS\n0 success (also when nothing fits: the output says so); 1 a \\fBcheck\\fR assertion failed; 2 bad input "
         "(one line on stderr naming the flag or field and what it accepts).\n";
  out += ".SH ENVIRONMENT\n.TP\n.B NO_COLOR\nno colour in tables.\n.TP\n.B GPUADVISE_CALIBRATION\nthe calibration file "
         "(else $XDG_CONFIG_HOME/gpuadvise/calibration.json, else ~/.config/gpuadvise/calibration.json).\n";
  out += ".SH SEE ALSO\nREADME.md, docs/method.md (every formula with its source), docs/cli.md.\n";
  return out;
}

// docs/cli.md: the same definitions as markdown (a test keeps the committed file equal to this output).
std::string cli_reference(CLI::App& app) {
  std::string out = "# gpuadvise command-line reference\n\n";
  out += "Generated by `gpuadvise manpage --format markdown` from the option definitions; a test fails when this file and\n"
         "the binary disagree. Every formula behind the numbers is in [method.md](method.md).\n";
  for (const auto& c : command_infos(app)) {
    out += c.name.empty() ? "\n## gpuadvise [OPTIONS]: the ranking\n\n" : "\n## gpuadvise " + c.name + "\n\n";
    out += c.description + "\n\n| option | value | what it does |\n|---|---|---|\n";
    for (const auto* o : c.options) {
      std::string names;
      for (const auto& sn : o->get_snames()) names.append(names.empty() ? "" : ", ").append("`-").append(sn).append("`");
      for (const auto& l : o->get_lnames()) names.append(names.empty() ? "" : ", ").append("`--").append(l).append("`");
      const std::string cell = markdown_cell(o->get_description());
      const std::string type = o->get_type_name();
      out += "| " + names + " | " + (o->get_expected_min() > 0 ? (type.empty() || type == "TEXT" ? std::string("VALUE") : type) : "") + " | " + cell + " |\n";
    }
  }
  return out;
}

std::string suggest_flag(const std::string& msg, const CLI::App& app) {
  // "The following arguments were not expected: 2 --bacth" -> did you mean '--batch'?
  std::istringstream words(msg);
  std::string word;
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options())
    for (const auto& n : o->get_lnames()) names.push_back("--" + n);
  std::vector<std::string> subcommands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) subcommands.push_back(sub->get_name());
  // Only CLI11's "The following argument(s) was/were not expected: ..." lists the words a user typed.
  const bool unexpected = msg.find("not expected") != std::string::npos;
  const auto colon = msg.find(": ");
  if (colon != std::string::npos) words.str(msg.substr(colon + 2));
  while (words >> word) {
    // A misspelt subcommand comes first among the unexpected words: "estimat" -> did you mean 'estimate'?
    if (word.rfind("-", 0) != 0 && !subcommands.empty() && unexpected) {
      const std::string hint = did_you_mean(word, subcommands);
      if (!hint.empty()) return hint;
      continue;
    }
    if (word.rfind("--", 0) != 0 || word.size() < 3) continue;
    if (const auto eq = word.find('='); eq != std::string::npos) word.resize(eq);
    if (std::find(names.begin(), names.end(), word) != names.end()) continue;
    return did_you_mean(word, names);
  }
  return "";
}

const char* k_examples = R"(
Examples:
  gpuadvise --model 7B --precision bf16 --mode finetune
  gpuadvise --model llama-3.1-8b --mode lora --precision bf16 --tokens 100M
  gpuadvise --model llama-3.1-8b --mode inference --requests 1M --input-tokens 512 --output-tokens 256 --format json
  gpuadvise estimate --model llama-2-7b --mode inference --seq-len 4096 --gpu h100-sxm-80gb --explain
  gpuadvise estimate --model mixtral-8x7b --mode inference --engine vllm --gpus 2 --tp 2 --gpu h100-sxm-80gb
  gpuadvise gpus                 gpuadvise gpus h100-sxm-80gb          gpuadvise models

Exit status: 0 ok (also when nothing fits: the output says so), 1 a check failed, 2 bad input.
)";

}  // namespace

int run(int argc, const char* const* argv, std::istream& in, std::ostream& out_stream, std::ostream& err) {
  std::ostream* out_ptr = &out_stream;  // -q swaps it for a sink once the flags are parsed
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(err);
  auto logger = std::make_shared<spdlog::logger>("gpuadvise", sink);
  logger->set_pattern("gpuadvise: %l: %v");
  logger->set_level(spdlog::level::warn);
  spdlog::set_default_logger(logger);

  CLI::App app{"gpuadvise: ranks GPUs for a deep-learning job: will it fit, how much memory each part takes, how many GPUs, "
               "how long it runs and what the completed job costs.",
               "gpuadvise"};
  app.footer(k_examples);
  app.set_version_flag("--version", std::string("gpuadvise ") + tool_version() + " (schema " + std::to_string(k_schema_version) + ")");
  app.require_subcommand(0, 1);

  WorkloadFlags rank_wf;
  OutputFlags rank_of;
  std::string rank_by;
  std::vector<std::string> only;
  CostFlags rank_cf;
  std::string deadline, budget;
  add_workload_flags(&app, rank_wf);
  add_cost_flags(&app, rank_cf);
  add_output_flags(&app, rank_of, false);
  app.add_option("--rank-by", rank_by, "value | cost | time | gpus | headroom [value: cost per job, or per unit of work]")->group("Ranking");
  app.add_option("--only,--gpu", only, "rank only these GPU ids (repeatable; nvidia-smi and SkyPilot names work: H100, A100-80GB)")->group("Ranking");
  app.add_option("--deadline", deadline, "scale out until the job finishes within it, keep the cheapest such plan: 90m, 36h, 2d")->group("Ranking");
  app.add_option("--budget", budget, "keep the fastest plan within this job cost (USD); drop GPUs over it")->group("Ranking");
  std::string rank_min_headroom, rank_max_gpus;
  app.add_option("--min-headroom", rank_min_headroom, "free memory per GPU a plan must keep, in % of capacity [5]; less is 'tight'")->group("Ranking");
  app.add_option("--max-gpus", rank_max_gpus, "most GPUs a plan may use [64]")->group("Ranking");

  CLI::App* est = app.add_subcommand("estimate", "memory (and, with --gpu, time) of one workload");
  WorkloadFlags est_wf;
  OutputFlags est_of;
  std::string est_gpu;
  CostFlags est_cf;
  add_workload_flags(est, est_wf);
  add_cost_flags(est, est_cf);
  add_output_flags(est, est_of, true);
  est->add_option("--gpu", est_gpu, "estimate on this GPU: verdict, capacity, time")->group("Workload");
  est->footer(k_examples);

  CLI::App* chk = app.add_subcommand("check", "CI gate: assert that workloads fit GPUs within headroom, cost, time and GPU limits (exit 1 when not)");
  WorkloadFlags chk_wf;
  OutputFlags chk_of;
  CostFlags chk_cf;
  std::vector<std::string> chk_gpus;
  std::string min_headroom, max_cost, max_hours, max_gpus;
  add_workload_flags(chk, chk_wf);
  add_cost_flags(chk, chk_cf);
  add_output_flags(chk, chk_of, false);
  chk->add_option("--gpu", chk_gpus, "a GPU id to check on (repeatable)")->group("Assertions");
  chk->add_option("--min-headroom", min_headroom, "free memory per GPU at the peak, in % of capacity")->group("Assertions");
  chk->add_option("--max-cost", max_cost, "cost of the job in USD")->group("Assertions");
  chk->add_option("--max-hours", max_hours, "billed hours of the job")->group("Assertions");
  chk->add_option("--max-gpus", max_gpus, "GPUs the plan may use [as the workload says]")->group("Assertions");
  chk->footer("\nExample:\n  gpuadvise check --workload plans.json --gpu rtx-4090-24gb --min-headroom 10 --max-cost 200\n"
              "Exit status: 0 every assertion holds, 1 one failed (each failure is one line), 2 bad input.\n");

  CLI::App* fitc = app.add_subcommand("fit", "the largest batch, sequence length or concurrency that fits a GPU");
  WorkloadFlags fit_wf;
  OutputFlags fit_of;
  std::string fit_gpu, maximize = "batch";
  add_workload_flags(fitc, fit_wf);
  add_output_flags(fitc, fit_of, false);
  fitc->add_option("--gpu", fit_gpu, "the GPU id")->group("Fit");
  fitc->add_option("--maximize", maximize, "batch | seq-len | concurrency [batch]")->group("Fit");
  fitc->footer("\nExample:\n  gpuadvise fit --gpu rtx-4090-24gb --model llama-3.1-8b --mode qlora --precision bf16 --seq-len 2048 --maximize batch\n");

  CLI::App* gpus = app.add_subcommand("gpus", "list the GPU catalogue; 'gpus ID' shows one entry with its sources");
  OutputFlags gpus_of;
  std::string gpu_id;
  gpus->add_option("id", gpu_id, "a GPU id");
  std::string gpus_vendor, gpus_min_memory, gpus_provider, gpus_sort;
  gpus->add_option("--vendor", gpus_vendor, "only this vendor's GPUs: nvidia, amd, intel")->group("Filter");
  gpus->add_option("--min-memory", gpus_min_memory, "only GPUs with at least this much memory, in GB")->group("Filter");
  gpus->add_option("--provider", gpus_provider, "only GPUs this provider offers (a catalogue price)")->group("Filter");
  gpus->add_option("--sort", gpus_sort, "memory | bandwidth | bf16 | price | id [catalogue order]")->group("Filter");
  gpus->footer("\nExamples:\n  gpuadvise gpus --vendor amd --sort memory\n  gpuadvise gpus --min-memory 80 --provider lambda --sort price\n");
  add_output_flags(gpus, gpus_of, false);

  CLI::App* prb = app.add_subcommand("probe", "print a short PyTorch script that measures this workload's peak memory and speed on a real GPU");
  WorkloadFlags prb_wf;
  OutputFlags prb_of;
  std::string prb_steps = "5";
  add_workload_flags(prb, prb_wf);
  add_output_flags(prb, prb_of, false);
  prb->add_option("--probe-steps", prb_steps, "timed steps after one warm-up [5]")->group("Probe");
  prb->footer("\nExample:\n  gpuadvise probe --model llama-3.1-8b --mode lora --batch 2 --seq-len 2048 > probe.py\n"
              "  python probe.py probe_result.json && gpuadvise calibrate probe_result.json\n");

  CLI::App* cal = app.add_subcommand("calibrate", "compare a probe's measurement with the estimate; --save keeps the correction for later answers");
  OutputFlags cal_of;
  std::string cal_file, cal_gpu;
  bool cal_save = false, cal_reset = false;
  cal->add_option("result", cal_file, "the JSON a probe script wrote (probe_result.json)");
  cal->add_option("--gpu", cal_gpu, "the GPU id it ran on [from the name the script recorded]")->group("Calibrate");
  cal->add_flag("--save", cal_save, "store the correction for this GPU, framework and kind of work")->group("Calibrate");
  cal->add_flag("--reset", cal_reset, "remove every stored correction")->group("Calibrate");
  add_output_flags(cal, cal_of, false);
  cal->footer("\nExamples:\n  gpuadvise calibrate probe_result.json            # measured beside estimated, and the correction\n"
              "  gpuadvise calibrate probe_result.json --save     # later answers on that GPU and framework use it\n\n"
              "The corrections live in $GPUADVISE_CALIBRATION, else $XDG_CONFIG_HOME/gpuadvise/calibration.json, else\n"
              "~/.config/gpuadvise/calibration.json; every answer they change says so.\n");

  CLI::App* swp = app.add_subcommand("sweep", "vary one setting over a range and draw memory, throughput or cost against it, per GPU");
  WorkloadFlags swp_wf;
  OutputFlags swp_of;
  CostFlags swp_cf;
  std::vector<std::string> swp_gpus;
  std::string swp_vary, swp_from, swp_to, swp_points = "8", swp_metric = "memory";
  add_workload_flags(swp, swp_wf);
  add_cost_flags(swp, swp_cf);
  add_output_flags(swp, swp_of, false);
  swp->add_option("--vary", swp_vary, "seq-len | batch | concurrency | lora-rank | gpus | image-size")->group("Sweep");
  swp->add_option("--from", swp_from, "first value")->group("Sweep");
  swp->add_option("--to", swp_to, "last value")->group("Sweep");
  swp->add_option("--points", swp_points, "values from --from to --to, evenly spaced on a log scale (whole numbers) [8]")->group("Sweep");
  swp->add_option("--metric", swp_metric, "memory | time | cost [memory]")->group("Sweep");
  swp->add_option("--gpu", swp_gpus, "a GPU to draw (repeatable) [h100-sxm-80gb]")->group("Sweep");
  swp->footer("\nExample:\n  gpuadvise sweep --model llama-3.1-8b --mode lora --vary seq-len --from 1024 --to 32768 --gpu rtx-4090-24gb --gpu h100-sxm-80gb\n");

  CLI::App* comp = app.add_subcommand("completions", "print a shell completion script: bash, zsh or fish");
  std::string comp_shell;
  comp->add_option("shell", comp_shell, "bash | zsh | fish")->required();
  comp->footer("\nExample:\n  gpuadvise completions bash > /etc/bash_completion.d/gpuadvise\n");
  CLI::App* manp = app.add_subcommand("manpage", "print the man page (roff), or with --format markdown the CLI reference (docs/cli.md)");
  OutputFlags manp_of;
  manp->add_option("--format", manp_of.format, "roff | markdown [roff]")->group("Output");

  CLI::App* models = app.add_subcommand("models", "list the bundled model presets");
  OutputFlags models_of;
  std::string models_kind, models_family;
  models->add_option("--kind", models_kind, "only language | vision | generation models")->group("Filter");
  models->add_option("--family", models_family, "only this family (llama, qwen2, mixtral, resnet, yolo, ...)")->group("Filter");
  add_output_flags(models, models_of, false);
  name_placeholders(app);

  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
      out_stream << app.help();
      return 0;
    } catch (const CLI::CallForAllHelp&) {
      out_stream << app.help("", CLI::AppFormatMode::All);
      return 0;
    } catch (const CLI::CallForVersion& e) {
      out_stream << e.what() << "\n";
      return 0;
    } catch (const CLI::ParseError& e) {
      std::string msg = e.what();
      CLI::App* ctx = est->parsed() ? est : chk->parsed() ? chk : fitc->parsed() ? fitc : gpus->parsed() ? gpus : models->parsed() ? models
                      : prb->parsed() ? prb : cal->parsed() ? cal : swp->parsed() ? swp : &app;
      std::string hint = suggest_flag(msg, *ctx);
      err << "gpuadvise: error: " << msg << (hint.empty() ? "" : "; " + hint) << " (see --help)\n";
      return 2;
    }

    // A value given empty is a typo or an unset variable, never "use the default": one line naming the flag.
    for (CLI::App* a : {&app, est, chk, fitc, gpus, models, prb, cal, swp, comp, manp}) {
      if (a != &app && !a->parsed()) continue;
      for (const CLI::Option* o : a->get_options()) {
        if (o->count() == 0 || o->get_expected_min() == 0) continue;
        for (const auto& v : o->results())
          if (v.find_first_not_of(" \t") == std::string::npos) {
            const std::string name = o->get_lnames().empty() ? o->get_name() : "--" + o->get_lnames().front();
            std::string what = o->get_description();
            if (const auto bracket = what.rfind(" ["); bracket != std::string::npos && what.back() == ']') what.resize(bracket);
            throw UserError{2, name + ": expected " + (o->get_type_name().empty() ? std::string("a value") : o->get_type_name()) + " (" + what +
                                   "), got '" + v + "'"};
          }
      }
    }
    OutputFlags& of = est->parsed() ? est_of : chk->parsed() ? chk_of : fitc->parsed() ? fit_of : gpus->parsed() ? gpus_of
                      : models->parsed() ? models_of : prb->parsed() ? prb_of : cal->parsed() ? cal_of : manp->parsed() ? manp_of : swp->parsed() ? swp_of : rank_of;
    // Enumerated output values take any case (CSV, GiB, Markdown).
    for (std::string* v : {&of.format, &of.units})
      for (auto& ch : *v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (of.verbose >= 2) logger->set_level(spdlog::level::debug);
    else if (of.verbose == 1) logger->set_level(spdlog::level::info);
    const bool color = use_color(of.color);
    const int columns = terminal_width();
    if (of.units != "gb" && of.units != "gib")
      throw UserError{2, "--units: unknown value '" + of.units + "' (valid: gb, gib)"};
    Style style{color, of.explain, of.hints, !of.wide && columns > 0 && columns < 160, of.units == "gib" ? MemUnits::gib : MemUnits::gb};
    // -q: the answer is the exit status; nothing reaches stdout.
    std::ostringstream quiet_sink;
    if (of.quiet) out_ptr = &quiet_sink;
    const bool md = of.format == "markdown" || of.format == "md";

    if (gpus->parsed()) {
      check_format(of.format);
      const GpuCatalog cat = load_gpus(of, in);
      if (!gpu_id.empty()) {
        const GpuSpec& g = gpu_for(gpu_id, cat, "gpus");
        GpuCatalog one;
        one.gpus.push_back(g);
        (*out_ptr) << (of.format == "json" ? gpu_json(g) : of.format == "csv" ? gpus_csv(one) : md ? fenced_markdown(g.id, gpu_detail_table(g, style)) : gpu_detail_table(g, style));
      } else {
        GpuCatalog shown = cat;
        auto lower = [](std::string s) {
          for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          return s;
        };
        if (!gpus_vendor.empty()) {
          std::vector<std::string> vendors;
          for (const auto& g : cat.gpus)
            if (std::find(vendors.begin(), vendors.end(), lower(g.vendor)) == vendors.end()) vendors.push_back(lower(g.vendor));
          if (std::find(vendors.begin(), vendors.end(), lower(gpus_vendor)) == vendors.end())
            throw UserError{2, "--vendor: unknown vendor '" + gpus_vendor + "' (valid: " + join(vendors, ", ") + ")"};
          std::erase_if(shown.gpus, [&](const GpuSpec& g) { return lower(g.vendor) != lower(gpus_vendor); });
        }
        if (!gpus_min_memory.empty()) {
          const double gb = flag_number(gpus_min_memory, "--min-memory", "a size in GB from 0 to 10,000", 0, 10000);
          std::erase_if(shown.gpus, [&](const GpuSpec& g) { return static_cast<double>(g.memory_bytes) / 1e9 < gb; });
        }
        if (!gpus_provider.empty()) {
          check_provider(gpus_provider, cat);
          std::erase_if(shown.gpus, [&](const GpuSpec& g) { return !g.offered_by(gpus_provider); });
        }
        if (!gpus_sort.empty()) {
          auto key = [&](const GpuSpec& g) -> double {
            if (gpus_sort == "memory") return -static_cast<double>(g.memory_bytes);
            if (gpus_sort == "bandwidth") return -g.bandwidth_gb_per_s.value_or(0);
            if (gpus_sort == "bf16") return -g.peak_flops("bf16").value_or(0);
            const PriceOffer* o = gpus_provider.empty() ? g.cheapest_offer() : g.offer_from(gpus_provider);
            return o && o->usd_per_gpu_hour ? *o->usd_per_gpu_hour : 1e18;  // price: cheapest first, unknown last
          };
          if (gpus_sort == "id") std::stable_sort(shown.gpus.begin(), shown.gpus.end(), [](const GpuSpec& a, const GpuSpec& b) { return a.id < b.id; });
          else if (gpus_sort == "memory" || gpus_sort == "bandwidth" || gpus_sort == "bf16" || gpus_sort == "price")
            std::stable_sort(shown.gpus.begin(), shown.gpus.end(), [&](const GpuSpec& a, const GpuSpec& b) { return key(a) < key(b); });
          else throw UserError{2, "--sort: unknown value '" + gpus_sort + "' (valid: memory, bandwidth, bf16, price, id)"};
        }
        (*out_ptr) << (of.format == "json" ? gpus_json(shown) : of.format == "csv" ? gpus_csv(shown) : md ? fenced_markdown("GPU catalogue", gpus_table(shown, style)) : gpus_table(shown, style));
      }
      return 0;
    }
    if (models->parsed()) {
      check_format(of.format);
      const ModelCatalog cat = load_models();
      ModelCatalog shown = cat;
      if (!models_kind.empty()) {
        if (models_kind != "language" && models_kind != "vision" && models_kind != "generation")
          throw UserError{2, "--kind: unknown value '" + models_kind + "' (valid: language, vision, generation)"};
        std::erase_if(shown.models, [&](const ModelSpec& m) {
          const std::string kind = !m.vision ? "language" : m.vision->task == "generation" ? "generation" : "vision";
          return kind != models_kind;
        });
      }
      if (!models_family.empty()) {
        std::vector<std::string> families;
        for (const auto& m : cat.models)
          if (!m.family.empty() && std::find(families.begin(), families.end(), m.family) == families.end()) families.push_back(m.family);
        if (std::find(families.begin(), families.end(), models_family) == families.end())
          throw UserError{2, "--family: unknown family '" + models_family + "' (valid: " + join(families, ", ") + ")"};
        std::erase_if(shown.models, [&](const ModelSpec& m) { return m.family != models_family; });
      }
      (*out_ptr) << (of.format == "json" ? models_json(shown) : of.format == "csv" ? models_csv(shown) : md ? fenced_markdown("Model presets", models_table(shown)) : models_table(shown));
      return 0;
    }

    if (swp->parsed()) {
      check_format(of.format);
      static const std::vector<std::pair<std::string, std::string>> keys{{"seq-len", "seq_len"},     {"batch", "batch"}, {"concurrency", "concurrency"},
                                                                         {"lora-rank", "lora_rank"}, {"gpus", "gpus"},   {"image-size", "image_size"}};
      auto key = std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.first == swp_vary; });
      if (key == keys.end()) throw UserError{2, "--vary: unknown setting '" + swp_vary + "' (valid: seq-len, batch, concurrency, lora-rank, gpus, image-size)"};
      if (swp_metric != "memory" && swp_metric != "time" && swp_metric != "cost")
        throw UserError{2, "--metric: unknown value '" + swp_metric + "' (valid: memory, time, cost)"};
      if (swp_from.empty() || swp_to.empty()) throw UserError{2, "sweep: give the range with --from and --to"};
      const double lo = flag_number(swp_from, "--from", "a whole number from 1 to 16,777,216", 1, 16777216, true);
      const double hi = flag_number(swp_to, "--to", "a whole number from 1 to 16,777,216", 1, 16777216, true);
      if (hi < lo) throw UserError{2, "--to: expected a value at or above --from (" + swp_from + "), got '" + swp_to + "'"};
      const int n = static_cast<int>(flag_number(swp_points, "--points", "an integer from 2 to 64", 2, 64, true));
      std::vector<double> values;
      for (int i = 0; i < n; ++i) {
        const double v = std::round(lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1)));
        if (values.empty() || v != values.back()) values.push_back(v);
      }
      auto raws = collect_workloads(swp_wf, in);
      if (raws.size() > 1) throw UserError{2, "--workload: the file holds " + std::to_string(raws.size()) + " workloads; sweep takes one"};
      if (raws[0].count(key->second)) throw UserError{2, "--" + swp_vary + ": it is the setting --vary varies; leave it out"};
      const ModelCatalog model_cat = load_models();
      const GpuCatalog cat = load_gpus(of, in);
      const CostOptions co = cost_options(swp_cf, cat, in);
      std::vector<const GpuSpec*> targets;
      for (const auto& id : swp_gpus) targets.push_back(&gpu_for(id, cat));
      if (targets.empty()) targets.push_back(&gpu_for("h100-sxm-80gb", cat));
      Sweep sw;
      sw.vary = swp_vary;
      sw.metric = swp_metric;
      for (double v : values) {
        RawWorkload raw = raws[0];
        raw[key->second] = RawValue{sweep_value_text(v), "--vary " + swp_vary};
        const Workload w = build_workload(raw);
        const ModelSpec model = model_for(w, model_cat, in);
        if (sw.workload_line.empty()) sw.workload_line = model.id + ", " + to_string(w.mode) + ", " + to_string(w.precision);
        SweepPoint p;
        p.value = v;
        for (const GpuSpec* g : targets) p.per_gpu.push_back(evaluate(w, model, *g, co));
        sw.points.push_back(std::move(p));
      }
      (*out_ptr) << (of.format == "json" ? sweep_json(sw) : of.format == "csv" ? sweep_csv(sw) : md ? fenced_markdown("sweep", sweep_table(sw, Style{})) : sweep_table(sw, style));
      return 0;
    }

    if (comp->parsed()) {
      (*out_ptr) << completion_script(comp_shell, app, load_gpus(OutputFlags{}, in), load_models());
      return 0;
    }
    if (manp->parsed()) {
      (*out_ptr) << (of.format == "markdown" || of.format == "md" ? cli_reference(app) : man_page(app));
      return 0;
    }

    if (cal->parsed()) {
      check_format(of.format);
      const std::string path = calibration_path();
      if (cal_reset) {
        std::error_code ec;
        const bool removed = !path.empty() && std::filesystem::remove(path, ec);
        (*out_ptr) << (removed ? "removed the calibration file " + path + "\n" : "no calibration file at " + (path.empty() ? "(no home)" : path) + "\n");
        if (cal_file.empty()) return 0;
      }
      if (cal_file.empty()) throw UserError{2, "calibrate: give the probe's result file (probe_result.json), or --reset"};
      auto text = read_file(cal_file, in);
      if (!text) throw UserError{2, "calibrate: cannot read '" + cal_file + "'"};
      const ProbeResult pr = parse_probe_result(*text, cal_file == "-" ? "stdin" : cal_file);
      const GpuCatalog cat = load_gpus(of, in);
      const GpuSpec* g = cal_gpu.empty() ? cat.resolve(pr.gpu_name) : &gpu_for(cal_gpu, cat);
      if (!g) throw UserError{2, cal_file + ".gpu_name: '" + pr.gpu_name + "' is not in the catalogue; name it with --gpu ID (gpuadvise gpus lists them)"};
      // The estimate the probe checked, on the GPU it ran on, without earlier corrections of this GPU.
      std::vector<std::string> args{"gpuadvise", "estimate"};
      std::istringstream words(pr.estimate_args);
      for (std::string word; words >> word;) args.push_back(word);
      for (const char* extra : {"--gpu", g->id.c_str(), "--format", "json"}) args.push_back(extra);
      std::vector<const char*> argv2;
      for (const auto& a : args) argv2.push_back(a.c_str());
      std::ostringstream est_out, est_err;
      const char* saved_env = std::getenv("GPUADVISE_CALIBRATION");
      const std::string saved_value = saved_env ? saved_env : "";
      setenv("GPUADVISE_CALIBRATION", "/nonexistent/gpuadvise-calibration.json", 1);
      const int rc = run(static_cast<int>(argv2.size()), argv2.data(), in, est_out, est_err);
      if (saved_env) setenv("GPUADVISE_CALIBRATION", saved_value.c_str(), 1);
      else unsetenv("GPUADVISE_CALIBRATION");
      if (rc != 0) throw UserError{2, cal_file + ".estimate_args: the estimate does not run: " + est_err.str()};
      const CalibrationView v = calibration_view(est_out.str(), pr, *g);
      (*out_ptr) << (of.format == "json" ? calibration_view_json(v) : of.format == "csv" ? calibration_view_csv(v)
                     : md ? fenced_markdown("calibration", calibration_view_table(v, style)) : calibration_view_table(v, style));
      if (cal_save) {
        if (path.empty()) throw UserError{2, "calibrate --save: no place for the calibration file (set GPUADVISE_CALIBRATION or HOME)"};
        std::vector<LocalCorrection> all = load_corrections(path);
        all.erase(std::remove_if(all.begin(), all.end(), [&](const LocalCorrection& k) {
                    return k.gpu == v.correction.gpu && k.framework == v.correction.framework && k.training == v.correction.training;
                  }), all.end());
        LocalCorrection k = v.correction;
        k.source = cal_file;
        const std::time_t now = std::time(nullptr);
        char day[16];
        std::strftime(day, sizeof day, "%Y-%m-%d", std::gmtime(&now));
        k.saved = day;
        all.push_back(k);
        std::error_code ec;
        std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
        std::ofstream f(path);
        f << calibration_json(all);
        f.flush();
        if (!f) throw UserError{2, "calibrate --save: cannot write '" + path + "'"};
        (*out_ptr) << "saved to " << path << ": later answers on " << k.gpu << " with " << k.framework << " say so; gpuadvise calibrate --reset removes it\n";
      }
      return 0;
    }

    if (prb->parsed()) {
      const int steps = static_cast<int>(flag_number(prb_steps, "--probe-steps", "an integer from 1 to 1,000", 1, 1000, true));
      auto raws = collect_workloads(prb_wf, in);
      if (raws.size() > 1) throw UserError{2, "--workload: the file holds " + std::to_string(raws.size()) + " workloads; probe takes one"};
      const Workload w = build_workload(raws[0]);
      const ModelCatalog model_cat = load_models();
      const ModelSpec model = model_for(w, model_cat, in);
      // The estimate the script checks, as flags (in the order given) so it can be run again.
      std::string args;
      for (const auto& [key, value] : raws[0]) {
        std::string flag = "--" + key;
        std::replace(flag.begin(), flag.end(), '_', '-');
        if (key == "flash_attention") {
          if (value.value == "false") args += (args.empty() ? "" : " ") + std::string("--no-flash-attention");
          continue;
        }
        args += (args.empty() ? "" : " ") + flag;
        if (value.value != "true") args += " " + value.value;
      }
      (*out_ptr) << probe_script(w, model, estimate_memory(w, model, nullptr), args, steps);
      return 0;
    }

    if (chk->parsed()) {
      check_format(of.format);
      if (chk_gpus.empty()) throw UserError{2, "check: give at least one --gpu ID to check on"};
      CheckAssertions a;
      auto num = [](const std::string& text, const char* flag, bool integer) -> std::optional<double> {
        if (text.empty()) return std::nullopt;
        return integer ? flag_number(text, flag, "an integer from 1 to 4,096", 1, 4096, true) : flag_number(text, flag, "a number from 0 to 1e12", 0, 1e12);
      };
      a.min_headroom_pct = num(min_headroom, "--min-headroom", false);
      if (a.min_headroom_pct && *a.min_headroom_pct >= 100) throw UserError{2, "--min-headroom: expected a percentage below 100, got '" + min_headroom + "'"};
      a.max_cost_usd = num(max_cost, "--max-cost", false);
      a.max_hours = num(max_hours, "--max-hours", false);
      if (auto g = num(max_gpus, "--max-gpus", true)) a.max_gpus = static_cast<std::int64_t>(*g);
      auto raws = collect_workloads(chk_wf, in);
      const ModelCatalog model_cat = load_models();
      const GpuCatalog cat = load_gpus(of, in);
      const CostOptions co = cost_options(chk_cf, cat, in);
      std::vector<const GpuSpec*> targets;
      for (const auto& id : chk_gpus) targets.push_back(&gpu_for(id, cat));
      std::vector<CheckResult> results;
      results.reserve(raws.size() * targets.size());
      std::map<std::string, ModelSpec> models_seen;
      for (std::size_t i = 0; i < raws.size(); ++i) {
        const Workload w = build_workload(raws[i]);
        // Each distinct --model is resolved (and its file read) once; every workload is checked against it.
        auto seen = models_seen.find(w.model);
        if (seen == models_seen.end()) seen = models_seen.emplace(w.model, model_for(w, model_cat, in)).first;
        else check_workload_fits_model(w, seen->second);
        const ModelSpec& model = seen->second;
        const std::string label = w.name ? *w.name : (raws.size() > 1 ? "workload[" + std::to_string(i) + "]" : "workload");
        for (const GpuSpec* g : targets) results.push_back(check_workload(w, label, model, *g, a, co));
      }
      (*out_ptr) << (of.format == "json" ? check_json(results, a) : of.format == "csv" ? check_csv(results) : md ? check_markdown(results, style) : check_table(results, style));
      for (const auto& r : results)
        if (!r.passed()) return 1;
      return 0;
    }

    if (fitc->parsed()) {
      check_format(of.format);
      if (fit_gpu.empty()) throw UserError{2, "fit: give the GPU with --gpu ID"};
      Maximize what;
      if (maximize == "batch") what = Maximize::batch;
      else if (maximize == "seq-len" || maximize == "seq_len") what = Maximize::seq_len;
      else if (maximize == "concurrency") what = Maximize::concurrency;
      else throw UserError{2, "--maximize: unknown value '" + maximize + "' (valid: batch, seq-len, concurrency)"};
      auto raws = collect_workloads(fit_wf, in);
      if (raws.size() > 1) throw UserError{2, "--workload: the file holds " + std::to_string(raws.size()) + " workloads; fit takes one"};
      const Workload w = build_workload(raws[0]);
      if (what == Maximize::concurrency && is_training(w.mode))
        throw UserError{2, "--maximize: concurrency is for --mode inference (training: batch or seq-len)"};
      const ModelCatalog model_cat = load_models();
      const ModelSpec model = model_for(w, model_cat, in);
      const GpuCatalog cat = load_gpus(of, in);
      const GpuSpec& g = gpu_for(fit_gpu, cat);
      const FitResult r = fit_max(w, model, g, what, CostOptions{});
      (*out_ptr) << (of.format == "json" ? fit_json(w, model, g, r) : of.format == "csv" ? fit_csv(g, r) : md ? fenced_markdown("fit on " + g.id, fit_table(w, model, g, r, Style{})) : fit_table(w, model, g, r, style));
      return 0;
    }

    const bool estimate = est->parsed();
    WorkloadFlags& wf = estimate ? est_wf : rank_wf;
    check_format(of.format);
    auto raws = collect_workloads(wf, in);
    if (raws.size() > 1) throw UserError{2, "--workload: the file holds " + std::to_string(raws.size()) + " workloads; this command takes one"};
    if (estimate && (!est_gpu.empty() || est->count("--gpu") > 0)) raws[0]["gpu"] = RawValue{est_gpu, "--gpu"};  // "" is an error there
    Workload w = build_workload(raws[0]);
    const ModelCatalog model_cat = load_models();
    const ModelSpec model = model_for(w, model_cat, in);
    const GpuCatalog cat = load_gpus(of, in);
    spdlog::info("model {}: {} layers, hidden {}, {} heads ({} KV)", model.id, model.layers, model.hidden, model.heads, model.kv_heads);

    if (estimate) {
      std::optional<Candidate> cand;
      MemoryEstimate mem;
      if (w.gpu) {
        cand = evaluate(w, model, gpu_for(*w.gpu, cat), cost_options(est_cf, cat, in));
        cand->fits_single = cand->fits;
        mem = cand->memory;
      } else {
        mem = estimate_memory(w, model, nullptr);
      }
      (*out_ptr) << (of.format == "json" ? estimate_json(w, model, cand ? &*cand : nullptr, mem, cat.version)
              : of.format == "csv"  ? estimate_csv(w, model, cand ? &*cand : nullptr, mem)
              : md                  ? estimate_markdown(w, model, cand ? &*cand : nullptr, mem, style)
                                    : estimate_table(w, model, cand ? &*cand : nullptr, mem, style));
      return 0;
    }

    RankOptions ro;
    if (!rank_by.empty()) {
      if (rank_by == "value") ro.rank_by = RankBy::value;
      else if (rank_by == "cost") ro.rank_by = RankBy::cost;
      else if (rank_by == "time") ro.rank_by = RankBy::time;
      else if (rank_by == "gpus" || rank_by == "fit") ro.rank_by = RankBy::gpus;
      else if (rank_by == "headroom") ro.rank_by = RankBy::headroom;
      else throw UserError{2, "--rank-by: unknown value '" + rank_by + "' (valid: value, cost, time, gpus, headroom)"};
    }
    ro.cost = cost_options(rank_cf, cat, in);
    if (!deadline.empty()) ro.deadline_seconds = parse_duration(deadline, "--deadline");
    if (!budget.empty()) {
      ro.budget_usd = flag_number(budget, "--budget", "a USD amount above 0 up to 1e12", 0, 1e12, false, true);
    }
    if (!rank_min_headroom.empty()) {
      ro.min_headroom_pct = flag_number(rank_min_headroom, "--min-headroom", "a percentage from 0 to below 100", 0, 100, false, false, true);
    }
    if (!rank_max_gpus.empty()) {
      ro.max_gpus = static_cast<std::int64_t>(flag_number(rank_max_gpus, "--max-gpus", "an integer from 1 to 4,096", 1, 4096, true));
    }
    for (const auto& id : only) ro.only_gpus.push_back(gpu_for(id, cat, "--only/--gpu").id);
    if (w.gpu) ro.only_gpus.push_back(gpu_for(*w.gpu, cat).id);
    const Ranking r = rank_gpus(w, model, cat, ro);
    if (of.format == "json") (*out_ptr) << ranking_json(w, model, r, cat.version);
    else if (of.format == "csv") (*out_ptr) << ranking_csv(r);
    else if (md) (*out_ptr) << ranking_markdown(w, model, r, style);
    else (*out_ptr) << ranking_table(w, model, r, style);
    return 0;
  } catch (const UserError& e) {
    err << "gpuadvise: error: " << e.message << "\n";
    return e.code;
  } catch (const InputError& e) {
    err << "gpuadvise: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "gpuadvise: internal error: " << e.what() << " (please report this)\n";
    return 3;
  }
}

}  // namespace gpuadvise::cli
