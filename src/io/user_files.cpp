// The files users write: workload files (read as SAX events), price files, a probe's result and the calibration
// file.
#include <algorithm>
#include <cmath>
#include <functional>
#include <fmt/format.h>

#include "gpuadvise/bounds.hpp"
#include "gpuadvise/catalog.hpp"
#include "json_read.hpp"

namespace gpuadvise {

using namespace jsonio;

std::vector<std::pair<std::string, double>> parse_price_file_unguarded(std::string_view text, const std::string& origin) {
  const json j = parse_json(text, origin);
  if (!j.is_object()) throw InputError(origin + ": expected an object of GPU id -> USD per GPU-hour");
  std::vector<std::pair<std::string, double>> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_number() || !(it.value().get<double>() > 0 && it.value().get<double>() <= k_max_usd_per_gpu_hour))
      throw InputError(origin + "." + it.key() + ": expected USD per GPU-hour, more than 0 and at most " + fmt::format("{:g}", k_max_usd_per_gpu_hour) +
                       ", got " + it.value().dump());
    out.emplace_back(it.key(), it.value().get<double>());
  }
  return out;
}

// A workload file is read in one pass of SAX events straight into RawWorkloads (no JSON tree: a CI file of
// 10,000 workloads is read in milliseconds). Values keep the text the user wrote, so errors echo it exactly.
class WorkloadReader : public nlohmann::json_sax<json> {
public:
  // `each` takes every workload as soon as its object closes (check streams a file of thousands this way);
  // without it they collect in `out`.
  WorkloadReader(const std::string& origin, const std::function<void(RawWorkload&&)>* each) : m_origin(origin), m_each(each) {}
  std::vector<RawWorkload> out;
  std::size_t count = 0;
  std::string error;  // the first problem, as an InputError line

  bool null() override { return value_of("null", "null"); }
  bool boolean(bool v) override { return value_of(v ? "true" : "false", "a boolean"); }
  bool number_integer(number_integer_t v) override { return value_of(std::to_string(v), "a number"); }
  bool number_unsigned(number_unsigned_t v) override { return value_of(std::to_string(v), "a number"); }
  bool number_float(number_float_t, const string_t& text) override { return value_of(text, "a number"); }
  bool string(string_t& v) override { return value_of(v, "a string"); }
  bool binary(binary_t&) override { return fail(where() + ": expected a workload object"); }
  bool start_object(std::size_t) override {
    if (m_depth == 0 || (m_depth == 1 && m_top_array)) {
      ++m_depth;
      out.emplace_back();
      m_in_object = true;
      m_where = where();  // "plans.json[12]": the prefix of every value's origin in this object
      return true;
    }
    return fail(field() + ": expected a string, number or boolean, got an object");
  }
  bool key(string_t& k) override {
    m_key = k;
    if (out.back().count(k)) return fail(where() + ": key '" + k + "' appears twice in one object");
    return true;
  }
  bool end_object() override {
    --m_depth;
    m_in_object = false;
    ++m_index;
    ++count;
    if (m_each) {
      RawWorkload w = std::move(out.back());
      out.pop_back();
      (*m_each)(std::move(w));
    }
    return true;
  }
  bool start_array(std::size_t) override {
    if (m_depth == 0) {
      m_top_array = true;
      ++m_depth;
      return true;
    }
    return fail((m_in_object ? field() : where()) + (m_in_object ? ": expected a string, number or boolean, got an array" : ": expected a workload object, got an array"));
  }
  bool end_array() override {
    --m_depth;
    if (count == 0) return fail(m_origin + ": expected a workload object or a non-empty array of them");
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    if (error.empty() && e.id == 406 && m_in_object) {
      // A number beyond a double (1e400): the key it belongs to, not only the parser's words.
      const std::string what = e.what();
      const auto pos = what.find("number");
      error = field() + ": a number beyond any finite value (" + (pos == std::string::npos ? what : what.substr(pos)) + ")";
      return false;
    }
    if (error.empty()) {
      std::string what = e.what();
      const auto pos = what.find("parse error");
      error = m_origin + ": malformed JSON (" + (pos == std::string::npos ? what : what.substr(pos)) + ")";
    }
    return false;
  }

private:
  std::string where() const { return m_top_array ? m_origin + "[" + std::to_string(m_index) + "]" : m_origin; }
  std::string field() const {
    std::string f;
    f.reserve(m_where.size() + 1 + m_key.size());
    f.append(m_where).append(".").append(m_key);
    return f;
  }
  bool fail(std::string line) {
    if (error.empty()) error = std::move(line);
    return false;
  }
  bool value_of(const std::string& v, const char* kind) {
    if (!m_in_object) {
      if (m_depth == 0) return fail(m_origin + ": expected a workload object or a non-empty array of them, got " + kind);
      return fail(where() + ": expected a workload object, got " + kind);
    }
    if (std::string_view(kind) == "null") return fail(field() + ": expected a string, number or boolean, got null");
    out.back().emplace(m_key, RawValue{v, field()});
    return true;
  }

