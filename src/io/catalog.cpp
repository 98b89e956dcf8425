#include "gpuadvise/catalog.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <set>

#include "gpuadvise/error.hpp"

namespace gpuadvise {

namespace embedded {
std::string_view gpus_json();
std::string_view models_json();
}  // namespace embedded

std::string_view bundled_gpu_catalog() { return embedded::gpus_json(); }
std::string_view bundled_model_catalog() { return embedded::models_json(); }

namespace {

using json = nlohmann::json;

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

Segment parse_segment(const std::string& s, const std::string& where) {
  if (s == "consumer") return Segment::consumer;
  if (s == "workstation") return Segment::workstation;
  if (s == "datacenter-pcie") return Segment::datacenter_pcie;
  if (s == "datacenter-module") return Segment::datacenter_module;
  if (s == "edge") return Segment::edge;
  throw InputError(where + ".segment: unknown value '" + s +
                   "' (valid: consumer, workstation, datacenter-pcie, datacenter-module, edge)");
}

GpuSpec parse_gpu(const json& j, const std::string& where_in) {
  std::string where = where_in;
  if (j.is_object() && j.contains("id") && j["id"].is_string()) where = where_in + " (" + j["id"].get<std::string>() + ")";
  Obj o(j, where);
  GpuSpec g;
  g.id = o.str("id");
  if (g.id.empty()) throw InputError(where + ".id: must not be empty");
  g.vendor = o.str("vendor");
  g.name = o.str("name");
  g.architecture = o.str("architecture");
  g.segment = parse_segment(o.str("segment"), where);
  g.form_factor = o.str("form_factor");
  {
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
  g.bandwidth_gb_per_s = o.opt_num("memory_bandwidth_gb_per_s");
  {
    Obj tf(o.raw("dense_tflops"), where + ".dense_tflops");
    for (const char* k : {"fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp4"}) g.dense_tflops[k] = tf.opt_num(k);
    tf.done();
  }
  {
    Obj ic(o.raw("interconnect"), where + ".interconnect");
    g.interconnect = ic.str("kind");
    g.interconnect_gb_per_s = ic.opt_num("gb_per_s");
    ic.done();
  }
  if (o.has("node")) {  // optional in user catalogues: without it the segment's usual server is assumed
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
  if (o.has("low_precision")) {
    Obj lp(o.raw("low_precision"), where + ".low_precision");
    g.fp8 = lp.boolean("fp8");
    g.fp4 = lp.boolean("fp4");
    lp.done();
  }
  if (auto v = o.opt_integer("pcie_gen", 1, 8)) g.pcie_gen = static_cast<int>(*v);
  g.board_power_w = o.opt_num("board_power_w");
  {
    Obj sw(o.raw("software"), where + ".software");
    g.stack = sw.str("stack");
    if (g.stack != "cuda" && g.stack != "rocm" && g.stack != "synapseai")
      throw InputError(where + ".software.stack: unknown value '" + g.stack + "' (valid: cuda, rocm, synapseai)");
    g.compute_capability = sw.opt_str("compute_capability");
    g.gfx_target = sw.opt_str("gfx_target");
    sw.done();
  }
  g.needs_server_chassis = o.boolean("needs_server_chassis");
  if (auto v = o.opt_integer("nvdec_engines", 0, 64)) g.nvdec_engines = static_cast<int>(*v);
  if (o.has("decode_streams_1080p30"))  // optional: most cards publish no whole-card figure
    if (auto v = o.opt_num("decode_streams_1080p30")) g.decode_streams_1080p30 = *v;
  g.purchase_usd = o.opt_num("purchase_usd");
  {
    const json& prices = o.raw("prices");
    if (!prices.is_array()) throw InputError(where + ".prices: expected an array, got " + type_name(prices));
    for (std::size_t i = 0; i < prices.size(); ++i) {
      Obj p(prices[i], where + ".prices[" + std::to_string(i) + "]");
      PriceOffer offer;
      offer.provider = p.str("provider");
      offer.usd_per_gpu_hour = p.opt_num("usd_per_gpu_hour");
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
  {
    const json& src = o.raw("sources");
    if (!src.is_object() || src.empty()) throw InputError(where + ".sources: expected a non-empty object of field group -> source");
    for (auto it = src.begin(); it != src.end(); ++it) {
      if (!it.value().is_string()) throw InputError(where + ".sources." + it.key() + ": expected a string");
      g.sources[it.key()] = it.value().get<std::string>();
    }
  }
  {
    const json& u = o.raw("uncertain");
    if (!u.is_array()) throw InputError(where + ".uncertain: expected an array of strings");
    for (const auto& x : u) {
      if (!x.is_string()) throw InputError(where + ".uncertain: expected an array of strings");
      g.uncertain.push_back(x.get<std::string>());
    }
  }
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

std::int64_t geti(const json& c, const std::vector<std::string>& keys, const std::string& origin, std::optional<std::int64_t> dflt = std::nullopt) {
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

VisionArch parse_vision(const json& j, const std::string& where) {
  Obj o(j, where);
  VisionArch a;
  auto one_of = [&](const std::string& key, const std::vector<std::string>& valid) {
    const std::string v = o.str(key);
    if (std::find(valid.begin(), valid.end(), v) == valid.end())
      throw InputError(where + "." + key + ": unknown value '" + v + "' (valid: " + join(valid, ", ") + ")");
    return v;
  };
  a.task = one_of("task", {"classification", "detection", "instance-segmentation", "keypoints", "panoptic", "segmentation", "generation"});
  a.backbone = one_of("backbone", {"resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext101-32x8d", "resnext101-32x4d",
                                   "resnext101-64x4d", "resnext152-32x8d", "vit", "swin-t", "swin-s", "swin-b", "convnext-t", "convnext-b", "efficientnet-b0",
                                   "efficientnet-b4", "mit-b0", "mit-b5", "unet2d", "cspdarknet", "generic", "unet", "dit"});
  a.neck = o.has("neck") ? one_of("neck", {"none", "fpn", "c4", "dc5", "dilated8"}) : "none";
  a.head = o.has("head") ? one_of("head", {"cls", "rpn", "rpn-box", "fast-box", "retinanet", "detr", "mask", "keypoint", "panoptic", "yolo", "seg"}) : "cls";
  if (o.has("cascade_stages")) a.cascade_stages = o.integer("cascade_stages", 0, 1e6);
  if (o.has("box_convs")) a.box_convs = o.integer("box_convs", 0, 1e6);
  if (o.has("mask_convs")) a.mask_convs = o.integer("mask_convs", 0, 1e6);
  if (o.has("classes")) a.classes = o.integer("classes", 0, 1e6);
  if (o.has("dconv")) a.dconv = o.boolean("dconv");
  if (o.has("gn")) a.gn = o.boolean("gn");
  if (o.has("syncbn")) a.syncbn = o.boolean("syncbn");
  if (o.has("scratch")) a.scratch = o.boolean("scratch");
  if (o.has("params")) a.params = o.num("params");
  if (o.has("gmacs")) a.gmacs = o.num("gmacs");
  if (o.has("gflops")) {
    a.gmacs = o.num("gflops");
    a.flops_unit = "flops";
  }
  // [width, height] in positive whole pixels.
  auto size_pair = [&](const std::string& key, std::int64_t& w, std::int64_t& h) {
    if (!o.has(key)) return;
    const json& r = o.raw(key);
    if (!r.is_array() || r.size() != 2 || !r[0].is_number_integer() || !r[1].is_number_integer() || r[0].get<std::int64_t>() < 1 ||
        r[1].get<std::int64_t>() < 1)
      throw InputError(where + "." + key + ": expected [width, height] in pixels");
    w = r[0].get<std::int64_t>();
    h = r[1].get<std::int64_t>();
  };
  size_pair("ref_size", a.ref_w, a.ref_h);
  size_pair("train_max_size", a.train_max_w, a.train_max_h);
  if (o.has("vit")) {
    Obj v(o.raw("vit"), where + ".vit");
    a.vit_layers = v.integer("layers", 0, 1e6);
    a.vit_hidden = v.integer("hidden", 0, 1e6);
    a.vit_heads = v.integer("heads", 0, 1e6);
    a.vit_mlp = v.integer("mlp", 0, 1e6);
    a.patch = v.integer("patch", 0, 1e6);
    v.done();
  }
  if (o.has("diffusion")) {
    Obj d(o.raw("diffusion"), where + ".diffusion");
    a.denoiser_params = d.num("denoiser_params");
    a.text_encoder_params = d.num("text_encoder_params");
    a.vae_params = d.num("vae_params");
    a.cfg = d.boolean("cfg");
    a.latent_channels = d.integer("latent_channels", 0, 1e6);
    a.default_steps = d.integer("steps", 0, 1e6);
    if (d.has("levels")) {
      const json& lv = d.raw("levels");
      if (!lv.is_array()) throw InputError(where + ".diffusion.levels: expected an array of [channels, transformer layers, heads]");
      for (const auto& l : lv) {
        if (!l.is_array() || l.size() != 3 || !l[0].is_number_integer() || !l[1].is_number_integer() || !l[2].is_number_integer() ||
            l[0].get<std::int64_t>() < 1 || l[0].get<std::int64_t>() > 65536 || l[1].get<std::int64_t>() < 0 || l[1].get<std::int64_t>() > 1000 ||
            l[2].get<std::int64_t>() < 1 || l[2].get<std::int64_t>() > 1024)
          throw InputError(where + ".diffusion.levels: expected [channels, transformer layers, heads] as whole numbers (channels 1-65536, layers 0-1000, heads 1-1024)");
        a.levels.push_back({l[0].get<std::int64_t>(), l[1].get<std::int64_t>(), l[2].get<std::int64_t>()});
      }
    }
    if (d.has("dit")) {
      Obj t(d.raw("dit"), where + ".diffusion.dit");
      a.dit_blocks = t.integer("blocks", 0, 1e6);
      a.dit_hidden = t.integer("hidden", 0, 1e6);
      a.dit_heads = t.integer("heads", 0, 1e6);
      a.dit_text_tokens = t.integer("text_tokens", 0, 1e6);
      t.done();
    }
    d.done();
  }
  if (o.has("width_mult")) a.width_mult = o.num("width_mult");
  if (o.has("depth_mult")) a.depth_mult = o.num("depth_mult");
  if (o.has("yolo")) a.yolo_family = one_of("yolo", {"v5", "v5-p6", "v8", "v11", "x", "v6-rep", "v6-bep", "v7-tiny", "v7", "v7-x", "v7-w6", "v7-e6"});
  if (o.has("max_channels")) a.max_channels = o.num("max_channels");
  if (o.has("hidden_ratio")) a.hidden_ratio = o.num("hidden_ratio");
  if (o.has("note")) (void)o.str("note");
  o.done();
  if (a.backbone == "vit" && a.vit_layers <= 0) throw InputError(where + ".vit: a ViT needs layers, hidden, heads, mlp and patch");
  if (a.backbone == "cspdarknet" && a.yolo_family.empty())
    throw InputError(where + ".yolo: a cspdarknet backbone needs its family (valid: v5, v5-p6, v8, v11, x, v6-rep, v6-bep, v7-tiny, v7, v7-x, v7-w6, v7-e6)");
  if (a.backbone == "generic" && a.gmacs <= 0) throw InputError(where + ".gmacs: a generic backbone needs its published compute");
  return a;
}

}  // namespace

GpuCatalog parse_gpu_catalog_unguarded(std::string_view text, const std::string& origin) {
  const json j = parse_json(text, origin);
  Obj o(j, origin);
  GpuCatalog cat;
  const double version = o.num("schema_version");
  if (version != 1) throw InputError(origin + ".schema_version: unsupported version (valid: 1)");
  cat.version = o.str("catalog_version");
  const json& gpus = o.raw("gpus");
  if (!gpus.is_array() || gpus.empty()) throw InputError(origin + ".gpus: expected a non-empty array");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    GpuSpec g = parse_gpu(gpus[i], origin + ": gpus[" + std::to_string(i) + "]");
    if (!seen.insert(g.id).second) throw InputError(origin + ": gpus[" + std::to_string(i) + "]: duplicate id '" + g.id + "'");
    cat.gpus.push_back(std::move(g));
  }
  o.done();
  return cat;
}

// A config.json whose shape no model can have is bad input, with the key that breaks it (docs/method.md §1.3).
void check_config_shape(const ModelSpec& m, const std::string& origin) {
  auto bound = [&](const char* key, std::int64_t v, std::int64_t hi) {
    if (v > hi) throw InputError(origin + ": field '" + key + "' = " + std::to_string(v) + " is beyond any model (at most " + std::to_string(hi) + ")");
  };
  bound("num_hidden_layers", m.layers + m.encoder_layers, 10000);
  bound("hidden_size", m.hidden, 1000000);
  bound("num_attention_heads", m.heads, 65536);
  bound("head_dim", m.head_dim, 4096);
  bound("intermediate_size", std::max(m.ffn, m.expert_ffn), 10000000);
  bound("vocab_size", m.vocab, 100000000);
  bound("max_position_embeddings", m.context, 100000000);
  bound("num_local_experts", m.experts, 65536);
  if (m.kv_heads < 1 || m.kv_heads > m.heads)
    throw InputError(origin + ": field 'num_key_value_heads' = " + std::to_string(m.kv_heads) + " must be from 1 to num_attention_heads (" +
                     std::to_string(m.heads) + ")");
  if (!m.is_mla() && m.heads % m.kv_heads != 0)
    throw InputError(origin + ": field 'num_key_value_heads' = " + std::to_string(m.kv_heads) + " must divide num_attention_heads (" +
                     std::to_string(m.heads) + "): each KV head serves a whole group of query heads");
  if (m.experts_per_token > m.experts)
    throw InputError(origin + ": field 'num_experts_per_tok' = " + std::to_string(m.experts_per_token) + " exceeds the " +
                     std::to_string(m.experts) + " experts");
}

ModelSpec parse_hf_config_json(const json& c, const std::string& origin, const std::string& id);

ModelSpec parse_hf_config_unguarded(std::string_view text, const std::string& origin, const std::string& id) {
  return parse_hf_config_json(parse_json(text, origin), origin, id);
}

// A config already parsed (a preset's embedded config: no second serialisation and parse at every start).
ModelSpec parse_hf_config_json(const json& c, const std::string& origin, const std::string& id) {
  if (!c.is_object()) throw InputError(origin + ": expected a JSON object (a Hugging Face config.json)");
  std::string type;
  if (c.contains("model_type") && c["model_type"].is_string()) type = lower(c["model_type"].get<std::string>());
  if (type.empty()) throw InputError(origin + ": missing field 'model_type' (valid: llama, mistral, mixtral, qwen, qwen2, gemma, gemma2, phi, phi3, gpt2, gpt_neox, gpt_bigcode, falcon, bloom, mpt, bert, t5, mt5, deepseek_v3)");
  ModelSpec m;
  m.id = id;
  m.family = type;
  m.source = origin;
  std::string arch;
  if (c.contains("architectures") && c["architectures"].is_array() && !c["architectures"].empty() && c["architectures"][0].is_string())
    arch = c["architectures"][0].get<std::string>();
  auto llama_like = [&](bool tied_default) {
    m.layers = geti(c, {"num_hidden_layers"}, origin);
    m.hidden = geti(c, {"hidden_size"}, origin);
    m.heads = geti(c, {"num_attention_heads"}, origin);
    m.kv_heads = geti(c, {"num_key_value_heads"}, origin, m.heads);
    m.head_dim = geti(c, {"head_dim"}, origin, m.heads > 0 ? m.hidden / m.heads : 0);
    m.ffn = geti(c, {"intermediate_size"}, origin);
    m.vocab = geti(c, {"vocab_size"}, origin);
    m.context = geti(c, {"max_position_embeddings"}, origin, 4096);
    m.tied_embeddings = getb(c, "tie_word_embeddings", tied_default);
    m.qkv_bias = getb(c, "attention_bias", false);
    m.gated_mlp = true;
  };
  // GPT-style families: LayerNorm, two-matrix GeLU MLP, multi-head attention (callers adjust the rest).
  auto classic = [&](const std::vector<std::string>& layers, const std::vector<std::string>& hidden, const std::vector<std::string>& heads,
                     const std::vector<std::string>& ffn, std::int64_t ffn_mult, const std::vector<std::string>& context,
                     std::int64_t context_default, bool tied_default) {
    m.layers = geti(c, layers, origin);
    m.hidden = geti(c, hidden, origin);
    m.heads = geti(c, heads, origin);
    if (m.heads <= 0) throw InputError(origin + ": field '" + heads.front() + "' must be positive");
    m.kv_heads = m.heads;
    m.head_dim = m.hidden / m.heads;
    m.ffn = ffn.empty() ? ffn_mult * m.hidden : geti(c, ffn, origin, ffn_mult * m.hidden);
    m.vocab = geti(c, {"vocab_size"}, origin);
    m.context = geti(c, context, origin, context_default);
    m.tied_embeddings = getb(c, "tie_word_embeddings", tied_default);
    m.gated_mlp = false;
    m.layer_norm = true;
  };
  if (type == "llama" || type == "mistral" || type == "mixtral" || type == "qwen2" || type == "qwen2_moe" ||
      type == "gemma" || type == "gemma2" || type == "gemma3_text" || type == "phi3" || type == "qwen3" ||
      type == "starcoder2" || type == "cohere") {
    llama_like(type == "gemma" || type == "gemma2" || type == "gemma3_text");
    if (type == "qwen2" || type == "qwen2_moe") m.qkv_bias = true;
    if (type == "gemma2" || type == "gemma3_text") m.norms_per_layer = 4;
    const std::int64_t window = geti(c, {"sliding_window"}, origin, 0);
    if (window > 0 && (type == "mistral" || type == "gemma2" || type == "gemma3_text" || type == "mixtral" || type == "qwen2" ||
                       type == "phi3")) {
      bool use = true;
      if (type == "qwen2") use = getb(c, "use_sliding_window", false);
      if (use) {
        m.sliding_window = window;
        m.sliding_fraction = type == "gemma2" ? 0.5 : (type == "gemma3_text" ? 5.0 / 6.0 : 1.0);
      }
    }
    if (type == "mixtral" || type == "qwen2_moe") {
      m.experts = geti(c, {"num_local_experts", "num_experts"}, origin);
      m.experts_per_token = geti(c, {"num_experts_per_tok"}, origin, 2);
      m.expert_ffn = geti(c, {"moe_intermediate_size"}, origin, m.ffn);
      if (type == "qwen2_moe") {
        m.shared_experts = 1;
        m.shared_expert_ffn = geti(c, {"shared_expert_intermediate_size"}, origin, 0);
      }
    }
  } else if (type == "deepseek_v3" || type == "deepseek_v2") {
    llama_like(false);
    m.q_lora_rank = geti(c, {"q_lora_rank"}, origin, 0);
    m.kv_lora_rank = geti(c, {"kv_lora_rank"}, origin);
    m.qk_nope_head_dim = geti(c, {"qk_nope_head_dim"}, origin);
    m.qk_rope_head_dim = geti(c, {"qk_rope_head_dim"}, origin);
    m.v_head_dim = geti(c, {"v_head_dim"}, origin);
    m.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
    m.experts = geti(c, {"n_routed_experts"}, origin, 0);
    m.experts_per_token = geti(c, {"num_experts_per_tok"}, origin, 0);
    m.expert_ffn = geti(c, {"moe_intermediate_size"}, origin, 0);
    m.shared_experts = geti(c, {"n_shared_experts"}, origin, 0);
    m.shared_expert_ffn = m.expert_ffn;
    m.dense_layers = geti(c, {"first_k_dense_replace"}, origin, 0);
  } else if (type == "qwen") {
    // Qwen (v1): intermediate_size is twice each SwiGLU projection's width; c_attn has a bias.
    m.layers = geti(c, {"num_hidden_layers"}, origin);
    m.hidden = geti(c, {"hidden_size"}, origin);
    m.heads = geti(c, {"num_attention_heads"}, origin);
    m.kv_heads = m.heads;
    m.head_dim = geti(c, {"kv_channels"}, origin, m.hidden / std::max<std::int64_t>(1, m.heads));
    m.ffn = geti(c, {"intermediate_size"}, origin) / 2;
    m.vocab = geti(c, {"vocab_size"}, origin);
    m.context = geti(c, {"seq_length", "max_position_embeddings"}, origin, 2048);
    m.tied_embeddings = getb(c, "tie_word_embeddings", false);
    m.qkv_bias = true;
  } else if (type == "phi") {
    classic({"num_hidden_layers"}, {"hidden_size"}, {"num_attention_heads"}, {"intermediate_size"}, 4, {"max_position_embeddings"}, 2048,
            false);
    m.kv_heads = geti(c, {"num_key_value_heads"}, origin, m.heads);
    m.linear_bias = true;
    m.norms_per_layer = 1;
    m.parallel_attention = true;
  } else if (type == "gpt2" || type == "gpt_bigcode") {
    classic({"n_layer", "num_hidden_layers"}, {"n_embd", "hidden_size"}, {"n_head", "num_attention_heads"}, {"n_inner"}, 4,
            {"n_positions", "n_ctx"}, 1024, true);
    if (type == "gpt_bigcode" && getb(c, "multi_query", true)) m.kv_heads = 1;
    m.linear_bias = true;
    m.learned_positions = true;
  } else if (type == "gpt_neox") {
    classic({"num_hidden_layers"}, {"hidden_size"}, {"num_attention_heads"}, {"intermediate_size"}, 4, {"max_position_embeddings"}, 2048,
            false);
    m.linear_bias = true;
    m.parallel_attention = getb(c, "use_parallel_residual", true);
  } else if (type == "falcon" || type == "refinedweb" || type == "refinedwebmodel") {
    classic({"num_hidden_layers", "n_layer"}, {"hidden_size"}, {"num_attention_heads", "n_head"}, {"ffn_hidden_size"}, 4,
            {"max_position_embeddings"}, 2048, true);
    const bool new_arch = getb(c, "new_decoder_architecture", false);
    if (new_arch) m.kv_heads = geti(c, {"num_kv_heads", "n_head_kv"}, origin, m.heads);
    else m.kv_heads = getb(c, "multi_query", true) ? 1 : m.heads;
    m.linear_bias = getb(c, "bias", false);
    m.parallel_attention = getb(c, "parallel_attn", true);
    m.norms_per_layer = new_arch ? 2 : (m.parallel_attention ? 1 : 2);
  } else if (type == "bloom") {
    classic({"n_layer", "num_hidden_layers"}, {"hidden_size", "n_embed"}, {"n_head", "num_attention_heads"}, {}, 4, {"seq_length"}, 2048,
            true);
    m.linear_bias = true;
    m.embedding_norm = true;
  } else if (type == "mpt") {
    classic({"n_layers"}, {"d_model"}, {"n_heads"}, {}, geti(c, {"expansion_ratio"}, origin, 4), {"max_seq_len"}, 2048, true);
    m.linear_bias = !getb(c, "no_bias", true);
    m.layer_norm = !getb(c, "no_bias", true);
    m.learned_positions = getb(c, "learned_pos_emb", true);
  } else if (type == "bert" || type == "roberta") {
    classic({"num_hidden_layers"}, {"hidden_size"}, {"num_attention_heads"}, {"intermediate_size"}, 4, {"max_position_embeddings"}, 512,
            true);
    m.architecture = Architecture::encoder;
    m.type_vocab = geti(c, {"type_vocab_size"}, origin, 2);
    m.tied_embeddings = true;
    m.linear_bias = true;
    m.learned_positions = true;
    m.embedding_norm = true;
    m.pooler = true;
    if (arch.find("ForSequenceClassification") != std::string::npos) m.num_labels = geti(c, {"num_labels"}, origin, 2);
  } else if (type == "t5" || type == "mt5" || type == "umt5") {
    m.architecture = Architecture::encoder_decoder;
    m.hidden = geti(c, {"d_model"}, origin);
    m.heads = geti(c, {"num_heads"}, origin);
    m.kv_heads = m.heads;
    m.head_dim = geti(c, {"d_kv"}, origin, m.hidden / std::max<std::int64_t>(1, m.heads));
    m.ffn = geti(c, {"d_ff"}, origin);
    m.encoder_layers = geti(c, {"num_layers"}, origin);
    m.layers = geti(c, {"num_decoder_layers"}, origin, m.encoder_layers);
    m.vocab = geti(c, {"vocab_size"}, origin);
    m.context = 512;
    std::string ff = "relu";
    if (c.contains("feed_forward_proj") && c["feed_forward_proj"].is_string()) ff = c["feed_forward_proj"].get<std::string>();
    m.gated_mlp = ff.rfind("gated", 0) == 0;
    m.tied_embeddings = getb(c, "tie_word_embeddings", type == "t5");
    m.relative_attention_bias = true;
  } else {
    throw InputError(origin + ": model_type '" + type +
                     "' is not supported (valid: llama, mistral, mixtral, qwen, qwen2, gemma, gemma2, phi, phi3, gpt2, gpt_neox, "
                     "gpt_bigcode, falcon, bloom, mpt, bert, t5, mt5, deepseek_v3)");
  }
  if (m.hidden <= 0 || m.heads <= 0 || m.layers <= 0 || m.vocab <= 0 || m.head_dim <= 0)
    throw InputError(origin + ": hidden size, heads, layers, head_dim and vocab_size must be positive");
  check_config_shape(m, origin);
  return m;
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
        const std::string hint = did_you_mean(name, catalog.ids());
        throw InputError("--model: " + quote_input(arg) + " is neither a readable config.json or snapshot folder nor a repo id with a preset (" +
                         (hint.empty() ? std::string("'gpuadvise models' lists them") : hint) + "): download its config.json and pass the file");
      }
      throw InputError("--model: cannot read config file " + quote_input(arg));
    }
    std::string name = arg;
    const auto slash = name.find_last_of('/');
    if (slash != std::string::npos) name = name.substr(slash + 1);
    if (name.ends_with(".json")) name.resize(name.size() - 5);
    return parse_hf_config(*text, arg, name);
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

std::vector<std::pair<std::string, double>> parse_price_file_unguarded(std::string_view text, const std::string& origin) {
  const json j = parse_json(text, origin);
  if (!j.is_object()) throw InputError(origin + ": expected an object of GPU id -> USD per GPU-hour");
  std::vector<std::pair<std::string, double>> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_number() || it.value().get<double>() < 0)
      throw InputError(origin + "." + it.key() + ": expected a non-negative number of USD per GPU-hour");
    out.emplace_back(it.key(), it.value().get<double>());
  }
  return out;
}

// A workload file is read in one pass of SAX events straight into RawWorkloads (no JSON tree: a CI file of
// 10,000 workloads is read in milliseconds). Values keep the text the user wrote, so errors echo it exactly.
class WorkloadReader : public nlohmann::json_sax<json> {
public:
  explicit WorkloadReader(const std::string& origin) : m_origin(origin) {}
  std::vector<RawWorkload> out;
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
    if (out.empty()) return fail(m_origin + ": expected a workload object or a non-empty array of them");
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    if (error.empty()) {
      std::string what = e.what();
      const auto pos = what.find("parse error");
      error = m_origin + ": malformed JSON (" + (pos == std::string::npos ? what : what.substr(pos)) + ")";
    }
    return false;
  }

private:
  std::string where() const { return m_top_array ? m_origin + "[" + std::to_string(m_index) + "]" : m_origin; }
  std::string field() const { return where() + "." + m_key; }
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
  std::string m_key;
  std::size_t m_depth = 0, m_index = 0;
  bool m_top_array = false, m_in_object = false;
};

std::vector<RawWorkload> parse_workload_file_unguarded(std::string_view text, const std::string& origin) {
  WorkloadReader reader(origin);
  const bool ok = json::sax_parse(text.begin(), text.end(), &reader);
  if (!ok || !reader.error.empty()) throw InputError(reader.error.empty() ? origin + ": malformed JSON" : reader.error);
  if (reader.out.empty()) throw InputError(origin + ": expected a workload object or a non-empty array of them");
  return std::move(reader.out);
}

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
    k.memory_factor = need_number(c, "memory_factor", where, 0.2, 5.0);
    k.speed_factor = need_number(c, "speed_factor", where, 0.1, 10.0);
    k.source = c.contains("source") && c.at("source").is_string() ? c.at("source").get<std::string>() : "";
    k.saved = c.contains("saved") && c.at("saved").is_string() ? c.at("saved").get<std::string>() : "";
    out.push_back(std::move(k));
  }
  return out;
}

