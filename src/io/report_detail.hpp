#pragma once
// Helpers shared by the renderers (report*.cpp); internal to the io layer.
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuadvise/planning.hpp"
#include "gpuadvise/ranking.hpp"
#include "gpuadvise/report.hpp"

namespace gpuadvise::detail {

// Bytes as an integer for JSON and CSV: rounded, and saturated rather than cast out of range (a double beyond
// int64 is undefined to convert; the input ranges keep real outputs far below).
inline std::int64_t bytes_int(double b) {
  if (!(b == b)) return 0;
  if (b >= 9.2e18) return std::numeric_limits<std::int64_t>::max();
  if (b <= -9.2e18) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(std::llround(b));
}

// The metric a sweep draws, per candidate: throughput per GPU of a plan that fits (training tokens, images or
// decode tokens per second).
inline std::optional<double> sweep_rate(const Candidate& c) {
  if (!c.fits) return std::nullopt;
  if (c.time.train_tokens_per_second_per_gpu) return c.time.train_tokens_per_second_per_gpu;
  if (c.time.images_per_second) return c.time.images_per_second;
  return c.time.decode_tokens_per_second;
}

// An images-per-second rate as text: whole images from 10 on, two decimals from 1, three significant digits below
// (a generator at 0.0331 images/s is not "0.00"). report.cpp.
std::string image_rate(double v);

// Memory in the unit of --units (report.cpp): the divisor, its name, and a value with one decimal.
double mem_div(const Style& s);
const char* mem_unit(const Style& s);
std::string gbs(double bytes, const Style& s);
// Text in an ANSI colour when the style has colour; nvidia-smi's MiB.
std::string paint(const Style& s, const std::string& text, const char* code);
std::string mib(double bytes);
// The peak against the usable memory in eight cells, ten characters (report.cpp).
std::string usage_bar(double peak, double capacity);

// The GPUs dropped by --deadline or --budget: those whose closest plan was judged first, nearest to the limit
// first, then those that could not be judged (report_dropped.cpp).
std::vector<const Dropped*> dropped_in_order(const Ranking& r);
// A list command's column (report_text_table.cpp): header, alignment, the priority it keeps under a narrow
// terminal (0: never dropped, the lowest goes first) and whether a long cell may be shortened with '…'.
struct TextColumn {
  std::string header;
  bool right = false;
  int keep = 0;
  bool shortenable = false;
};
// Display columns of a cell (UTF-8 by fmt's widths, colour escapes none), the text without its colour escapes, a
// cell cut to `width` with a '…', and a cell padded to `width` (report_text_table.cpp).
std::size_t width_of(std::string_view s);
std::string without_colour(std::string_view s);
std::string cut(const std::string& text, std::size_t width);
void append_cell(std::string& out, const std::string& text, std::size_t width, bool right);
// As text fitted to `width` columns (0: every column in full) and as a markdown table (pipes escaped).
std::string text_table(const std::vector<TextColumn>& columns, const std::vector<std::vector<std::string>>& rows, int width);
std::string markdown_grid(const std::vector<TextColumn>& columns, const std::vector<std::vector<std::string>>& rows);
// One GPU's entry as labelled fields, its offers (provider, price, seen, source) and sources: what `gpus ID`
// prints as text and as markdown (report_lists.cpp).
struct GpuDetail {
  std::string title;
  std::vector<std::pair<std::string, std::string>> fields;
  std::vector<std::array<std::string, 4>> prices;
  std::vector<std::pair<std::string, std::string>> sources;
  std::vector<std::string> uncertain;
  std::string notes;
};
GpuDetail gpu_detail(const GpuSpec& g, const Style& style);
// The ranking table's header and rows, fitted to style.width (report_rank_table.cpp).
std::string ranking_grid(const Workload& w, const ModelSpec& m, const Ranking& r, const Style& style);
// What a fit's value is the largest of: one that meets the latency targets, runs at once in the engine's pool, or fits.
const char* fit_verb(const FitResult& r);
// The workload in one line: model, size, mode, precision, batch, sequence or image size, framework.
std::string workload_line(const Workload& w, const ModelSpec& m, const MemoryEstimate& mem);

// A sweep's setting value: integers without a decimal point.
std::string sweep_value(double v);

// Notes said once per group (note_groups.cpp): notes (text, GPU id) that differ only in their numbers form one
// group, in the order each group first appears, and each number that varies is shown as its range ("adds 11–32%
// to each micro-batch").
struct NoteGroup {
  std::string text;
  std::vector<std::string_view> gpus;  // views into the notes' GPU ids
};
std::vector<NoteGroup> group_notes(const std::vector<std::pair<std::string, std::string_view>>& notes);
// GPU ids as a list; with `most` > 0, the first `most - 1` then "and N more" past that many.
std::string join_ids(const std::vector<std::string_view>& ids, std::size_t most);

}  // namespace gpuadvise::detail
