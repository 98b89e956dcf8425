#include "json_read.hpp"

#include <algorithm>
#include <cctype>

namespace gpuadvise::jsonio {

json parse_json(std::string_view text, const std::string& origin) {
  // A key given twice in one object is an error, not a silent "last one wins". One list of keys per open object,
  // kept (with its capacity) for the next object at that depth: objects are small, a linear search is cheapest.
  std::vector<std::vector<std::string>> keys;
  std::size_t depth = 0;
  std::string duplicate;
  const json::parser_callback_t on_event = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      if (keys.size() <= depth) keys.emplace_back();
      keys[depth++].clear();
    } else if (event == json::parse_event_t::object_end && depth > 0) {
      --depth;
    } else if (event == json::parse_event_t::key && depth > 0 && parsed.is_string()) {
      const auto& key = parsed.get_ref<const std::string&>();
      auto& seen = keys[depth - 1];
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
        if (duplicate.empty()) duplicate = key;
      } else {
        seen.push_back(key);
      }
    }
    return true;
  };
  try {
    json j = json::parse(text.begin(), text.end(), on_event);
    if (!duplicate.empty()) throw InputError(origin + ": key '" + duplicate + "' appears twice in one object");
    return j;
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    const auto pos = what.find("parse error");
    throw InputError(origin + ": malformed JSON (" + (pos == std::string::npos ? what : what.substr(pos)) + ")");
  }
}

std::string type_name(const json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_array()) return "an array";
  return "an object";
}

std::int64_t geti(const json& c, const std::vector<std::string>& keys, const std::string& origin, std::optional<std::int64_t> dflt) {
  for (const auto& k : keys) {
    if (c.contains(k) && !c[k].is_null()) {
      if (!c[k].is_number()) throw InputError(origin + ": field '" + k + "' must be a number, got " + type_name(c[k]));
      const double v = c[k].get<double>();
      // Whole numbers within what any model has (docs/method.md, "Input ranges"): nothing beyond 1e12
      // reaches the arithmetic, where a double cast to an integer out of range is undefined.
      if (v < 0 || v > 1e12 || v != std::floor(v))
        throw InputError(origin + ": field '" + k + "' must be a whole number from 0 to 1e12, got " + c[k].dump());
      return static_cast<std::int64_t>(v);
    }
  }
  if (dflt) return *dflt;
  throw InputError(origin + ": missing field '" + keys.front() + "' (needed to size the model)");
}

bool getb(const json& c, const std::string& k, bool dflt) {
  if (!c.contains(k) || c[k].is_null()) return dflt;
  if (!c[k].is_boolean()) return dflt;
  return c[k].get<bool>();
}

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

}  // namespace gpuadvise::jsonio
