// Builds the bundled GPU catalogue from the generated tables (gpu_rows.hpp).
#include "gpu_rows.hpp"

#include <string>

namespace gpuadvise::gen {

namespace {
template <class T>
std::optional<T> maybe(const Maybe<T>& m) {
  return m.known ? std::optional<T>(m.value) : std::nullopt;
}
}  // namespace

GpuCatalog build_gpu_catalog(const GpuTables& t, Provenance provenance) {
  const bool kept = provenance == Provenance::kept;
  auto str = [&](Text x) { return std::string(t.text.substr(x.at, x.size)); };
  auto opt_str = [&](const Maybe<Text>& x) { return x.known ? std::optional<std::string>(str(x.value)) : std::nullopt; };
  GpuCatalog c;
  c.version = std::string(t.version);
  c.gpus.reserve(t.gpus.size());
  for (const GpuRow& r : t.gpus) {
    GpuSpec& g = c.gpus.emplace_back();  // built in place: no second copy of each spec
    g.id = str(r.id);
    g.vendor = str(r.vendor);
    g.name = str(r.name);
    g.architecture = str(r.architecture);
    g.form_factor = str(r.form_factor);
    g.memory_type = str(r.memory_type);
    g.segment = r.segment;
    g.nominal_memory_gb = r.nominal_memory_gb;
    g.memory_bytes = r.memory_bytes;
    g.capacity_basis = str(r.capacity_basis);
    g.bandwidth_gb_per_s = maybe(r.bandwidth_gb_per_s);
    for (std::size_t k = 0; k < g.dense_tflops.values.size(); ++k) g.dense_tflops.values[k] = maybe(r.dense_tflops[k]);
    g.interconnect = str(r.interconnect);
    g.interconnect_gb_per_s = maybe(r.interconnect_gb_per_s);
    g.pcie_gen = maybe(r.pcie_gen);
    g.host_link_gb_per_s = maybe(r.host_link_gb_per_s);
    g.board_power_w = maybe(r.board_power_w);
    g.sustained_clock_share = maybe(r.sustained_clock_share);
    g.multiprocessors = maybe(r.multiprocessors);
    g.boost_clock_mhz = maybe(r.boost_clock_mhz);
    g.stack = str(r.stack);
    g.compute_capability = opt_str(r.compute_capability);
    g.gfx_target = opt_str(r.gfx_target);
    g.needs_server_chassis = r.needs_server_chassis;
    g.nvdec_engines = maybe(r.nvdec_engines);
    g.decode_streams_1080p30 = maybe(r.decode_streams_1080p30);
    g.node.gpus_per_node = maybe(r.gpus_per_node);
    g.node.fast_link_gpus = r.fast_link_gpus;
    g.node.pcie_p2p = maybe(r.pcie_p2p);
    g.node.network_gbit_per_gpu = maybe(r.network_gbit_per_gpu);
    g.node.network = str(r.network);
    g.node.host_ram_gb = maybe(r.host_ram_gb);
    g.fp8 = r.fp8;
    g.fp4 = r.fp4;
    g.purchase_usd = maybe(r.purchase_usd);
    g.prices.reserve(r.prices.count);
    for (const PriceRow& p : t.prices.subspan(r.prices.first, r.prices.count))
      g.prices.push_back(PriceOffer{str(p.provider), maybe(p.usd_per_gpu_hour), str(p.date_seen), str(p.source), str(p.note)});
    if (!kept) continue;
    g.node.source = str(r.node_source);
    for (const SourceRow& s : t.sources.subspan(r.sources.first, r.sources.count)) g.sources[str(s.field)] = str(s.source);
    for (const Text& u : t.uncertain.subspan(r.uncertain.first, r.uncertain.count)) g.uncertain.push_back(str(u));
    g.notes = str(r.notes);
  }
  return c;
}

}  // namespace gpuadvise::gen