  const std::string& m_origin;
  const std::function<void(RawWorkload&&)>* m_each;
  std::string m_key, m_where;
  std::size_t m_depth = 0, m_index = 0;
  bool m_top_array = false, m_in_object = false;
};

namespace {
std::vector<RawWorkload> read_workloads(std::string_view text, const std::string& origin, const std::function<void(RawWorkload&&)>* each) {
  WorkloadReader reader(origin, each);
  const bool ok = json::sax_parse(text.begin(), text.end(), &reader);
  if (!ok || !reader.error.empty()) throw InputError(reader.error.empty() ? origin + ": malformed JSON" : reader.error);
  if (reader.count == 0) throw InputError(origin + ": expected a workload object or a non-empty array of them");
  return std::move(reader.out);
}
}  // namespace

namespace {
double need_number(const json& o, const char* key, const std::string& where, double lo, double hi) {
  if (!o.contains(key)) throw InputError(where + ": missing '" + key + "'");
  const json& v = o.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo || v.get<double>() > hi)
    throw InputError(where + "." + key + fmt::format(": expected a number from {:g} to {:g}", lo, hi));
  return v.get<double>();
}
std::string need_string(const json& o, const char* key, const std::string& where) {
  if (!o.contains(key) || !o.at(key).is_string()) throw InputError(where + "." + key + ": expected a string");
  return o.at(key).get<std::string>();
}
}  // namespace

ProbeResult parse_probe_result_unguarded(std::string_view text, const std::string& origin) {
  const json j = parse_json(text, origin);
  if (!j.is_object()) throw InputError(origin + ": expected the JSON object a gpuadvise probe script writes");
  if (!j.contains("schema") || j.at("schema") != "gpuadvise-probe/1")
    throw InputError(origin + ".schema: expected \"gpuadvise-probe/1\" (the file `python probe.py` writes)");
  ProbeResult r;
  r.estimate_args = need_string(j, "estimate_args", origin);
  r.gpu_name = need_string(j, "gpu_name", origin);
  if (!j.contains("measured") || !j.at("measured").is_object()) throw InputError(origin + ".measured: expected an object");
  const json& m = j.at("measured");
  const std::string mw = origin + ".measured";
  r.max_allocated_bytes = need_number(m, "max_memory_allocated_bytes", mw, 1, 1e15);
  r.max_reserved_bytes = need_number(m, "max_memory_reserved_bytes", mw, 0, 1e15);
  r.device_used_bytes = need_number(m, "device_used_bytes", mw, 0, 1e15);
  r.step_seconds = need_number(m, "step_seconds", mw, 1e-9, 1e9);
  r.per_second = need_number(m, "per_second", mw, 1e-9, 1e15);
  r.unit = need_string(m, "unit", mw);
  // What one allocator can report (PyTorch's caching allocator): the device holds at least what is reserved,
  // which holds at least what was allocated. A result that breaks this is not a measurement.
  if (r.max_reserved_bytes < r.max_allocated_bytes)
    throw InputError(mw + ".max_memory_reserved_bytes: " + fmt::format("{:.0f}", r.max_reserved_bytes) +
                     " is below max_memory_allocated_bytes (" + fmt::format("{:.0f}", r.max_allocated_bytes) +
                     "): PyTorch reserves at least what it allocates; not a probe's measurement");
  if (r.device_used_bytes < r.max_reserved_bytes)
    throw InputError(mw + ".device_used_bytes: " + fmt::format("{:.0f}", r.device_used_bytes) + " is below max_memory_reserved_bytes (" +
                     fmt::format("{:.0f}", r.max_reserved_bytes) + "): the device holds at least what PyTorch reserved; not a probe's measurement");
  return r;
}

std::vector<LocalCorrection> parse_calibration_unguarded(std::string_view text, const std::string& origin) {
  const json j = parse_json(text, origin);
  if (!j.is_object() || !j.contains("corrections") || !j.at("corrections").is_array())
    throw InputError(origin + ": expected {\"corrections\": [...]} as gpuadvise calibrate --save writes it");
  std::vector<LocalCorrection> out;
  std::size_t i = 0;
  for (const auto& c : j.at("corrections")) {
    const std::string where = origin + ".corrections[" + std::to_string(i++) + "]";
    if (!c.is_object()) throw InputError(where + ": expected an object");
    LocalCorrection k;
    k.gpu = need_string(c, "gpu", where);
    k.framework = need_string(c, "framework", where);
    if (!c.contains("training") || !c.at("training").is_boolean()) throw InputError(where + ".training: expected true or false");
    k.training = c.at("training").get<bool>();
    k.memory_factor = need_number(c, "memory_factor", where, k_calibration_memory_min, k_calibration_memory_max);
    k.speed_factor = need_number(c, "speed_factor", where, k_calibration_speed_min, k_calibration_speed_max);
    k.source = c.contains("source") && c.at("source").is_string() ? c.at("source").get<std::string>() : "";
    k.saved = c.contains("saved") && c.at("saved").is_string() ? c.at("saved").get<std::string>() : "";
    // Files saved before scopes have none: the correction then applies to nothing, and answers say so.
    if (c.contains("scope")) {
      const json& s = c.at("scope");
      const std::string sw = where + ".scope";
      if (!s.is_object()) throw InputError(sw + ": expected an object as gpuadvise calibrate --save writes it");
      CorrectionScope scope;
      scope.mode = need_string(s, "mode", sw);
      scope.precision = need_string(s, "precision", sw);
      scope.checkpointing = need_string(s, "checkpointing", sw);
      scope.layout = need_string(s, "layout", sw);
      scope.params = need_number(s, "params", sw, 1, k_max_scope_params);
      scope.step_elements = need_number(s, "step_elements", sw, 1, k_max_scope_step_elements);
      k.scope = std::move(scope);
    }
    out.push_back(std::move(k));
  }
  return out;
}

