// The bundled catalogues and user GPU catalogues: GPUs (data/gpus.json) and model presets (data/models.json).
#include "gpuadvise/bounds.hpp"
#include "gpuadvise/catalog.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>
#include <fmt/format.h>

#include "catalog_vision.hpp"
#include "json_read.hpp"

namespace gpuadvise {

namespace {
// A rate the catalogue states: unknown (null) or within the physical bounds of bounds.hpp. A zero bandwidth or
// peak would rank a GPU that does no work; a zero link (no link) is allowed where `zero_ok`.
std::optional<double> physical(std::optional<double> v, const std::string& where, const char* key, double hi, bool zero_ok = false) {
  if (v && !((zero_ok ? *v >= 0 : *v > 0) && *v <= hi))
    throw InputError(where + "." + key + ": expected " + (zero_ok ? "0" : "more than 0") + " to " + fmt::format("{:g}", hi) + " or null (unknown), got " +
                     fmt::format("{:g}", *v));
  return v;
}

// An id is a word of lower-case letters, digits, '.', '_' and '-' (as the bundled ones): it is printed in CSV
// cells, shell commands and file names unquoted.
void check_id(const std::string& id, const std::string& where) {
  const bool ok = !id.empty() && id.size() <= 64 && std::isalnum(static_cast<unsigned char>(id[0])) &&
                  std::all_of(id.begin(), id.end(), [](char ch) {
                    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
                  });
  if (!ok) throw InputError(where + ".id: expected lower-case letters, digits, '.', '_' and '-' (at most 64, as h100-sxm-80gb), got " + quote_input(id));
}
}  // namespace

using namespace jsonio;

namespace embedded {
std::string_view gpus_json();
std::string_view models_json();
std::string_view cpus_json();
}  // namespace embedded

std::string_view bundled_gpu_catalog() { return embedded::gpus_json(); }
std::string_view bundled_cpu_catalog() { return embedded::cpus_json(); }
std::string_view bundled_model_catalog() { return embedded::models_json(); }

namespace {

Segment parse_segment(const std::string& s, const std::string& where) {
  if (s == "consumer") return Segment::consumer;
  if (s == "workstation") return Segment::workstation;
  if (s == "datacenter-pcie") return Segment::datacenter_pcie;
  if (s == "datacenter-module") return Segment::datacenter_module;
  if (s == "edge") return Segment::edge;
  throw InputError(where + ".segment: unknown value '" + s +
                   "' (valid: consumer, workstation, datacenter-pcie, datacenter-module, edge)");
}

// memory: nominal size, capacity in bytes (reported or nominal) and type.
void read_memory(GpuSpec& g, Obj& o, const std::string& where) {
  Obj mem(o.raw("memory"), where + ".memory");
  g.nominal_memory_gb = mem.num("nominal_gb");
  if (!(g.nominal_memory_gb > 0) || g.nominal_memory_gb > 1e6)
    throw InputError(where + ".memory.nominal_gb: expected a number of GB above 0 and up to 1e6, got " + mem.raw("nominal_gb").dump());
  const double cap = mem.num("capacity_bytes");
  // Up to 1e15 bytes (a petabyte, far beyond any device): a larger number would not fit the integer it becomes.
  if (!(cap > 0) || cap > 1e15 || cap != std::floor(cap))
    throw InputError(where + ".memory.capacity_bytes: expected a positive whole number of bytes up to 1e15");
  g.memory_bytes = static_cast<std::int64_t>(cap);
  g.capacity_basis = mem.str("capacity_basis");
  if (g.capacity_basis != "reported" && g.capacity_basis != "nominal")
    throw InputError(where + ".memory.capacity_basis: unknown value '" + g.capacity_basis + "' (valid: reported, nominal)");
  g.memory_type = mem.str("type");
  mem.done();
}

// node: GPUs per server, the fast-link domain, PCIe peer-to-peer, the network and host memory.
void read_node(GpuSpec& g, Obj& o, const std::string& where) {
  Obj nd(o.raw("node"), where + ".node");
  if (auto v = nd.opt_num("gpus_per_node")) {
    if (*v < 1 || *v > 1024 || *v != std::floor(*v))
      throw InputError(where + ".node.gpus_per_node: expected an integer from 1 to 1024 or null, got " + std::to_string(*v));
    g.node.gpus_per_node = static_cast<int>(*v);
  }
  const double fast = nd.num("fast_link_gpus");
  if (fast < 0 || fast > 1024 || fast != std::floor(fast))
    throw InputError(where + ".node.fast_link_gpus: expected an integer from 0 to 1024");
  g.node.fast_link_gpus = static_cast<int>(fast);
  const json& p2p = nd.raw("pcie_p2p");
  if (!p2p.is_null() && !p2p.is_boolean()) throw InputError(where + ".node.pcie_p2p: expected true, false or null, got " + type_name(p2p));
  if (p2p.is_boolean()) g.node.pcie_p2p = p2p.get<bool>();
  g.node.network_gbit_per_gpu = nd.opt_num("network_gb_per_s_per_gpu");
  g.node.network = nd.str("network");
  g.node.host_ram_gb = nd.opt_num("host_ram_gb");
  g.node.source = nd.str("source");
  nd.done();
}

// software: the stack (CUDA, ROCm, SynapseAI) and the compute capability or gfx target.
// A CPU instance's catalogue (data/cpus.json) has the stack "cpu" alone, a GPU catalogue never.
void read_software(GpuSpec& g, Obj& o, const std::string& where, bool cpu) {
  Obj sw(o.raw("software"), where + ".software");
  g.stack = sw.str("stack");
  if (cpu ? g.stack != "cpu" : g.stack != "cuda" && g.stack != "rocm" && g.stack != "synapseai")
    throw InputError(where + ".software.stack: unknown value '" + g.stack + "' (valid: " + (cpu ? "cpu" : "cuda, rocm, synapseai") + ")");
  g.compute_capability = sw.opt_str("compute_capability");
  if (const auto& cc = g.compute_capability) {
    const auto dot = cc->find('.');  // MAJOR.MINOR, as nvidia-smi --query-gpu=compute_cap prints it ("8.9", "10.0")
    auto digits = [](const std::string& t) { return !t.empty() && t.size() <= 2 && t.find_first_not_of("0123456789") == std::string::npos; };
    if (dot == std::string::npos || !digits(cc->substr(0, dot)) || !digits(cc->substr(dot + 1)))
      throw InputError(where + ".software.compute_capability: expected MAJOR.MINOR such as \"8.9\" or \"10.0\", got '" + *cc + "'");
  }
  g.gfx_target = sw.opt_str("gfx_target");
  sw.done();
}

// prices: each offer with its provider, USD per GPU-hour, the date seen and the source.
void read_prices(GpuSpec& g, Obj& o, const std::string& where) {
  const json& prices = o.raw("prices");
  if (!prices.is_array()) throw InputError(where + ".prices: expected an array, got " + type_name(prices));
  for (std::size_t i = 0; i < prices.size(); ++i) {
    Obj p(prices[i], where + ".prices[" + std::to_string(i) + "]");
    PriceOffer offer;
    offer.provider = p.str("provider");
    offer.usd_per_gpu_hour = physical(p.opt_num("usd_per_gpu_hour"), p.where(), "usd_per_gpu_hour", k_max_usd_per_gpu_hour);
    // An ISO date (YYYY-MM-DD or YYYY-MM), or null when the source gives none (the note says what is known).
    offer.date_seen = p.opt_str("date_seen").value_or("");
    if (!offer.date_seen.empty()) {
      const std::string& d = offer.date_seen;
      const bool iso = (d.size() == 7 || d.size() == 10) && std::isdigit(static_cast<unsigned char>(d[0])) && d[4] == '-' &&
                       std::all_of(d.begin(), d.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) || ch == '-'; });
      if (!iso) throw InputError(p.where() + ".date_seen: expected an ISO date (YYYY-MM-DD or YYYY-MM) or null, got '" + d + "'");
    }
    offer.source = p.str("source");
    offer.note = p.str("note");
    p.done();
    g.prices.push_back(offer);
  }
}

