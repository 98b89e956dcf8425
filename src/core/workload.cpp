#include "gpuadvise/workload.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

#include <fmt/format.h>

#include "gpuadvise/error.hpp"
#include "gpuadvise/global_batch.hpp"
#include "values.hpp"

namespace gpuadvise {

namespace {

template <typename E>
struct Names {
  std::vector<std::pair<E, std::string>> items;
  std::string name(E v) const {
    for (const auto& [e, n] : items)
      if (e == v) return n;
    return "?";
  }
  std::vector<std::string> all() const {
    std::vector<std::string> out;
    for (const auto& [e, n] : items) out.push_back(n);
    return out;
  }
};

const Names<Mode> k_modes{{{Mode::train, "train"}, {Mode::finetune, "finetune"}, {Mode::lora, "lora"},
                           {Mode::qlora, "qlora"}, {Mode::inference, "inference"}}};
const Names<Precision> k_precisions{{{Precision::fp32, "fp32"}, {Precision::tf32, "tf32"}, {Precision::fp16, "fp16"},
                                     {Precision::bf16, "bf16"}, {Precision::fp8, "fp8"}, {Precision::fp4, "fp4"}, {Precision::int8, "int8"},
                                     {Precision::int4, "int4"}, {Precision::nf4, "nf4"}, {Precision::q8_0, "q8_0"},
                                     {Precision::q6_k, "q6_k"}, {Precision::q5_k_m, "q5_k_m"}, {Precision::q5_0, "q5_0"},
                                     {Precision::q4_k_m, "q4_k_m"}, {Precision::q4_0, "q4_0"}, {Precision::q4_1, "q4_1"},
                                     {Precision::q3_k_m, "q3_k_m"}, {Precision::q2_k, "q2_k"}}};
const Names<Optimizer> k_optimizers{{{Optimizer::adamw, "adamw"}, {Optimizer::adamw_8bit, "adamw-8bit"},
                                     {Optimizer::adafactor, "adafactor"}, {Optimizer::sgd, "sgd"},
                                     {Optimizer::sgd_momentum, "sgd-momentum"}}};
const Names<Checkpointing> k_ckpt{{{Checkpointing::none, "none"}, {Checkpointing::full, "full"},
                                   {Checkpointing::selective, "selective"}}};
const Names<Sharding> k_sharding{{{Sharding::none, "none"}, {Sharding::zero1, "zero1"}, {Sharding::zero2, "zero2"},
                                  {Sharding::zero3, "zero3"}}};
const Names<Offload> k_offload{{{Offload::none, "none"}, {Offload::optimizer, "optimizer"}, {Offload::optimizer_params, "optimizer+params"}, {Offload::model, "model"},
                                {Offload::sequential, "sequential"}, {Offload::layers, "layers"}, {Offload::experts, "experts"}, {Offload::activations, "activations"}}};
const Names<MasterWeights> k_master{{{MasterWeights::fp32, "fp32"}, {MasterWeights::none, "none"}}};
const Names<Precision> k_grad_dtypes{{{Precision::fp32, "fp32"}, {Precision::bf16, "bf16"}}};
const Names<Framework> k_frameworks{{{Framework::hf, "hf"}, {Framework::vllm, "vllm"}, {Framework::sglang, "sglang"},
                                     {Framework::trtllm, "trtllm"}, {Framework::llamacpp, "llamacpp"},
                                     {Framework::exllama, "exllama"}, {Framework::exllamav2, "exllamav2"}, {Framework::autoawq, "autoawq"},
                                     {Framework::litgpt, "litgpt"}, {Framework::torchtune, "torchtune"},
                                     {Framework::torchtitan, "torchtitan"}, {Framework::megatron, "megatron"}, {Framework::llmq, "llmq"},
                                     {Framework::pytorch, "pytorch"}, {Framework::detectron2, "detectron2"},
                                     {Framework::mmdet, "mmdet"}, {Framework::ultralytics, "ultralytics"}, {Framework::tensorrt, "tensorrt"},
                                     {Framework::diffusers, "diffusers"}}};

const std::vector<std::string> k_resolutions{"720p", "1080p", "1440p", "4k"};
const std::vector<std::string> k_codecs{"h264", "hevc", "av1"};
const std::vector<std::string> k_trackers{"none", "sort", "bytetrack"};
const std::vector<std::string> k_image_decodes{"cpu", "gpu", "none"};

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

template <typename E>
E parse_enum(const Names<E>& names, const RawValue& raw, const std::vector<std::pair<std::string, E>>& aliases = {}) {
  const std::string v = lower(raw.value);
  for (const auto& [e, n] : names.items)
    if (n == v) return e;
  for (const auto& [a, e] : aliases)
    if (a == v) return e;
  std::string hint = did_you_mean(v, names.all());
  throw InputError(raw.origin + ": unknown value " + quote_input(raw.value) + " (valid: " + join(names.all(), ", ") + ")" +
                   (hint.empty() ? "" : "; " + hint));
}

// Input ranges (docs/method.md, "Input ranges"): beyond any model, cluster or job that exists.
constexpr double k_max_batch = 1048576;          // 2^20 sequences or images per step
constexpr double k_max_seq_len = 16777216;       // 2^24 tokens of context
constexpr double k_max_pixels = 65536;           // per image side
constexpr double k_max_gpus = 65536;
constexpr double k_max_degree = 1024;            // tensor, pipeline, expert parallel degree
constexpr double k_max_job_tokens = 1e16;        // 10 quadrillion training tokens

// The physical ranges of counts (docs/method.md, "Input ranges"): a value outside is bad input, not a
// number to carry into arithmetic.
std::int64_t parse_positive_int(const RawValue& raw, double hi, const std::string& what = "", bool binary_k = false) {
  const std::optional<double> parsed = parse_suffixed(raw.value, binary_k);  // 4k, 1M, 2.5e3 (values.cpp)
  const bool number = parsed.has_value();
  const double v = parsed.value_or(0);
  if (number && v >= 1 && v == std::floor(v) && v <= hi) return static_cast<std::int64_t>(v);
  // The message is built only for bad input (a workload file of 10,000 entries parses about 40,000 counts).
  const std::string range = "an integer from 1 to " + fmt_limit(hi);
  if (!number) throw InputError(raw.origin + ": expected " + (what.empty() ? range : what) + ", got '" + raw.value + "'");
  throw InputError(raw.origin + ": expected " + (what.empty() ? range : what + ", " + range) + ", got '" + raw.value + "'");
}

// A fraction from 0.01 to 1 (--mfu, --utilization, --gpu-memory-utilization): below 1 % no run reported in the
// literature sits, and the job's time and cost run to astronomical figures (docs/method.md, "Input ranges").
double parse_fraction(const RawValue& raw) {
  const double u = parse_number(raw.value, raw.origin, "a fraction from 0.01 to 1");
  if (!(u >= 0.01 && u <= 1)) throw InputError(raw.origin + ": expected a fraction from 0.01 to 1, got '" + raw.value + "'");
  return u;
}

bool parse_bool(const RawValue& raw) {
  const std::string v = lower(raw.value);
  if (v == "true" || v == "1" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return false;
  throw InputError(raw.origin + ": expected true or false, got '" + raw.value + "'");
}

LoraTargets parse_lora_targets(const RawValue& raw) {
  LoraTargets t;
  t.spec = lower(raw.value);
  if (t.spec == "all-linear" || t.spec == "all") return t;
  t = LoraTargets{false, false, false, false, false, false, false, lower(raw.value)};
  if (t.spec == "attention") {
    t.q = t.k = t.v = t.o = true;
    return t;
  }
  const std::vector<std::string> valid{"q", "k", "v", "o", "gate", "up", "down"};
  std::size_t start = 0;
  while (start <= t.spec.size()) {
    std::size_t comma = t.spec.find(',', start);
    if (comma == std::string::npos) comma = t.spec.size();
    std::string name = t.spec.substr(start, comma - start);
    // Accept the Hugging Face module names too.
    for (const auto* suffix : {"_proj"})
      if (name.size() > 5 && name.ends_with(suffix)) name.resize(name.size() - 5);
    if (name == "q") t.q = true;
    else if (name == "k") t.k = true;
    else if (name == "v") t.v = true;
    else if (name == "o") t.o = true;
    else if (name == "gate") t.gate = true;
    else if (name == "up") t.up = true;
    else if (name == "down") t.down = true;
    else throw InputError(raw.origin + ": unknown projection '" + name + "' (valid: all-linear, attention, or a comma list of q, k, v, o, gate, up, down)");
    start = comma + 1;
  }
  return t;
}

}  // namespace

// The values each enumerated workload flag takes (completions read them; the parsers above accept them).
std::vector<std::pair<std::string, std::vector<std::string>>> workload_choices() {
  return {{"--mode", k_modes.all()},           {"--precision", k_precisions.all()},     {"--kv-precision", k_precisions.all()},
          {"--master-weights", k_master.all()}, {"--grad-dtype", k_grad_dtypes.all()}, {"--optimizer", k_optimizers.all()},     {"--gradient-checkpointing", k_ckpt.all()},
          {"--sharding", k_sharding.all()},     {"--framework", k_frameworks.all()},     {"--engine", k_frameworks.all()},
          {"--offload", k_offload.all()},       {"--resolution", k_resolutions},         {"--codec", k_codecs},
          {"--tracker", k_trackers},            {"--image-decode", k_image_decodes},     {"--lora-targets", {"all-linear", "attention"}}};
}

std::string to_string(Mode v) { return k_modes.name(v); }
std::string to_string(Precision v) { return k_precisions.name(v); }
std::string to_string(Optimizer v) { return k_optimizers.name(v); }
std::string to_string(Checkpointing v) { return k_ckpt.name(v); }
std::string to_string(Sharding v) { return k_sharding.name(v); }
std::string to_string(Offload v) { return k_offload.name(v); }
std::string to_string(MasterWeights v) { return k_master.name(v); }
std::string to_string(Framework v) { return k_frameworks.name(v); }

bool is_training(Mode m) { return m != Mode::inference; }
bool is_gguf(Precision p) {
  for (Precision q : {Precision::q8_0, Precision::q6_k, Precision::q5_k_m, Precision::q5_0, Precision::q4_k_m, Precision::q4_0, Precision::q4_1,
                      Precision::q3_k_m, Precision::q2_k})
    if (p == q) return true;
  return false;
}
bool is_weight_only_quant(Precision p) { return is_gguf(p) || p == Precision::int4 || p == Precision::nf4 || p == Precision::int8; }
bool is_quantised_weights(Precision p) { return is_weight_only_quant(p) || p == Precision::fp8 || p == Precision::fp4; }

MasterWeights Workload::effective_master_weights() const { return master_weights.value_or(MasterWeights::fp32); }

Framework Workload::effective_framework() const { return framework.value_or(Framework::hf); }

// Unless told, the cache keeps 16 bits for any compute precision of 16 bits or less (vLLM's and SGLang's
// kv_cache_dtype "auto" is the model's dtype) and 32 for fp32. TensorRT-LLM at FP8 serves NVIDIA's ModelOpt FP8
// checkpoints (and their NVFP4 ones at fp4), whose hf_quant_config.json sets kv_cache_quant_algo FP8: the cache is FP8
// too (trtllm-bench sizes its batch from that algorithm's bytes, bench/build/tuning.py). An MXFP4 checkpoint
// (gpt-oss) sets none: 16 bits unless told (the perf overview's `kv_cache_config: dtype: fp8` on Blackwell).
Precision Workload::effective_kv_precision() const {
  if (kv_precision) return *kv_precision;
  if ((precision == Precision::fp8 || precision == Precision::fp4) && effective_framework() == Framework::trtllm && !mxfp4_checkpoint) return Precision::fp8;
  return precision == Precision::fp32 || precision == Precision::tf32 ? Precision::fp32 : Precision::fp16;
}

std::optional<double> Workload::job_tokens(std::int64_t seq) const {
  if (tokens) return tokens;
  if (dataset_tokens) return *dataset_tokens * epochs.value_or(1.0);
  if (steps) return static_cast<double>(*steps) * static_cast<double>(batch) * static_cast<double>(grad_accum) *
                    static_cast<double>(seq) * static_cast<double>(data_parallel());
  return std::nullopt;
}

const std::vector<std::string>& workload_keys() {
  static const std::vector<std::string> keys{
      "name", "model", "mode", "precision", "kv_precision", "double_quant", "master_weights", "grad_dtype", "optimizer", "batch",
      "seq_len", "image_size", "gradient_checkpointing", "recompute_modules", "flash_attention", "compile", "channels_last", "cache_latents", "vae_tiling", "lora_rank", "lora_targets", "gpus",
      "sharding", "tp", "pp", "virtual_stages", "gpu_layers", "ep", "cp", "nodes", "grad_accum", "global_batch", "allow_quantization", "rope_scaling", "framework", "offload", "gpu_memory_utilization", "gpu", "tokens", "requests",
      "input_tokens", "output_tokens", "concurrency", "dataset_tokens", "epochs", "steps", "diffusion_steps", "text_tokens", "images", "mfu", "setup_hours",
      "storage_usd", "egress_usd", "checkpoint_every", "owned", "amortize_years", "utilization", "power_price", "streams", "fps",
      "resolution", "codec", "infer_every", "max_latency_ms", "tracker", "image_decode", "classes", "max_ttft_ms", "max_tpot_ms", "disaggregate", "attention_dp", "ep_overlap", "full_cuda_graph"};
  return keys;
}

Workload build_workload(const RawWorkload& raw) { return build_workload(RawWorkload(raw)); }

namespace {
// The given fields of one workload, by key (nullptr when not given).
struct Fields {
  const RawWorkload& raw;
  const RawValue* get(const std::string& key) const {
    auto it = raw.find(key);
    return it == raw.end() ? nullptr : &it->second;
  }
};

// The model and how it runs: mode, precisions, optimizer, batch, sequence, image size, memory savers, LoRA.
void read_model_fields(Workload& w, const Fields& f) {
  if (auto* v = f.get("name")) w.name = v->value;
  if (auto* v = f.get("model")) {
    if (v->value.empty()) throw InputError(v->origin + ": expected a model (a size such as 7B, a preset id, or a config.json path)");
    w.model = v->value;
  }
  if (auto* v = f.get("mode")) w.mode = parse_enum(k_modes, *v, {{"training", Mode::train}, {"infer", Mode::inference}, {"full", Mode::finetune}});
  if (auto* v = f.get("precision")) w.precision = parse_enum(k_precisions, *v, {{"float32", Precision::fp32}, {"float16", Precision::fp16}, {"bfloat16", Precision::bf16}, {"awq", Precision::int4}, {"gptq", Precision::int4}});
  if (auto* v = f.get("kv_precision")) w.kv_precision = parse_enum(k_precisions, *v);
  if (auto* v = f.get("double_quant")) w.double_quant = parse_bool(*v);
  if (auto* v = f.get("master_weights")) w.master_weights = parse_enum(k_master, *v);
  if (auto* v = f.get("grad_dtype")) w.grad_dtype = parse_enum(k_grad_dtypes, *v);
  if (auto* v = f.get("optimizer")) w.optimizer = parse_enum(k_optimizers, *v, {{"adam", Optimizer::adamw}, {"adamw_8bit", Optimizer::adamw_8bit}, {"adam8bit", Optimizer::adamw_8bit}, {"sgd_momentum", Optimizer::sgd_momentum}});
  if (auto* v = f.get("batch")) {
    w.batch = parse_positive_int(*v, k_max_batch);
    w.batch_given = true;
  }
  if (auto* v = f.get("seq_len")) w.seq_len = parse_positive_int(*v, k_max_seq_len, "", true);  // 4k = 4,096 tokens
  if (auto* v = f.get("image_size")) {
    const std::string s = lower(v->value);
    const auto x = s.find('x');
    const RawValue a{x == std::string::npos ? s : s.substr(0, x), v->origin};
    const RawValue b{x == std::string::npos ? s : s.substr(x + 1), v->origin};
    w.image_width = parse_positive_int(a, k_max_pixels, "pixels as N or WxH (e.g. 224 or 1333x800)");
    w.image_height = parse_positive_int(b, k_max_pixels, "pixels as N or WxH (e.g. 224 or 1333x800)");
  }
  if (auto* v = f.get("gradient_checkpointing")) {
    const std::string s = lower(v->value);
    if (s == "true" || s.empty()) w.checkpointing = Checkpointing::full;
    else if (s == "false") w.checkpointing = Checkpointing::none;
    else w.checkpointing = parse_enum(k_ckpt, *v);
    w.checkpointing_given = true;
  }
  if (auto* v = f.get("recompute_modules")) apply_recompute_modules(w, *v);  // implies --gradient-checkpointing selective
  // The switches, each "true" or "false".
  static constexpr std::pair<const char*, bool Workload::*> switches[] = {
      {"flash_attention", &Workload::flash_attention}, {"compile", &Workload::compile}, {"cache_latents", &Workload::cache_latents},
      {"vae_tiling", &Workload::vae_tiling}, {"allow_quantization", &Workload::allow_quantization},
      {"rope_scaling", &Workload::rope_scaling}, {"disaggregate", &Workload::disaggregate}, {"attention_dp", &Workload::attention_dp},
      {"ep_overlap", &Workload::ep_overlap}, {"full_cuda_graph", &Workload::full_cuda_graph}};
  for (const auto& [key, field] : switches)
    if (auto* v = f.get(key)) w.*field = parse_bool(*v);
  if (auto* v = f.get("channels_last")) w.channels_last = parse_bool(*v);
  if (auto* v = f.get("lora_rank")) w.lora_rank = parse_positive_int(*v, 65536);
  if (auto* v = f.get("lora_targets")) w.lora_targets = parse_lora_targets(*v);
}

// Where it runs: GPU count and layout, framework, offload, the engine's memory share, the GPU asked for.
void read_layout_fields(Workload& w, const Fields& f) {
  if (auto* v = f.get("gpus")) w.gpus = parse_positive_int(*v, k_max_gpus);
  if (auto* v = f.get("sharding")) w.sharding = parse_enum(k_sharding, *v, {{"fsdp", Sharding::zero3}, {"zero-1", Sharding::zero1}, {"zero-2", Sharding::zero2}, {"zero-3", Sharding::zero3}, {"0", Sharding::none}, {"1", Sharding::zero1}, {"2", Sharding::zero2}, {"3", Sharding::zero3}});
  if (auto* v = f.get("tp")) w.tp = parse_positive_int(*v, k_max_degree);
  if (auto* v = f.get("pp")) w.pp = parse_positive_int(*v, k_max_degree);
  if (auto* v = f.get("virtual_stages")) w.virtual_stages = parse_positive_int(*v, k_max_degree);
  if (auto* v = f.get("gpu_layers")) w.gpu_layers = parse_positive_int(*v, k_max_degree);
  if (auto* v = f.get("nodes")) w.nodes = parse_positive_int(*v, k_max_gpus);
  if (auto* v = f.get("ep")) w.ep = parse_positive_int(*v, k_max_degree);
  if (auto* v = f.get("cp")) w.cp = parse_positive_int(*v, k_max_degree);
  if (auto* v = f.get("grad_accum")) w.grad_accum = parse_positive_int(*v, k_max_batch);
  if (auto* v = f.get("global_batch")) read_global_batch(w, *v, k_max_batch * k_max_gpus);  // global_batch.cpp
  if (auto* v = f.get("framework")) w.framework = parse_enum(k_frameworks, *v, {{"transformers", Framework::hf}, {"huggingface", Framework::hf}, {"llama.cpp", Framework::llamacpp}, {"exllamav2", Framework::exllama}, {"mmdetection", Framework::mmdet}, {"deepstream", Framework::tensorrt}, {"tensorrt-llm", Framework::trtllm}, {"trt-llm", Framework::trtllm}});
  if (auto* v = f.get("offload")) w.offload = parse_enum(k_offload, *v, {{"optimizer_params", Offload::optimizer_params}, {"params", Offload::optimizer_params}, {"cpu", Offload::optimizer}});
  if (auto* v = f.get("gpu_memory_utilization")) {
    w.gpu_memory_utilization = parse_fraction(*v);
    w.gpu_memory_utilization_given = true;
  }
  if (auto* v = f.get("gpu")) {
    if (v->value.find_first_not_of(" \t") == std::string::npos)
      throw InputError(v->origin + ": expected a GPU id or name such as h100-sxm-80gb or H100 ('gpuadvise gpus' lists them), got ''");
    w.gpu = lower(v->value);
  }
}

// The job's size and what it costs besides the GPUs (method.md §10).
void read_job_fields(Workload& w, const Fields& f) {
  if (auto* v = f.get("tokens")) w.tokens = parse_count(v->value, v->origin, k_max_job_tokens);
  if (auto* v = f.get("requests")) w.requests = parse_count(v->value, v->origin, 1e15);
  if (auto* v = f.get("input_tokens")) w.input_tokens = parse_count(v->value, v->origin, k_max_seq_len);
  if (auto* v = f.get("output_tokens")) w.output_tokens = parse_count(v->value, v->origin, k_max_seq_len);
  if (auto* v = f.get("concurrency")) {
    const std::int64_t c = parse_positive_int(*v, k_max_batch);
    if (w.batch_given && c != w.batch)
      throw InputError(v->origin + ": for inference --concurrency and --batch both mean the sequences in flight; give one");
    w.batch = c;
    w.batch_given = true;
  }
  if (auto* v = f.get("dataset_tokens")) w.dataset_tokens = parse_count(v->value, v->origin, k_max_job_tokens);
  if (auto* v = f.get("epochs")) {
    const double e = parse_number(v->value, v->origin, "a positive number of epochs");
    if (!(e > 0 && e <= 1e6)) throw InputError(v->origin + ": expected a number of epochs in (0, 1,000,000], got '" + v->value + "'");
    w.epochs = e;
  }
  if (w.dataset_tokens && w.epochs) {  // the product is a job size too: within --tokens' own range
    const double total = *w.dataset_tokens * *w.epochs;
    if (!(total >= 1 && total <= k_max_job_tokens))
      throw InputError(f.get("epochs")->origin + ": dataset tokens x epochs = " + fmt::format("{:.3g}", total) + " tokens, outside a job's 1 to " +
                       fmt_limit(k_max_job_tokens));
  }
  if (auto* v = f.get("steps")) w.steps = parse_positive_int(*v, 1e12);
  if (auto* v = f.get("diffusion_steps")) {  // an image-generation pipeline's denoising steps, held where --steps holds them
    if (w.steps) throw InputError(v->origin + ": give the denoising steps once: --diffusion-steps (or --steps)");
    w.steps = parse_positive_int(*v, 10000);
  }
  if (auto* v = f.get("text_tokens")) w.text_tokens = parse_positive_int(*v, 1e6);  // the pipeline's limit is checked with the model
  if (auto* v = f.get("images")) w.images = parse_count(v->value, v->origin, 1e12);
  auto non_negative = [&](const char* key, const char* what) -> std::optional<double> {
    const RawValue* v = f.get(key);
    if (!v) return std::nullopt;
    const double x = parse_number(v->value, v->origin, what);
    if (x < 0 || x > 1e12) throw InputError(v->origin + ": expected " + std::string(what) + " (at most 1e12), got '" + v->value + "'");
    return x;
  };
  if (auto* v = f.get("setup_hours")) w.setup_hours = v->value == "0" ? 0.0 : parse_duration(v->value, v->origin) / 3600.0;  // 0.5, 30m, 1h30m
  if (auto x = non_negative("storage_usd", "a cost in USD >= 0")) w.storage_usd = *x;
  if (auto x = non_negative("egress_usd", "a cost in USD >= 0")) w.egress_usd = *x;
  if (auto* v = f.get("checkpoint_every")) w.checkpoint_every_hours = parse_duration(v->value, v->origin) / 3600.0;
  if (auto* v = f.get("owned")) w.owned = parse_bool(*v);
  if (auto* v = f.get("amortize_years")) {
    const double y = parse_number(v->value, v->origin, "years from 0.01 to 100");
    if (!(y >= 0.01 && y <= 100)) throw InputError(v->origin + ": expected years from 0.01 to 100, got '" + v->value + "'");
    w.amortize_years = y;
  }
  if (auto* v = f.get("utilization")) w.utilization = parse_fraction(*v);
  if (auto x = non_negative("power_price", "USD per kWh >= 0")) w.power_usd_per_kwh = *x;
  if (w.tokens && (w.dataset_tokens || w.steps))
    throw InputError(f.get("tokens")->origin + ": give the job size once: --tokens, or --dataset-tokens with --epochs, or --steps");
  if (w.dataset_tokens && w.steps)
    throw InputError(f.get("steps")->origin + ": give the job size once: --dataset-tokens with --epochs, or --steps");
}

// Video pipelines, serving targets and a given utilisation.
void read_video_and_serving_fields(Workload& w, const Fields& f) {
  if (auto* v = f.get("streams")) w.streams = parse_positive_int(*v, 100000);
  if (auto* v = f.get("fps")) {
    const double fps = parse_number(v->value, v->origin, "frames per second from 0.01 to 1000");
    if (!(fps >= 0.01 && fps <= 1000)) throw InputError(v->origin + ": expected frames per second from 0.01 to 1000, got '" + v->value + "'");
    w.fps = fps;
  }
  if (auto* v = f.get("resolution")) {
    const std::string r = lower(v->value);
    if (r == "720p") w.video_width = 1280, w.video_height = 720;
    else if (r == "1080p") w.video_width = 1920, w.video_height = 1080;
    else if (r == "1440p") w.video_width = 2560, w.video_height = 1440;
    else if (r == "4k" || r == "2160p") w.video_width = 3840, w.video_height = 2160;
    else {
      const auto x = r.find('x');
      if (x == std::string::npos) throw InputError(v->origin + ": unknown resolution '" + v->value + "' (valid: 720p, 1080p, 1440p, 4k, or WxH)");
      w.video_width = parse_positive_int(RawValue{r.substr(0, x), v->origin}, 16384, "a resolution: 720p, 1080p, 1440p, 4k, or WxH");
      w.video_height = parse_positive_int(RawValue{r.substr(x + 1), v->origin}, 16384, "a resolution: 720p, 1080p, 1440p, 4k, or WxH");
    }
  }
  // A named choice from its list (case-insensitive), or a line naming the valid ones.
  auto choice = [&](const char* key, const char* what, const std::vector<std::string>& valid, std::string& into) {
    if (const auto* v = f.get(key)) {
      const std::string c = lower(v->value);
      if (std::find(valid.begin(), valid.end(), c) == valid.end())
        throw InputError(v->origin + ": unknown " + what + " '" + v->value + "' (valid: " + join(valid, ", ") + ")");
      into = c;
    }
  };
  choice("codec", "codec", k_codecs, w.codec);
  if (auto* v = f.get("infer_every")) w.infer_every = parse_positive_int(*v, 10000);
  if (auto* v = f.get("classes")) w.classes = parse_positive_int(*v, 1000000);
  choice("tracker", "tracker", k_trackers, w.tracker);
  choice("image_decode", "image decode", k_image_decodes, w.image_decode);
  for (const char* key : {"max_ttft_ms", "max_tpot_ms"})
    if (auto* v = f.get(key)) {
      const double l = parse_number(v->value, v->origin, "milliseconds in (0, 10,000,000]");
      if (!(l > 0 && l <= 1e7)) throw InputError(v->origin + ": expected milliseconds in (0, 10,000,000], got '" + v->value + "'");
      (std::string(key) == "max_ttft_ms" ? w.max_ttft_ms : w.max_tpot_ms) = l;
    }
  if ((w.max_ttft_ms || w.max_tpot_ms) && w.mode != Mode::inference) {
    const auto* v = f.get("max_ttft_ms") ? f.get("max_ttft_ms") : f.get("max_tpot_ms");
    throw InputError(v->origin + ": serving latency targets apply to --mode inference");
  }
  if (auto* v = f.get("max_latency_ms")) {
    const double l = parse_number(v->value, v->origin, "milliseconds > 0");
    if (!(l > 0 && l <= 1e7)) throw InputError(v->origin + ": expected milliseconds in (0, 10,000,000], got '" + v->value + "'");
    w.max_latency_ms = l;
  }
  if (w.framework == Framework::tensorrt && is_training(w.mode))
    throw InputError(f.get("framework")->origin + ": tensorrt is an inference engine (valid with --mode inference; for training: pytorch, detectron2, mmdet, ultralytics)");
  if (w.streams && is_training(w.mode)) throw InputError(f.get("streams")->origin + ": video streams are an inference workload (--mode inference)");
  if (auto* v = f.get("mfu")) w.mfu = parse_fraction(*v);
}

// Rules across fields: layouts that divide, steps that fit any accelerator, precisions that suit the mode.
void check_cross_fields(const Workload& w, const Fields& f) {
  if (w.gpus % (w.tp * w.pp) != 0) {
    const auto* g = f.get("gpus") ? f.get("gpus") : f.get("tp") ? f.get("tp") : f.get("pp");
    throw InputError((g ? g->origin : std::string("--gpus")) + ": " + std::to_string(w.gpus) +
                     " GPUs cannot be split into tensor-parallel " + std::to_string(w.tp) + " x pipeline-parallel " +
                     std::to_string(w.pp) + " groups (--gpus must be a multiple of --tp x --pp)");
  }
  if (w.cp > 1) {
    // Context parallelism (Megatron's --context-parallel-size, torchtitan's cp): a training sequence split over cp
    // GPUs in 2·cp chunks (the load-balanced causal split).
    const auto* c = f.get("cp");
    if (!is_training(w.mode)) throw InputError(c->origin + ": context parallelism splits training sequences (--mode train, finetune, lora or qlora)");
    if (w.gpus % (w.tp * w.pp * w.cp) != 0)
      throw InputError(c->origin + ": " + std::to_string(w.gpus) + " GPUs cannot be split into tensor-parallel " + std::to_string(w.tp) + " x pipeline-parallel " +
                       std::to_string(w.pp) + " x context-parallel " + std::to_string(w.cp) + " groups (--gpus must be a multiple of --tp x --pp x --cp)");
    if (w.seq_len && *w.seq_len % (2 * w.cp) != 0)
      throw InputError(c->origin + ": " + std::to_string(w.cp) + " does not split --seq-len " + std::to_string(*w.seq_len) + " into " + std::to_string(2 * w.cp) +
                       " equal chunks (the sequence length must be a multiple of 2 x --cp)");
  }
  // Expert parallelism divides the data-parallel ranks, or, folded over the tensor-parallel ranks too (whole experts
  // per GPU), is a multiple of --tp that divides tp x the ranks that hold the same weights (method.md §3.4).
  const std::int64_t expert_group = w.tp * w.replica_ranks();
  if (w.ep > 1 && w.data_parallel() % w.ep != 0 && !(w.ep % w.tp == 0 && expert_group % w.ep == 0)) {
    const auto* e = f.get("ep");
    throw InputError(e->origin + ": expert parallelism " + std::to_string(w.ep) + " must divide the " + std::to_string(w.data_parallel()) +
                     " data-parallel ranks (--gpus / (--tp x --pp x --cp)), or, folded over tensor parallel, be a multiple of --tp " + std::to_string(w.tp) +
                     " that divides " + std::to_string(expert_group) + " (--gpus / --pp)");
  }
  // Tokens in flight per step: beyond 2^34 (17 billion) no accelerator holds even the activations.
  if (w.seq_len && static_cast<double>(w.batch) * static_cast<double>(*w.seq_len) > 17179869184.0) {
    const auto* b = f.get("batch") ? f.get("batch") : f.get("concurrency") ? f.get("concurrency") : f.get("seq_len");
    throw InputError(b->origin + ": batch x seq-len = " + fmt_limit(static_cast<double>(w.batch) * static_cast<double>(*w.seq_len)) +
                     " tokens per step is beyond any job (at most 17,179,869,184)");
  }
  if (w.nodes > 1 && w.gpus % w.nodes != 0) {
    const auto* n = f.get("nodes");
    throw InputError(n->origin + ": " + std::to_string(w.gpus) + " GPUs cannot be spread evenly over " + std::to_string(w.nodes) +
                     " nodes (--gpus must be a multiple of --nodes)");
  }
  if (w.nodes > 1 && w.tp > w.gpus / w.nodes) {
    const auto* t = f.get("tp");
    throw InputError((t ? t->origin : std::string("--tp")) + ": tensor parallelism stays inside a node; " + std::to_string(w.tp) +
                     " exceeds the " + std::to_string(w.gpus / w.nodes) + " GPUs of each node");
  }
  if (const auto* gb = f.get("global_batch"); gb && (f.get("grad_accum") || !is_training(w.mode)))
    throw InputError(gb->origin + (is_training(w.mode) ? ": give --global-batch or --grad-accum, not both (each layout's accumulation reaches the global batch)"
                                                       : ": a global batch is for training modes (train, finetune, lora, qlora)"));
  if (w.mode == Mode::qlora && is_weight_only_quant(w.precision) && w.precision != Precision::nf4) {
    throw InputError(f.get("precision")->origin + ": for --mode qlora the precision is the compute precision (bf16, fp16 or fp32); the base is NF4 by definition");
  }
  if (is_training(w.mode) && w.mode != Mode::qlora && (is_weight_only_quant(w.precision))) {
    throw InputError(f.get("precision")->origin + ": " + to_string(w.precision) + " is a weight-only inference format; training modes take fp32, tf32, fp16, bf16 or fp8 (use --mode qlora for a 4-bit base)");
  }
}
}  // namespace

Workload build_workload(RawWorkload&& given) {
  // The input stays with the workload (where each setting came from, for errors found later against the model).
  auto shared = std::make_shared<const RawWorkload>(std::move(given));
  const RawWorkload& raw = *shared;
  Workload w;
  const auto& keys = workload_keys();
  for (const auto& [key, value] : raw) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      std::string hint = did_you_mean(key, keys);
      throw InputError(value.origin + ": unknown field '" + key + "' (valid: " + join(keys, ", ") + ")" +
                       (hint.empty() ? "" : "; " + hint));
    }
  }
  w.origins = shared;
  const Fields f{raw};
  read_model_fields(w, f);
  read_layout_fields(w, f);
  read_job_fields(w, f);
  read_video_and_serving_fields(w, f);
  // llama.cpp spreads a model over its GPUs by layers (--split-mode layer, its default): --gpus N alone is that
  // split, one stage a card, as the ranking plans it (layout_space.hpp); --tp asks for its row split.
  if (w.mode == Mode::inference && w.gpus > 1 && !f.get("tp") && !f.get("pp") && !f.get("nodes") &&
      (w.effective_framework() == Framework::llamacpp || is_gguf(w.precision)))
    w.pp = w.gpus;
  check_cross_fields(w, f);
  return w;
}

}  // namespace gpuadvise
