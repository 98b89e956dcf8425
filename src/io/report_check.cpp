// `gpuadvise check`'s output in every format, written as the results come: a head, one row per result and a
// summary, so that check holds one workload's results at a time however long the file (docs/testing.md,
// "Security"). User text goes through escape.hpp's function for the format.
#include <fmt/format.h>

#include "gpuadvise/escape.hpp"
#include "gpuadvise/report.hpp"
#include "json_write.hpp"
#include "report_detail.hpp"
#include "report_json_detail.hpp"

namespace gpuadvise {

namespace {

using detail::bytes_int;
using detail::JsonWriter;
using detail::mem_div;
using detail::mem_unit;
using detail::paint;

double headroom_pct(const CheckedPlan& c) { return 100.0 * c.headroom_bytes / static_cast<double>(c.gpu->memory_bytes); }

// One line per result, the summary last: the terminal's and a CI log's form.
class TableWriter final : public CheckWriter {
 public:
  explicit TableWriter(const Style& style) : style_(style) {}
  std::string row(const CheckResult& r) override {
    const CheckedPlan& c = r.plan;
    const std::string mark = r.passed() ? paint(style_, "PASS", "32") : paint(style_, "FAIL", "31");
    // Several GPUs, or savers on one: the layout checked (a count given alone, or --max-gpus, is the planner's
    // search with its savers, method.md §9), so a pass says what it applied.
    const std::string on = !c.layout.empty() && (c.gpus > 1 || c.layout != "single GPU") ? printable(c.layout) : c.gpus == 1 ? "one GPU" : fmt::format("{} GPUs", c.gpus);
    std::string out = fmt::format("{}  {} on {}: {:.2f} of {:.2f} {} per GPU on {}, headroom {:.1f}%{}\n", mark, printable(r.workload), c.gpu->id,
                                  c.device_peak / mem_div(style_), static_cast<double>(c.gpu->memory_bytes) / mem_div(style_), mem_unit(style_), on,
                                  headroom_pct(c), c.total_usd ? fmt::format(", job ${:.2f} in {:.2f} h", *c.total_usd, c.wall_hours) : "");
    for (const auto& f : r.failures) out += "      " + printable(f) + "\n";  // one line each, whatever the name held
    for (const auto& n : r.notes) out += "      note: " + printable(n) + "\n";
    return out;
  }
  std::string tail(std::size_t checks, std::size_t failed) override { return fmt::format("{} of {} checks passed\n", checks - failed, checks); }

 private:
  Style style_;
};

// A table for a CI comment.
class MarkdownWriter final : public CheckWriter {
 public:
  explicit MarkdownWriter(const Style& style) : style_(style) {}
  std::string head() override {
    const std::string un = mem_unit(style_);
    return "| result | workload | GPU | GPUs | peak/GPU (" + un + ") | capacity (" + un + ") | headroom | job cost | failures |\n"
           "|---|---|---|--:|--:|--:|--:|--:|---|\n";
  }
  std::string row(const CheckResult& r) override {
    const CheckedPlan& c = r.plan;
    std::string fails;
    for (const auto& f : r.failures) fails += (fails.empty() ? "" : "; ") + markdown_cell(f);
    for (const auto& n : r.notes) fails += (fails.empty() ? "note: " : "; note: ") + markdown_cell(n);
    return fmt::format("| {} | {} | `{}` | {} | {:.2f} | {:.2f} | {:.1f}% | {} | {} |\n", r.passed() ? "✅ pass" : "❌ fail", markdown_cell(r.workload),
                       c.gpu->id, c.gpus, c.device_peak / mem_div(style_), static_cast<double>(c.gpu->memory_bytes) / mem_div(style_), headroom_pct(c),
                       c.total_usd ? fmt::format("${:.2f}", *c.total_usd) : "—", fails.empty() ? "—" : fails);
  }
  std::string tail(std::size_t checks, std::size_t failed) override { return fmt::format("\n{} of {} checks passed.\n", checks - failed, checks); }

