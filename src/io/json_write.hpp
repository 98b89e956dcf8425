#pragma once
// JSON written as it goes (the ranking's and estimate's JSON): no tree of values is built and taken down again.
// The layout is nlohmann/json's dump(2), byte for byte: two-space indents, "key": value, empty objects and
// arrays as {} and [], floats as its shortest round-trip form (its own to_chars), strings escaped as it
// escapes them (text it would refuse, such as invalid UTF-8, goes through it and fails as it fails).
// Internal to the io layer.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuadvise/note.hpp"

namespace gpuadvise::detail {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  // The next member's key, inside an object; its value follows.
  void key(std::string_view k);

  void null() { scalar("null"); }
  void boolean(bool b) { scalar(b ? "true" : "false"); }
  void integer(std::int64_t v);
  void unsigned_integer(std::uint64_t v);
  void number(double v);
  void string(std::string_view s);
  // A tree built elsewhere (a small part kept as nlohmann/json), laid out at this depth.
  void tree(const nlohmann::ordered_json& j);

  // Any value, typed as nlohmann/json types it: integers as integers, floating point as numbers, text as
  // strings, an empty optional as null, a list as an array.
  template <typename T>
  void value(const T& v) {
    if constexpr (std::is_same_v<T, std::nullptr_t>) {
      null();
    } else if constexpr (std::is_same_v<T, bool>) {
      boolean(v);
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      integer(static_cast<std::int64_t>(v));
    } else if constexpr (std::is_integral_v<T>) {
      unsigned_integer(static_cast<std::uint64_t>(v));
    } else if constexpr (std::is_floating_point_v<T>) {
      number(static_cast<double>(v));
    } else if constexpr (std::is_same_v<T, Note>) {
      string(v.text());
    } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
      string(std::string_view(v));
    } else if constexpr (std::is_same_v<T, nlohmann::ordered_json>) {
      tree(v);
    } else {
      value_of_kind(v);
    }
  }
  template <typename T>
  void value(const std::optional<T>& v) {
    if (v) value(*v);
    else null();
  }
  template <typename T>
  void value(const std::vector<T>& list) {
    begin_array();
    for (const auto& x : list) value(x);
    end_array();
  }

  // key(k) then value(v).
  template <typename T>
  void member(std::string_view k, const T& v) {
    key(k);
    value(v);
  }
  // A text member, null when the text is empty.
  void text_or_null(std::string_view k, std::string_view text);

 private:
  template <typename T>
  void value_of_kind(const T&) {
    static_assert(sizeof(T) == 0, "JsonWriter::value: a type nlohmann/json would not write as a plain value");
  }
  void open(char c);
  void close(char c);
  void element();    // before a value: the separator and the indent, unless a key wrote them
  void next_line();  // the separator before a member or an element, a new line and its indent
  void scalar(std::string_view text);
  void quoted(std::string_view s);  // a string as JSON writes it, with no separator before it
  void indent(std::size_t depth) { out_.append(2 * depth, ' '); }

  std::string& out_;
  std::vector<bool> empty_;  // per open object or array: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace gpuadvise::detail
