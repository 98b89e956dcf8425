// User text per output format (include/gpuadvise/escape.hpp; docs/testing.md, "Security").
#include "gpuadvise/escape.hpp"

#include <cstdint>
#include <fmt/format.h>

namespace gpuadvise {

namespace {

constexpr char32_t k_invalid = 0xFFFFFFFF;

// The next code point of UTF-8 text (k_invalid for a byte that starts no valid sequence; it is consumed alone).
char32_t next_code_point(std::string_view s, std::size_t& i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return s[i++];
  const int extra = b0 >= 0xF0 && b0 < 0xF5 ? 3 : b0 >= 0xE0 && b0 < 0xF0 ? 2 : b0 >= 0xC2 && b0 < 0xE0 ? 1 : -1;
  if (extra < 0 || i + static_cast<std::size_t>(extra) >= s.size()) {
    ++i;
    return k_invalid;
  }
  char32_t cp = b0 & (extra == 1 ? 0x1F : extra == 2 ? 0x0F : 0x07);
  for (int k = 1; k <= extra; ++k) {
    const auto b = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
    if ((b & 0xC0) != 0x80) {
      ++i;
      return k_invalid;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  const char32_t lowest = extra == 1 ? 0x80 : extra == 2 ? 0x800 : 0x10000;
  if (cp < lowest || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return k_invalid;
  }
  i += static_cast<std::size_t>(extra) + 1;
  return cp;
}

// Characters a terminal acts on or that reorder what is shown: C0, DEL, C1, the bidirectional controls,
// the line and paragraph separators.
bool is_control(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x200E || cp == 0x200F;
}

void append_escape(std::string& out, char32_t cp) {
  switch (cp) {
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    default: break;
  }
  if (cp <= 0xFF) out += fmt::format("\\x{:02x}", static_cast<unsigned>(cp));
  else out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t start = i;
    const char32_t cp = next_code_point(text, i);
    if (cp == k_invalid) append_escape(out, static_cast<unsigned char>(text[start]));
    else if (is_control(cp)) append_escape(out, cp);
    else out.append(text.substr(start, i - start));
  }
  return out;
}

std::string markdown_text(std::string_view text) {
  const std::string p = printable(text);
  std::string out;
  out.reserve(p.size());
  for (char ch : p) {
    switch (ch) {
      case '\\': case '|': case '`': case '[': case ']':
        out.push_back('\\');
        out.push_back(ch);
        break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      default: out.push_back(ch);
    }
  }
  return out;
}

std::string csv_text(std::string_view text) {
  const std::string p = printable(text);
  std::string out = "\"";
  if (!text.empty() && (text[0] == '=' || text[0] == '+' || text[0] == '-' || text[0] == '@' || text[0] == '\t' || text[0] == '\r'))
    out.push_back('\'');
  for (char ch : p) {
    if (ch == '"') out.push_back('"');
    out.push_back(ch);
  }
  out.push_back('"');
  return out;
}

std::string shell_word(std::string_view text) {
  bool plain = !text.empty();
  for (char ch : text) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '@' || ch == '%' ||
                    ch == '+' || ch == '=' || ch == ':' || ch == ',' || ch == '.' || ch == '/' || ch == '-';
    plain = plain && ok;
  }
  if (plain) return std::string(text);
  std::string out = "'";
  for (char ch : text) {
    if (ch == '\'') out += "'\\''";
    else out.push_back(ch);
  }
  out.push_back('\'');
  return out;
}

std::string python_literal(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = next_code_point(text, i);
    if (cp == k_invalid) cp = 0xFFFD;
    if (cp == '"' || cp == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(cp));
    } else if (cp >= 0x20 && cp < 0x7F) {
      out.push_back(static_cast<char>(cp));
    } else if (cp <= 0xFF) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(cp));
    } else if (cp <= 0xFFFF) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
    } else {
      out += fmt::format("\\U{:08x}", static_cast<unsigned>(cp));
    }
  }
  out.push_back('"');
  return out;
}

std::optional<std::vector<std::string>> split_shell_words(std::string_view line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (ch == ' ' || ch == '\t' || ch == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (ch == '\'') {
      const std::size_t close = line.find('\'', i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      word.append(line.substr(i + 1, close - i - 1));
      i = close;
      in_word = true;
    } else if (ch == '"') {
      std::size_t j = i + 1;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '\\' && j + 1 < line.size() && (line[j + 1] == '"' || line[j + 1] == '\\' || line[j + 1] == '$' || line[j + 1] == '`')) ++j;
        word.push_back(line[j]);
      }
      if (j >= line.size()) return std::nullopt;
      i = j;
      in_word = true;
    } else if (ch == '\\') {
      if (i + 1 >= line.size()) return std::nullopt;
      word.push_back(line[++i]);
      in_word = true;
    } else {
      word.push_back(ch);
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

}  // namespace gpuadvise