std::string calibration_json(const std::vector<LocalCorrection>& corrections) {
  json arr = json::array();
  for (const auto& k : corrections) {
    json entry = {{"gpu", k.gpu}, {"framework", k.framework}, {"training", k.training}, {"memory_factor", k.memory_factor},
                  {"speed_factor", k.speed_factor}, {"source", k.source}, {"saved", k.saved}};
    if (k.scope)
      entry["scope"] = {{"mode", k.scope->mode}, {"precision", k.scope->precision}, {"checkpointing", k.scope->checkpointing},
                        {"layout", k.scope->layout}, {"params", k.scope->params}, {"step_elements", k.scope->step_elements}};
    arr.push_back(std::move(entry));
  }
  json j;
  j["note"] = "local corrections from gpuadvise calibrate --save, each for workloads like the one measured (its scope); every answer they change says so; gpuadvise calibrate --reset removes them";
  j["corrections"] = arr;
  return j.dump(2) + "\n";
}

namespace {
UserDefaults parse_defaults_unguarded(std::string_view text, const std::string& origin) {
  const json j = parse_json(text, origin);
  if (!j.is_object()) throw InputError(origin + ": expected an object (keys: provider, price_policy, units, color, min_headroom, max_gpus, prices)");
  UserDefaults d;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const json& v = it.value();
    const std::string at = origin + "." + k;
    auto one_of = [&](std::initializer_list<const char*> valid) {
      std::string list;
      for (const char* x : valid) {
        if (v.is_string() && v.get<std::string>() == x) return v.get<std::string>();
        list += (list.empty() ? "" : ", ") + std::string(x);
      }
      throw InputError(at + ": expected one of " + list + ", got " + v.dump());
    };
    if (k == "provider") {
      if (!v.is_string() || v.get<std::string>().empty()) throw InputError(at + ": expected a provider's name (gpuadvise gpus ID lists its offers), got " + v.dump());
      d.provider = v.get<std::string>();
    } else if (k == "price_policy") {
      d.price_policy = one_of({"cheapest", "median"});  // the values of --price-policy (docs/method.md §10)
    } else if (k == "units") {
      d.units = one_of({"gb", "gib"});
    } else if (k == "color") {
      d.color = one_of({"auto", "always", "never"});
    } else if (k == "min_headroom") {
      if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() < 100)) throw InputError(at + ": expected a percentage from 0 to below 100, got " + v.dump());
      d.min_headroom = v.get<double>();
    } else if (k == "max_gpus") {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > k_max_plan_gpus)
        throw InputError(at + ": expected an integer from 1 to 32,768, got " + v.dump());
      d.max_gpus = v.get<std::int64_t>();
    } else if (k == "prices") {
      d.prices = parse_price_file_unguarded(v.dump(), at);
    } else {
      throw InputError(at + ": unknown key (valid: provider, price_policy, units, color, min_headroom, max_gpus, prices)");
    }
  }
  return d;
}
}  // namespace

UserDefaults parse_defaults_file(std::string_view text, const std::string& origin) {
  return json_guard(origin, [&] { return parse_defaults_unguarded(text, origin); });
}

std::vector<std::pair<std::string, double>> parse_price_file(std::string_view text, const std::string& origin) {
  return json_guard(origin, [&] { return parse_price_file_unguarded(text, origin); });
}
std::vector<RawWorkload> parse_workload_file(std::string_view text, const std::string& origin) {
  return json_guard(origin, [&] { return read_workloads(text, origin, nullptr); });
}
void for_each_workload(std::string_view text, const std::string& origin, const std::function<void(RawWorkload&&)>& each) {
  json_guard(origin, [&] { read_workloads(text, origin, &each); });
}
ProbeResult parse_probe_result(std::string_view text, const std::string& origin) {
  return json_guard(origin, [&] { return parse_probe_result_unguarded(text, origin); });
}
std::vector<LocalCorrection> parse_calibration(std::string_view text, const std::string& origin) {
  return json_guard(origin, [&] { return parse_calibration_unguarded(text, origin); });
}

}  // namespace gpuadvise
