// The value grammar (docs/method.md, "Input ranges"; include/gpuadvise/workload.hpp): one parser per kind of
// value, shared by flags and workload files, each error naming the field and echoing the value as given.
#include "values.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "gpuadvise/error.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

namespace {
constexpr double k_max_duration_s = 100.0 * 365.25 * 86400.0;

// A decimal number, or nullopt.
std::optional<double> number_of(const std::string& text) {
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}
}  // namespace

double parse_number(const std::string& text, const std::string& origin, const std::string& what) {
  const auto v = number_of(text);
  if (!v) throw InputError(origin + ": expected " + what + ", got '" + text + "'");
  return *v;
}

std::string fmt_limit(double x) {
  char buf[32];
  const int n = std::snprintf(buf, sizeof buf, "%.0f", x);
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out.push_back(',');
    out.push_back(buf[i]);
  }
  return out;
}

std::optional<double> parse_suffixed(const std::string& text, bool binary_k) {
  if (text.empty()) return std::nullopt;
  std::string body = text;
  double mult = 1;
  const char last = static_cast<char>(std::toupper(static_cast<unsigned char>(body.back())));
  // k and K are thousands (1,024 for token counts where binary_k: a "4k" context is 4,096 tokens), M millions,
  // B and G billions, T trillions.
  if (last == 'K' || last == 'M' || last == 'B' || last == 'G' || last == 'T') {
    mult = last == 'K' ? (binary_k ? 1024.0 : 1e3) : last == 'M' ? (binary_k ? 1048576.0 : 1e6) : (last == 'B' || last == 'G') ? 1e9 : 1e12;
    body.pop_back();
  }
  const auto v = number_of(body);
  if (!v) return std::nullopt;
  return *v * mult;
}

double parse_count(const std::string& text, const std::string& origin, double hi) {
  const auto v = parse_suffixed(text);
  if (!v) throw InputError(origin + ": expected a count such as 100M or 2B, got '" + text + "'");
  if (!(*v >= 1) || !std::isfinite(*v) || *v > hi)  // the message's range is the one enforced
    throw InputError(origin + ": expected a count from 1 to " + fmt_limit(hi) + " (suffixes k, M, B, T), got '" + text + "'");
  return *v;
}

double parse_duration(const std::string& text, const std::string& origin) {
  const std::string what = "a duration such as 90m, 36h, 2d or 1h30m";
  if (text.empty()) throw InputError(origin + ": expected " + what + ", got ''");
  // Bare numbers are hours; otherwise one or more number-unit parts (s, m, h, d), largest first: 1h30m, 2d12h.
  double total = 0;
  if (const auto bare = number_of(text)) {
    total = *bare * 3600.0;
  } else {
    std::size_t at = 0;
    double last_unit = 1e300;
    const char* end = text.data() + text.size();
    while (at < text.size()) {
      double n = 0;
      const auto [ptr, ec] = std::from_chars(text.data() + at, end, n);
      if (ec != std::errc() || ptr == end || !std::isfinite(n)) throw InputError(origin + ": expected " + what + ", got '" + text + "'");
      const char u = static_cast<char>(std::tolower(static_cast<unsigned char>(*ptr)));
      const double secs = u == 's' ? 1 : u == 'm' ? 60 : u == 'h' ? 3600 : u == 'd' ? 86400 : 0;
      if (secs == 0 || secs >= last_unit) throw InputError(origin + ": expected " + what + ", got '" + text + "'");
      total += n * secs;
      last_unit = secs;
      at = static_cast<std::size_t>(ptr - text.data()) + 1;
    }
  }
  if (!(total >= 1) || !std::isfinite(total) || total > k_max_duration_s)
    throw InputError(origin + ": expected a duration from 1s to 100 years (such as 90m, 36h, 2d or 1h30m), got '" + text + "'");
  return total;
}

double parse_decimal(const std::string& text, const std::string& origin, const std::string& what) { return parse_number(text, origin, what); }

}  // namespace gpuadvise
