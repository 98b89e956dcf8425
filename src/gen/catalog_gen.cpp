// gpuadvise_catalog_gen: turns the bundled catalogues (data/gpus.json, data/models.json, as gpuadvise_io reads
// them) into C++ (the GPUs as constant tables, the presets as code) that builds the same GpuCatalog and
// ModelCatalog, so a run starts without parsing JSON (docs/performance.md). The JSON stays the source of truth:
// CMake reruns this when it changes, and a test checks that the generated catalogues equal the parsed ones field
// by field.
// Usage: gpuadvise_catalog_gen OUT.cpp
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuadvise/catalog.hpp"

namespace {
using namespace gpuadvise;

std::string lit(const std::string& s) {
  std::string o = "\"";
  for (const unsigned char ch : s) {
    if (ch == '"' || ch == '\\') o += '\\', o += static_cast<char>(ch);
    else if (ch == '\n') o += "\\n";
    else if (ch < 0x20 || ch >= 0x7f) o += fmt::format("\\{:03o}", ch);  // octal: never swallows a following digit
    else o += static_cast<char>(ch);
  }
  return o + "\"";
}
std::string num(double v) { return fmt::format("{:.17g}", v); }
const char* boolean(bool b) { return b ? "true" : "false"; }
std::string strings(const std::vector<std::string>& v) {
  std::string o = "{";
  for (const auto& s : v) o += lit(s) + ", ";
  return o + "}";
}

const char* segment(Segment s) {
  switch (s) {
    case Segment::consumer: return "Segment::consumer";
    case Segment::workstation: return "Segment::workstation";
    case Segment::datacenter_pcie: return "Segment::datacenter_pcie";
    case Segment::datacenter_module: return "Segment::datacenter_module";
    case Segment::edge: return "Segment::edge";
  }
  return "Segment::consumer";
}
const char* architecture(Architecture a) {
  switch (a) {
    case Architecture::decoder: return "Architecture::decoder";
    case Architecture::encoder: return "Architecture::encoder";
    case Architecture::encoder_decoder: return "Architecture::encoder_decoder";
  }
  return "Architecture::decoder";
}

// The GPU catalogue as constant tables (gpu_rows.hpp): every string once in one character array, each row its
// offsets; lists as ranges of shared tables.
class GpuTableWriter {
 public:
  void add(const GpuSpec& g) {
    std::string r = "  {";
    for (const std::string* s : {&g.id, &g.vendor, &g.name, &g.architecture, &g.form_factor, &g.memory_type}) r += text(*s) + ", ";
    r += fmt::format("{}, {}, {}LL, {}, {}, {{", segment(g.segment), num(g.nominal_memory_gb), g.memory_bytes, text(g.capacity_basis), maybe(g.bandwidth_gb_per_s));
    for (const auto& v : g.dense_tflops.values) r += maybe(v) + ", ";
    r += fmt::format("}}, {}, {}, {}, {}, {}, {}, {}, {}, {}, ", text(g.interconnect), maybe(g.interconnect_gb_per_s), maybe(g.pcie_gen), maybe(g.host_link_gb_per_s),
                     maybe(g.board_power_w), maybe(g.sustained_clock_share), maybe(g.multiprocessors), maybe(g.boost_clock_mhz), text(g.stack));
    r += fmt::format("{}, {}, {}, {}, {}, ", maybe(g.compute_capability), maybe(g.gfx_target), boolean(g.needs_server_chassis), maybe(g.nvdec_engines),
                     maybe(g.decode_streams_1080p30));
    r += fmt::format("{}, {}, {}, {}, {}, {}, {}, ", maybe(g.node.gpus_per_node), g.node.fast_link_gpus, maybe(g.node.pcie_p2p), maybe(g.node.network_gbit_per_gpu),
                     text(g.node.network), maybe(g.node.host_ram_gb), provenance(g.node.source));
    r += fmt::format("{}, {}, {}, ", boolean(g.fp8), boolean(g.fp4), maybe(g.purchase_usd));
    r += range(prices_.size(), g.prices.size()) + ", " + range(sources_.size(), g.sources.size()) + ", " + range(uncertain_.size(), g.uncertain.size());
    for (const auto& p : g.prices)
      prices_.push_back(fmt::format("  {{{}, {}, {}, {}, {}}},  // {}", text(p.provider), maybe(p.usd_per_gpu_hour), text(p.date_seen), text(p.source), text(p.note), g.id));
    for (const auto& [field, source] : g.sources) sources_.push_back(fmt::format("  {{{}, {}}},  // {}", provenance(field), provenance(source), g.id));
    for (const auto& u : g.uncertain) uncertain_.push_back(fmt::format("  {},  // {}", provenance(u), g.id));
    rows_.push_back(r + ", " + provenance(g.notes) + "},  // " + g.id);
  }
  void write(std::ostream& o, const std::string& version) const {
    // What every run reads first, then the provenance only `gpus ID` reads: a run without it touches one compact span.
    o << "constexpr char k_gpu_text[] = " << lit(pool_.bytes + provenance_pool_.bytes) << ";\n";
    o << "constexpr std::uint32_t k_provenance = " << pool_.bytes.size() << ";\n";
    table(o, "GpuRow", "k_gpu_rows", rows_);
    table(o, "PriceRow", "k_gpu_prices", prices_);
    table(o, "SourceRow", "k_gpu_sources", sources_);
    table(o, "Text", "k_gpu_uncertain", uncertain_);
    o << "GpuCatalog build_gpus(Provenance provenance) {\n  return build_gpu_catalog(GpuTables{std::string_view(k_gpu_text, sizeof k_gpu_text - 1), "
      << lit(version) << ", k_gpu_rows, " << span("k_gpu_prices", prices_) << ", " << span("k_gpu_sources", sources_) << ", "
      << span("k_gpu_uncertain", uncertain_) << "}, provenance);\n}\n\n";
  }

