#pragma once
// Prose the library attaches to an answer (notes, the system basis, why a plan does not fit), kept as a
// format and its arguments and rendered only when something reads it. The planner evaluates dozens of
// layouts per GPU and prints one; formatting numbers was a third of an evaluation's time
// (docs/performance.md).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/core.h>

namespace gpuadvise {

class Note {
 public:
  Note() = default;
  // A string literal: its text, as it is (no format).
  template <std::size_t N>
  Note(const char (&literal)[N]) : format_(literal, N - 1) {}  // NOLINT: implicit, like a string
  // Text already written (from a catalogue, or built from run-time parts).
  Note(std::string text) : kind_(Kind::written), strings_(std::move(text)) {}  // NOLINT: implicit, like a string

  // A format checked at compile time, with its arguments kept and formatted by text(): numbers as they are,
  // std::string and string_view copied, and plain C text (`const char*`: literals and static tables only) by
  // its pointer.
  template <typename... A>
  static Note format(fmt::format_string<A...> f, A&&... args) {
    static_assert(sizeof...(A) <= k_max_args, "a note takes at most 6 arguments");
    Note n;
    const fmt::string_view s = f;
    n.format_ = std::string_view(s.data(), s.size());
    n.kind_ = Kind::format;
    (n.keep(std::forward<A>(args)), ...);
    return n;
  }

  std::string text() const;
  bool empty() const { return kind_ == Kind::written ? strings_.empty() : format_.empty(); }
  void clear() { *this = Note(); }
  bool operator==(const Note& o) const { return text() == o.text(); }

 private:
  static constexpr std::size_t k_max_args = 6;
  enum class Kind : std::uint8_t { literal, written, format };
  enum class Arg : std::uint8_t { number, integer, text, static_text };
  union Value {
    double number;
    std::int64_t integer;
    const char* static_text;
  };

  template <typename T>
  void keep(T&& v) {
    using U = std::remove_cvref_t<T>;
    if constexpr (std::is_same_v<U, double>) {
      values_[count_].number = v;
      types_[count_++] = Arg::number;
    } else if constexpr (std::is_integral_v<U> && !std::is_same_v<U, bool> && !std::is_same_v<U, char>) {
      values_[count_].integer = static_cast<std::int64_t>(v);
      types_[count_++] = Arg::integer;
    } else if constexpr (std::is_same_v<std::decay_t<U>, const char*>) {
      // Plain C text is a literal or a table's static text: kept as a pointer, not copied.
      values_[count_].static_text = v;
      lengths_[count_] = static_cast<std::uint32_t>(std::char_traits<char>::length(v));
      types_[count_++] = Arg::static_text;
    } else {
      static_assert(std::is_convertible_v<const T&, std::string_view>, "a note's arguments are doubles, integers or text");
      const std::string_view text(v);
      strings_.append(text);  // the copied texts follow each other
      lengths_[count_] = static_cast<std::uint32_t>(text.size());
      types_[count_++] = Arg::text;
    }
  }

  std::string_view format_;  // static text: a literal, or the format of the arguments
  std::array<Value, k_max_args> values_{};
  std::array<std::uint32_t, k_max_args> lengths_{};  // a text argument's length
  std::array<Arg, k_max_args> types_{};
  std::uint8_t count_ = 0;
  Kind kind_ = Kind::literal;
  std::string strings_;  // the text written already, or the text arguments in order
};

using Notes = std::vector<Note>;

}  // namespace gpuadvise
