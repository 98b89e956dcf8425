#pragma once
// The bundled GPU catalogue as constant tables (src/gen/): gpuadvise_catalog_gen writes one GpuRow per GPU, its
// strings as offsets into one character array and its lists as ranges of shared tables, so the tables hold no
// pointers (no relocations at load) and one short loop builds every GpuSpec. Straight-line code per GPU was
// 38 KB of instructions run once and cold at every start (docs/performance.md).
#include <cstdint>
#include <span>
#include <string_view>

#include "bundled.hpp"

namespace gpuadvise::gen {

struct Text {
  std::uint32_t at = 0, size = 0;
};
// An optional value: `known` false is the catalogue's null.
template <class T>
struct Maybe {
  bool known = false;
  T value{};
};
struct Range {
  std::uint16_t first = 0, count = 0;
};

struct PriceRow {
  Text provider;
  Maybe<double> usd_per_gpu_hour;
  Text date_seen, source, note;
};
struct SourceRow {
  Text field, source;
};
struct GpuRow {
  Text id, vendor, name, architecture, form_factor, memory_type;
  Segment segment;
  double nominal_memory_gb;
  std::int64_t memory_bytes;
  Text capacity_basis;
  Maybe<double> bandwidth_gb_per_s;
  Maybe<double> dense_tflops[7];  // DenseTflops::keys order
  Text interconnect;
  Maybe<double> interconnect_gb_per_s;
  Maybe<int> pcie_gen;
  Maybe<double> host_link_gb_per_s, board_power_w, sustained_clock_share;
  Maybe<int> multiprocessors;
  Maybe<double> boost_clock_mhz;
  Text stack;
  Maybe<Text> compute_capability, gfx_target;
  bool needs_server_chassis;
  Maybe<int> nvdec_engines;
  Maybe<double> decode_streams_1080p30;
  Maybe<int> gpus_per_node;
  int fast_link_gpus;
  Maybe<bool> pcie_p2p;
  Maybe<double> network_gbit_per_gpu;
  Text network;
  Maybe<double> host_ram_gb;
  Text node_source;
  bool fp8, fp4;
  Maybe<double> purchase_usd;
  Range prices, sources, uncertain;
  Text notes;
};

// The tables one generated catalogue is made of.
struct GpuTables {
  std::string_view text;
  std::string_view version;
  std::span<const GpuRow> gpus;
  std::span<const PriceRow> prices;
  std::span<const SourceRow> sources;
  std::span<const Text> uncertain;
};

GpuCatalog build_gpu_catalog(const GpuTables& tables, Provenance provenance);

}  // namespace gpuadvise::gen
