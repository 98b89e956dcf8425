#pragma once
#include <nlohmann/json.hpp>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "app.hpp"
#include "gpuadvise/catalog.hpp"

namespace test {

struct Run {
  int code = 0;
  std::string out, err;
  nlohmann::json json() const { return nlohmann::json::parse(out); }
};

inline Run run(std::vector<std::string> args, const std::string& stdin_text = "") {
  args.insert(args.begin(), "gpuadvise");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  Run r;
  r.code = gpuadvise::cli::run(static_cast<int>(argv.size()), argv.data(), in, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

inline const gpuadvise::ModelCatalog& models() {
  static const auto cat = gpuadvise::parse_model_catalog(gpuadvise::bundled_model_catalog(), "bundled");
  return cat;
}

inline const gpuadvise::GpuCatalog& gpus() {
  static const auto cat = gpuadvise::parse_gpu_catalog(gpuadvise::bundled_gpu_catalog(), "bundled");
  return cat;
}

inline gpuadvise::ModelSpec model(const std::string& id) {
  const auto* m = models().find(id);
  if (!m) throw std::invalid_argument("no bundled preset '" + id + "'");  // a failure the test names, not a crash
  return *m;
}

// A workload from snake_case key/value pairs, as a workload file would give them.
inline gpuadvise::Workload wl(std::initializer_list<std::pair<const char*, std::string>> kv) {
  gpuadvise::RawWorkload raw;
  for (const auto& [k, v] : kv) raw[k] = gpuadvise::RawValue{v, std::string("--") + k};
  return gpuadvise::build_workload(raw);
}

// |error| at the median and the 90th percentile (nearest rank, as scripts/accuracy.py reports them in docs/accuracy.md).
inline std::pair<double, double> median_p90(std::vector<double> errs) {
  if (errs.empty()) throw std::invalid_argument("median_p90 of no errors");
  for (auto& e : errs) e = std::abs(e);
  std::sort(errs.begin(), errs.end());
  const std::size_t n = errs.size();
  const double median = n % 2 ? errs[n / 2] : (errs[n / 2 - 1] + errs[n / 2]) / 2.0;
  return {median, errs[static_cast<std::size_t>(std::lround(0.9 * static_cast<double>(n - 1)))]};
}

// One case of a tests/data file (id, args, compare, measured or measured_bytes) through `estimate`: the
// estimate of the compared key (a time.* key, else the tensor peak) over the measurement, minus one.
inline double case_error(const nlohmann::json& c, const Run& r) {
  const std::string compare = c["compare"].get<std::string>();
  const bool time = compare.rfind("time.", 0) == 0;
  const double est = time ? r.json()["time"][compare.substr(5)].get<double>() : r.json()["memory"]["tensor_peak_bytes"].get<double>();
  return est / (time ? c["measured"].get<double>() : c["measured_bytes"].get<double>()) - 1.0;
}

inline Run run_case(const nlohmann::json& c) {
  std::vector<std::string> args{"estimate"};
  for (const auto& a : c["args"]) args.push_back(a.get<std::string>());
  args.push_back("--format");
  args.push_back("json");
  return run(args);
}

// Every case of tests/data/FILE: the case and its error (case_error), in file order.
inline std::vector<std::pair<nlohmann::json, double>> data_case_errors(const std::string& file) {
  std::ifstream in(std::string(GPUADVISE_SOURCE_DIR) + "/tests/data/" + file);
  if (!in.good()) throw std::runtime_error("tests/data/" + file + " is missing");
  std::vector<std::pair<nlohmann::json, double>> out;
  std::string line;
  while (std::getline(in, line)) {
    const auto c = nlohmann::json::parse(line);
    const auto r = run_case(c);
    if (r.code != 0) throw std::runtime_error(c["id"].get<std::string>() + ": exit " + std::to_string(r.code) + ": " + r.err);
    out.emplace_back(c, case_error(c, r));
  }
  return out;
}

// A command's JSON output (exit 0 required).
inline nlohmann::json run_json(std::vector<std::string> args) {
  args.push_back("--format");
  args.push_back("json");
  const auto r = run(args);
  if (r.code != 0) throw std::runtime_error("exit " + std::to_string(r.code) + ": " + r.err);
  return r.json();
}

// The planner's own pick, fastest first, for a Megatron FP8 pre-training of `seq_len` tokens a sequence: the ranking's
// first row (the picks compared with published runs, tests/test_moe_picks.cpp and tests/test_dense_picks.cpp).
inline nlohmann::json own_pick(const std::string& seq_len, const std::vector<std::string>& extra) {
  std::vector<std::string> args{"--mode", "train", "--framework", "megatron", "--precision", "fp8", "--seq-len", seq_len, "--rank-by", "time"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_json(args)["ranking"][0];
}

// Whether one of a JSON list of notes contains `text`.
inline bool says(const nlohmann::json& notes, const std::string& text) {
  for (const auto& n : notes)
    if (n.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

// A command line: `base` followed by `extra` (a test's fixed job and the flags one check adds).
inline std::vector<std::string> args(std::vector<std::string> base, const std::vector<std::string>& extra) {
  base.insert(base.end(), extra.begin(), extra.end());
  return base;
}

inline std::string fixture(const std::string& rel) { return std::string(GPUADVISE_SOURCE_DIR) + "/tests/fixtures/" + rel; }

// A fused engine's (vLLM, SGLang, TensorRT-LLM) memory-bound bytes per prompt token of a Llama-style decoder
// (method.md §8.2-8.3), by hand: per layer two fused RMSNorms (4 B per element each), the two residual adds fused
// into them (2 each), rotary over the q and k channels (4 per channel) and SwiGLU (6 per intermediate element).
inline double fused_prompt_bytes(const gpuadvise::ModelSpec& m) {
  const double h = static_cast<double>(m.hidden), qk = static_cast<double>((m.heads + m.kv_heads) * m.head_dim);
  return static_cast<double>(m.layers) * (2.0 * 4.0 * h + 2.0 * 2.0 * h + 4.0 * qk + 6.0 * static_cast<double>(m.ffn));
}

}  // namespace test