// sources (field group -> source) and the fields marked uncertain.
void read_sources(GpuSpec& g, Obj& o, const std::string& where) {
  const json& src = o.raw("sources");
  if (!src.is_object() || src.empty()) throw InputError(where + ".sources: expected a non-empty object of field group -> source");
  for (auto it = src.begin(); it != src.end(); ++it) {
    if (!it.value().is_string()) throw InputError(where + ".sources." + it.key() + ": expected a string");
    g.sources[it.key()] = it.value().get<std::string>();
  }

  const json& u = o.raw("uncertain");
  if (!u.is_array()) throw InputError(where + ".uncertain: expected an array of strings");
  for (const auto& x : u) {
    if (!x.is_string()) throw InputError(where + ".uncertain: expected an array of strings");
    g.uncertain.push_back(x.get<std::string>());
  }
}

GpuSpec parse_gpu(const json& j, const std::string& where_in, bool cpu) {
  std::string where = where_in;
  if (j.is_object() && j.contains("id") && j["id"].is_string()) where = where_in + " (" + j["id"].get<std::string>() + ")";
  Obj o(j, where);
  GpuSpec g;
  g.id = o.str("id");
  check_id(g.id, where);
  g.vendor = o.str("vendor");
  g.name = o.str("name");
  g.architecture = o.str("architecture");
  g.segment = parse_segment(o.str("segment"), where);
  g.form_factor = o.str("form_factor");
  read_memory(g, o, where);
  g.bandwidth_gb_per_s = physical(o.opt_num("memory_bandwidth_gb_per_s"), where, "memory_bandwidth_gb_per_s", k_max_bandwidth_gb_per_s);
  {
    Obj tf(o.raw("dense_tflops"), where + ".dense_tflops");
    for (std::size_t i = 0; i < DenseTflops::keys.size(); ++i) g.dense_tflops.values[i] = physical(tf.opt_num(std::string(DenseTflops::keys[i])), where + ".dense_tflops", DenseTflops::keys[i].data(), k_max_dense_tflops);
    tf.done();
  }
  {
    Obj ic(o.raw("interconnect"), where + ".interconnect");
    g.interconnect = ic.str("kind");
    g.interconnect_gb_per_s = physical(ic.opt_num("gb_per_s"), where + ".interconnect", "gb_per_s", k_max_link_gb_per_s, true);
    ic.done();
  }
  // optional in user catalogues: without it the segment's usual server is assumed
  if (o.has("node")) read_node(g, o, where);
  if (o.has("low_precision")) {
    Obj lp(o.raw("low_precision"), where + ".low_precision");
    g.fp8 = lp.boolean("fp8");
    g.fp4 = lp.boolean("fp4");
    lp.done();
  }
  if (auto v = o.opt_integer("pcie_gen", 1, 8)) g.pcie_gen = static_cast<int>(*v);
  if (o.has("host_link_gb_per_s")) g.host_link_gb_per_s = physical(o.opt_num("host_link_gb_per_s"), where, "host_link_gb_per_s", k_max_link_gb_per_s);
  g.board_power_w = o.opt_num("board_power_w");
  if (o.has("sustained_clock_share"))  // optional: a share of the boost clock, from 0 (exclusive) to 1
    g.sustained_clock_share = physical(o.opt_num("sustained_clock_share"), where, "sustained_clock_share", 1.0);
  if (o.has("multiprocessors"))  // optional: SMs (NVIDIA) or compute units (AMD) enabled on the product
    if (auto v = o.opt_integer("multiprocessors", 1, 1024)) g.multiprocessors = static_cast<int>(*v);
  if (o.has("boost_clock_mhz"))  // optional: the boost clock its peaks assume
    g.boost_clock_mhz = physical(o.opt_num("boost_clock_mhz"), where, "boost_clock_mhz", 5000.0);
  read_software(g, o, where, cpu);
  g.needs_server_chassis = o.boolean("needs_server_chassis");
  if (auto v = o.opt_integer("nvdec_engines", 0, 64)) g.nvdec_engines = static_cast<int>(*v);
  if (o.has("decode_streams_1080p30"))  // optional: most cards publish no whole-card figure
    if (auto v = o.opt_num("decode_streams_1080p30")) g.decode_streams_1080p30 = *v;
  g.purchase_usd = physical(o.opt_num("purchase_usd"), where, "purchase_usd", k_max_purchase_usd);
  read_prices(g, o, where);
  read_sources(g, o, where);
  g.notes = o.str("notes");
  o.done();
  // Catalogues without the node or low_precision blocks: a fast link joins a board of 8 modules or a
  // bridged pair of cards; a format with a known peak is supported.
  if (!o.has("node") && g.has_nvlink()) g.node.fast_link_gpus = g.segment == Segment::datacenter_module ? 8 : 2;
  if (!o.has("low_precision")) {
    g.fp8 = g.peak_flops("fp8").has_value();
    g.fp4 = g.peak_flops("fp4").has_value();
  }
  return g;
}

}  // namespace

