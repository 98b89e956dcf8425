// Plain tables of the list commands (`gpus`, `models`) as text fitted to the terminal and as markdown
// (report_detail.hpp): the least needed columns dropped first, a long free-text column shortened with '…', ids
// never cut; every column in full with no width (pipes, --wide).
#include <algorithm>
#include <fmt/format.h>

#include "report_detail.hpp"

namespace gpuadvise::detail {

namespace {
std::size_t width_of(std::string_view s) {
  if (std::none_of(s.begin(), s.end(), [](char ch) { return static_cast<unsigned char>(ch) >= 0x80; })) return s.size();
  return fmt::detail::compute_width(fmt::string_view(s.data(), s.size()));
}

std::string cut(const std::string& text, std::size_t width) {
  if (width_of(text) <= width) return text;
  std::string out;
  for (std::size_t i = 0; i < text.size() && width_of(out) + 1 < width; ++i) out.push_back(text[i]);
  while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
  if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
  return out + "…";
}
}  // namespace

std::string text_table(const std::vector<TextColumn>& columns, const std::vector<std::vector<std::string>>& rows, int width) {
  std::vector<std::size_t> shown(columns.size()), widths(columns.size());
  for (std::size_t k = 0; k < columns.size(); ++k) {
    shown[k] = k;
    widths[k] = width_of(columns[k].header);
    for (const auto& r : rows) widths[k] = std::max(widths[k], width_of(r[k]));
  }
  auto total = [&]() {
    std::size_t t = 0;
    for (std::size_t i = 0; i < shown.size(); ++i) t += widths[shown[i]] + (i ? 1 : 0);
    return t;
  };
  const auto limit = static_cast<std::size_t>(std::max(0, width));
  auto shorten = [&](std::size_t floor) {
    for (std::size_t k : shown)
      if (columns[k].shortenable && total() > limit && widths[k] > floor) widths[k] = std::max(floor, widths[k] - std::min(widths[k], total() - limit));
  };
  if (limit > 0) {
    shorten(24);
    while (total() > limit) {
      auto drop = shown.end();
      for (auto it = shown.begin(); it != shown.end(); ++it)
        if (columns[*it].keep > 0 && (drop == shown.end() || columns[*it].keep < columns[*drop].keep)) drop = it;
      if (drop == shown.end()) break;
      shown.erase(drop);
    }
    shorten(12);
  }
  std::string out;
  auto line = [&](auto&& text_of) {
    std::string l;
    for (std::size_t i = 0; i < shown.size(); ++i) {
      const std::size_t k = shown[i];
      const std::string text = cut(text_of(k), widths[k]);
      const std::size_t fill = widths[k] - std::min(widths[k], width_of(text));
      if (i) l += ' ';
      if (columns[k].right) l.append(fill, ' ');
      l += text;
      if (!columns[k].right) l.append(fill, ' ');
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  line([&](std::size_t k) { return columns[k].header; });
  for (const auto& r : rows) line([&](std::size_t k) { return r[k]; });
  return out;
}

std::string markdown_grid(const std::vector<TextColumn>& columns, const std::vector<std::vector<std::string>>& rows) {
  auto escape = [](const std::string& s) {
    std::string o;
    for (char ch : s) {
      if (ch == '|') o += '\\';
      o += ch;
    }
    return o;
  };
  std::string out = "|";
  for (const auto& c : columns) out += " " + escape(c.header) + " |";
  out += "\n|";
  for (const auto& c : columns) out += c.right ? "---:|" : "---|";
  out += "\n";
  for (const auto& r : rows) {
    out += "|";
    for (const auto& cell : r) out += " " + escape(cell) + " |";
    out += "\n";
  }
  return out;
}

}  // namespace gpuadvise::detail
