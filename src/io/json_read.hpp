#pragma once
// Reading JSON as user input (io layer, internal): every problem is an InputError naming the file, the entry and
// the key; a key given twice is an error; json_guard turns a library exception into one. Shared by catalog.cpp
// (GPU and model catalogues), hf_config.cpp (Hugging Face config.json) and user_files.cpp (workload, price,
// probe and calibration files).
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvise/error.hpp"
#include "gpuadvise/model.hpp"

namespace gpuadvise::jsonio {

using json = nlohmann::json;

json parse_json(std::string_view text, const std::string& origin);
std::string type_name(const json& j);

// Strict reader of one JSON object: every key must be read, unknown keys are errors.
class Obj {
public:
  Obj(const json& j, std::string where) : m_j(j), m_where(std::move(where)) {
    if (!j.is_object()) throw InputError(m_where + ": expected an object, got " + type_name(j));
  }
  const std::string& where() const { return m_where; }
  bool has(const std::string& k) const { return m_j.contains(k); }
  const json& raw(const std::string& k) {
    m_seen.insert(k);
    if (!m_j.contains(k)) throw InputError(m_where + ": missing field '" + k + "'");
    return m_j.at(k);
  }
  std::string str(const std::string& k) {
    const json& v = raw(k);
    if (!v.is_string()) throw InputError(m_where + "." + k + ": expected a string, got " + type_name(v));
    return v.get<std::string>();
  }
  std::optional<std::string> opt_str(const std::string& k) {
    const json& v = raw(k);
    if (v.is_null()) return std::nullopt;
    if (!v.is_string()) throw InputError(m_where + "." + k + ": expected a string or null, got " + type_name(v));
    return v.get<std::string>();
  }
  double num(const std::string& k) {
    const json& v = raw(k);
    if (!v.is_number()) throw InputError(m_where + "." + k + ": expected a number, got " + type_name(v));
    return v.get<double>();
  }
  std::optional<double> opt_num(const std::string& k) {
    const json& v = raw(k);
    if (v.is_null()) return std::nullopt;
    if (!v.is_number()) throw InputError(m_where + "." + k + ": expected a number or null, got " + type_name(v));
    const double x = v.get<double>();
    // Every optional catalogue quantity (GB/s, TFLOPS, W, GB, USD, streams) is far below 1e12; past it the
    // arithmetic would overflow to infinities.
    if (x < 0 || x > 1e12) throw InputError(m_where + "." + k + ": expected a number from 0 to 1e12 or null, got " + v.dump());
    return x;
  }
  // A whole number in [lo, hi]: counts the code holds as integers (cast only once in range).
  std::int64_t integer(const std::string& k, double lo, double hi) {
    const double x = num(k);
    if (x < lo || x > hi || x != std::floor(x))
      throw InputError(m_where + "." + k + ": expected a whole number from " + fmt::format("{:g}", lo) + " to " + fmt::format("{:g}", hi) + ", got " +
                       raw(k).dump());
    return static_cast<std::int64_t>(x);
  }
  std::optional<std::int64_t> opt_integer(const std::string& k, double lo, double hi) {
    if (raw(k).is_null()) return std::nullopt;
    return integer(k, lo, hi);
  }
  bool boolean(const std::string& k) {
    const json& v = raw(k);
    if (!v.is_boolean()) throw InputError(m_where + "." + k + ": expected true or false, got " + type_name(v));
    return v.get<bool>();
  }
  void done() const {
    for (auto it = m_j.begin(); it != m_j.end(); ++it) {
      if (!m_seen.count(it.key())) {
        std::vector<std::string> known(m_seen.begin(), m_seen.end());
        std::string hint = did_you_mean(it.key(), known);
        throw InputError(m_where + ": unknown field '" + it.key() + "'" + (hint.empty() ? "" : "; " + hint));
      }
    }
  }

private:
  const json& m_j;
  std::string m_where;
  std::set<std::string> m_seen;
};

std::int64_t geti(const json& c, const std::vector<std::string>& keys, const std::string& origin, std::optional<std::int64_t> dflt = std::nullopt);
bool getb(const json& c, const std::string& k, bool dflt);
std::string lower(std::string s);

// A Hugging Face config already parsed (hf_config.cpp): presets embed theirs.
ModelSpec parse_hf_config_json(const json& c, const std::string& origin, const std::string& id);

// Runs a reader; a type or range exception from the JSON library becomes one InputError naming the file.
// A JSON value of the wrong type deep in a reader (nlohmann's type and range errors) is bad input of that
// file: exit 2 with the file, not an internal error.
template <typename F>
auto json_guard(const std::string& origin, F&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const json::exception& e) {
    std::string what = e.what();
    const auto pos = what.find("] ");
    throw InputError(origin + ": a value has the wrong type or is out of range (" + (pos == std::string::npos ? what : what.substr(pos + 2)) + ")");
  }
}

}  // namespace gpuadvise::jsonio
