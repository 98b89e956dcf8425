// ASCII output for non-UTF-8 locales (ascii_out.hpp).
#include "ascii_out.hpp"

#include <array>
#include <cstdlib>
#include <string_view>
#include <utility>

namespace gpuadvise::cli {

bool ascii_locale() {
  for (const char* var : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    const char* v = std::getenv(var);
    if (!v || !*v) continue;
    std::string s(v);
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s.find("utf-8") == std::string::npos && s.find("utf8") == std::string::npos;
  }
  return false;  // nothing set: a UTF-8 terminal is the norm
}

namespace {
// The characters the output uses, as ASCII; the ellipsis that shortens a table cell stays one column ("~").
std::string_view ascii_of(std::string_view utf8) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 14> table{{
      {"\u2014", "-"}, {"\u2013", "-"}, {"\u2026", "~"}, {"\u00d7", "x"}, {"\u2192", "->"}, {"\u2264", "<="}, {"\u2265", ">="},
      {"\u00b7", "."}, {"\u00b1", "+/-"}, {"\u2212", "-"}, {"\u00b5", "u"}, {"\u2248", "~"}, {"\u00a0", " "}, {"\u2022", "*"}}};
  for (const auto& [from, to] : table)
    if (from == utf8) return to;
  return "?";
}
}  // namespace

AsciiBuf::~AsciiBuf() { flush_pending(); }

void AsciiBuf::flush_pending() {
  if (!pending_.empty()) target_->sputc('?');
  pending_.clear();
  need_ = 0;
}

void AsciiBuf::put(unsigned char byte) {
  if (need_ == 0) {
    if (byte < 0x80) {
      target_->sputc(static_cast<char>(byte));
      return;
    }
    need_ = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
  }
  pending_.push_back(static_cast<char>(byte));
  if (pending_.size() < need_) return;
  const std::string_view out = ascii_of(pending_);
  target_->sputn(out.data(), static_cast<std::streamsize>(out.size()));
  pending_.clear();
  need_ = 0;
}

AsciiBuf::int_type AsciiBuf::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  put(static_cast<unsigned char>(traits_type::to_char_type(ch)));
  return ch;
}

std::streamsize AsciiBuf::xsputn(const char* s, std::streamsize n) {
  for (std::streamsize i = 0; i < n; ++i) put(static_cast<unsigned char>(s[i]));
  return n;
}

int AsciiBuf::sync() { return target_->pubsync(); }

}  // namespace gpuadvise::cli