std::string calibration_json(const std::vector<LocalCorrection>& corrections) {
  json arr = json::array();
  for (const auto& k : corrections)
    arr.push_back({{"gpu", k.gpu}, {"framework", k.framework}, {"training", k.training}, {"memory_factor", k.memory_factor},
                   {"speed_factor", k.speed_factor}, {"source", k.source}, {"saved", k.saved}});
  json j;
  j["note"] = "local corrections from gpuadvise calibrate --save; every answer they change says so; gpuadvise calibrate --reset removes them";
  j["corrections"] = arr;
  return j.dump(2) + "\n";
}

namespace {
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
}  // namespace

GpuCatalog parse_gpu_catalog(std::string_view text, const std::string& origin) {
  return json_guard(origin, [&] { return parse_gpu_catalog_unguarded(text, origin); });
}
ModelCatalog parse_model_catalog(std::string_view text, const std::string& origin) {
  return json_guard(origin, [&] { return parse_model_catalog_unguarded(text, origin); });
}
ModelSpec parse_hf_config(std::string_view text, const std::string& origin, const std::string& id) {
  return json_guard(origin, [&] { return parse_hf_config_unguarded(text, origin, id); });
}
std::vector<std::pair<std::string, double>> parse_price_file(std::string_view text, const std::string& origin) {
  return json_guard(origin, [&] { return parse_price_file_unguarded(text, origin); });
}
std::vector<RawWorkload> parse_workload_file(std::string_view text, const std::string& origin) {
  return json_guard(origin, [&] { return parse_workload_file_unguarded(text, origin); });
}

ProbeResult parse_probe_result(std::string_view text, const std::string& origin) {
  return json_guard(origin, [&] { return parse_probe_result_unguarded(text, origin); });
}
std::vector<LocalCorrection> parse_calibration(std::string_view text, const std::string& origin) {
  return json_guard(origin, [&] { return parse_calibration_unguarded(text, origin); });
}

}  // namespace gpuadvise