 private:
  Style style_;
};

// One header row; an unknown is an empty field.
class CsvWriter final : public CheckWriter {
 public:
  std::string head() override {
    return "workload,gpu,passed,fits,gpus,layout,device_peak_bytes,capacity_bytes,headroom_pct,job_hours,job_usd,failures,notes\n";
  }
  std::string row(const CheckResult& r) override {
    const CheckedPlan& c = r.plan;
    auto joined = [](const std::vector<std::string>& lines) {
      std::string s;
      for (const auto& l : lines) s += (s.empty() ? "" : "; ") + l;
      return s;
    };
    auto yes = [](bool b) { return b ? "true" : "false"; };
    return fmt::format("{},{},{},{},{},{},{},{},{:.2f},{},{},{},{}\n", csv_text(r.workload), c.gpu->id, yes(r.passed()), yes(c.fits), c.gpus,
                       csv_text(c.layout), bytes_int(c.device_peak), c.gpu->memory_bytes, headroom_pct(c),
                       c.wall_hours > 0 ? fmt::format("{:.4g}", c.wall_hours) : "", c.total_usd ? fmt::format("{:.2f}", *c.total_usd) : "",
                       csv_text(joined(r.failures)), csv_text(joined(r.notes)));
  }
  std::string tail(std::size_t, std::size_t) override { return ""; }
};

// The header and assertions, the results array as it grows, and the verdict after it (the one value that
// needs every result).
class JsonCheckWriter final : public CheckWriter {
 public:
  explicit JsonCheckWriter(const CheckAssertions& a) : a_(a), o_(buf_) {}
  std::string head() override {
    o_.begin_object();
    detail::write_command_header(o_, "check");
    o_.key("assertions");
    o_.begin_object();
    o_.member("min_headroom_pct", a_.min_headroom_pct);
    o_.member("max_cost_usd", a_.max_cost_usd);
    o_.member("max_hours", a_.max_hours);
    o_.member("max_gpus", a_.max_gpus);
    o_.end_object();
    o_.key("results");
    o_.begin_array();
    return take();
  }
  std::string row(const CheckResult& r) override {
    const CheckedPlan& c = r.plan;
    o_.begin_object();
    o_.member("workload", r.workload);
    o_.member("gpu", c.gpu->id);
    o_.member("passed", r.passed());
    o_.member("fits", c.fits);
    o_.member("gpus", c.gpus);
    o_.member("layout", c.layout);
    o_.member("device_peak_bytes", bytes_int(c.device_peak));
    o_.member("capacity_bytes", c.gpu->memory_bytes);
    o_.member("headroom_pct", headroom_pct(c));
    o_.key("job_hours");
    if (c.wall_hours > 0) o_.value(c.wall_hours);
    else o_.null();
    o_.member("job_usd", c.total_usd);
    o_.member("failures", r.failures);
    o_.member("notes", r.notes);
    o_.end_object();
    return take();
  }
  std::string tail(std::size_t checks, std::size_t failed) override {
    o_.end_array();
    o_.member("checks", checks);
    o_.member("failed", failed);
    o_.member("passed", failed == 0);
    o_.end_object();
    return take() + "\n";
  }

 private:
  std::string take() {
    std::string out;
    out.swap(buf_);
    return out;
  }
  CheckAssertions a_;
  std::string buf_;
  JsonWriter o_;
};

}  // namespace

std::unique_ptr<CheckWriter> check_writer(CheckFormat format, const Style& style, const CheckAssertions& a) {
  switch (format) {
    case CheckFormat::json: return std::make_unique<JsonCheckWriter>(a);
    case CheckFormat::csv: return std::make_unique<CsvWriter>();
    case CheckFormat::markdown: return std::make_unique<MarkdownWriter>(style);
    case CheckFormat::table: break;
  }
  return std::make_unique<TableWriter>(style);
}

std::string check_text(const std::vector<CheckResult>& results, CheckFormat format, const Style& style, const CheckAssertions& a) {
  const auto w = check_writer(format, style, a);
  std::string out = w->head();
  std::size_t failed = 0;
  for (const auto& r : results) {
    out += w->row(r);
    failed += r.passed() ? 0 : 1;
  }
  return out + w->tail(results.size(), failed);
}

}  // namespace gpuadvise
