// Plain tables of the list commands (`gpus`, `models`) as text fitted to the terminal and as markdown
// (report_detail.hpp): the least needed columns dropped first, a long free-text column shortened with '…', ids
// never cut; every column in full with no width (pipes, --wide).
#include <algorithm>
#include <fmt/format.h>

#include "report_detail.hpp"

namespace gpuadvise::detail {

std::string without_colour(std::string_view s) {
  std::string plain;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b') {
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    plain.push_back(s[i]);
  }
  return plain;
}

// Display columns: UTF-8 by fmt's widths, ANSI colour escapes (ESC [ ... m) none.
std::size_t width_of(std::string_view s) {
  if (s.find('\x1b') != std::string_view::npos) return width_of(without_colour(s));
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

void append_cell(std::string& out, const std::string& text, std::size_t width, bool right) {
  const std::size_t cols = width_of(text), fill = cols < width ? width - cols : 0;
  if (right) out.append(fill, ' ');
  out += text;
  if (!right) out.append(fill, ' ');
}

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
      if (i) l += ' ';
      append_cell(l, cut(text_of(k), widths[k]), widths[k], columns[k].right);
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

namespace gpuadvise {

std::string wrap_text(const std::string& text, int width) {
  using detail::width_of;
  if (width <= 0) return text;
  const auto limit = static_cast<std::size_t>(width);
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (width_of(line) <= limit) {
      out += line;
      if (end < text.size()) out += '\n';
      continue;
    }
    // A hanging indent: an option's description column (two spaces then text after the name), else the line's own;
    // found on the line without its colour.
    const std::string plain = detail::without_colour(line);
    std::size_t indent = plain.find_first_not_of(' ');
    if (indent == std::string::npos) indent = 0;
    if (const auto gap = plain.find("  ", indent); plain.rfind("  -", 0) == 0 && gap != std::string::npos) {
      const auto desc = plain.find_first_not_of(' ', gap);
      if (desc != std::string::npos && desc < limit / 2) indent = desc;
    } else if (const auto colon = plain.find(": ", indent); colon != std::string::npos && colon < limit / 3) {
      indent = colon + 2;  // "  note: ..." continues under its text
    }
    std::string current;
    std::size_t pos = 0;
    while (pos < line.size()) {
      const std::size_t space = line.find(' ', pos + 1);
      const std::string word = line.substr(pos, space == std::string::npos ? std::string::npos : space - pos);
      if (!current.empty() && width_of(current) + width_of(word) > limit && current.find_first_not_of(' ') != std::string::npos) {
        while (!current.empty() && current.back() == ' ') current.pop_back();
        out += current + '\n';
        current = std::string(indent, ' ');
        std::size_t skip = word.find_first_not_of(' ');
        current += skip == std::string::npos ? "" : word.substr(skip);
      } else {
        current += word;
      }
      pos = space == std::string::npos ? line.size() : space;
    }
    out += current;
    if (end < text.size()) out += '\n';
  }
  return out;
}

}  // namespace gpuadvise