 private:
  // Each distinct string once; a reference is its offset, written after `base` (the provenance pool follows the
  // other in the generated array).
  struct Pool {
    std::string bytes;
    std::map<std::string, std::size_t> offsets;
    std::string ref(const std::string& s, const char* base) {
      auto [it, added] = offsets.try_emplace(s, bytes.size());
      if (added) bytes += s;
      return fmt::format("Text{{{}{}, {}}}", base, it->second, s.size());
    }
  };
  std::string text(const std::string& s) { return pool_.ref(s, ""); }
  std::string provenance(const std::string& s) { return provenance_pool_.ref(s, "k_provenance + "); }
  std::string maybe(const std::optional<double>& v) { return v ? "Maybe<double>{true, " + num(*v) + "}" : "Maybe<double>{}"; }
  std::string maybe(const std::optional<int>& v) { return v ? fmt::format("Maybe<int>{{true, {}}}", *v) : "Maybe<int>{}"; }
  std::string maybe(const std::optional<bool>& v) { return v ? fmt::format("Maybe<bool>{{true, {}}}", boolean(*v)) : "Maybe<bool>{}"; }
  std::string maybe(const std::optional<std::string>& v) { return v ? "Maybe<Text>{true, " + text(*v) + "}" : "Maybe<Text>{}"; }
  static std::string range(std::size_t first, std::size_t count) {
    if (first + count > 0xffff) throw std::runtime_error("a GPU table outgrew gpu_rows.hpp's 16-bit ranges");
    return fmt::format("Range{{{}, {}}}", first, count);
  }
  // An empty table has no array (a zero-length array is not standard C++): its span is empty.
  static std::string span(const char* name, const std::vector<std::string>& rows) { return rows.empty() ? "{}" : name; }
  static void table(std::ostream& o, const char* type, const char* name, const std::vector<std::string>& rows) {
    if (rows.empty()) return;
    o << "constexpr " << type << " " << name << "[] = {\n";
    for (const auto& r : rows) o << r << "\n";
    o << "};\n";
  }
  Pool pool_, provenance_pool_;
  std::vector<std::string> rows_, prices_, sources_, uncertain_;
};

void vision(std::ostream& o, const VisionArch& a) {
  o << "    VisionArch a;\n";
  o << fmt::format("    a.task = {}; a.backbone = {}; a.neck = {}; a.head = {}; a.cascade_stages = {}; a.box_convs = {}; a.mask_convs = {}; a.classes = {};\n",
                   lit(a.task), lit(a.backbone), lit(a.neck), lit(a.head), a.cascade_stages, a.box_convs, a.mask_convs, a.classes);
  o << fmt::format("    a.dconv = {}; a.gn = {}; a.syncbn = {}; a.scratch = {}; a.params = {}; a.gmacs = {}; a.flops_unit = {};\n", boolean(a.dconv),
                   boolean(a.gn), boolean(a.syncbn), boolean(a.scratch), num(a.params), num(a.gmacs), lit(a.flops_unit));
  o << fmt::format("    a.ref_w = {}; a.ref_h = {}; a.train_max_w = {}; a.train_max_h = {};\n", a.ref_w, a.ref_h, a.train_max_w, a.train_max_h);
  o << fmt::format("    a.vit_layers = {}; a.vit_hidden = {}; a.vit_heads = {}; a.vit_mlp = {}; a.patch = {};\n", a.vit_layers, a.vit_hidden, a.vit_heads,
                   a.vit_mlp, a.patch);
  o << fmt::format("    a.width_mult = {}; a.depth_mult = {}; a.yolo_family = {}; a.max_channels = {}; a.hidden_ratio = {};\n", num(a.width_mult),
                   num(a.depth_mult), lit(a.yolo_family), num(a.max_channels), num(a.hidden_ratio));
  o << fmt::format("    a.denoiser_params = {}; a.text_encoder_params = {}; a.vae_params = {}; a.cfg = {}; a.latent_channels = {};\n",
                   num(a.denoiser_params), num(a.text_encoder_params), num(a.vae_params), boolean(a.cfg), a.latent_channels);
  if (a.fp32_text_encoder_params > 0) o << fmt::format("    a.fp32_text_encoder_params = {};\n", num(a.fp32_text_encoder_params));
  for (const auto& l : a.levels) o << fmt::format("    a.levels.push_back(VisionArch::Level{{{}, {}, {}}});\n", l.channels, l.transformer_layers, l.heads);
  o << fmt::format("    a.dit_blocks = {}; a.dit_hidden = {}; a.dit_heads = {}; a.dit_text_tokens = {}; a.default_steps = {};\n", a.dit_blocks,
                   a.dit_hidden, a.dit_heads, a.dit_text_tokens, a.default_steps);
  if (a.dit_t5_tokens > 0) o << fmt::format("    a.dit_t5_tokens = {}; a.dit_t5_max_tokens = {};\n", a.dit_t5_tokens, a.dit_t5_max_tokens);
  if (a.dit_double_blocks > 0 || a.dit_qk_norm || a.dit_rope)
    o << fmt::format("    a.dit_double_blocks = {}; a.dit_qk_norm = {}; a.dit_rope = {};\n", a.dit_double_blocks, boolean(a.dit_qk_norm), boolean(a.dit_rope));
  o << "    m.vision = std::move(a);\n";
}

// One preset as its own function (model_N), so that a run that needs one builds only that one.
void model(std::ostream& o, const ModelSpec& m, std::size_t n) {
  o << "ModelSpec model_" << n << "() {\n  {\n    ModelSpec m;\n";
  o << fmt::format("    m.id = {}; m.family = {}; m.source = {}; m.architecture = {};\n", lit(m.id), lit(m.family), lit(m.source), architecture(m.architecture));
  if (!m.checkpoint_format.empty()) o << fmt::format("    m.checkpoint_format = {};\n", lit(m.checkpoint_format));
  if (m.checkpoint_precision) o << fmt::format("    m.checkpoint_precision = Precision::{};\n", to_string(*m.checkpoint_precision));
  o << fmt::format("    m.layers = {}; m.encoder_layers = {}; m.hidden = {}; m.heads = {}; m.kv_heads = {}; m.head_dim = {}; m.ffn = {}; m.vocab = {}; m.context = {};\n",
                   m.layers, m.encoder_layers, m.hidden, m.heads, m.kv_heads, m.head_dim, m.ffn, m.vocab, m.context);
  o << fmt::format("    m.tied_embeddings = {}; m.gated_mlp = {}; m.qkv_bias = {}; m.linear_bias = {}; m.layer_norm = {}; m.norms_per_layer = {};\n",
                   boolean(m.tied_embeddings), boolean(m.gated_mlp), boolean(m.qkv_bias), boolean(m.linear_bias), boolean(m.layer_norm), m.norms_per_layer);
  o << fmt::format("    m.parallel_attention = {}; m.learned_positions = {}; m.type_vocab = {}; m.embedding_norm = {}; m.pooler = {}; m.num_labels = {};\n",
                   boolean(m.parallel_attention), boolean(m.learned_positions), m.type_vocab, boolean(m.embedding_norm), boolean(m.pooler), m.num_labels);
  o << fmt::format("    m.experts = {}; m.experts_per_token = {}; m.shared_experts = {}; m.expert_ffn = {}; m.shared_expert_ffn = {}; m.dense_layers = {};\n",
                   m.experts, m.experts_per_token, m.shared_experts, m.expert_ffn, m.shared_expert_ffn, m.dense_layers);
  o << fmt::format("    m.q_lora_rank = {}; m.kv_lora_rank = {}; m.qk_nope_head_dim = {}; m.qk_rope_head_dim = {}; m.v_head_dim = {};\n", m.q_lora_rank,
                   m.kv_lora_rank, m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim);
  o << fmt::format("    m.sliding_window = {}; m.sliding_fraction = {}; m.relative_attention_bias = {}; m.exact_params = {}; m.notes = {};\n",
                   m.sliding_window, num(m.sliding_fraction), boolean(m.relative_attention_bias), num(m.exact_params), strings(m.notes));
  if (m.vision) vision(o, *m.vision);
  o << "    return m;\n  }\n}\n\n";
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: gpuadvise_catalog_gen OUT.cpp\n";
    return 2;
  }
  try {
    const GpuCatalog gpus = parse_gpu_catalog(bundled_gpu_catalog(), "bundled data/gpus.json");
    const ModelCatalog models = parse_model_catalog(bundled_model_catalog(), "bundled data/models.json");
    std::ofstream o(argv[1]);
    o << "// Generated by gpuadvise_catalog_gen from data/gpus.json and data/models.json: do not edit.\n"
         "#include \"bundled.hpp\"\n#include \"gpu_rows.hpp\"\n\nnamespace gpuadvise {\n\nnamespace {\nusing namespace gen;\n\n";
    GpuTableWriter gpu_tables;
    for (const auto& g : gpus.gpus) gpu_tables.add(g);
    gpu_tables.write(o, gpus.version);
    for (std::size_t i = 0; i < models.models.size(); ++i) model(o, models.models[i], i);
    o << "ModelCatalog build_models() {\n  ModelCatalog c;\n  c.models.reserve(" << models.models.size() << ");\n";
    for (std::size_t i = 0; i < models.models.size(); ++i) o << "  c.models.push_back(model_" << i << "());\n";
    o << "  return c;\n}\n}  // namespace\n\n"
         "std::optional<ModelSpec> bundled_model(std::string_view id) {\n";
    for (std::size_t i = 0; i < models.models.size(); ++i) o << "  if (id == " << lit(models.models[i].id) << ") return model_" << i << "();\n";
    o << "  return std::nullopt;\n}\n\n"
         "GpuCatalog make_bundled_gpus(Provenance provenance) { return build_gpus(provenance); }\n"
         "const GpuCatalog& bundled_gpus() {\n  static const GpuCatalog c = build_gpus(Provenance::kept);\n  return c;\n}\n"
         "const ModelCatalog& bundled_models() {\n  static const ModelCatalog c = build_models();\n  return c;\n}\n\n}  // namespace gpuadvise\n";
    o.flush();
    return o ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "gpuadvise_catalog_gen: " << e.what() << "\n";
    return 1;
  }
}