// The GPUs of data/gpus.json or a user catalogue ("gpus"), or the CPU instances of data/cpus.json ("cpus").
GpuCatalog parse_gpu_catalog_unguarded(std::string_view text, const std::string& origin, const std::string& list = "gpus") {
  const json j = parse_json(text, origin);
  Obj o(j, origin);
  GpuCatalog cat;
  const double version = o.num("schema_version");
  if (version != 1) throw InputError(origin + ".schema_version: unsupported version (valid: 1)");
  cat.version = o.str("catalog_version");
  const json& gpus = o.raw(list);
  if (!gpus.is_array() || gpus.empty()) throw InputError(origin + "." + list + ": expected a non-empty array");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const std::string where = origin + ": " + list + "[" + std::to_string(i) + "]";
    GpuSpec g = parse_gpu(gpus[i], where, list == "cpus");
    if (!seen.insert(g.id).second) throw InputError(where + ": duplicate id '" + g.id + "'");
    cat.gpus.push_back(std::move(g));
  }
  o.done();
  return cat;
}

ModelCatalog parse_model_catalog_unguarded(std::string_view text, const std::string& origin) {
  const json j = parse_json(text, origin);
  Obj o(j, origin);
  if (o.num("schema_version") != 1) throw InputError(origin + ".schema_version: unsupported version (valid: 1)");
  ModelCatalog cat;
  const json& models = o.raw("models");
  if (!models.is_array()) throw InputError(origin + ".models: expected an array");
  for (std::size_t i = 0; i < models.size(); ++i) {
    const std::string where = origin + ": models[" + std::to_string(i) + "]";
    Obj mo(models[i], where);
    const std::string id = mo.str("id");
    const std::string source = mo.str("source");
    if (mo.has("vision")) {
      ModelSpec m;
      m.id = id;
      m.source = source;
      m.vision = parse_vision(mo.raw("vision"), where + " (" + id + ").vision");
      m.family = m.vision->backbone;
      mo.done();
      cat.models.push_back(std::move(m));
      continue;
    }
    const json& config = mo.raw("config");
    mo.done();
    ModelSpec m = parse_hf_config_json(config, where + " (" + id + ").config", id);
    m.source = source;
    cat.models.push_back(std::move(m));
  }
  o.done();
  return cat;
}

