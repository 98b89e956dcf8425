// The ranking table's header and rows, fitted to the terminal (docs/cli.md, "Tables"): the columns a ranking has,
// each with a priority; on a terminal narrower than the table the least needed go first, in a stated order, and
// the layout is shortened with '…'; GPU ids are never cut. Pipes and --wide get every column in full.
#include <algorithm>
#include <fmt/format.h>
#include <functional>

#include "gpuadvise/units.hpp"
#include "report_detail.hpp"

namespace gpuadvise::detail {

namespace {
// One cell: its text and, where the row paints it, the colour (painted after padding, so colour never shifts the
// alignment).
struct Cell {
  std::string text;
  const char* color = nullptr;
};

// A column: its header, alignment, the priority it keeps under a narrow terminal (0: never dropped; the lowest
// goes first) and its cell in a row.
struct Column {
  std::string header;
  bool right = true;
  int keep = 0;
  std::function<Cell(const Candidate&, std::size_t)> cell;
  std::size_t width = 0;
  std::size_t source = 0;  // its cells' position in a row, kept when narrower terminals drop the columns before it
};

std::string fixed(double v, int digits) { return fmt::format("{:.{}f}", v, digits); }

const std::string k_dash = "—";

// The columns of this ranking, in display order (method: the rows it has decide which appear).
std::vector<Column> rank_table_columns(const Workload& w, const ModelSpec& m, const Ranking& r, const Style& style) {
  const bool has_time = r.has_job;
  const bool has_vllm = std::any_of(r.rows.begin(), r.rows.end(), [](const Candidate& c) { return c.memory.vllm.has_value(); });
  const bool inference = !is_training(w.mode) && !m.vision, vision = m.vision.has_value();
  const bool video = std::any_of(r.rows.begin(), r.rows.end(), [](const Candidate& c) { return c.video != nullptr; });
  std::string unit;
  for (const auto& c : r.rows)
    if (!c.value_unit.empty()) {
      unit = c.value_unit;
      break;
    }
  const bool show_value = !r.has_job && !unit.empty() && unit != "stream-hour";
  const std::string un = mem_unit(style);
  const double div = mem_div(style);
  auto gb = [div](double bytes) { return fixed(bytes / div, 1); };
  std::vector<Column> cols;
  auto add = [&](std::string header, bool right, int keep, std::function<Cell(const Candidate&, std::size_t)> f) {
    cols.push_back(Column{std::move(header), right, keep, std::move(f), 0, cols.size()});
  };
  add("#", true, 0, [](const Candidate&, std::size_t i) { return Cell{std::to_string(i)}; });
  add("GPU", false, 0, [](const Candidate& c, std::size_t) { return Cell{c.gpu->id}; });
  add("fits", false, 0, [](const Candidate& c, std::size_t) {
    if (c.fits) return c.tight ? Cell{"tight", "33"} : Cell{"yes", "32"};
    return Cell{c.supported ? "no" : "n/a", "31"};
  });
  add("GPUs", true, 55, [](const Candidate& c, std::size_t) { return Cell{std::to_string(c.gpus)}; });
  add("layout", false, 75, [](const Candidate& c, std::size_t) { return Cell{c.layout}; });
  add("peak " + un, true, 60, [gb](const Candidate& c, std::size_t) { return Cell{gb(c.memory.device_peak)}; });
  add("of usable", false, 30, [](const Candidate& c, std::size_t) {
    return Cell{usage_bar(c.memory.device_peak, static_cast<double>(c.gpu->memory_bytes)), c.memory.device_peak <= static_cast<double>(c.gpu->memory_bytes) ? "32" : "31"};
  });
  add("usable " + un, true, 10, [gb](const Candidate& c, std::size_t) { return Cell{gb(static_cast<double>(c.gpu->memory_bytes))}; });
  add("headroom " + un, true, 12, [gb](const Candidate& c, std::size_t) { return Cell{gb(c.headroom_bytes)}; });
  add("$/GPU-h", true, 20, [](const Candidate& c, std::size_t) { return Cell{c.usd_per_gpu_hour() ? fixed(*c.usd_per_gpu_hour(), 2) : k_dash}; });
  if (show_value)
    add("$/" + (unit == "M training tokens" ? std::string("M tok") : unit == "M output tokens" ? "M out" : unit == "k images" ? "k img" : unit), true, 85,
        [](const Candidate& c, std::size_t) { return Cell{c.fits && c.value_usd ? fixed(*c.value_usd, *c.value_usd >= 10 ? 1 : std::max(3, usd_decimals(*c.value_usd))) : k_dash}; });
  if (has_vllm) {
    add("KV pool " + un, true, 25, [gb](const Candidate& c, std::size_t) { return Cell{c.memory.vllm ? gb(c.memory.vllm->kv_pool_bytes) : k_dash}; });
    add("max seqs", true, 26, [](const Candidate& c, std::size_t) { return Cell{c.memory.vllm ? fixed(c.memory.vllm->max_concurrent_sequences, 1) : k_dash}; });
  }
  if (vision) {
    add("img/s/GPU", true, 80, [](const Candidate& c, std::size_t) {
      return Cell{c.time.images_per_second ? image_rate(*c.time.paced_images_per_second()) : k_dash};
    });
    if (video) add("streams/GPU", true, 82, [](const Candidate& c, std::size_t) { return Cell{c.video ? fixed(c.video->streams_per_gpu, 0) : k_dash}; });
    // What sets the pace: a video plan's decode, inference or memory; a job fed JPEG files, its input or the GPU.
    if (video || std::any_of(r.rows.begin(), r.rows.end(), [](const Candidate& c) { return c.time.input_bound(); }))
      add("limit", true, 40, [video](const Candidate& c, std::size_t) {
        if (video) return Cell{c.video ? c.video->limit : k_dash};
        return Cell{!c.time.images_per_second ? k_dash : c.time.input_bound() ? "input" : "GPU"};
      });
    if (video) {
      add("$/stream-h", true, 84, [](const Candidate& c, std::size_t) {
        return Cell{c.video && c.video->usd_per_stream_hour ? fixed(*c.video->usd_per_stream_hour, 3) : k_dash};
      });
    }
  } else if (inference) {
    add("tok/s", true, 80, [](const Candidate& c, std::size_t) {
      const double replicas = static_cast<double>(c.planned.gpus) / static_cast<double>(c.planned.tp * c.planned.pp);
      return Cell{c.time.decode_tokens_per_second ? fixed(*c.time.decode_tokens_per_second * replicas, 0) : k_dash};
    });
    add("TTFT s", true, 45, [](const Candidate& c, std::size_t) { return Cell{c.time.ttft_seconds ? fixed(*c.time.ttft_seconds, 2) : k_dash}; });
    add("TPOT ms", true, 50, [](const Candidate& c, std::size_t) { return Cell{c.time.tpot_seconds ? fixed(*c.time.tpot_seconds * 1000, 1) : k_dash}; });
  } else {
    add("tok/s/GPU", true, 80, [](const Candidate& c, std::size_t) {
      return Cell{c.time.train_tokens_per_second_per_gpu ? fixed(*c.time.train_tokens_per_second_per_gpu, 0) : k_dash};
    });
  }
  if (has_time) {
    add("job time", true, 70, [](const Candidate& c, std::size_t) { return Cell{c.cost.wall_hours > 0 ? duration_text(c.cost.wall_hours * 3600) : k_dash}; });
    add("job cost", true, 88, [](const Candidate& c, std::size_t) { return Cell{c.cost.total_usd ? "$" + fixed(*c.cost.total_usd, 2) : k_dash}; });
  }
  if (has_time && inference)
    add("$/M tok", true, 86, [](const Candidate& c, std::size_t) {
      return Cell{c.cost.usd_per_million_output_tokens ? fixed(*c.cost.usd_per_million_output_tokens, 3) : k_dash};
    });
  return cols;
}

// Columns are joined by one space, with two after the row number and before the layout.
std::size_t gap_before(const Column& c, bool first) { return first ? 0 : (c.header == "GPU" || c.header == "layout") ? 2 : 1; }

std::size_t table_width(const std::vector<Column>& cols) {
  std::size_t total = 0;
  for (std::size_t i = 0; i < cols.size(); ++i) total += gap_before(cols[i], i == 0) + cols[i].width;
  return total;
}

// Fits the columns to `limit` display columns (0: no limit): the layout first shortened to 26, then the columns of
// least use dropped (the card's capacity, headroom, hourly price, the memory bar, vLLM's pool), then the layout
// shortened to 16, then the rest dropped lowest priority first (the GPU count, which the layout starts with, the
// peak, the job time, the layout, the throughput; the value or the job cost last).
void fit_columns(std::vector<Column>& cols, std::size_t limit) {
  if (limit == 0 || table_width(cols) <= limit) return;
  auto shrink_layout = [&](std::size_t floor) {
    auto at = std::find_if(cols.begin(), cols.end(), [](const Column& c) { return c.header == "layout"; });
    const std::size_t over = table_width(cols) > limit ? table_width(cols) - limit : 0;
    if (at != cols.end() && over > 0 && at->width > floor) at->width = std::max(floor, at->width > over ? at->width - over : floor);
  };
  auto drop_below = [&](int keep) {
    while (table_width(cols) > limit) {
      auto drop = cols.end();
      for (auto it = cols.begin(); it != cols.end(); ++it)
        if (it->keep > 0 && it->keep < keep && (drop == cols.end() || it->keep < drop->keep)) drop = it;
      if (drop == cols.end()) return;
      cols.erase(drop);
    }
  };
  shrink_layout(26);
  drop_below(50);
  shrink_layout(16);
  drop_below(100);
}
}  // namespace

std::string ranking_grid(const Workload& w, const ModelSpec& m, const Ranking& r, const Style& style) {
  std::vector<Column> cols = rank_table_columns(w, m, r, style);
  // Every cell first: the widths are the widest cell's (an id is never cut), the layout's too unless shortened.
  std::vector<std::vector<Cell>> rows;
  rows.reserve(r.rows.size());
  std::size_t i = 0;
  for (const auto& c : r.rows) {
    ++i;
    std::vector<Cell> row;
    row.reserve(cols.size());
    for (const auto& col : cols) row.push_back(col.cell(c, i));
    rows.push_back(std::move(row));
  }
  for (std::size_t k = 0; k < cols.size(); ++k) {
    cols[k].width = std::max<std::size_t>(width_of(cols[k].header), k == 0 ? 3 : 0);  // the row number: three columns
    for (const auto& row : rows) cols[k].width = std::max(cols[k].width, width_of(row[k].text));
  }
  fit_columns(cols, static_cast<std::size_t>(std::max(0, style.width)));
  std::string out;
  std::string header;
  for (std::size_t k = 0; k < cols.size(); ++k) {
    header.append(gap_before(cols[k], k == 0), ' ');
    append_cell(header, cut(cols[k].header, cols[k].width), cols[k].width, cols[k].right);
  }
  while (!header.empty() && header.back() == ' ') header.pop_back();
  out += paint(style, header, "1") + "\n";
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t k = 0; k < cols.size(); ++k) {
      line.append(gap_before(cols[k], k == 0), ' ');
      const Cell& cell = row[cols[k].source];
      std::string padded;
      append_cell(padded, cut(cell.text, cols[k].width), cols[k].width, cols[k].right);
      line += cell.color ? paint(style, padded, cell.color) : padded;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace gpuadvise::detail
