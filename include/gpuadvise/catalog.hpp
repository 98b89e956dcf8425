#pragma once
// Reading the bundled catalogues, Hugging Face config.json files and workload files: strings in, typed
// values out, every problem an InputError naming the entry and the field. No file access here.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/cost.hpp"
#include "gpuadvise/gpu.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

GpuCatalog parse_gpu_catalog(std::string_view text, const std::string& origin);
// The CPU instances offered beside the GPUs for small jobs (data/cpus.json: "cpus", each a device record of the
// GPU schema whose software stack is "cpu"; method.md §16).
GpuCatalog parse_cpu_catalog(std::string_view text, const std::string& origin);

struct ModelCatalog {
  std::vector<ModelSpec> models;
  const ModelSpec* find(const std::string& id) const;
  std::vector<std::string> ids() const;
};
ModelCatalog parse_model_catalog(std::string_view text, const std::string& origin);

// A Hugging Face config.json of a supported model_type (Llama-style, DeepSeek, GPT-style, BERT and T5 families; the
// errors list them all, from one list in hf_config.cpp).
ModelSpec parse_hf_config(std::string_view text, const std::string& origin, const std::string& id);

// --model: a bare size ("7B", "350M", "1.5e9"), a preset id, or a path to a config.json that
// `read_file` returns (nullopt when it cannot be read).
ModelSpec resolve_model(const std::string& arg, const ModelCatalog& catalog,
                        const std::function<std::optional<std::string>(const std::string&)>& read_file);

// A workload file: one JSON object or an array of them (snake_case flag names).
std::vector<RawWorkload> parse_workload_file(std::string_view text, const std::string& origin);
// The same, handing each workload to `each` as soon as it is read (nothing is kept: `check` of 10,000 entries).
// An error anywhere in the file still throws, after the workloads before it were handed over.
void for_each_workload(std::string_view text, const std::string& origin, const std::function<void(RawWorkload&&)>& each);

// A prices file: {"GPU id": USD per GPU-hour, ...}.
std::vector<std::pair<std::string, double>> parse_price_file(std::string_view text, const std::string& origin);

// The defaults file (config.json: $GPUADVISE_CONFIG, else $XDG_CONFIG_HOME/gpuadvise/config.json, else
// ~/.config/gpuadvise/config.json): what a flag given on the command line overrides.
struct UserDefaults {
  std::optional<std::string> provider, units, color, price_policy;
  std::optional<double> min_headroom;
  std::optional<std::int64_t> max_gpus;
  std::vector<std::pair<std::string, double>> prices;  // GPU id -> USD per GPU-hour, below --prices and --price
};
UserDefaults parse_defaults_file(std::string_view text, const std::string& origin);

// What a `gpuadvise probe` script measured (docs/method.md §15).
struct ProbeResult {
  std::string estimate_args, gpu_name, unit;
  double max_allocated_bytes = 0, max_reserved_bytes = 0, device_used_bytes = 0, step_seconds = 0, per_second = 0;
};
ProbeResult parse_probe_result(std::string_view text, const std::string& origin);
// The calibration file `gpuadvise calibrate --save` writes and every later answer reads.
std::vector<LocalCorrection> parse_calibration(std::string_view text, const std::string& origin);
std::string calibration_json(const std::vector<LocalCorrection>& corrections);

// The bundled data, embedded at build time.
std::string_view bundled_gpu_catalog();
std::string_view bundled_cpu_catalog();
std::string_view bundled_model_catalog();

}  // namespace gpuadvise