const ModelSpec* ModelCatalog::find(const std::string& id) const {
  for (const auto& m : models)
    if (m.id == id) return &m;
  return nullptr;
}

std::vector<std::string> ModelCatalog::ids() const {
  std::vector<std::string> out;
  for (const auto& m : models) out.push_back(m.id);
  return out;
}

namespace {
// "org/name" of a preset's Hugging Face source, lower-case, without the instruct and chat infixes; empty when the
// source is not a Hugging Face repository.
std::string repo_key(std::string repo) {
  repo = lower(std::move(repo));
  for (const std::string_view infix : {"-instruct", "-chat"})
    for (auto at = repo.find(infix); at != std::string::npos; at = repo.find(infix)) repo.erase(at, infix.size());
  return repo;
}

const ModelSpec* preset_of_repo(const std::string& id, const ModelCatalog& catalog) {
  const std::string prefix = "https://huggingface.co/";
  const std::string want = repo_key(id);
  for (const ModelSpec& m : catalog.models) {
    if (m.source.rfind(prefix, 0) != 0) continue;
    const std::string rest = m.source.substr(prefix.size());
    const auto org = rest.find('/');
    if (org == std::string::npos) continue;
    const auto end = rest.find_first_of("/ ", org + 1);
    if (repo_key(rest.substr(0, end)) == want) return &m;
  }
  return nullptr;
}
}  // namespace

namespace {
// The name a config file goes by: the repository of a Hugging Face cache snapshot
// (.../models--meta-llama--Llama-3.1-8B/snapshots/<hash>/config.json: meta-llama/Llama-3.1-8B), else the folder
// that holds config.json, else the file's stem.
std::string model_label(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  while (at <= path.size()) {
    const std::size_t end = std::min(path.find('/', at), path.size());
    if (end > at && path.compare(at, end - at, ".") != 0) parts.push_back(path.substr(at, end - at));
    at = end + 1;
  }
  if (!parts.empty() && parts.back() == "config.json") parts.pop_back();
  for (const auto& p : parts)
    if (p.rfind("models--", 0) == 0 && p.find("--", 8) != std::string::npos) {
      const std::size_t sep = p.find("--", 8);
      return p.substr(8, sep - 8) + "/" + p.substr(sep + 2);
    }
  if (parts.empty()) return "config";
  std::string name = parts.back();
  if (name.ends_with(".json")) name.resize(name.size() - 5);
  return name;
}
}  // namespace

