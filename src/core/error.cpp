#include "gpuadvise/error.hpp"
#include "gpuadvise/escape.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace gpuadvise {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0u : 1u)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::vector<std::string> closest_matches(std::string_view word, const std::vector<std::string>& candidates,
                                         std::size_t limit) {
  // No identifier of the catalogues is longer than this; a longer word has no close match and would cost
  // length x candidates of edit distance.
  if (word.size() > 128 || word.empty()) return {};
  const std::size_t budget = std::max<std::size_t>(2, word.size() / 3);
  // Case does not matter ("A100-80GB" is "a100-80gb").
  auto lower = [](std::string_view s) {
    std::string out(s);
    for (auto& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return out;
  };
  const std::string w = lower(word);
  const std::string w_head = w.substr(0, w.find('-'));
  // Closest first: a candidate that contains the word or the reverse ("h100" -> "h100-sxm-80gb"); then one that
  // shares the word's first dash-separated part ("a100-80gbx" -> "a100-sxm-80gb", not "a10-24gb"); then a few edits.
  struct Scored {
    int tier;
    std::size_t dist;
    std::string id;
  };
  std::vector<Scored> scored;
  for (const auto& candidate : candidates) {
    const std::string c = lower(candidate);
    const std::size_t dist = edit_distance(w, c);
    if (c.find(w) != std::string::npos || w.find(c) != std::string::npos) scored.push_back({0, dist, candidate});
    else if (w.find('-') != std::string::npos && w_head.size() >= 2 && c.substr(0, c.find('-')) == w_head) scored.push_back({1, dist, candidate});
    else if (dist <= budget) scored.push_back({2, dist, candidate});
  }
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& x, const Scored& y) { return x.tier != y.tier ? x.tier < y.tier : x.dist < y.dist; });
  std::vector<std::string> out;
  for (const auto& s : scored) {
    if (out.size() >= limit) break;
    out.push_back(s.id);
  }
  return out;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const auto m = closest_matches(word, candidates);
  if (m.empty()) return "";
  std::string s = "did you mean ";
  for (std::size_t i = 0; i < m.size(); ++i) s += (i ? ", '" : "'") + m[i] + "'";
  return s + "?";
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::string quote_input(std::string_view text) {
  std::string out(1, '\'');
  out.append(printable(text.substr(0, text.size() <= 80 ? text.size() : 60)));
  if (text.size() <= 80) {
    out.push_back('\'');
    return out;
  }
  out.append("...' (");
  out.append(std::to_string(text.size()));
  out.append(" characters)");
  return out;
}

}  // namespace gpuadvise
