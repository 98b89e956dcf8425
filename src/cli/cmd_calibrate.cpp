// `gpuadvise probe` writes a PyTorch script that measures a workload; `gpuadvise calibrate` compares what it
// measured with the estimate and keeps the correction.
#include <algorithm>
#include <cmath>
#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "app.hpp"
#include "commands.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/planning.hpp"
#include "gpuadvise/probe.hpp"
#include "gpuadvise/ranking.hpp"
#include "gpuadvise/report.hpp"

namespace gpuadvise::cli {

int run_calibrate(const CalibrateFlags& flags, const CommandContext& ctx) {
  check_format(ctx.of.format);
  const std::string path = calibration_path();
  if (flags.cal_reset) {
    std::error_code ec;
    const bool removed = !path.empty() && std::filesystem::remove(path, ec);
    (*ctx.out_ptr) << (removed ? "removed the calibration file " + path + "\n" : "no calibration file at " + (path.empty() ? "(no home)" : path) + "\n");
    if (flags.cal_file.empty()) return 0;
  }
  if (flags.cal_file.empty()) throw UserError{2, "calibrate: give the probe's result file (probe_result.json), or --reset"};
  auto text = read_file(flags.cal_file, ctx.in);
  if (!text) throw UserError{2, "calibrate: cannot read '" + flags.cal_file + "'"};
  const ProbeResult pr = parse_probe_result(*text, flags.cal_file == "-" ? "stdin" : flags.cal_file);
  const GpuCatalog cat = load_gpus(ctx.of, ctx.in);
  const GpuSpec* g = flags.cal_gpu.empty() ? cat.resolve(pr.gpu_name) : &gpu_for(flags.cal_gpu, cat);
  if (!g) throw UserError{2, flags.cal_file + ".gpu_name: '" + pr.gpu_name + "' is not in the catalogue; name it with --gpu ID (gpuadvise gpus lists them)"};
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
  const int rc = run(static_cast<int>(argv2.size()), argv2.data(), ctx.in, est_out, est_err);
  if (saved_env) setenv("GPUADVISE_CALIBRATION", saved_value.c_str(), 1);
  else unsetenv("GPUADVISE_CALIBRATION");
  if (rc != 0) throw UserError{2, flags.cal_file + ".estimate_args: the estimate does not run: " + est_err.str()};
  const CalibrationView v = calibration_view(est_out.str(), pr, *g);
  (*ctx.out_ptr) << (ctx.of.format == "json" ? calibration_view_json(v) : ctx.of.format == "csv" ? calibration_view_csv(v)
                 : ctx.md() ? fenced_markdown("calibration", calibration_view_table(v, ctx.style)) : calibration_view_table(v, ctx.style));
  if (flags.cal_save) {
    if (path.empty()) throw UserError{2, "calibrate --save: no place for the calibration file (set GPUADVISE_CALIBRATION or HOME)"};
    std::vector<LocalCorrection> all = load_corrections(path);
    all.erase(std::remove_if(all.begin(), all.end(), [&](const LocalCorrection& k) {
                return k.gpu == v.correction.gpu && k.framework == v.correction.framework && k.training == v.correction.training;
              }), all.end());
    LocalCorrection k = v.correction;
    k.source = flags.cal_file;
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
    (*ctx.out_ptr) << "saved to " << path << ": later answers on " << k.gpu << " with " << k.framework << " say so; gpuadvise calibrate --reset removes it\n";
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
    std::string flag = "--" + key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (key == "flash_attention") {
      if (value.value == "false") args += (args.empty() ? "" : " ") + std::string("--no-flash-attention");
      continue;
    }
    args += (args.empty() ? "" : " ") + flag;
    if (value.value != "true") args += " " + value.value;
  }
  (*ctx.out_ptr) << probe_script(w, model, estimate_memory(w, model, nullptr), args, steps);
  return 0;
}

}  // namespace gpuadvise::cli
