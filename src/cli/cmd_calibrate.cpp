// `gpuadvise probe` writes a PyTorch script that measures a workload; `gpuadvise calibrate` compares what it
// measured with the estimate and keeps the correction.
#include <algorithm>
#include <cmath>
#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <fmt/format.h>

#include "app.hpp"
#include "commands.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/escape.hpp"
#include "gpuadvise/planning.hpp"
#include "gpuadvise/probe.hpp"
#include "gpuadvise/ranking.hpp"
#include "gpuadvise/report.hpp"

namespace gpuadvise::cli {

namespace {

// A workload key as its flag: "seq_len" -> "--seq-len" (flash_attention is written as --no-flash-attention).
std::string workload_flag(const std::string& key) {
  std::string flag = "--" + key;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

// The estimate a probe result names, as the words to run: workload flags only (a result file from another
// machine must not turn into --help, -q, --catalog or --format), each given once, values as shell words.
std::vector<std::string> estimate_words(const ProbeResult& pr, const std::string& origin) {
  const auto words = split_shell_words(pr.estimate_args);
  if (!words) throw UserError{2, origin + ".estimate_args: an unclosed quote; expected the flags a probe script carries"};
  std::vector<std::string> flags{"--no-flash-attention"};
  for (const std::string& key : workload_keys()) flags.push_back(workload_flag(key));
  std::vector<std::string> seen;
  for (const auto& word : *words) {
    if (word.empty() || word[0] != '-') continue;  // a value
    if (std::find(flags.begin(), flags.end(), word) == flags.end())
      throw UserError{2, origin + ".estimate_args: " + quote_input(word) + " is not a workload flag (a probe's result carries only the workload's flags: " +
                             "--model, --mode, --batch, ...)"};
    if (std::find(seen.begin(), seen.end(), word) != seen.end()) throw UserError{2, origin + ".estimate_args: " + word + " appears twice"};
    seen.push_back(word);
  }
  if (std::find(seen.begin(), seen.end(), "--model") == seen.end()) throw UserError{2, origin + ".estimate_args: expected --model among the flags"};
  return *words;
}

// The corrections file with this one merged in: an entry for the same GPU, framework and kind is replaced and
// named; the old file is kept as FILE.bak; nothing is written before the new text is complete.
void save_correction(const std::string& path, LocalCorrection k, const CommandContext& ctx) {
  std::vector<LocalCorrection> all = load_corrections(path);
  std::vector<LocalCorrection> replaced;
  std::erase_if(all, [&](const LocalCorrection& old) {
    const bool same = old.gpu == k.gpu && old.framework == k.framework && old.training == k.training;
    if (same) replaced.push_back(old);
    return same;
  });
  const std::time_t now = std::time(nullptr);
  char day[16];
  std::strftime(day, sizeof day, "%Y-%m-%d", std::gmtime(&now));
  k.saved = day;
  all.push_back(k);
  const std::string text = calibration_json(all);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (std::filesystem::exists(path, ec)) std::filesystem::copy_file(path, path + ".bak", std::filesystem::copy_options::overwrite_existing, ec);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << text;
    f.flush();
    if (!f) throw UserError{2, "calibrate --save: cannot write '" + tmp + "'"};
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw UserError{2, "calibrate --save: cannot replace '" + path + "': " + ec.message()};
  for (const auto& old : replaced)
    (*ctx.out_ptr) << fmt::format("replaced the correction for {} with {} ({}) of {} from {}: memory x{:.3f}, throughput x{:.3f} (kept in {}.bak)\n", old.gpu,
                                  old.framework, old.training ? "training" : "inference", old.saved.empty() ? "an earlier day" : old.saved,
                                  old.source.empty() ? "an earlier probe" : printable(old.source), old.memory_factor, old.speed_factor, path);
  (*ctx.out_ptr) << "saved to " << path << ": later answers like this one on " << k.gpu << " with " << k.framework
                 << " are corrected and say so, others on it say why not; gpuadvise calibrate --reset removes it\n";
}

}  // namespace

int run_calibrate(const CalibrateFlags& flags, const CommandContext& ctx) {
  check_format(ctx.of.format);
  const std::string path = calibration_path();
  if (flags.cal_file.empty() && !flags.cal_reset) throw UserError{2, "calibrate: give the probe's result file (probe_result.json), or --reset"};
  // Everything is read and checked before anything is written or removed.
  std::optional<CalibrationView> view;
  if (!flags.cal_file.empty()) {
    auto text = read_file(flags.cal_file, ctx.in, "calibrate");
    if (!text) throw UserError{2, "calibrate: cannot read '" + printable(flags.cal_file) + "'"};
    const std::string origin = flags.cal_file == "-" ? "stdin" : flags.cal_file;
    const ProbeResult pr = parse_probe_result(*text, origin);
    const GpuCatalog cat = load_gpus(ctx.of, ctx.in);
    const GpuSpec* g = flags.cal_gpu.empty() ? cat.resolve(pr.gpu_name) : &gpu_for(flags.cal_gpu, cat);
    if (!g) throw UserError{2, origin + ".gpu_name: " + quote_input(pr.gpu_name) + " is not in the catalogue; name it with --gpu ID (gpuadvise gpus lists them)"};
    // The estimate the probe checked, on the GPU it ran on, without earlier corrections of this GPU.
    std::vector<std::string> args{"gpuadvise", "estimate"};
    for (auto& word : estimate_words(pr, origin)) args.push_back(std::move(word));
    for (const char* extra : {"--gpu", g->id.c_str(), "--format", "json"}) args.push_back(extra);
    std::vector<const char*> argv2;
    for (const auto& a : args) argv2.push_back(a.c_str());
    std::ostringstream est_out, est_err;
    const char* saved_env = std::getenv("GPUADVISE_CALIBRATION");
    const std::string saved_value = saved_env ? saved_env : "";
    setenv("GPUADVISE_CALIBRATION", "/nonexistent/gpuadvise-calibration.json", 1);
    const int rc = run(static_cast<int>(argv2.size()), argv2.data(), ctx.in, est_out, est_err);
    if (saved_env) setenv("GPUADVISE_CALIBRATION", saved_value.c_str(), 1);
    else unsetenv("GPUADVISE_CALIBRATION");
    if (rc != 0) throw UserError{2, origin + ".estimate_args: the estimate does not run: " + est_err.str()};
    view = calibration_view(est_out.str(), pr, *g);
  }
  if (flags.cal_reset) {
    std::error_code ec;
    const bool removed = !path.empty() && std::filesystem::remove(path, ec);
    (*ctx.out_ptr) << (removed ? "removed the calibration file " + path + "\n" : "no calibration file at " + (path.empty() ? "(no home)" : path) + "\n");
  }
  if (!view) return 0;
  const CalibrationView& v = *view;
  (*ctx.out_ptr) << (ctx.of.format == "json" ? calibration_view_json(v) : ctx.of.format == "csv" ? calibration_view_csv(v)
                 : ctx.md() ? calibration_view_markdown(v, ctx.style) : calibration_view_table(v, ctx.style));
  if (flags.cal_save) {
    if (path.empty()) throw UserError{2, "calibrate --save: no place for the calibration file (set GPUADVISE_CALIBRATION or HOME)"};
    LocalCorrection k = v.correction;
    k.source = flags.cal_file;
    save_correction(path, k, ctx);
  }
  return 0;
}

int run_probe(const ProbeFlags& flags, const CommandContext& ctx) {
  const int steps = static_cast<int>(flag_number(flags.prb_steps, "--probe-steps", "an integer from 1 to 1,000", 1, 1000, true));
  RawWorkload raw = one_workload(flags.prb_wf, ctx.in, "probe");
  const Workload w = build_workload(raw);
  const ModelSpec model = model_for(w, ctx.in);
  // The estimate the script checks, as flags (in the order given) so it can be run again.
  std::string args;
  for (const auto& [key, value] : raw) {
    if (key == "flash_attention") {
      if (value.value == "false") args += (args.empty() ? "" : " ") + std::string("--no-flash-attention");
      continue;
    }
    args += (args.empty() ? "" : " ") + workload_flag(key);
    if (value.value != "true") args += " " + shell_word(value.value);  // a shell word: the line runs as it reads
  }
  (*ctx.out_ptr) << probe_script(w, model, estimate_memory(w, model, nullptr), args, steps);
  return 0;
}

}  // namespace gpuadvise::cli
