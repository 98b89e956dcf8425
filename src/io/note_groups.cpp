// Notes said once per group (the ranking table's "Why not" and "Notes"): notes that differ only in their numbers
// form one group, in the order each group first appears, and each number that varies is shown as its range
// ("adds 11–32% to each micro-batch").
#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <string_view>
#include <unordered_map>

#include "report_detail.hpp"

namespace gpuadvise::detail {

namespace {
// ASCII classes (the C locale's, which the program keeps) and a decimal read without the locale: the grouping reads
// every character of every note.
bool ascii_digit(char c) { return c >= '0' && c <= '9'; }
bool ascii_alnum(char c) { return ascii_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
double decimal(std::string_view digits) {
  double v = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), v);
  return v;
}

// A note cut at its numbers: the words between them and the numbers as written (views into the note; one more
// word than numbers). A number stands alone: "gfx942", "a100-80gb" or "fp8" are names, not numbers.
struct Split {
  std::vector<std::string_view> numbers;
  std::vector<std::string_view> pieces;
};
void split(std::string_view s, Split& out) {
  out.numbers.clear();
  out.pieces.clear();
  std::size_t word = 0;  // where the words before the next number start
  for (std::size_t i = 0; i < s.size();) {
    // A digit first (most characters are not), then whether it starts a number.
    if (!ascii_digit(s[i]) || (i > 0 && (ascii_alnum(s[i - 1]) || s[i - 1] == '-' || s[i - 1] == '_' || s[i - 1] == '.'))) {
      ++i;
      continue;
    }
    out.pieces.push_back(s.substr(word, i - word));
    std::size_t j = i;
    while (j < s.size() && (ascii_digit(s[j]) || (s[j] == '.' && j + 1 < s.size() && ascii_digit(s[j + 1])))) ++j;
    out.numbers.push_back(s.substr(i, j - i));
    i = word = j;
  }
  out.pieces.push_back(s.substr(word));
}

struct Group {
  std::vector<std::string_view> pieces;                  // the first note's words: the group's key
  std::vector<std::pair<double, std::string_view>> lo, hi;  // per number: the smallest and largest as written
  std::vector<std::string_view> gpus;
};

// The group whose words are these, or groups.size(): a table has a few dozen groups, so a scan that compares
// the words one by one (most differ in their first) costs less than building a key per note.
std::size_t find_group(const std::vector<Group>& groups, const std::vector<std::string_view>& pieces) {
  for (std::size_t g = 0; g < groups.size(); ++g)
    if (groups[g].pieces == pieces) return g;
  return groups.size();
}
}  // namespace

std::vector<NoteGroup> group_notes(const std::vector<std::pair<std::string, std::string_view>>& notes) {
  std::vector<Group> groups;
  // A note seen word for word before adds nothing to its group's ranges: only its GPU is looked at.
  std::unordered_map<std::string_view, std::size_t> by_text;
  by_text.reserve(notes.size());
  Split sp;
  for (const auto& [text, gpu] : notes) {
    std::size_t gi = 0;
    if (auto seen = by_text.find(text); seen != by_text.end()) {
      gi = seen->second;
    } else {
      split(text, sp);
      gi = find_group(groups, sp.pieces);
      by_text.emplace(text, gi);
      if (gi == groups.size()) {
        Group g;
        for (const auto n : sp.numbers) {
          g.lo.emplace_back(decimal(n), n);
          g.hi.emplace_back(decimal(n), n);
        }
        g.pieces = sp.pieces;
        groups.push_back(std::move(g));
      } else {
        Group& g = groups[gi];
        for (std::size_t k = 0; k < sp.numbers.size(); ++k) {
          const double v = decimal(sp.numbers[k]);
          if (v < g.lo[k].first) g.lo[k] = {v, sp.numbers[k]};
          if (v > g.hi[k].first) g.hi[k] = {v, sp.numbers[k]};
        }
      }
    }
    auto& ids = groups[gi].gpus;
    if (std::find(ids.begin(), ids.end(), gpu) == ids.end()) ids.push_back(gpu);
  }
  std::vector<NoteGroup> out;
  out.reserve(groups.size());
  for (auto& g : groups) {
    NoteGroup ng{std::string(g.pieces[0]), std::move(g.gpus)};
    for (std::size_t k = 0; k < g.lo.size(); ++k) {
      ng.text.append(g.lo[k].second);
      if (g.lo[k].second != g.hi[k].second) {
        ng.text.append("–");
        ng.text.append(g.hi[k].second);
      }
      ng.text.append(g.pieces[k + 1]);
    }
    out.push_back(std::move(ng));
  }
  return out;
}

std::string join_ids(const std::vector<std::string_view>& ids, std::size_t most) {
  if (most == 0 || ids.size() <= most) return fmt::format("{}", fmt::join(ids, ", "));
  return fmt::format("{}, {} and {} more", ids[0], ids[1], ids.size() - 2);
}

}  // namespace gpuadvise::detail
