// JSON written as it goes, laid out as nlohmann/json's dump(2) (json_write.hpp).
#include "json_write.hpp"

#include <array>
#include <charconv>
#include <cmath>

namespace gpuadvise::detail {

void JsonWriter::next_line() {
  out_ += empty_.back() ? "\n" : ",\n";
  empty_.back() = false;
  indent(empty_.size());
}

void JsonWriter::element() {
  if (after_key_) {  // an object member's value: its key wrote the separator
    after_key_ = false;
    return;
  }
  if (!empty_.empty()) next_line();
}

void JsonWriter::key(std::string_view k) {
  next_line();
  quoted(k);
  out_ += ": ";
  after_key_ = true;
}

void JsonWriter::open(char c) {
  element();
  out_ += c;
  empty_.push_back(true);
}

void JsonWriter::close(char c) {
  const bool empty = empty_.back();
  empty_.pop_back();
  if (!empty) {
    out_ += '\n';
    indent(empty_.size());
  }
  out_ += c;
}

void JsonWriter::scalar(std::string_view text) {
  element();
  out_ += text;
}

void JsonWriter::integer(std::int64_t v) {
  element();
  std::array<char, 24> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  out_.append(buf.data(), r.ptr);
}

void JsonWriter::unsigned_integer(std::uint64_t v) {
  element();
  std::array<char, 24> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  out_.append(buf.data(), r.ptr);
}

void JsonWriter::number(double v) {
  element();
  if (!std::isfinite(v)) {  // as nlohmann/json writes NaN and infinities
    out_ += "null";
    return;
  }
  std::array<char, 64> buf{};
  char* end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), v);
  out_.append(buf.data(), end);
}

void JsonWriter::string(std::string_view s) {
  element();
  quoted(s);
}

void JsonWriter::quoted(std::string_view s) {
  // Plain printable ASCII without quotes or backslashes is written as it is; anything else goes through
  // nlohmann/json's own escaping (and its refusal of invalid UTF-8).
  bool plain = true;
  for (const char ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u >= 0x80 || ch == '"' || ch == '\\') {
      plain = false;
      break;
    }
  }
  if (plain) {
    out_ += '"';
    out_ += s;
    out_ += '"';
  } else {
    out_ += nlohmann::ordered_json(std::string(s)).dump();
  }
}

void JsonWriter::text_or_null(std::string_view k, std::string_view text) {
  key(k);
  if (text.empty()) null();
  else string(text);
}

void JsonWriter::tree(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object:
      begin_object();
      for (auto it = j.begin(); it != j.end(); ++it) {
        key(it.key());
        tree(it.value());
      }
      end_object();
      break;
    case nlohmann::json::value_t::array:
      begin_array();
      for (const auto& x : j) tree(x);
      end_array();
      break;
    case nlohmann::json::value_t::string: string(j.get_ref<const std::string&>()); break;
    case nlohmann::json::value_t::boolean: boolean(j.get<bool>()); break;
    case nlohmann::json::value_t::number_integer: integer(j.get<std::int64_t>()); break;
    case nlohmann::json::value_t::number_unsigned: unsigned_integer(j.get<std::uint64_t>()); break;
    case nlohmann::json::value_t::number_float: number(j.get<double>()); break;
    default: scalar(j.dump()); break;  // null, and what a report never holds (binary, discarded)
  }
}

}  // namespace gpuadvise::detail