ModelSpec resolve_model(const std::string& arg, const ModelCatalog& catalog,
                        const std::function<std::optional<std::string>(const std::string&)>& read_file) {
  const std::string id = lower(arg);
  if (const ModelSpec* m = catalog.find(id)) return *m;
  const bool looks_like_path = arg.find('/') != std::string::npos || arg.ends_with(".json");
  if (looks_like_path) {
    auto text = read_file(arg);
    if (!text) {
      // A Hugging Face repo id ("meta-llama/Llama-3.1-8B-Instruct"): the preset of the same shape, if there is one
      // (chat and instruct variants share their base model's shape).
      const auto slash = id.find('/');
      if (slash != std::string::npos && id.find('/', slash + 1) == std::string::npos && !id.ends_with(".json") && id[0] != '.' && id[0] != '/') {
        std::string name = id.substr(slash + 1);
        for (const char* suffix : {"-instruct", "-chat", "-it", "-hf", "-base"})
          if (name.ends_with(suffix)) name.resize(name.size() - std::string_view(suffix).size());
        if (name.rfind("meta-", 0) == 0) name.erase(0, 5);
        for (const std::string& candidate : {name, name + "-base-1.0"})
          if (const ModelSpec* m = catalog.find(candidate)) return *m;
        // The repository a preset was read from, as people name it (mistralai/Mixtral-8x7B-v0.1,
        // black-forest-labs/FLUX.1-dev), its -Instruct and -chat variants included.
        if (const ModelSpec* m = preset_of_repo(id, catalog)) return *m;
        const std::string hint = did_you_mean(name, catalog.ids());
        throw InputError("--model: " + quote_input(arg) + " is neither a readable config.json or snapshot folder nor a repo id with a preset (" +
                         (hint.empty() ? std::string("'gpuadvise models' lists them") : hint) + "): download its config.json and pass the file");
      }
      throw InputError("--model: cannot read config file " + quote_input(arg));
    }
    ModelSpec m = parse_hf_config(*text, arg, model_label(arg));
    m.local_path = arg;  // a launch hint serves the folder, not the file's stem
    return m;
  }
  // A bare size.
  std::string body = id;
  double mult = 1;
  if (!body.empty()) {
    const char last = body.back();
    if (last == 'b') mult = 1e9;
    else if (last == 'm') mult = 1e6;
    else if (last == 'k') mult = 1e3;
    else if (last == 't') mult = 1e12;
    if (mult != 1) body.pop_back();
  }
  double v = 0;
  const auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), v);  // decimal only: no hex, no inf
  const bool number = !body.empty() && ec == std::errc() && ptr == body.data() + body.size();
  if (number && std::isfinite(v) && v > 0 && (body[0] >= '0' && body[0] <= '9')) {
    const double params = v * mult;
    if (params < 1e6 || params > 1e13)
      throw InputError("--model: a size must be between 1M and 10T parameters, got " + quote_input(arg));
    return generic_decoder(params, arg);
  }
  std::string hint = did_you_mean(id, catalog.ids());
  throw InputError("--model: unknown model " + quote_input(arg) + " (a size such as 7B, a preset id, or a path to a config.json; " +
                   (hint.empty() ? std::string("'gpuadvise models' lists the presets") : hint) + ")");
}

GpuCatalog parse_gpu_catalog(std::string_view text, const std::string& origin) {
  return json_guard(origin, [&] { return parse_gpu_catalog_unguarded(text, origin); });
}
GpuCatalog parse_cpu_catalog(std::string_view text, const std::string& origin) {
  return json_guard(origin, [&] { return parse_gpu_catalog_unguarded(text, origin, "cpus"); });
}
ModelCatalog parse_model_catalog(std::string_view text, const std::string& origin) {
  return json_guard(origin, [&] { return parse_model_catalog_unguarded(text, origin); });
}

}  // namespace gpuadvise
