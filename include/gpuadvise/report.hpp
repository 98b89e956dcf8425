#pragma once
// Rendering results as JSON, tables and CSV: strings out, no streams.
#include <cstddef>
#include <memory>
#include <string>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/planning.hpp"
#include "gpuadvise/ranking.hpp"

namespace gpuadvise {

inline constexpr int k_schema_version = 1;
const char* tool_version();

// Memory in tables: GB (1e9 bytes, the default) or GiB (2^30 bytes); JSON and CSV always carry bytes.
enum class MemUnits { gb, gib };

struct Style {
  bool color = false;
  bool explain = false;
  bool hints = false;
  // The terminal's width in columns the tables fit (0: no limit, every column in full: pipes and --wide). The
  // ranking drops its least needed columns in a stated order and shortens the layout; ids are never cut.
  int width = 0;
  MemUnits units = MemUnits::gb;
};

std::string estimate_json(const Workload& w, const ModelSpec& m, const Candidate* on_gpu, const MemoryEstimate& mem,
                          const std::string& catalog_version);
std::string estimate_table(const Workload& w, const ModelSpec& m, const Candidate* on_gpu, const MemoryEstimate& mem,
                           const Style& style);

std::string ranking_json(const Workload& w, const ModelSpec& m, const Ranking& r, const std::string& catalog_version);
std::string ranking_table(const Workload& w, const ModelSpec& m, const Ranking& r, const Style& style);
// CSV (report_csv.cpp): one header row; units in the column names; an unknown is an empty field.
std::string ranking_csv(const Ranking& r);
std::string estimate_csv(const Workload& w, const ModelSpec& m, const Candidate* on_gpu, const MemoryEstimate& mem);

// `check`'s output (report_check.cpp), written as the results come: head(), a row() per result, then tail()
// with the count of checks and failures (JSON's verdict follows its results). check_text renders a list whole.
enum class CheckFormat { table, markdown, csv, json };
class CheckWriter {
 public:
  virtual ~CheckWriter() = default;
  virtual std::string head() { return ""; }
  virtual std::string row(const CheckResult& r) = 0;
  virtual std::string tail(std::size_t checks, std::size_t failed) = 0;
};
std::unique_ptr<CheckWriter> check_writer(CheckFormat format, const Style& style, const CheckAssertions& a);
std::string check_text(const std::vector<CheckResult>& results, CheckFormat format, const Style& style, const CheckAssertions& a);
// Markdown for CI comments and notes: real tables for the ranking, an estimate and checks; any other text
// output fenced as a code block.
std::string ranking_markdown(const Workload& w, const ModelSpec& m, const Ranking& r, const Style& style);
std::string estimate_markdown(const Workload& w, const ModelSpec& m, const Candidate* on_gpu, const MemoryEstimate& mem, const Style& style);
// A markdown table cell: pipes escaped, newlines flattened.
std::string markdown_cell(const std::string& s);

// `gpuadvise sweep`: one setting varied over a range, each value evaluated on each GPU asked.
struct SweepPoint {
  double value = 0;
  std::vector<Candidate> per_gpu;  // in the order the GPUs were given
};
struct Sweep {
  std::string vary, metric;        // the flag varied; memory | time | cost
  std::string workload_line;
  std::vector<SweepPoint> points;
  std::vector<std::string> notes;  // what every point shares and a reader would not guess (printed after the table)
};
std::string sweep_table(const Sweep& s, const Style& style);
std::string sweep_markdown(const Sweep& s, const Style& style);
std::string sweep_json(const Sweep& s);
std::string sweep_csv(const Sweep& s);

// `gpuadvise calibrate`: a probe's measurement beside the estimate (its JSON) on the GPU it ran on.
struct CalibrationView {
  ProbeResult probe;
  std::string gpu_id, framework, unit;
  bool training = true;
  double est_tensor_peak = 0, est_device_peak = 0;
  std::optional<double> est_per_second;
  LocalCorrection correction;  // measured / estimated
};
CalibrationView calibration_view(const std::string& estimate_json_text, const ProbeResult& probe, const GpuSpec& g);
std::string calibration_view_table(const CalibrationView& v, const Style& style);
std::string calibration_view_markdown(const CalibrationView& v, const Style& style);
std::string calibration_view_json(const CalibrationView& v);
std::string calibration_view_csv(const CalibrationView& v);
std::string fit_csv(const GpuSpec& g, const FitResult& r);
std::string fit_json(const Workload& w, const ModelSpec& m, const GpuSpec& g, const FitResult& r);
std::string fit_table(const Workload& w, const ModelSpec& m, const GpuSpec& g, const FitResult& r, const Style& style);
std::string fit_markdown(const Workload& w, const ModelSpec& m, const GpuSpec& g, const FitResult& r, const Style& style);

// Text wrapped at spaces to `width` columns (0: as it is), each long line continued under its text: an option's
// description, a "note: " line's note (report_text_table.cpp).
std::string wrap_text(const std::string& text, int width);
std::string gpus_table(const GpuCatalog& cat, const Style& style);
std::string gpus_markdown(const GpuCatalog& cat, const Style& style);
std::string gpus_json(const GpuCatalog& cat);
std::string gpu_detail_table(const GpuSpec& g, const Style& style);
std::string gpu_detail_markdown(const GpuSpec& g, const Style& style);
std::string gpu_json(const GpuSpec& g);
std::string models_table(const ModelCatalog& cat, const Style& style);
std::string models_markdown(const ModelCatalog& cat);
std::string models_json(const ModelCatalog& cat);
std::string gpus_csv(const GpuCatalog& cat);
std::string models_csv(const ModelCatalog& cat);

}  // namespace gpuadvise
